"""The scout kernel's inputs, declared once: each record's fields with their numba types (the
`Line`, `Tables` and `Control` records, the node's signature, NODE), the rows of a node's move
lists in the ``moves`` table, and the results of a kernel call that are not scores.

The records, their numba types, the entry's signature (engine/search/scout.py's `search`) and the
order in which the Python search (engine/search/root.py) passes them follow from these lists.
"""

from __future__ import annotations

from collections import namedtuple

from numba import boolean, from_dtype, int16, int32, int64, uint64
from numba.types import NamedTuple, Tuple

from engine.board.bitboards import uncounted_inline
from engine.board.movegen import MAX_CAPTURES, MAX_PROMOTIONS, MAX_QUIETS
from engine.board.position import POSITION, POSITION_INPUTS
from engine.evaluation import network as nn
from engine.evaluation.score import MAX_PLY
from engine.search.movepick import WALK_MOVES

# Results that are not scores (scores stay within +-MATE).
# the tree reached a position to probe in the tablebases (engine/search/scout.py's `search`)
NEED_PROBE = -(1 << 40)
OUT_OF_NODES = NEED_PROBE - 1  # the node budget ran out: the search must stop
NO_BUDGET = 1 << 62  # the budget of a search without a node limit

# A node's position: engine/board/position.py's record (POSITION_INPUTS).
# The node's depth and window.
WINDOW_INPUTS = (("depth", int64), ("alpha", int64), ("beta", int64))
# A node's place on its line from the root: its ply, its plies past the horizon (quiescence), the
# square the last move went to (recaptures), the keys since the last irreversible move
# (``path[:last + 1]``, this node's last, for repetitions), whether a null move may be tried and
# the table code of a move the node leaves out (0: none; the singular extension's search of the
# other moves).
LINE_INPUTS = (("ply", int64), ("qply", int64), ("last_target", int64), ("path", uint64[::1]),
               ("last", int64), ("can_null", boolean), ("excluded", int64))
# The per-search tables the whole tree reads and writes: the search's parameters
# (engine/search/params.py's slots) and late-move reductions (by depth and move number), the
# move ordering's history (engine/search/history.py's one array) and killers, the transposition table, the classical evaluation's
# weights, the network's weights (w1 (768, H), b1 (H), w2 (heads, 2H), b2 (heads): they evaluate
# where params[P.NETWORK] is set) and its first layers by ply (network.ACCUMULATOR,
# (MAX_PLY + 1, 2, H): the caller fills ``acc[ply]``, the kernel updates the plies below move by
# move), the principal variation by ply (``pv[ply]``: its length, then its move codes), the
# nodes' move lists (MOVE_ROWS x NODE_MOVES: `node_moves`), the correction history, and the
# line's stack: by ply, what its node
# knows that the nodes below read (STACK_FIELDS: its static score, -INFINITY for one in check:
# scout.py's `_improving`; the piece_to of the move it searches, NO_MOVE for the null move).
NETWORK_WEIGHTS = Tuple((int16[:, ::1], int16[::1], int16[:, ::1], int32[::1]))
TABLES_INPUTS = (("params", int64[::1]), ("reductions", int64[:, ::1]),
                 ("history", int16[::1]),
                 ("killers", int64[:, ::1]), ("table", uint64[::1]), ("entries", uint64),
                 ("generation", int64), ("weights", int64[:, ::1]), ("network", NETWORK_WEIGHTS),
                 ("acc", from_dtype(nn.ACCUMULATOR)[:, :, ::1]), ("pv", int64[:, ::1]),
                 ("moves", int64[:, ::1]), ("correction", int64[:, ::1]),
                 ("stack", int64[:, ::1]))
STACK_EVAL, STACK_PIECE_TO = range(2)
STACK_FIELDS = 2
# What ends a call and what it reports: its counters, its node budget, the stop word and the value
# at which it stops, the iteration's depth (which bounds the check extension) and the tablebase
# results it reads and asks for (``counts`` also holds the trace of its tree, if asked:
# engine/search/kernel_report.py).
CONTROL_INPUTS = (("counts", int64[::1]), ("budget", int64), ("stop", int64[::1]),
                  ("stop_at", int64), ("root_depth", int64), ("probe_keys", uint64[::1]),
                  ("probe_results", int64[::1]), ("request", uint64[::1]))
INPUTS = POSITION_INPUTS + WINDOW_INPUTS + LINE_INPUTS + TABLES_INPUTS + CONTROL_INPUTS


def _names(inputs: tuple) -> list[str]:
    return [name for name, _ in inputs]


# A node's move lists, in its row of ``moves``: the walk's current stage (or quiescence's moves),
# the losing captures, the quiet moves searched, quiescence's promotions, the killers searched (two
# history indices). Views of a row cost no allocation, as np.empty would. A row per ply, and one
# more for the search that leaves the table's move out (the singular extension's), which runs at
# its node's ply after that node has listed its first moves. (Razoring's quiescence runs at its
# node's ply too, before that node lists any.)
LOSING_AT = WALK_MOVES
TRIED_AT = LOSING_AT + MAX_CAPTURES
PROMOTIONS_AT = TRIED_AT + MAX_QUIETS
DONE_AT = PROMOTIONS_AT + MAX_PROMOTIONS
NODE_MOVES = DONE_AT + 2
MOVE_ROWS = 2 * (MAX_PLY + 1)

Line = namedtuple("Line", _names(LINE_INPUTS))
Tables = namedtuple("Tables", _names(TABLES_INPUTS))
Control = namedtuple("Control", _names(CONTROL_INPUTS))


@uncounted_inline
def node_moves(moves, ply, excluded):
    """A node's move lists (see NODE_MOVES): views of its row of ``moves``, no allocation."""
    row = moves[2 * ply + (1 if excluded != 0 else 0)]
    return (row[:LOSING_AT], row[LOSING_AT:TRIED_AT], row[TRIED_AT:PROMOTIONS_AT],
            row[PROMOTIONS_AT:DONE_AT], row[DONE_AT:])


def _record_type(inputs: tuple, record: type) -> NamedTuple:
    return NamedTuple(tuple(numba_type for _, numba_type in inputs), record)


# A node's signature, the tree's and quiescence's: its position, depth, window, line, tables and
# control. Quiescence first: the tree's nodes call it.
NODE = int64(POSITION, int64, int64, int64,
              _record_type(LINE_INPUTS, Line), _record_type(TABLES_INPUTS, Tables),
              _record_type(CONTROL_INPUTS, Control))
