"""The quiescence search in one numba kernel: captures below the horizon, played on the bitboards.

Half of the search's nodes are quiescence nodes, and in Python each of them crosses into numba
several times (key, table, evaluation, capture list, exchange) and pays for python-chess moves and
boards besides. `quiescence` searches a whole quiescence tree in one call, with those same
kernels and the same steps as `Search.quiescence` (engine/search.py): the same captures in the
same order, the same pruning, the same table entries. That Python method stays the reference and
does what the kernel leaves to it. The kernel gives up (returns GAVE_UP) on meeting, anywhere in
its tree, a side in check (evasions need python-chess's full move generator), a pawn about to
promote, a side with no pieces but pawns (it may be stalemated) or a bare king (scored by
engine/endgame.py). It then puts back every table entry it overwrote, so that the Python search
finds the table as it was and searches exactly the tree it would have searched alone (the bench
signature is the same with and without the kernel): the kernel's work on that tree is lost, but
most quiescence trees are searched whole by the kernel.
"""

from __future__ import annotations

import numpy as np
from numba import boolean, int64, njit, uint64, void

from engine.bitboards import SEVENTH_RANK, SQUARE_BB, U0, U1, compile_kernel
from engine.evaluate import _evaluate_kernel
from engine.movepick import _capture_kernel_impl
from engine.score import MAX_PLY, PIECE_VALUE
from engine.see import _see_kernel
from engine.tt import EXACT, LOWER, UPPER, score_from_tt, score_to_tt
from engine.tt_kernels import MISS, _probe_impl, _slot, _store_impl
from engine.zobrist import _key_kernel

# Results that are not scores (scores stay within +-MATE).
GAVE_UP = -(1 << 40)  # a node the kernel does not search: the Python search does it
OUT_OF_NODES = GAVE_UP - 1  # the node budget ran out: the search must stop
NO_BUDGET = 1 << 62  # the budget of a search without a node limit

# The counters a call fills in, by index of its `counts` array.
NODES, EVALUATIONS, CUTOFFS, SELDEPTH, UNDO_LENGTH = 0, 1, 2, 3, 4
COUNTS = 5
# The table words a call overwrote, three uint64 per store (slot, both old words), put back if it
# gives up; a tree that would store more gives up when the record is full.
UNDO_STORES = 1 << 14

_VALUE = np.array(PIECE_VALUE, dtype=np.int64)
_BACK_RANK = np.array([0xFF00000000000000, 0xFF], dtype=np.uint64)  # by colour: Black, White


# The table's own score conversions (engine/tt.py), compiled for the kernel.
_from_tt = njit(cache=True, nogil=True)(score_from_tt)
_to_tt = njit(cache=True, nogil=True)(score_to_tt)


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
def _store(table, key, entries, bound, score, generation, undo, counts):
    """Stores a quiescence result (depth 0, no move), recording the words it replaces; False if
    the record is full (nothing stored)."""
    n = counts[UNDO_LENGTH]
    if n + 3 > undo.shape[0]:
        return False
    index = _slot(key, entries) << U1
    undo[n] = index
    undo[n + 1] = table[index]
    undo[n + 2] = table[index + U1]
    counts[UNDO_LENGTH] = n + 3
    _store_impl(table, key, entries, 0, bound, score, 0, generation)
    return True


@njit(cache=True, nogil=True)
def _undo_stores(table, undo, counts):
    n = counts[UNDO_LENGTH]
    while n > 0:
        n -= 3
        index = undo[n]
        table[index] = undo[n + 1]
        table[index + U1] = undo[n + 2]
    counts[UNDO_LENGTH] = 0


@njit(cache=True, nogil=True)
def _search(pawns, knights, bishops, rooks, queens, kings, white, castling, white_to_move, key,
            probed, ep_square, alpha, beta, ply, qply, last_target, recaptures_after,
            delta_margin, table, entries, generation, weights, counts, budget, undo):
    if probed:  # the first node of the call
        counts[:] = 0
    occupied = pawns | knights | bishops | rooks | queens | kings
    black = occupied & ~white
    ours = white if white_to_move else black
    if (white & (white - U1)) == U0 or (black & (black - U1)) == U0:
        return GAVE_UP
    if (ours & ~(pawns | kings)) == U0 or (kings & ours) == U0:
        return GAVE_UP
    if not probed:  # the first node was counted and probed by the caller
        counts[NODES] += 1
        if ply > counts[SELDEPTH]:
            counts[SELDEPTH] = ply
        if counts[NODES] >= budget:
            return OUT_OF_NODES
        if ply >= MAX_PLY:
            counts[EVALUATIONS] += 1
            return _evaluate_kernel(pawns, knights, bishops, rooks, queens, kings, white, black,
                                    white_to_move, weights)
        tt_depth, tt_bound, tt_score, _ = _probe_impl(table, key, entries)
        if tt_depth != MISS:
            tt_score = _from_tt(tt_score, ply)
            if (tt_bound == EXACT or (tt_bound == LOWER and tt_score >= beta)
                    or (tt_bound == UPPER and tt_score <= alpha)):
                return tt_score
    promoting = pawns & ours & SEVENTH_RANK[1 if white_to_move else 0]
    if promoting and qply < recaptures_after:
        return GAVE_UP
    original_alpha = alpha
    counts[EVALUATIONS] += 1
    stand_pat = _evaluate_kernel(pawns, knights, bishops, rooks, queens, kings, white, black,
                                 white_to_move, weights)
    if stand_pat >= beta:
        if not _store(table, key, entries, LOWER, _to_tt(stand_pat, ply), generation, undo, counts):
            return GAVE_UP
        return stand_pat
    best_score = stand_pat
    if stand_pat > alpha:
        alpha = stand_pat
    victims = occupied & ~ours
    if qply >= recaptures_after:
        victims &= SQUARE_BB[last_target]
        ep_square = -1
    # Variables, not literals, for the recursive call: numba would compile a second version of
    # this function for a literal argument, and its cache cannot load that one.
    no_square = ep_square - ep_square - 1
    not_probed = probed != probed
    codes = _capture_kernel_impl(pawns, knights, bishops, rooks, queens, kings, ours, victims,
                                 white_to_move, ep_square, promoting)
    for i in range(codes.shape[0]):
        code = codes[i]
        origin = code & 63
        target = code >> 6 & 63
        victim_type = code >> 12 & 7
        mover_type = code >> 16
        victim = _VALUE[victim_type]
        # Delta pruning, then captures that lose material, exactly as in Search.quiescence.
        if stand_pat + victim + delta_margin <= alpha:
            break
        if _VALUE[mover_type] > victim and _see_kernel(pawns, knights, bishops, rooks, queens,
                                                       kings, white, origin, target,
                                                       white_to_move) < 0:
            continue
        # The move, on copies of the bitboards.
        from_bb = SQUARE_BB[origin]
        to_bb = SQUARE_BB[target]
        taken = to_bb
        if victim_type == 1 and (to_bb & occupied) == U0:  # en passant
            taken = SQUARE_BB[target - 8 if white_to_move else target + 8]
        moved = from_bb | to_bb
        p, n, b, r, q, k = _toggle(victim_type, taken, pawns, knights, bishops, rooks, queens, kings)
        p, n, b, r, q, k = _toggle(mover_type, moved, p, n, b, r, q, k)
        child_castling = castling & ~moved
        if mover_type == 6:
            child_castling &= ~_BACK_RANK[1 if white_to_move else 0]
        child_white = (white ^ moved) if white_to_move else (white & ~taken)
        child_key, child_in_check = _key_kernel(p, n, b, r, q, k, child_white, child_castling,
                                                not white_to_move, no_square)
        if child_in_check:
            return GAVE_UP
        result = _search(p, n, b, r, q, k, child_white, child_castling, not white_to_move,
                         child_key, not_probed, no_square, -beta, -alpha, ply + 1, qply + 1, target,
                         recaptures_after, delta_margin, table, entries, generation, weights,
                         counts, budget, undo)
        if result <= GAVE_UP:
            return result
        score = -result
        if score > best_score:
            best_score = score
            if score > alpha:
                alpha = score
                if alpha >= beta:
                    counts[CUTOFFS] += 1
                    break
    if best_score >= beta:
        bound = LOWER
    elif best_score > original_alpha:
        bound = EXACT
    else:
        bound = UPPER
    if not _store(table, key, entries, bound, _to_tt(best_score, ply), generation, undo, counts):
        return GAVE_UP
    return best_score


# The recursive kernel is called from Python only: numba's cache cannot load a cached function
# that calls a recursive one (the process crashes), so undoing the stores is a kernel of its own.
_SIGNATURE = int64(uint64, uint64, uint64, uint64, uint64, uint64, uint64, uint64, boolean, uint64,
                   boolean, int64, int64, int64, int64, int64, int64, int64, int64, uint64[::1],
                   uint64, int64, int64[:, ::1], int64[::1], int64, uint64[::1])

quiescence = compile_kernel(_search, _SIGNATURE)
"""``quiescence(pawns, knights, bishops, rooks, queens, kings, white, castling, white_to_move,
key, probed, ep_square, alpha, beta, ply, qply, last_target, recaptures_after, delta_margin,
table, entries, generation, weights, counts, budget, undo)``: the score of the position (its side
to move not in check) as `Search.quiescence` finds it, OUT_OF_NODES when ``budget`` nodes are
reached, or GAVE_UP (then `undo_stores` puts the table back). ``probed``: the caller has counted
the first node and found no result for it in the table. ``counts`` gets the nodes, evaluations,
cut-offs and deepest ply of the kernel's nodes (and the length of the undo record); ``undo`` has
room for UNDO_STORES stores."""

undo_stores = compile_kernel(_undo_stores, void(uint64[::1], uint64[::1], int64[::1]))
