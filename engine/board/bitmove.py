"""Playing a move on the bitboards inside numba: the make-move of the scout kernel.

A move is a code of engine/board/movecode.py, as the move-list kernels of engine/board/movegen.py
build it. `play` returns the six piece boards, White's men and the castling rights after it;
`child` the record of the new position (engine/board/position.py) with what a node of the search
needs of it: its key (the parent's, with the changed squares XORed out and in), whether it is
check, the en passant square and the halfmove clock. Both return new values, so the caller's
position is its own undo. `move_code` gives a python-chess move's code, for the Python search's
calls into the kernel.
"""

from __future__ import annotations

import chess
from numba import boolean, int64, njit

from engine.board import movecode
from engine.board.bitboards import BACK_RANK, SQUARE_BB, U0, compile_kernel, stack_buffer
from engine.board.movegen import MAX_CAPTURES, captures_into, evasion_kernel
from engine.board.position import Position
from engine.board.zobrist import EN_PASSANT_KEYS, RANDOM, is_in_check, key_after_move


def move_code(board: chess.Board, move: chess.Move) -> int:
    """The code of ``move``, a legal move of ``board`` (castling as python-chess writes it: the
    king's two-square step, or in Chess960 the king taking its own rook)."""
    origin, target = move.from_square, move.to_square
    victim = 0
    if board.occupied_co[not board.turn] & chess.BB_SQUARES[target]:
        victim = board.piece_type_at(target)
    elif target == board.ep_square and board.pawns & chess.BB_SQUARES[origin]:
        victim = chess.PAWN
    return movecode.make.py_func(origin, target, victim, board.piece_type_at(origin),
                                 move.promotion or 0)


@njit(cache=True, nogil=True, inline="always")
def is_quiet_code(code):
    """Whether the move ``code`` is quiet: not a capture (en passant included) nor a promotion."""
    return movecode.victim(code) == 0 and movecode.promotion(code) == 0


compile_kernel(is_quiet_code, boolean(int64))  # at import: the Python search calls it too




@njit(cache=True, nogil=True, inline="always")
def _toggle(kind, squares, pawns, knights, bishops, rooks, queens, kings):
    """The six piece boards with ``squares`` toggled on the board of ``kind`` (1 pawn ... 6 king)."""
    if kind == 1:
        pawns ^= squares
    elif kind == 2:
        knights ^= squares
    elif kind == 3:
        bishops ^= squares
    elif kind == 4:
        rooks ^= squares
    elif kind == 5:
        queens ^= squares
    else:
        kings ^= squares
    return pawns, knights, bishops, rooks, queens, kings


@njit(cache=True, nogil=True)
def play(code, position):
    """The bitboards, White's men and castling rights after the move ``code`` (engine/board/movecode.py:
    victim 0 for a quiet move, promotion 0 for none) from ``position``; castling is the king's
    two-square step, or in Chess960 the king taking its own rook."""
    (pawns, knights, bishops, rooks, queens, kings, white, castling, white_to_move, _, _, _,
     _) = position
    origin = movecode.origin(code)
    target = movecode.target(code)
    victim_type = movecode.victim(code)
    mover_type = movecode.mover(code)
    promotion = movecode.promotion(code)
    from_bb = SQUARE_BB[origin]
    to_bb = SQUARE_BB[target]
    if mover_type == 6 and to_bb & rooks & (white if white_to_move else ~white):
        # Castling in Chess960 (king takes rook): both go to their squares of standard castling,
        # which may be where either stands (XOR leaves such a square as it was).
        base = origin & 56
        king_to = SQUARE_BB[base + 6 if target > origin else base + 2]
        rook_to = SQUARE_BB[base + 5 if target > origin else base + 3]
        kings ^= from_bb ^ king_to
        rooks ^= to_bb ^ rook_to
        if white_to_move:
            white ^= from_bb ^ king_to ^ to_bb ^ rook_to
        castling &= ~BACK_RANK[1 if white_to_move else 0]
        return pawns, knights, bishops, rooks, queens, kings, white, castling
    taken = U0
    if victim_type:
        taken = to_bb
        if victim_type == 1 and (to_bb & (pawns | knights | bishops | rooks | queens | kings)) == U0:
            taken = SQUARE_BB[target - 8 if white_to_move else target + 8]  # en passant
        pawns, knights, bishops, rooks, queens, kings = _toggle(victim_type, taken, pawns, knights,
                                                                bishops, rooks, queens, kings)
    moved = from_bb | to_bb
    if promotion:
        pawns ^= from_bb
        pawns, knights, bishops, rooks, queens, kings = _toggle(promotion, to_bb, pawns, knights,
                                                                bishops, rooks, queens, kings)
    else:
        pawns, knights, bishops, rooks, queens, kings = _toggle(mover_type, moved, pawns, knights,
                                                                bishops, rooks, queens, kings)
    castling &= ~moved
    if mover_type == 6:
        castling &= ~BACK_RANK[1 if white_to_move else 0]
        if target - origin == 2 or origin - target == 2:  # castling: the rook goes too
            rook_moved = SQUARE_BB[origin + 1] | SQUARE_BB[origin + 3] if target > origin else (
                SQUARE_BB[origin - 1] | SQUARE_BB[origin - 4])
            rooks ^= rook_moved
            moved |= rook_moved
    white = (white ^ moved) if white_to_move else (white & ~taken)
    return pawns, knights, bishops, rooks, queens, kings, white, castling


@njit(cache=True, nogil=True)
def child(code, position):
    """The record of the position after the move ``code`` from ``position``: bitboards, White's
    men, castling rights, side to move, key, whether it is check, the en passant square (-1 if no
    capture there is legal) and the halfmove clock."""
    (pawns, knights, bishops, rooks, queens, kings, white, castling, white_to_move, key, _,
     ep_square, halfmove) = position
    p, n, b, r, q, k, child_white, child_castling = play(code, position)
    origin = movecode.origin(code)
    target = movecode.target(code)
    child_key = key_after_move(key, ep_square & 7 if ep_square >= 0 else -1,
                                (pawns, knights, bishops, rooks, queens, kings), white, castling,
                                (p, n, b, r, q, k), child_white, child_castling)
    mover = movecode.mover(code)
    child_halfmove = 0 if mover == 1 or movecode.victim(code) else halfmove + 1
    # (The key without an en passant file and the check not yet known: `is_in_check` reads
    # neither.)
    moved = Position(p, n, b, r, q, k, child_white, child_castling, not white_to_move, child_key,
                     False, -1, child_halfmove)
    in_check = is_in_check(moved)
    child_ep = -1
    if mover == 1 and (target - origin == 16 or origin - target == 16):
        # A double step: the en passant square counts (in the key too) if the capture is legal.
        square = (origin + target) // 2
        # (The key without the square's file: the move lists do not read it.)
        with_ep = Position(p, n, b, r, q, k, child_white, child_castling, not white_to_move,
                           child_key, in_check, square, child_halfmove)
        if in_check:
            legal = False
            for evasion in evasion_kernel(with_ep, False):
                if movecode.target(evasion) == square and movecode.mover(evasion) == 1:
                    legal = True
        else:
            legal = captures_into(stack_buffer(MAX_CAPTURES), with_ep, U0, square, U0) > 0
        if legal:
            child_ep = square
            child_key ^= RANDOM[EN_PASSANT_KEYS + (square & 7)]
    return Position(p, n, b, r, q, k, child_white, child_castling, not white_to_move, child_key,
                    in_check, child_ep, child_halfmove)
