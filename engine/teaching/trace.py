"""Brudno's own search tree: a fixed-depth search of a position with the kernel's trace on.

`trace_search` runs the engine's search (iterative deepening, aspiration windows, the scout kernel
of engine/search/scout.py with all its pruning) and records the last iteration: the root as the Python
search plays it, then every node of the kernel with its window, value and kind, and every move not
searched, or searched at less depth, with the rule that did it (a node whose moves internal
iterative reduction searched a ply shallower is marked with it). It returns the tree as nested
dicts (moves in SAN); the page's "See the pruning" tab draws it (engine/teaching/web/kernel_tree.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import chess
import numpy as np

from engine.search.kernel_report import (AGAIN_AT_FULL_DEPTH, AGAIN_WITH_WINDOW, ALL_MOVES,
                                         BETA_CUTOFF, COUNTS, DELTA_PRUNING, DRAW, FUTILITY,
                                         HISTORY_PRUNING, HORIZON, INTERNAL_ITERATIVE_REDUCTION,
                                         LATE_MOVE_PRUNING, MATE_DISTANCE, MULTI_CUT, NON_PV_NODE,
                                         NO_MOVE, NULL_MOVE, NULL_MOVE_CUTOFF, PRUNED_MOVE, PV_NODE,
                                         QUIESCENCE_NODE, RAZORING, RAZOR_CHECK, REDUCED,
                                         REVERSE_FUTILITY, SCOUTED, SEARCHED, SEE_PRUNING,
                                         SINGULAR_CHECK, SINGULAR_EXTENSION, STAND_PAT, TABLEBASE, TABLE_CUT, TRACE_COLUMNS, T_ALPHA,
                                         T_BETA, T_DEPTH, T_HOW, T_KIND, T_MARK, T_MOVE, T_PARENT,
                                         T_PLY, T_RULE, T_VALUE, trace_rows)
from engine.board.bitmove import move_code
from engine.search.movepick import code_move
from engine.search.root import RootMove, Search
from engine.search.timeman import Limits
from engine.search.tt import TranspositionTable

MAX_TRACE_DEPTH = 6
# Rows of the trace (nodes and moves not searched) a call records: 20,000 make a page of a few MB,
# as the textbook tree's limit (engine/teaching/web/pruning.py MAX_DRAWN_POSITIONS).
MAX_TRACE_ROWS = 20_000
# The earlier iterations are not recorded but take time: the search stops past this many nodes.
MAX_SEARCH_NODES = 20 * MAX_TRACE_ROWS

KINDS = {PV_NODE: "PV", NON_PV_NODE: "non-PV", QUIESCENCE_NODE: "quiescence"}
HOW = {SEARCHED: "searched", SCOUTED: "null window",
       REDUCED: "reduced (LMR)", AGAIN_AT_FULL_DEPTH: "again at full depth",
       AGAIN_WITH_WINDOW: "again with the window", NULL_MOVE: "null move",
       RAZOR_CHECK: "razoring's quiescence check",
       SINGULAR_CHECK: "singular extension's search of the other moves"}
RULES = {ALL_MOVES: "", BETA_CUTOFF: "beta cut-off", TABLE_CUT: "table cut",
         NULL_MOVE_CUTOFF: "null move cut-off", REVERSE_FUTILITY: "reverse futility",
         RAZORING: "razoring", FUTILITY: "futility pruning",
         LATE_MOVE_PRUNING: "late-move pruning", SEE_PRUNING: "SEE pruning",
         DELTA_PRUNING: "delta pruning", STAND_PAT: "stand pat",
         DRAW: "draw", MATE_DISTANCE: "mate distance", TABLEBASE: "tablebase",
         HORIZON: "evaluated (ply limit)", NO_MOVE: "no move (mate or stalemate)",
         INTERNAL_ITERATIVE_REDUCTION: "internal iterative reduction",
         SINGULAR_EXTENSION: "singular extension", MULTI_CUT: "multi-cut",
         HISTORY_PRUNING: "history pruning"}
# A move a node reached but did not search because an earlier move cut the node off.
AFTER_CUTOFF = "beta cut-off"


class TraceTooLarge(ValueError):
    """The tree is larger than the trace holds: the message says how large, for the user."""


@dataclass
class TracedSearch:
    """A traced search: its tree (`tree`: the root of each aspiration pass of the last iteration,
    the last one the search's result) and what the search reported."""

    passes: list[dict[str, Any]]
    score: int  # the search's score, from the side to move's view
    best_move: str | None  # SAN
    depth: int
    nodes: int  # the kernel's nodes in the traced iteration (one per traced node)
    rows: int  # rows of the trace: nodes, the root passes and moves not searched


class TracingSearch(Search):
    """The engine's search with the kernel's trace on in the iteration of ``depth``: the Python
    root takes a row per aspiration pass and per root move's kernel call, the kernel the rest."""

    def __init__(self, tt: TranspositionTable, depth: int, capacity: int = MAX_TRACE_ROWS) -> None:
        super().__init__(tt)
        self.traced_depth = depth
        # The kernel's counters with the trace after them (T_PARENT), and its rows.
        self.traced_counts = np.zeros(COUNTS + (capacity + 1) * TRACE_COLUMNS,
                                      dtype=np.int64)
        self.rows = trace_rows(self.traced_counts)
        self._tracing = False
        self.passes: list[int] = []
        self.nodes_before: int | None = None
        self._root_row = 0
        self._root_code = 0
        self._scouted = 0  # the root move whose null-window search just beat alpha

    def _take_row(self, parent: int, code: int, how: int) -> int:
        rows = self.rows
        row = int(rows[0, 0]) + 1
        rows[0, 0] = row
        if row < rows.shape[0]:
            rows[row, T_PARENT] = parent
            rows[row, T_MOVE] = code
            rows[row, T_HOW] = how
        return row

    def _set(self, row: int, column: int, value: int) -> None:
        if row < self.rows.shape[0]:
            self.rows[row, column] = value

    def _search_root(self, root_moves: list[RootMove], depth: int, alpha: int, beta: int,
                     first: int) -> int:
        if depth != self.traced_depth:
            return super()._search_root(root_moves, depth, alpha, beta, first)
        if self.nodes_before is None:
            self.nodes_before = self.nodes
        row = self._take_row(0, 0, SEARCHED)
        for column, value in ((T_ALPHA, alpha), (T_BETA, beta),
                              (T_DEPTH, depth), (T_KIND, PV_NODE)):
            self._set(row, column, value)
        self.passes.append(row)
        self._root_row = row
        untraced, self.kernel_counts = self.kernel_counts, self.traced_counts
        self._tracing = True
        try:
            best = super()._search_root(root_moves, depth, alpha, beta, first)
        finally:
            self.kernel_counts = untraced
            self._tracing = False
        self._set(row, T_VALUE, best)
        self._set(row, T_RULE, BETA_CUTOFF if best >= beta else ALL_MOVES)
        return best

    def _make(self, move: chess.Move) -> None:
        self._root_code = move_code(self.board, move)
        super()._make(move)

    def _traced_call(self, how: int, depth: int, alpha: int, beta: int, ply: int) -> int:
        row = self._take_row(self._root_row, self._root_code, how)
        score = self._run_kernel(depth, alpha, beta, ply)
        self._set(row, T_VALUE, score)
        return score

    def pvs(self, depth: int, alpha: int, beta: int, ply: int) -> int:
        if not self._tracing:
            return super().pvs(depth, alpha, beta, ply)
        how = AGAIN_WITH_WINDOW if self._scouted == self._root_code else SEARCHED
        self._scouted = 0
        return self._traced_call(how, depth, alpha, beta, ply)

    def scout(self, depth: int, alpha: int, beta: int, ply: int) -> int:
        if not self._tracing:
            return super().scout(depth, alpha, beta, ply)
        self._scouted = self._root_code
        return self._traced_call(SCOUTED, depth, alpha, beta, ply)


def trace_search(board: chess.Board, depth: int, max_rows: int = MAX_TRACE_ROWS,
                 hash_mb: int = 16) -> TracedSearch:
    """Searches ``board`` to ``depth`` plies (a fresh table, the classical evaluation) and returns
    the tree of the last iteration; TraceTooLarge if it has more than ``max_rows`` rows."""
    if not 1 <= depth <= MAX_TRACE_DEPTH:
        raise ValueError(f"depth {depth} is out of range: the trace draws 1 to "
                         f"{MAX_TRACE_DEPTH} plies")
    if board.is_game_over():
        raise ValueError("the game is over in this position: there is no tree to search")
    search = TracingSearch(TranspositionTable(hash_mb), depth, max_rows)
    result = search.run(board, Limits(depth=depth, nodes=MAX_SEARCH_NODES))
    taken = int(search.rows[0, 0])
    if result.depth < depth or search.nodes_before is None:
        raise TraceTooLarge(f"too large to draw: the search to depth {depth} passes "
                            f"{MAX_SEARCH_NODES:,} nodes here; choose a smaller depth")
    if taken > max_rows:
        raise TraceTooLarge(f"too large to draw: the tree of depth {depth} has {taken:,} nodes "
                            f"and moves not searched, more than the {max_rows:,} drawn; choose a "
                            "smaller depth")
    passes = tree(board, search.rows[:taken + 1])
    best = board.san(result.best_move) if result.best_move else None
    return TracedSearch(passes, result.score, best, depth, search.nodes - search.nodes_before, taken)


def tree(board: chess.Board, rows: np.ndarray) -> list[dict[str, Any]]:
    """The trace's rows as nested dicts, one per root row (parent 0), each node with its move in
    SAN, window, value (from its side to move's view), kind, depth (on entry), how its parent
    searched it, the rule that ended it, the rule that changed it without ending it ("mark":
    internal iterative reduction, its moves searched a ply shallower; "" if none), its children
    in the order searched and its moves not searched."""
    children: dict[int, list[int]] = {}
    for row in range(1, rows.shape[0]):
        children.setdefault(int(rows[row, T_PARENT]), []).append(row)

    def node(row: int, board: chess.Board, san: str | None) -> dict[str, Any]:
        r = rows[row].tolist()
        out: dict[str, Any] = {
            "row": row, "move": san, "how": HOW[r[T_HOW]], "kind": KINDS[r[T_KIND]],
            "white_to_move": board.turn == chess.WHITE, "ply": r[T_PLY],
            "depth": r[T_DEPTH], "alpha": r[T_ALPHA], "beta": r[T_BETA],
            "value": r[T_VALUE], "rule": RULES[r[T_RULE]],
            "mark": RULES[r[T_MARK]], "children": [], "pruned": []}
        touched = set()
        for child in children.get(row, []):
            c = rows[child].tolist()
            code, how = c[T_MOVE], c[T_HOW]
            if how in (RAZOR_CHECK, SINGULAR_CHECK):  # the same position
                out["children"].append(node(child, board, None))
                continue
            move = chess.Move.null() if how == NULL_MOVE else code_move(code)
            move = _legal_form(board, move)
            name = "null move" if how == NULL_MOVE else board.san(move)
            touched.add(move)
            if c[T_KIND] == PRUNED_MOVE:
                out["pruned"].append({"move": name, "rule": RULES[c[T_RULE]]})
                continue
            board.push(move)
            out["children"].append(node(child, board, name))
            board.pop()
        if r[T_RULE] == BETA_CUTOFF and r[T_KIND] != QUIESCENCE_NODE:
            # Moves after the cut are never generated by the kernel's staged walk: every legal
            # move neither searched nor pruned is one of them.
            out["pruned"] += [{"move": board.san(move), "rule": AFTER_CUTOFF}
                              for move in board.legal_moves if move not in touched]
        return out

    return [node(row, board.copy(), None) for row in children.get(0, [])]


def _legal_form(board: chess.Board, move: chess.Move) -> chess.Move:
    """The kernel's castling (the king's two-square step, or its taking its rook in Chess960) as
    python-chess spells it on ``board``."""
    if move and move not in board.legal_moves and board.is_castling(move):
        for legal in board.generate_castling_moves():
            if legal.from_square == move.from_square and board.is_kingside_castling(legal) == \
                    board.is_kingside_castling(move):
                return legal
    return move


def count_nodes(passes: list[dict[str, Any]]) -> int:
    """The kernel's nodes in a traced tree: every node below the root passes (the Python root
    is not a kernel node)."""
    def below(node: dict[str, Any]) -> int:
        return sum(1 + below(child) for child in node["children"])
    return sum(below(root) for root in passes)
