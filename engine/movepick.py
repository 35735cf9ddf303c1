"""Move ordering: a staged move picker and the killer/history tables that feed it.

Generating moves costs more than playing them (python-chess: about 31 us for all legal moves of a
middlegame position, 11 us for its captures), so moves are produced in stages and the search
stops asking as soon as one of them causes a cut-off:

1. the hash move (from the transposition table), checked for legality first;
2. captures and promotions, most valuable victim first, least valuable attacker first (MVV-LVA),
   listed legal and already in that order by a numba kernel over the bitboards (engine/movegen.py,
   as are the quiet moves and the evasions), and made into moves one at a time, so a node that
   cuts off early pays for no more of them than it plays; captures that lose material by static
   exchange (SEE) wait until stage 5;
3. the two killer moves of this ply (quiet moves that cut off at a sibling node);
4. the remaining quiet moves, by history score (how often the move cut off anywhere in the tree);
5. the losing captures, in MVV-LVA order.

The scout kernel (engine/scout.py) walks the same stages in the same order over the bitboards
(`_first_moves`, `_next_move` at the end of this module).
"""

from __future__ import annotations

from typing import Iterator

import chess
import numpy as np
from numba import int64, njit, void

from engine.bitboards import SEVENTH_RANK, SQUARE_BB, compile_kernel, lsb
from engine.movegen import (_capture_kernel, _capture_kernel_impl, _kind, _legal_kernel,
                            _legal_kernel_impl, _quiet_kernel, _quiet_kernel_impl, castling_kernel,
                            evasion_kernel, promotion_kernel)
from engine.score import PIECE_VALUE
from engine.see import _see_kernel, see
from engine.tt_kernels import MOVES, encode_move


_VALUE = np.array(PIECE_VALUE, dtype=np.int64)
BB_PROMOTION_RANKS = chess.BB_RANK_1 | chess.BB_RANK_8
BB_SEVENTH = (chess.BB_RANK_2, chess.BB_RANK_7)  # indexed by colour: the rank a pawn promotes from

HISTORY_MAX = 1 << 14


class OrderingTables:
    """Killer moves per ply and a butterfly history table per colour, shared by one search.

    Both are numpy arrays, so that the scout kernel (engine/scout.py) orders its moves
    by them and records its own cut-offs in them: the killers as move codes (as in the
    transposition table, -1 for none) by ply, the history per colour by ``from << 6 | to``.
    """

    def __init__(self, max_ply: int = 128) -> None:
        self.max_ply = max_ply
        self.clear()

    def clear(self) -> None:
        self.killers = np.full((self.max_ply + 2, 2), -1, dtype=np.int64)
        self.history = [np.zeros(4096, dtype=np.int64) for _ in chess.COLORS]

    def age(self) -> None:
        """Halves history between searches so that old successes fade but still count."""
        for table in self.history:
            table >>= 1
        self.killers.fill(-1)

    def record_cutoff(self, move: chess.Move, ply: int, depth: int, turn: chess.Color,
                      tried_quiets: list[chess.Move]) -> None:
        """A quiet move cut off: make it a killer, reward it and punish the quiets tried before it."""
        self.record_killer(move, ply)
        tried = [other.from_square << 6 | other.to_square for other in tried_quiets]
        _reward_kernel(self.history[turn], move.from_square << 6 | move.to_square, depth,
                       np.array(tried, dtype=np.int64))

    def record_killer(self, move: chess.Move, ply: int) -> None:
        code = encode_move(move)
        killers = self.killers[ply]
        if killers[0] != code:
            killers[1] = killers[0]
            killers[0] = code

    def killer_moves(self, ply: int) -> tuple[chess.Move | None, chess.Move | None]:
        first, second = self.killers[ply].tolist()
        return (None if first < 0 else MOVES[first]), (None if second < 0 else MOVES[second])


def mvv_lva(board: chess.Board, move: chess.Move) -> int:
    """Ordering key of a capture or promotion: victim value first, then the cheapest attacker."""
    victim = board.piece_type_at(move.to_square)
    if victim is None:
        victim = chess.PAWN if move.promotion is None else 0  # en passant, or a quiet promotion
    attacker = board.piece_type_at(move.from_square)
    score = PIECE_VALUE[victim] * 8 - attacker
    if move.promotion == chess.QUEEN:
        score += PIECE_VALUE[chess.QUEEN] * 8
    elif move.promotion:
        score -= 100000  # under-promotions last: they are rarely better than a queen
    return score


def captures(board: chess.Board, in_check: bool = False, underpromotions: bool = True,
             targets: int = chess.BB_ALL) -> Iterator[tuple[chess.Move, int, int]]:
    """Legal captures and promotions in MVV-LVA order, as ``(move, victim value, attacker value)``.

    Queen promotions come first, then captures by victim from the queen down to pawns (en passant
    with the pawns), each victim's cheapest attacker first, then under-promotions. The captures
    come from `_capture_kernel` as codes of legal moves; each one is turned into a move only
    when the caller asks for it, so a quiescence node that cuts off, or finds the remaining
    victims too small to matter, never pays for the rest. With
    ``targets``, only captures on those squares (and no promotions) when not in check.
    """
    us = board.turn
    if in_check and board.kings & board.occupied_co[us]:
        codes = evasion_kernel(board.pawns, board.knights, board.bishops, board.rooks, board.queens,
                               board.kings, board.occupied_co[us], us, _ep_square(board), False)
        for code in codes.tolist():
            promotion = code >> 12 & 7
            if underpromotions or promotion in (0, chess.QUEEN):
                yield (chess.Move(code & 63, code >> 6 & 63, promotion or None),
                       PIECE_VALUE[code >> 16 & 7], PIECE_VALUE[code >> 20])
        return
    if not board.kings & board.occupied_co[us]:
        # No king (a position set up by hand): python-chess's own generator.
        moves = captures_and_promotions(board)
        for move in moves:
            if underpromotions or move.promotion in (None, chess.QUEEN):
                victim = board.piece_type_at(move.to_square) or (chess.PAWN if move.promotion is None else 0)
                yield move, PIECE_VALUE[victim], PIECE_VALUE[board.piece_type_at(move.from_square)]
        return

    ours = board.occupied_co[us]
    promoting = board.pawns & ours & BB_SEVENTH[us]
    under = []
    if promoting and targets == chess.BB_ALL:
        promotions = list(board.generate_legal_moves(promoting, BB_PROMOTION_RANKS & ~ours))
        promotions.sort(key=lambda m: PIECE_VALUE[board.piece_type_at(m.to_square) or 0], reverse=True)
        for move in promotions:
            if move.promotion == chess.QUEEN:
                yield move, PIECE_VALUE[board.piece_type_at(move.to_square) or 0], PIECE_VALUE[chess.PAWN]
            else:
                under.append(move)

    ep_square = board.ep_square
    if ep_square is None or targets != chess.BB_ALL or chess.square_rank(ep_square) != (5 if us else 2):
        ep_square = -1
    codes = _capture_kernel(board.pawns, board.knights, board.bishops, board.rooks, board.queens,
                            board.kings, ours, board.occupied_co[not us] & targets, us, ep_square,
                            promoting)
    for code in codes.tolist():
        yield chess.Move(code & 63, code >> 6 & 63), PIECE_VALUE[code >> 12 & 7], PIECE_VALUE[code >> 16]

    if underpromotions:
        for move in under:
            yield move, PIECE_VALUE[board.piece_type_at(move.to_square) or 0], PIECE_VALUE[chess.PAWN]


def _ep_square(board: chess.Board) -> int:
    """The board's en passant square, or -1 (the kernels' "none")."""
    ep_square = board.ep_square
    return -1 if ep_square is None else ep_square


def captures_and_promotions(board: chess.Board) -> list[chess.Move]:
    """Legal captures (en passant included) and quiet promotions, best MVV-LVA first."""
    moves = list(board.generate_legal_captures())
    us = board.turn
    pawns_about_to_promote = board.pawns & board.occupied_co[us] & BB_SEVENTH[us]
    if pawns_about_to_promote:
        moves.extend(board.generate_legal_moves(pawns_about_to_promote,
                                                BB_PROMOTION_RANKS & ~board.occupied))
    if len(moves) > 1:
        moves.sort(key=lambda m: mvv_lva(board, m), reverse=True)
    return moves


def ordered_moves(board: chess.Board, hash_move: chess.Move | None, tables: OrderingTables,
                  ply: int, in_check: bool | None = None) -> Iterator[chess.Move]:
    """Yields every legal move of ``board`` once, in the staged order described above."""
    if hash_move is not None and is_legal(board, hash_move):
        yield hash_move
    else:
        hash_move = None

    if in_check is None:
        in_check = board.is_check()
    losing = []
    for move, victim, attacker in captures(board, in_check):
        if hash_move is None or move != hash_move:
            if attacker > victim and move.promotion is None and see(board, move) < 0:
                losing.append(move)
            else:
                yield move

    # Quiet moves are told apart by from/to squares alone (promotions came with the captures),
    # which is cheaper than comparing Move objects.
    done = set() if hash_move is None else {hash_move.from_square << 6 | hash_move.to_square}
    us = board.turn
    killers = tables.killer_moves(ply)
    for i, killer in enumerate(killers):
        # A killer must be quiet here: an en passant capture to the empty square came with the
        # captures already.
        if (killer is not None and killer != hash_move and (i == 0 or killer != killers[0])
                and is_quiet_move(board, killer) and is_legal(board, killer)):
            done.add(killer.from_square << 6 | killer.to_square)
            yield killer

    skips = [-1, -1, -1]
    for i, index in enumerate(done):
        skips[i] = index
    for index in _by_history(quiet_move_codes(board, in_check), tables.history[us], *skips).tolist():
        yield chess.Move(index >> 6, index & 63)
    yield from losing


def is_quiet_move(board: chess.Board, move: chess.Move) -> bool:
    """Neither a capture (en passant included) nor a promotion: `Board.is_capture` in one call."""
    to_square = move.to_square
    return (move.promotion is None
            and not board.occupied_co[not board.turn] & chess.BB_SQUARES[to_square]
            and not (to_square == board.ep_square and board.pawns & chess.BB_SQUARES[move.from_square]))


def is_legal(board: chess.Board, move: chess.Move) -> bool:
    """``board.is_legal(move)``, for a move from the table or a killer (perhaps from another
    position): ordinary moves by `_legal_kernel`, the rare others by python-chess."""
    from_square, to_square = move.from_square, move.to_square
    from_bb = chess.BB_SQUARES[from_square]
    if (move.promotion or from_square == to_square or move.drop
            or (board.kings & from_bb and (board.occupied_co[board.turn] & chess.BB_SQUARES[to_square]
                                           or abs((from_square & 7) - (to_square & 7)) > 1))
            or (board.pawns & from_bb and to_square == board.ep_square)):
        return board.is_legal(move)
    return _legal_kernel(board.pawns, board.knights, board.bishops, board.rooks, board.queens,
                         board.kings, board.occupied_co[board.turn], board.turn, from_square,
                         to_square)


def quiet_move_indices(board: chess.Board, in_check: bool) -> list[int]:
    """The legal quiet moves (no capture, no promotion) as ``from << 6 | to`` indices.

    Out of check they come from `_quiet_kernel` (castling from python-chess), in python-chess's
    own order; in check from python-chess's evasions, which are few.
    """
    return quiet_move_codes(board, in_check).tolist()


def quiet_move_codes(board: chess.Board, in_check: bool) -> np.ndarray:
    """`quiet_move_indices` as an int64 array."""
    us = board.turn
    king = board.king(us)
    if in_check and king is not None:
        return evasion_kernel(board.pawns, board.knights, board.bishops, board.rooks, board.queens,
                              board.kings, board.occupied_co[us], us, _ep_square(board), True)
    if king is None:
        not_captures = chess.BB_ALL & ~board.occupied_co[not us]
        return np.array([move.from_square << 6 | move.to_square
                         for move in board.generate_legal_moves(chess.BB_ALL, not_captures)
                         if move.promotion is None and not board.is_en_passant(move)], dtype=np.int64)
    codes, piece_moves = _quiet_kernel(board.pawns, board.knights, board.bishops, board.rooks,
                                       board.queens, board.kings, board.occupied_co[us], us, king)
    if board.castling_rights & board.occupied_co[us]:
        castling = [move.from_square << 6 | move.to_square for move in board.generate_castling_moves()]
        if castling:
            codes = np.concatenate((codes[:piece_moves], np.array(castling, dtype=np.int64),
                                    codes[piece_moves:]))
    return codes


# ---------------------------------------------------------------------- the history kernels

@njit(cache=True, nogil=True)
def _by_history_impl(indices, history, skip_a, skip_b, skip_c):
    """``indices`` (``from << 6 | to``) without the three skipped ones, by falling history score;
    moves of equal score keep their order (a stable insertion sort: the lists are short)."""
    out = np.empty(indices.shape[0], dtype=np.int64)
    n = 0
    for index in indices:
        if index == skip_a or index == skip_b or index == skip_c:
            continue
        value = history[index]
        j = n - 1
        while j >= 0 and history[out[j]] < value:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = index
        n += 1
    return out[:n]


@njit(cache=True, nogil=True)
def _reward_impl(history, index, depth, tried):
    """A quiet move ``index`` cut off at ``depth``: raise its history and lower that of the quiet
    moves ``tried`` before it. The gravity formula keeps values within +-HISTORY_MAX without
    periodic rescaling."""
    bonus = min(depth * depth, 400)
    history[index] += bonus - history[index] * bonus // HISTORY_MAX
    for other in tried:
        history[other] -= bonus + history[other] * bonus // HISTORY_MAX


_by_history = compile_kernel(_by_history_impl, int64[::1](int64[::1], int64[::1], int64, int64, int64))
_reward_kernel = compile_kernel(_reward_impl, void(int64[::1], int64, int64, int64[::1]))


# ------------------------------------------------- the same stages in the scout kernel
# The kernel (engine/scout.py) walks these stages over python-chess's bitboards, each move a code:
# origin | target << 6 | victim type << 12 | mover type << 16 | promotion << 20.

@njit(cache=True, nogil=True, inline="always")
def _move_id(code):
    """A move code as the table stores moves: origin | target << 6 | promotion << 12."""
    return code & 4095 | (code >> 20) << 12


@njit(cache=True, nogil=True)
def _is_legal(pawns, knights, bishops, rooks, queens, kings, ours, white_to_move, castling,
              chess960, origin, target):
    """Whether the table move or killer ``origin`` -> ``target`` (no promotion, no en passant) is
    legal here; a king's two-square step, or a king taking its own rook (Chess960), is castling."""
    if SQUARE_BB[origin] & kings and (target - origin == 2 or origin - target == 2
                                      or SQUARE_BB[target] & rooks & ours):
        for code in castling_kernel(pawns, knights, bishops, rooks, queens, kings, ours,
                                    white_to_move, castling, chess960):
            if code == origin << 6 | target:
                return True
        return False
    return _legal_kernel_impl(pawns, knights, bishops, rooks, queens, kings, ours, white_to_move,
                              origin, target)


@njit(cache=True, nogil=True)
def _first_moves(pawns, knights, bishops, rooks, queens, kings, ours, white_to_move, castling,
                 chess960, ep_square, in_check, hash_code):
    """The first stages of `ordered_moves`: the hash move, then the captures and
    promotions of `captures` but the captures that lose material, which come apart (they
    are searched last); each move as origin | target << 6 | victim type << 12 | mover type << 16
    | promotion << 20 (victim 0: a quiet move). Also the hash move's table code (-1 if it is not
    legal here)."""
    occupied = pawns | knights | bishops | rooks | queens | kings
    theirs = occupied & ~ours
    white = ours if white_to_move else theirs
    out = np.empty(256, dtype=np.int64)
    n = 0
    skip = -1
    if in_check:
        evasions = evasion_kernel(pawns, knights, bishops, rooks, queens, kings, ours,
                                  white_to_move, ep_square, False)
        captures = np.empty(evasions.shape[0], dtype=np.int64)
        for i in range(evasions.shape[0]):
            code = evasions[i]
            captures[i] = (code & 4095 | (code >> 16 & 7) << 12 | (code >> 20) << 16
                           | (code >> 12 & 7) << 20)
        promotions = captures[:0]
    else:
        promoting = pawns & ours & SEVENTH_RANK[1 if white_to_move else 0]
        promotions = promotion_kernel(pawns, knights, bishops, rooks, queens, kings, ours,
                                      white_to_move, promoting)
        captures = _capture_kernel_impl(pawns, knights, bishops, rooks, queens, kings, ours, theirs,
                                        white_to_move, ep_square, promoting)
    if hash_code > 0:
        origin = hash_code & 63
        target = hash_code >> 6 & 63
        from_bb = SQUARE_BB[origin]
        if hash_code >> 12 or (from_bb & pawns and target == ep_square):
            # A promotion or an en passant capture: legal if it is one of the moves listed.
            for code in promotions if hash_code >> 12 and not in_check else captures:
                if _move_id(code) == hash_code:
                    out[n] = code
                    n += 1
                    skip = hash_code
        elif _is_legal(pawns, knights, bishops, rooks, queens, kings, ours, white_to_move, castling,
                       chess960, origin, target):
            victim = SQUARE_BB[target] & theirs
            out[n] = (origin | target << 6
                      | (_kind(victim, pawns, knights, bishops, rooks, queens) if victim else 0) << 12
                      | _kind(from_bb, pawns, knights, bishops, rooks, queens) << 16)
            n += 1
            skip = hash_code
    for code in promotions:
        if code >> 20 == 5 and _move_id(code) != skip:  # queen promotions first
            out[n] = code
            n += 1
    losing = np.empty(captures.shape[0], dtype=np.int64)
    n_losing = 0
    for code in captures:
        if _move_id(code) == skip:
            continue
        if (_VALUE[code >> 16 & 15] > _VALUE[code >> 12 & 15] and code >> 20 == 0
                and _see_kernel(pawns, knights, bishops, rooks, queens, kings, white, code & 63,
                                code >> 6 & 63, white_to_move) < 0):
            losing[n_losing] = code
            n_losing += 1
        else:
            out[n] = code
            n += 1
    for code in promotions:
        if code >> 20 != 5 and _move_id(code) != skip:  # then the under-promotions
            out[n] = code
            n += 1
    return out[:n], losing[:n_losing], skip


@njit(cache=True, nogil=True)
def _killer_moves(pawns, knights, bishops, rooks, queens, kings, ours, white_to_move, castling,
                  chess960, ep_square, skip, killer_a, killer_b):
    """The next stage of `ordered_moves`: the killers that are legal quiet moves here
    (not the hash move ``skip``), and the history indices of those two."""
    occupied = pawns | knights | bishops | rooks | queens | kings
    theirs = occupied & ~ours
    out = np.empty(2, dtype=np.int64)
    n = 0
    done = np.full(2, -1, dtype=np.int64)
    for i in range(2):
        killer = killer_a if i == 0 else killer_b
        if killer < 0 or killer == skip or (i == 1 and killer == killer_a):
            continue
        origin = killer & 63
        target = killer >> 6 & 63
        from_bb = SQUARE_BB[origin]
        if killer >> 12 or SQUARE_BB[target] & theirs or (target == ep_square and from_bb & pawns):
            continue  # not quiet here
        if not _is_legal(pawns, knights, bishops, rooks, queens, kings, ours, white_to_move,
                         castling, chess960, origin, target):
            continue
        out[n] = killer | _kind(from_bb, pawns, knights, bishops, rooks, queens) << 16
        n += 1
        done[i] = origin << 6 | target
    return out[:n], done


@njit(cache=True, nogil=True)
def _quiet_moves(pawns, knights, bishops, rooks, queens, kings, ours, white_to_move, castling,
                 chess960, ep_square, in_check, skip, done, history):
    """The next stage of `ordered_moves`: the other quiet moves, by their history when
    the search reaches them (it may have changed while the moves before were searched)."""
    if in_check:
        quiets = evasion_kernel(pawns, knights, bishops, rooks, queens, kings, ours, white_to_move,
                                ep_square, True)
    else:
        quiets, piece_moves = _quiet_kernel_impl(pawns, knights, bishops, rooks, queens, kings,
                                                 ours, white_to_move, lsb(kings & ours))
        if castling & ours:  # castling comes after the piece moves, as python-chess lists it
            castles = castling_kernel(pawns, knights, bishops, rooks, queens, kings, ours,
                                      white_to_move, castling, chess960)
            if castles.shape[0]:
                quiets = np.concatenate((quiets[:piece_moves], castles, quiets[piece_moves:]))
    skipped = (skip & 63) << 6 | skip >> 6 if 0 <= skip < 4096 else -1  # (not a promotion)
    ordered = _by_history_impl(quiets, history, skipped, done[0], done[1])
    out = np.empty(ordered.shape[0], dtype=np.int64)
    for i in range(ordered.shape[0]):
        origin = ordered[i] >> 6
        out[i] = origin | (ordered[i] & 63) << 6 | _kind(SQUARE_BB[origin], pawns, knights,
                                                         bishops, rooks, queens) << 16
    return out


@njit(cache=True, nogil=True)
def _record_cutoff(move, ply, depth, history, tried, killers):
    """`OrderingTables.record_cutoff` for the quiet ``move`` (a table code)."""
    _reward_impl(history, (move & 63) << 6 | move >> 6, depth, tried)
    if killers[ply, 0] != move:
        killers[ply, 1] = killers[ply, 0]
        killers[ply, 0] = move


@njit(cache=True, nogil=True)
def _next_stage(stage, losing, pawns, knights, bishops, rooks, queens, kings, ours, white_to_move,
                castling, chess960, ep_square, in_check, skip, done, killer_a, killer_b, history):
    """The moves of the stage after ``stage`` of `ordered_moves` (0: the killers, 1: the
    other quiet moves by their history as it is now, 2: the losing captures), and the killers
    searched (as history indices, listed at stage 0 and skipped at stage 1)."""
    if stage == 0:
        return _killer_moves(pawns, knights, bishops, rooks, queens, kings, ours, white_to_move,
                             castling, chess960, ep_square, skip, killer_a, killer_b)
    if stage == 1:
        return _quiet_moves(pawns, knights, bishops, rooks, queens, kings, ours, white_to_move,
                            castling, chess960, ep_square, in_check, skip, done, history), done
    return losing, done


@njit(cache=True, nogil=True, inline="always")
def _next_move(moves, i, stage, done, losing, pawns, knights, bishops, rooks, queens, kings, ours,
               white_to_move, castling, chess960, ep_square, in_check, skip, killer_a, killer_b,
               history):
    """The next move in the order of `ordered_moves` (-1 when none is left) and the state
    of the walk after it: the moves of the current stage, the index in them, the stage (0: the
    first moves, 1: the killers, 2: the other quiet moves, 3: the losing captures) and the killers
    searched."""
    while i == moves.shape[0]:
        if stage == 3:
            return -1, moves, i, stage, done
        moves, done = _next_stage(stage, losing, pawns, knights, bishops, rooks, queens, kings, ours,
                                  white_to_move, castling, chess960, ep_square, in_check, skip,
                                  done, killer_a, killer_b, history)
        stage += 1
        i = 0
    return moves[i], moves, i + 1, stage, done
