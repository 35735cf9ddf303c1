"""Move ordering: the staged move walk, fed by the killer and history tables of
engine/search/history.py.

Generating moves costs more than playing them, so moves come in stages and a node that cuts off
early never pays for the rest:

1. the hash move (from the transposition table), checked for legality first;
2. captures and promotions: queen promotions first, then captures by most valuable victim and,
   for the same victim, least valuable attacker (MVV-LVA), then under-promotions; captures that
   lose material by static exchange (SEE) wait until stage 5;
3. the two killer moves of this ply (quiet moves that cut off at a sibling node);
4. the remaining quiet moves, by history score (how often the move cut off anywhere in the tree,
   and after the moves before it on the line: engine/search/history.py's `quiet_score`), read
   when the walk reaches them;
5. the losing captures, in MVV-LVA order.

The walk is written once, as numba functions over python-chess's bitboards (`first_moves`,
`next_stage`, `next_move`; the move lists come from engine/board/movegen.py): the scout kernel
(engine/search/scout.py) calls them at every node it searches, and `ordered_moves` at the root, turning
their codes into python-chess moves. They list into arrays their caller gives (the node's row of the
kernel's move lists), so that no node allocates one.
"""

from __future__ import annotations

from typing import Iterator

import chess
import numpy as np
from numba import boolean, int16, int64, njit
from numba.types import Tuple

from engine.board import movecode
from engine.board.bitboards import (PIECE_VALUES, SEVENTH_RANK, SQUARE_BB, compile_kernel,
                                    stack_buffer)
from engine.board.bitmove import move_code
from engine.board.position import POSITION, from_board, own_men, their_men
from engine.board.movegen import (MAX_CAPTURES, MAX_PROMOTIONS, MAX_QUIETS, piece_kind,
                                  legal_kernel, captures_into, castles_into, castling_kernel,
                                  evasions_into, promotions_into, quiets_into)
from engine.board.see import see_kernel
from engine.search.history import (NO_MOVE, OrderingTables, butterfly_at, by_score_into,
                                   quiet_score)
from engine.search.tt_kernels import MOVES, encode_move

# Room for a stage of the walk: the first moves (the hash move, promotions, captures) or the quiet
# moves; or quiescence's moves (queen promotions, captures, quiet checks).
WALK_MOVES = MAX_PROMOTIONS // 4 + MAX_CAPTURES + MAX_QUIETS


def ordered_moves(board: chess.Board, hash_move: chess.Move | None, tables: OrderingTables,
                  ply: int, in_check: bool | None = None) -> Iterator[chess.Move]:
    """Yields every legal move of ``board`` once, in the staged order described above: the
    kernel's walk, with the killers of ``ply`` and the side's history as they are when it
    reaches them."""
    for _, move in ordered_codes(board, hash_move, tables, ply, in_check):
        yield move


def ordered_codes(board: chess.Board, hash_move: chess.Move | None, tables: OrderingTables,
                  ply: int, in_check: bool | None = None) -> Iterator[tuple[int, chess.Move]]:
    """`ordered_moves` with each move's kernel code (engine/board/bitmove.py) before it."""
    for codes in ordered_stages(board, hash_move, tables, ply, in_check):
        for code in codes.tolist():
            yield code, code_move(code)


def code_move(code: int) -> chess.Move:
    """The python-chess move of a kernel move code."""
    return MOVES[movecode.table_move.py_func(code)]


def ordered_stages(board: chess.Board, hash_move: chess.Move | None, tables: OrderingTables,
                   ply: int, in_check: bool | None = None) -> Iterator[np.ndarray]:
    """The kernel codes of `ordered_codes`, a stage of the walk at a time (each computed when
    the one before has been searched: the quiet moves by the history as it is then)."""
    us = board.turn
    if not board.kings & board.occupied_co[us]:
        # No king: a position set up by hand, not chess.
        yield np.array([move_code(board, move) for move in board.generate_legal_moves()],
                       dtype=np.int64)
        return
    position = from_board(board, in_check=in_check)
    walk, losing = np.empty(WALK_MOVES, dtype=np.int64), np.empty(MAX_CAPTURES, dtype=np.int64)
    moves, losing, skip = first_moves(walk, losing, position, board.chess960,
                                      encode_move(hash_move))
    done = np.full(2, -1, dtype=np.int64)
    # (The root's quiet moves by their butterfly history alone.)
    histories = (tables.table, butterfly_at.py_func(us), NO_MOVE, NO_MOVE, NO_MOVE)
    for stage in range(4):
        if stage:
            moves, done = next_stage((walk, losing), stage - 1, done, skip, position,
                                     board.chess960, tables.killers[ply], histories)
        yield moves.copy()  # the next stage is listed in the same array


# ---------------------------------------------------------------------- the walk
# Each move a code of engine/board/movecode.py.

@njit(cache=True, nogil=True)
def _is_legal(position, chess960, origin, target):
    """Whether the table move or killer ``origin`` -> ``target`` (no promotion, no en passant) is
    legal here; a king's two-square step, or a king taking its own rook (Chess960), is castling."""
    if SQUARE_BB[origin] & position.kings and (
            target - origin == 2 or origin - target == 2
            or SQUARE_BB[target] & position.rooks & own_men(position)):
        for code in castling_kernel(position, chess960):
            if code == movecode.butterfly_index(origin, target):
                return True
        return False
    return legal_kernel(position, origin, target)


@njit(cache=True, nogil=True)
def first_moves(out, losing, position, chess960, hash_code):
    """The walk's first stages (1 and 2 above) at ``position``: the hash move, then the captures
    and promotions but those that lose material, which come apart (stage 5), as move codes (victim
    0: a quiet move), written into ``out`` (WALK_MOVES long) and ``losing`` (MAX_CAPTURES long) and
    returned as their filled parts. Also the hash move's table code (-1 if it is not legal here)."""
    (pawns, knights, bishops, rooks, queens, _, _, _, white_to_move, _, in_check, ep_square,
     _) = position
    ours = own_men(position)
    theirs = their_men(position)
    n = 0
    skip = -1
    captures = stack_buffer(MAX_QUIETS)  # (room for the evasions, in check)
    if in_check:
        captures = captures[:evasions_into(captures, position, False)]
        promotions = captures[:0]
    else:
        promoting = pawns & ours & SEVENTH_RANK[1 if white_to_move else 0]
        promotions = stack_buffer(MAX_PROMOTIONS)
        promotions = promotions[:promotions_into(promotions, position, promoting)]
        captures = captures[:captures_into(captures, position, theirs, ep_square, promoting)]
    if hash_code > 0:
        origin = movecode.origin(hash_code)
        target = movecode.target(hash_code)
        from_bb = SQUARE_BB[origin]
        promotes = movecode.table_promotion(hash_code)
        if promotes or (from_bb & pawns and target == ep_square):
            # A promotion or an en passant capture: legal if it is one of the moves listed.
            for code in promotions if promotes and not in_check else captures:
                if movecode.table_move(code) == hash_code:
                    out[n] = code
                    n += 1
                    skip = hash_code
        elif _is_legal(position, chess960, origin, target):
            victim = SQUARE_BB[target] & theirs
            out[n] = movecode.make(
                origin, target, piece_kind(victim, pawns, knights, bishops, rooks, queens) if victim else 0,
                piece_kind(from_bb, pawns, knights, bishops, rooks, queens), 0)
            n += 1
            skip = hash_code
    for code in promotions:
        if movecode.promotion(code) == 5 and movecode.table_move(code) != skip:  # queen promotions first
            out[n] = code
            n += 1
    n_losing = 0
    for code in captures:
        if movecode.table_move(code) == skip:
            continue
        if (PIECE_VALUES[movecode.mover(code)] > PIECE_VALUES[movecode.victim(code)]
                and movecode.promotion(code) == 0
                and see_kernel(position, movecode.origin(code), movecode.target(code)) < 0):
            losing[n_losing] = code
            n_losing += 1
        else:
            out[n] = code
            n += 1
    for code in promotions:
        if movecode.promotion(code) != 5 and movecode.table_move(code) != skip:  # then the under-promotions
            out[n] = code
            n += 1
    return out[:n], losing[:n_losing], skip


@njit(cache=True, nogil=True)
def _killer_moves(out, done, position, chess960, skip, killers):
    """Stage 3 of the walk: the ply's ``killers`` that are legal quiet moves here (not the hash
    move ``skip``), written into ``out``, and the history indices of those two, into ``done``."""
    (pawns, knights, bishops, rooks, queens, _, _, _, _, _, _, ep_square, _) = position
    theirs = their_men(position)
    killer_a = killers[0]
    killer_b = killers[1]
    n = 0
    for i in range(2):
        killer = killer_a if i == 0 else killer_b
        if killer < 0 or killer == skip or (i == 1 and killer == killer_a):
            continue
        origin = movecode.origin(killer)
        target = movecode.target(killer)
        from_bb = SQUARE_BB[origin]
        if movecode.table_promotion(killer) or SQUARE_BB[target] & theirs or (target == ep_square and from_bb & pawns):
            continue  # not quiet here
        if not _is_legal(position, chess960, origin, target):
            continue
        out[n] = movecode.make(origin, target, 0, piece_kind(from_bb, pawns, knights, bishops, rooks,
                                                        queens), 0)
        n += 1
        done[i] = movecode.butterfly_index(origin, target)
    return out[:n]


@njit(cache=True, nogil=True)
def _quiet_moves(out, position, chess960, skip, done, histories):
    """Stage 4 of the walk: the other quiet moves, by their history score when the search reaches
    them (it may have changed while the moves before were searched), written into ``out``."""
    (pawns, knights, bishops, rooks, queens, _, _, castling, white_to_move, _, in_check, _,
     _) = position
    quiets = stack_buffer(MAX_QUIETS)
    if in_check:
        n = evasions_into(quiets, position, True)
    else:
        n, piece_moves = quiets_into(quiets, position)
        # Castling comes after the piece moves, as python-chess lists it.
        if castling & own_men(position):
            castles = stack_buffer(2)
            n_castles = castles_into(castles, position, chess960)
            for i in range(n - 1, piece_moves - 1, -1):
                quiets[i + n_castles] = quiets[i]
            quiets[piece_moves:piece_moves + n_castles] = castles[:n_castles]
            n += n_castles
    skipped = movecode.butterfly(skip) if 0 <= skip < 4096 else -1  # (not a promotion)
    codes = stack_buffer(MAX_QUIETS)
    scores = stack_buffer(MAX_QUIETS)
    m = 0
    for index in quiets[:n]:
        if index == skipped or index == done[0] or index == done[1]:
            continue
        mover = piece_kind(SQUARE_BB[movecode.origin(index)], pawns, knights, bishops, rooks,
                           queens)
        codes[m] = movecode.from_butterfly(index, mover)
        scores[m] = quiet_score(histories, codes[m], white_to_move)
        m += 1
    n = by_score_into(out, codes[:m], scores[:m])
    return out[:n]


@njit(cache=True, nogil=True)
def next_stage(lists, stage, done, skip, position, chess960, killers, histories):
    """The moves of the walk's stage after ``stage`` (0: the killers, 1: the other quiet moves by
    their history as it is now, 2: the losing captures), listed in the walk's list over the stage
    before (``lists``: the walk's, the losing captures'), and the killers searched (as history
    indices, listed at stage 0 and skipped at stage 1)."""
    walk, losing = lists
    if stage == 0:
        return _killer_moves(walk, done, position, chess960, skip, killers), done
    if stage == 1:
        return _quiet_moves(walk, position, chess960, skip, done, histories), done
    return losing, done


@njit(cache=True, nogil=True, inline="always")
def next_move(state, lists, skip, position, chess960, killers, histories):
    """The walk's next move (-1 when none is left) and its ``state`` after it: the moves of the
    current stage, the index in them, the stage (0: the first moves, 1: the killers, 2: the other
    quiet moves, 3: the losing captures) and the killers searched."""
    moves, i, stage, done = state
    while i == moves.shape[0]:
        if stage == 3:
            return -1, (moves, i, stage, done)
        moves, done = next_stage(lists, stage, done, skip, position, chess960, killers,
                                 histories)
        stage += 1
        i = 0
    return moves[i], (moves, i + 1, stage, done)


# Compiled at import, for `ordered_moves`, with the types the scout kernel calls them with.
_LIST = int64[::1]
first_moves = compile_kernel(first_moves, (_LIST, _LIST, POSITION, boolean, int64))
HISTORIES = Tuple((int16[::1], int64, int64, int64, int64))  # engine/search/history.py's record
next_stage = compile_kernel(next_stage, (Tuple((_LIST, _LIST)), int64, _LIST, int64, POSITION,
                                         boolean, _LIST, HISTORIES))
