"""Playing a move on the search's python-chess board, faster than `Board.push` for ordinary moves.

`Board.push` handles every case (castling in both notations, en passant, promotions, drops, null
moves) through several generic helpers. Almost every move the search plays at its root is an
ordinary one: a piece or pawn goes from one square to another, perhaps
taking. `push` plays those directly on the bitboards and leaves the rest to python-chess, with
the same resulting board in every case: the same bitboards, rights, counters, move stack, and an
undo record on the board's own stack, so that `Board.pop` (and everything else of python-chess)
works unchanged.
"""

from __future__ import annotations

import chess

_SQUARES = chess.BB_SQUARES


class _Undo:
    """What `Board.pop` restores: python-chess's own record of a position, with slots."""

    __slots__ = ("pawns", "knights", "bishops", "rooks", "queens", "kings", "occupied_w",
                 "occupied_b", "occupied", "promoted", "turn", "castling_rights", "ep_square",
                 "halfmove_clock", "fullmove_number")

    def __init__(self, board: chess.Board) -> None:
        self.pawns = board.pawns
        self.knights = board.knights
        self.bishops = board.bishops
        self.rooks = board.rooks
        self.queens = board.queens
        self.kings = board.kings
        self.occupied_b, self.occupied_w = board.occupied_co
        self.occupied = board.occupied
        self.promoted = board.promoted
        self.turn = board.turn
        self.castling_rights = board.castling_rights
        self.ep_square = board.ep_square
        self.halfmove_clock = board.halfmove_clock
        self.fullmove_number = board.fullmove_number

    def restore(self, board: chess.Board) -> None:
        board.pawns = self.pawns
        board.knights = self.knights
        board.bishops = self.bishops
        board.rooks = self.rooks
        board.queens = self.queens
        board.kings = self.kings
        board.occupied_co[chess.WHITE] = self.occupied_w
        board.occupied_co[chess.BLACK] = self.occupied_b
        board.occupied = self.occupied
        board.promoted = self.promoted
        board.turn = self.turn
        board.castling_rights = self.castling_rights
        board.ep_square = self.ep_square
        board.halfmove_clock = self.halfmove_clock
        board.fullmove_number = self.fullmove_number


def push(board: chess.Board, move: chess.Move) -> None:
    """Plays the legal ``move`` on ``board``, as ``board.push(move)`` would."""
    from_square = move.from_square
    to_square = move.to_square
    from_bb = _SQUARES[from_square]
    to_bb = _SQUARES[to_square]
    turn = board.turn
    occupied_co = board.occupied_co
    moving_pawn = board.pawns & from_bb
    if (move.promotion or from_square == to_square or not board._stack
            or (moving_pawn and to_square == board.ep_square)
            or (board.kings & from_bb and (to_bb & occupied_co[turn]
                                           or abs((from_square & 7) - (to_square & 7)) > 1))):
        # Promotions, null moves, en passant, castling, and a board whose castling rights
        # python-chess has yet to clean: its own push.
        board.push(move)
        return

    board._stack.append(_Undo(board))
    board.move_stack.append(move)

    # The piece boards are updated by two spelled-out if-chains (victim, mover): a helper taking
    # the board's attribute by name would cost more per move than the lines it saves.
    them = occupied_co[not turn]
    captured = to_bb & them
    if captured:
        occupied_co[not turn] = them ^ to_bb
        if board.pawns & to_bb:
            board.pawns ^= to_bb
        elif board.knights & to_bb:
            board.knights ^= to_bb
        elif board.bishops & to_bb:
            board.bishops ^= to_bb
        elif board.rooks & to_bb:
            board.rooks ^= to_bb
        else:
            board.queens ^= to_bb

    moved = from_bb | to_bb
    board.ep_square = None
    if moving_pawn:
        board.pawns ^= moved
        if to_square - from_square == 16 and from_bb & chess.BB_RANK_2:
            board.ep_square = from_square + 8
        elif from_square - to_square == 16 and from_bb & chess.BB_RANK_7:
            board.ep_square = from_square - 8
    elif board.knights & from_bb:
        board.knights ^= moved
    elif board.bishops & from_bb:
        board.bishops ^= moved
    elif board.rooks & from_bb:
        board.rooks ^= moved
    elif board.queens & from_bb:
        board.queens ^= moved
    else:
        board.kings ^= moved
        if not board.promoted & from_bb:
            board.castling_rights &= ~(chess.BB_RANK_1 if turn else chess.BB_RANK_8)
    occupied_co[turn] ^= moved
    board.occupied = occupied_co[turn] | occupied_co[not turn]
    if board.castling_rights:
        board.castling_rights &= ~moved
    if board.promoted:
        # A promoted piece stays marked as one on its new square; a captured one's mark goes.
        board.promoted = (board.promoted & ~moved) | (to_bb if board.promoted & from_bb else 0)

    board.halfmove_clock = 0 if moving_pawn or captured else board.halfmove_clock + 1
    if not turn:
        board.fullmove_number += 1
    board.turn = not turn
