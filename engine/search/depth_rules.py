"""How deep the search goes at a node: its reduction and extension rules, compiled for the kernel.

Each rule reads its numbers from the ``params`` array by the slots of engine/search/params.py, where they
are declared (the kernel, engine/search/scout.py, calls these rules at every node).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from numba import boolean, int64, njit

from engine.search import params as P
from engine.board.bitboards import compile_kernel
from engine.search.params import MAX_DEPTH, NEVER


def late_move_reductions(params: np.ndarray) -> np.ndarray:
    """Late-move reductions by remaining depth and by the number of moves searched before, from
    LMR_BASE and LMR_DIVISOR (made once for each pair: the kernel only reads it)."""
    return _reductions(int(params[P.LMR_BASE]), int(params[P.LMR_DIVISOR]))


@functools.lru_cache(maxsize=8)
def _reductions(base: int, divisor: int) -> np.ndarray:
    table = np.zeros((MAX_DEPTH + 2, 64), dtype=np.int64)
    for depth in range(1, MAX_DEPTH + 2):
        for moves in range(1, 64):
            table[depth, moves] = int(base / 100
                                      + math.log(depth) * math.log(moves) / (divisor / 100))
    return table


@njit(cache=True, nogil=True)
def _extends_check(in_check, ply, root_depth):
    """Whether a node is searched one ply deeper: in check (so that mates and perpetuals are
    seen), while the line is shorter than twice the iteration's depth (which bounds the
    extensions a line can collect)."""
    return in_check and ply < 2 * root_depth


@njit(cache=True, nogil=True)
def null_move_reduction(params, depth, static_eval, beta):
    """How much shallower than the node the null move's search is: NULL_MOVE_BASE plies, one more
    per NULL_MOVE_DEPTH_DIVISOR of depth, and one more per NULL_MOVE_EVAL_DIVISOR of the static
    score above beta, up to NULL_MOVE_EVAL_MAX."""
    return (params[P.NULL_MOVE_BASE] + depth // params[P.NULL_MOVE_DEPTH_DIVISOR]
            + min(params[P.NULL_MOVE_EVAL_MAX],
                  (static_eval - beta) // params[P.NULL_MOVE_EVAL_DIVISOR]))


@njit(cache=True, nogil=True)
def _late_move_reduction(params, reductions, depth, moves_searched, reducible, is_pv, improving,
                         score):
    """How much shallower a move is searched at first: from LMR_DEPTH plies of depth on, a quiet
    move that is not a check (nor out of check: ``reducible``) after LMR_MOVES moves, by the
    table (one ply less in PV nodes, IMPROVING_REDUCTION less where the static score is
    improving, NOT_IMPROVING_REDUCTION more for a move reduced at all where it is not, a ply less
    per HISTORY_LMR of its history ``score`` and more for a bad one, two at most), leaving at
    least one ply; 0 for every other move."""
    if depth < params[P.LMR_DEPTH] or moves_searched < params[P.LMR_MOVES] or not reducible:
        return 0
    reduction = reductions[depth, min(moves_searched, 63)] - is_pv
    if improving:
        reduction -= params[P.IMPROVING_REDUCTION]
    elif reduction > 0:
        reduction += params[P.NOT_IMPROVING_REDUCTION]
    if params[P.HISTORY_LMR] != NEVER:
        # (Towards zero, so that a good score and a bad one shift the reduction alike.)
        step = params[P.HISTORY_LMR]
        shift = score // step if score >= 0 else -(-score // step)
        reduction -= max(-2, min(2, shift))
    return max(0, min(reduction, depth - 2))


@njit(cache=True, nogil=True)
def _internal_iterative_reduction(depth, has_table_move, iir_depth):
    """How much shallower a node is searched: one ply from ``iir_depth`` (IIR_DEPTH) on when the
    table has no move for it (its move order is then poor), else 0 (+17 Elo at the scaled
    2+0.02, docs/experiments.md)."""
    return 1 if not has_table_move and depth >= iir_depth else 0


# Compiled at import (never during a search).
extends_check = compile_kernel(_extends_check, boolean(boolean, int64, int64))
internal_iterative_reduction = compile_kernel(_internal_iterative_reduction,
                                              int64(int64, boolean, int64))
late_move_reduction = compile_kernel(_late_move_reduction, int64(int64[::1], int64[:, ::1], int64,
                                                                 int64, boolean, boolean, boolean,
                                                                 int64))
