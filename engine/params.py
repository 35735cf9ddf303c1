"""The search's parameters and reduction rules, declared once for the Python search and the kernel.

The margins and counts below are read by name in engine/search.py and, through the `KERNEL_PARAMS`
array (numba freezes module globals when it compiles, so the kernel takes them as an argument), by
slot in engine/scout.py. The reductions that are formulas are numba functions that both call.
"""

from __future__ import annotations

import math

import numpy as np
from numba import boolean, int64, njit

from engine.bitboards import compile_kernel

MAX_DEPTH = 100

# Pruning margins (centipawns) and counts, each used in one named step of a node.
REVERSE_FUTILITY_MARGIN = 90  # per ply of remaining depth
REVERSE_FUTILITY_DEPTH = 6  # the deepest node it applies to
FUTILITY_MARGIN = (0, 160, 320)  # by remaining depth
DELTA_MARGIN = 200
LATE_MOVE_COUNT = (0, 6, 10, 16)  # by remaining depth: quiet moves searched before pruning the rest
RECAPTURES_ONLY_AFTER = 4  # quiescence plies after which only recaptures are searched
QUIESCENCE_DEPTH = 0  # the depth of quiescence results in the TT: below every real search
SEE_PRUNE_DEPTH = 3  # captures losing more than SEE_MARGIN per ply of depth are pruned up to here
SEE_MARGIN = 100
RAZOR_MARGIN = (0, 300, 550)  # by remaining depth: below alpha by this, ask quiescence first
NULL_MOVE_DEPTH = 2  # the least remaining depth at which a null move is tried
IIR_DEPTH = 4  # from this depth on, a node without a table move is searched a ply shallower

# Late-move reductions, by remaining depth and by the number of moves searched before this one.
REDUCTIONS = np.zeros((MAX_DEPTH + 2, 64), dtype=np.int64)
for _d in range(1, MAX_DEPTH + 2):
    for _m in range(1, 64):
        REDUCTIONS[_d, _m] = int(0.75 + math.log(_d) * math.log(_m) / 1.9)

# The kernel's `params` slots: RAZOR and FUTILITY hold the margins of depths 1 and 2, LATE_MOVES
# the counts of depths 1 to 3; TABLEBASE_MEN to NETWORK_B2 are set for each search (engine/search.py
# prepare). The last three only switch a technique off, for scripts/alphabeta_table.py
# --techniques: TABLE_READS 0 (the nodes read nothing from the transposition table, neither
# results nor moves), KILLERS_AND_HISTORY 0 (quiet cut-offs are not recorded, so quiet moves keep
# their generation order), QUIESCENCE_PLIES 0 (the static evaluation at the horizon).
(RECAPTURES_AFTER, DELTA, RAZOR, _, REVERSE_FUTILITY, REVERSE_FUTILITY_DEPTH_SLOT, FUTILITY, _,
 LATE_MOVES, _, _, SEE, SEE_DEPTH, NULL_MOVE_DEPTH_SLOT, IIR_DEPTH_SLOT, TABLEBASE_MEN, CHESS960,
 NETWORK, NETWORK_B2, TABLE_READS, KILLERS_AND_HISTORY, QUIESCENCE_PLIES, PVS) = range(23)
PARAMS = 23
KERNEL_PARAMS = np.zeros(PARAMS, dtype=np.int64)
KERNEL_PARAMS[RECAPTURES_AFTER] = RECAPTURES_ONLY_AFTER
KERNEL_PARAMS[DELTA] = DELTA_MARGIN
KERNEL_PARAMS[RAZOR:RAZOR + 2] = RAZOR_MARGIN[1:]
KERNEL_PARAMS[REVERSE_FUTILITY] = REVERSE_FUTILITY_MARGIN
KERNEL_PARAMS[REVERSE_FUTILITY_DEPTH_SLOT] = REVERSE_FUTILITY_DEPTH
KERNEL_PARAMS[FUTILITY:FUTILITY + 2] = FUTILITY_MARGIN[1:]
KERNEL_PARAMS[LATE_MOVES:LATE_MOVES + 3] = LATE_MOVE_COUNT[1:]
KERNEL_PARAMS[SEE] = SEE_MARGIN
KERNEL_PARAMS[SEE_DEPTH] = SEE_PRUNE_DEPTH
KERNEL_PARAMS[NULL_MOVE_DEPTH_SLOT] = NULL_MOVE_DEPTH
KERNEL_PARAMS[IIR_DEPTH_SLOT] = IIR_DEPTH
KERNEL_PARAMS[TABLE_READS] = 1
KERNEL_PARAMS[KILLERS_AND_HISTORY] = 1
KERNEL_PARAMS[PVS] = 1  # 0: a PV node searches every move with the full window
# Quiescence plies past the horizon: every one (the ply limit, MAX_PLY, ends a line first).
KERNEL_PARAMS[QUIESCENCE_PLIES] = 1 << 30
assert len(RAZOR_MARGIN) == len(FUTILITY_MARGIN) == 3 and len(LATE_MOVE_COUNT) == 4  # the slots


@njit(cache=True, nogil=True)
def _extends_check(in_check, ply, root_depth):
    """Whether a node is searched one ply deeper: in check (so that mates and perpetuals are
    seen), while the line is shorter than twice the iteration's depth (which bounds the
    extensions a line can collect)."""
    return in_check and ply < 2 * root_depth


@njit(cache=True, nogil=True)
def null_move_reduction(depth, static_eval, beta):
    """How much shallower than the node the null move's search is: three plies, one more per four
    of depth, and up to three more as the static score rises above beta."""
    return 3 + depth // 4 + min(3, (static_eval - beta) // 200)


@njit(cache=True, nogil=True)
def _late_move_reduction(reductions, depth, moves_searched, is_quiet, in_check, gives_check, is_pv):
    """How much shallower a move is searched at first: from the third ply of depth on, a quiet
    move that is not a check (nor out of check) after three moves, by the table (one ply less in
    PV nodes), leaving at least one ply; 0 for every other move."""
    if depth < 3 or moves_searched < 3 or not is_quiet or in_check or gives_check:
        return 0
    return max(0, min(reductions[depth, min(moves_searched, 63)] - is_pv, depth - 2))


@njit(cache=True, nogil=True)
def _internal_iterative_reduction(depth, has_table_move, iir_depth):
    """How much shallower a node is searched: one ply from ``iir_depth`` (IIR_DEPTH) on when the
    table has no move for it (its move order is then poor), else 0. Kernel and PV nodes alike
    (the kernel's from stop 47 on: +17 Elo at the scaled 2+0.02, docs/experiments.md)."""
    return 1 if not has_table_move and depth >= iir_depth else 0


def without_pruning(kernel_params: np.ndarray) -> np.ndarray:
    """A copy of ``kernel_params`` with every pruning rule of the kernel switched off: razoring,
    reverse futility, null move, internal iterative reduction, futility, late-move, SEE and delta
    pruning, and the recaptures-only rule of deep quiescence. With reductions of zero too, the
    kernel searches the plain alpha-beta tree with quiescence (the tests' oracle: its value is
    plain negamax's)."""
    off = kernel_params.copy()
    never = 1 << 30
    off[RAZOR:RAZOR + 2] = never
    off[REVERSE_FUTILITY_DEPTH_SLOT] = 0
    off[NULL_MOVE_DEPTH_SLOT] = never
    off[IIR_DEPTH_SLOT] = never
    off[FUTILITY:FUTILITY + 2] = never
    off[LATE_MOVES:LATE_MOVES + 3] = never
    off[SEE_DEPTH] = 0
    off[DELTA] = never
    off[RECAPTURES_AFTER] = never
    return off


# Compiled at import (the Python search calls them too: never compiled during a search).
extends_check = compile_kernel(_extends_check, boolean(boolean, int64, int64))
internal_iterative_reduction = compile_kernel(_internal_iterative_reduction,
                                              int64(int64, boolean, int64))
late_move_reduction = compile_kernel(_late_move_reduction, int64(int64[:, ::1], int64, int64,
                                                                 boolean, boolean, boolean, boolean))
