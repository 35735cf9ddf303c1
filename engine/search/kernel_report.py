"""What a kernel call reports in its ``counts`` array: its counters and, when the caller asks,
the tree it searched (the trace engine/teaching/trace.py reads), with the helpers the kernel records it by.

The search (engine/search/scout.py) inlines the helpers at every node; with a ``counts`` of COUNTS only
(the search's own) each tests that length and writes nothing.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# The counters a call fills in, by index of its `counts` array.
NODES, EVALUATIONS, CUTOFFS, SELDEPTH, TBHITS = 0, 1, 2, 3, 4
COUNTS = 5

# The tree a call searched, recorded when the caller asks for it (engine/teaching/trace.py reads it) in the
# call's `counts` array after its COUNTS counters: so the search passes no argument more for it,
# and with a `counts` of COUNTS only (the search's) the kernel tests that length where it would
# record and writes nothing. There, rows of TRACE_COLUMNS (`trace_rows`): one per node and per
# move not searched, by the T_ columns; row 0 is the header, its first cell the rows taken (it may
# pass the rows there are: those are counted, not written). A node's row is taken by its parent
# just before the call (`trace_child`: the parent, the move and how it is searched) and the
# parent writes its value after; the node writes its ply, window, depth and kind on entry
# (`trace_node`), a rule that changed it without ending it (`trace_mark`) and the rule that
# ended it (`trace_end`).
(T_PARENT, T_PLY, T_MOVE, T_ALPHA, T_BETA, T_DEPTH, T_VALUE, T_KIND, T_RULE, T_HOW,
 T_MARK) = range(11)
TRACE_COLUMNS = 11
# A row's kind (T_KIND).
PV_NODE, NON_PV_NODE, QUIESCENCE_NODE, PRUNED_MOVE = 1, 2, 3, 4
# How the parent searched a node (T_HOW): the first move (or with the open window), a later move
# with a null window, a late quiet move with a null window at less depth (LMR), the same move again
# at full depth (the reduced search beat alpha) or again with the open window (the null window beat
# alpha in a PV node); the null move (no move, the other side to play, less depth); razoring's
# quiescence search of the node's own position; the singular extension's search of the node's own
# position without the table's move.
(SEARCHED, SCOUTED, REDUCED, AGAIN_AT_FULL_DEPTH, AGAIN_WITH_WINDOW, NULL_MOVE, RAZOR_CHECK,
 SINGULAR_CHECK) = range(8)
# The rule that ended a node (T_RULE of a node: ALL_MOVES if it searched every move it did not
# prune) or pruned a move (T_RULE of a PRUNED_MOVE row); or that changed a node without ending it
# (T_MARK: internal iterative reduction searched its moves a ply shallower, the singular extension
# its table move a ply deeper or shallower; ALL_MOVES if none did).
(ALL_MOVES, BETA_CUTOFF, TABLE_CUT, NULL_MOVE_CUTOFF, REVERSE_FUTILITY, RAZORING, FUTILITY,
 LATE_MOVE_PRUNING, SEE_PRUNING, DELTA_PRUNING, STAND_PAT, DRAW, MATE_DISTANCE, TABLEBASE, HORIZON,
 NO_MOVE, INTERNAL_ITERATIVE_REDUCTION, SINGULAR_EXTENSION, MULTI_CUT, HISTORY_PRUNING) = range(20)


def trace_rows(counts: np.ndarray) -> np.ndarray:
    """The trace in a call's ``counts`` (longer than COUNTS), as rows by the T_ columns: a view."""
    return counts[COUNTS:].reshape(-1, TRACE_COLUMNS)


@njit(cache=True, nogil=True, inline="always")
def _cell(row, column):
    """Where a cell of the trace is in ``counts``."""
    return COUNTS + row * TRACE_COLUMNS + column


@njit(cache=True, nogil=True, inline="always")
def _kept(counts, row):
    """Whether the trace has room for ``row``."""
    return _cell(row + 1, 0) <= counts.shape[0]


@njit(cache=True, nogil=True, inline="always")
def trace_row(counts, parent, code, how):
    """Takes the next row of the trace for a child of ``parent`` (a node, or a move not searched)."""
    row = counts[COUNTS] + 1
    counts[COUNTS] = row
    if _kept(counts, row):
        counts[_cell(row, T_PARENT)] = parent
        counts[_cell(row, T_MOVE)] = code
        counts[_cell(row, T_HOW)] = how
    return row


@njit(cache=True, nogil=True, inline="always")
def trace_child(counts, parent, code, how):
    """The row of the child the node searches next (move ``code``, 0 for none; ``how``), or 0
    with the trace off."""
    if counts.shape[0] == COUNTS:
        return 0
    return trace_row(counts, parent, code, how)


@njit(cache=True, nogil=True, inline="always")
def trace_node(counts, ply, alpha, beta, depth, kind):
    """The row of the node entered (its parent took it), with its window on entry, its depth and
    kind; 0 with the trace off."""
    if counts.shape[0] == COUNTS:
        return 0
    row = counts[COUNTS]
    if _kept(counts, row):
        counts[_cell(row, T_PLY)] = ply
        counts[_cell(row, T_ALPHA)] = alpha
        counts[_cell(row, T_BETA)] = beta
        counts[_cell(row, T_DEPTH)] = depth
        counts[_cell(row, T_KIND)] = kind
    return row


@njit(cache=True, nogil=True, inline="always")
def trace_value(counts, row, value):
    """The value a child returned (from its mover's view)."""
    if counts.shape[0] != COUNTS and _kept(counts, row):
        counts[_cell(row, T_VALUE)] = value


@njit(cache=True, nogil=True, inline="always")
def trace_end(counts, row, rule):
    """The rule that ended the node of ``row``."""
    if counts.shape[0] != COUNTS and _kept(counts, row):
        counts[_cell(row, T_RULE)] = rule


@njit(cache=True, nogil=True, inline="always")
def trace_mark(counts, row, applied, rule):
    """``rule`` changed the node of ``row`` without ending it, if ``applied``."""
    if counts.shape[0] != COUNTS and applied and _kept(counts, row):
        counts[_cell(row, T_MARK)] = rule


@njit(cache=True, nogil=True, inline="always")
def trace_move_not_searched(counts, parent, code, rule):
    row = trace_row(counts, parent, code, SEARCHED)
    if _kept(counts, row):
        counts[_cell(row, T_KIND)] = PRUNED_MOVE
        counts[_cell(row, T_RULE)] = rule


@njit(cache=True, nogil=True, inline="always")
def trace_pruned(counts, parent, code, rule):
    """Move ``code`` of the node ``parent`` not searched, by ``rule``."""
    if counts.shape[0] != COUNTS:
        trace_move_not_searched(counts, parent, code, rule)


@njit(cache=True, nogil=True, inline="always")
def trace_pruned_all(counts, parent, codes, rule):
    """Moves ``codes`` of the node ``parent`` not searched, by ``rule`` (delta pruning ends the
    captures at once)."""
    if counts.shape[0] != COUNTS:
        for code in codes:
            trace_move_not_searched(counts, parent, code, rule)
