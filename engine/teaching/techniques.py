"""The search with its techniques switched off, row by row: what each technique saves.

The rows of the techniques table (issue 57): alpha-beta with move ordering, the techniques added
one at a time in the textbook's order up to the full search, then the full search without each
one. Every row is Brudno's own search (engine/search/root.py and the kernel of engine/search/scout.py) with
techniques switched off through the kernel's params slots (engine/search/params.py) and the Search's
switches, never a second search. `compare_techniques` measures the rows of a position: nodes,
evaluations, seconds, effective branching factor, value, best move, and Knuth and Moore's minimal
tree for comparison. `scripts/studies/alphabeta_table.py --techniques` prints them; the page's pruning
tab shows them for the position on the board (engine/teaching/web/server.py, /api/techniques).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import chess

from engine.search import params
from engine.board.perft import perft
from engine.search.root import Search
from engine.search.timeman import Limits
from engine.search.tt import TranspositionTable

BRANCHING_PLIES = 3  # perft beyond 3 plies costs minutes in python-chess: b is estimated from it


class TooLarge(ValueError):
    """The rows passed the node budget they were given: the message says where, for the user."""


def mean_branching_factor(leaves: int, depth: int) -> float:
    """The b with b^depth = leaves: the average number of moves over the depth-`depth` tree."""
    return leaves ** (1 / depth)


def minimal_tree(b: float, depth: int) -> float:
    """Knuth and Moore: leaves of the minimal tree of a uniform tree with branching b."""
    return b ** math.ceil(depth / 2) + b ** math.floor(depth / 2) - 1


def _switch_off(*names: str) -> Callable[[Search], None]:
    """Switches off the rules of the parameters ``names`` of engine/search/params.py: each of their slots
    set to the parameter's own off value."""
    chosen = [parameter for parameter in params.PARAMETERS if parameter.name in names]
    if len(chosen) != len(names):
        raise ValueError(f"not all of {names} are search parameters")

    def switch_off(search: Search) -> None:
        for parameter in chosen:
            slot = params.SLOTS[parameter.name]
            search.kernel_params[slot:slot + len(parameter.values)] = parameter.off
    return switch_off


# The pruning rules, as params.without_pruning switches them off, but for the null move and
# internal iterative reduction, which have rows of their own: a rule declared there with
# ``prunes`` joins this row by itself.
OWN_ROWS = ("NULL_MOVE_DEPTH", "IIR_DEPTH")
PRUNING = tuple(parameter.name for parameter in params.PARAMETERS
                if parameter.prunes and parameter.name not in OWN_ROWS)


def _no_reductions(search: Search) -> None:
    search.reductions[:] = 0  # (the search's own copy, which its kernel tables hold)


def _attribute(name: str, value: object) -> Callable[[Search], None]:
    return lambda search: setattr(search, name, value)


@dataclass(frozen=True)
class Technique:
    key: str
    name: str
    switch_off: Callable[[Search], None]  # after Search.prepare
    note: str = ""


# In the textbook's order. Every row keeps the staged move order (hash move, captures by MVV-LVA,
# losing captures last), check extensions, mate-distance pruning and the draw rules.
TECHNIQUES = (
    Technique("table", "transposition table", _switch_off("TABLE_READS"),
              "off: no node reads the table (results or moves)"),
    Technique("deepening", "iterative deepening", _attribute("iterative_deepening", False),
              "off: only the last depth is searched"),
    Technique("pvs", "PVS", _switch_off("PVS"),
              "off: every move with the full window, as a PV node. Brudno's PV nodes take no "
              "table result and prune nothing (the kernel does, in the null-window nodes), so "
              "without PVS the table only orders moves, and null move, late-move reductions, "
              "futility, late-move and SEE pruning and razoring never fire: they cannot be "
              "separated from PVS without restructuring the search"),
    Technique("aspiration", "aspiration windows", _switch_off("ASPIRATION_DEPTH"),
              "off: every iteration with the full window"),
    Technique("killers", "killers and history",
              _switch_off("KILLERS_AND_HISTORY", "CORRECTION_PAWN", "CORRECTION_OTHER"),
              "off: quiet cut-offs are not recorded; quiet moves keep their generation order; "
              "the static score is not corrected by the correction history"),
    Technique("quiescence", "quiescence", _switch_off("QUIESCENCE_PLIES"),
              "off: the static evaluation at the horizon"),
    Technique("null", "null move", _switch_off("NULL_MOVE_DEPTH")),
    Technique("lmr", "late-move reductions", _no_reductions,
              "off: a reductions table of zeros"),
    Technique("pruning", "futility, late-move and SEE pruning, razoring", _switch_off(*PRUNING),
              "with reverse futility and delta pruning and quiescence's recaptures-only rule: "
              "with null move and IIR, the rules of params.without_pruning"),
    Technique("iir", "internal iterative reduction", _switch_off("IIR_DEPTH")),
)
BASE = "alpha-beta with move ordering"
FULL = "full search"
DEFAULT_NOTE = "off: its params slot set so that it never fires"


@dataclass
class TechniqueRow:
    """One search of one position with some techniques switched off."""

    row: str
    kind: str  # "add" (the techniques up to this one) or "without" (the full search but one)
    off: list[str]  # the keys of the techniques switched off
    position: str
    fen: str
    depth: int
    nodes: int
    evaluations: int
    seconds: float
    ebf: float  # nodes ** (1 / depth)
    value: int  # centipawns from White's view
    best_move: str | None
    branching: float  # b of the minimal tree: perft(k) ** (1 / k), k = min(depth, 3)
    minimal_tree: float  # b^ceil(d/2) + b^floor(d/2) - 1


def technique_rows() -> list[tuple[str, str, tuple[Technique, ...]]]:
    """(label, kind, techniques off) of every row: alpha-beta with ordering, one technique added
    at a time up to the full search, then the full search without each one."""
    rows = [(BASE, "add", TECHNIQUES)]
    for i, technique in enumerate(TECHNIQUES, 1):
        label = f"+ {technique.name}" + (f" (= {FULL})" if i == len(TECHNIQUES) else "")
        rows.append((label, "add", TECHNIQUES[i:]))
    rows += [(f"{FULL} without {t.name}", "without", (t,)) for t in TECHNIQUES]
    return rows


def switched_search(off: tuple[Technique, ...], hash_mb: int = 16) -> Search:
    """Brudno's Search with the techniques ``off`` switched off (set again at each prepare,
    which makes the kernel's params afresh)."""

    class SwitchedSearch(Search):
        def prepare(self, board: chess.Board, limits: Limits) -> None:
            super().prepare(board, limits)
            for technique in off:
                technique.switch_off(self)

    return SwitchedSearch(TranspositionTable(hash_mb))


def mean_branching(board: chess.Board, depth: int) -> float:
    """b for the minimal tree: the mean branching factor perft(k) ** (1 / k) over the first
    k = min(depth, BRANCHING_PLIES) plies (the textbook table's b, from minimax's leaves, is
    perft(depth) ** (1 / depth); deeper perfts cost too much here)."""
    plies = min(depth, BRANCHING_PLIES)
    return mean_branching_factor(perft(board.copy(), plies), plies)


def measure_technique(board: chess.Board, depth: int, off: tuple[Technique, ...],
                      evaluate: Callable | None = None, max_nodes: int | None = None
                      ) -> tuple[int, int, float, int, str | None]:
    """(nodes, evaluations, seconds, value from White's view, best move) of one search; with
    ``max_nodes``, TooLarge if the search needs more nodes than that to reach ``depth``."""
    search = switched_search(off)
    if evaluate is not None:
        search.evaluate = evaluate
    start = time.perf_counter()
    result = search.run(board.copy(), Limits(depth=depth, nodes=max_nodes))
    seconds = time.perf_counter() - start
    if max_nodes is not None and result.depth < depth:
        raise TooLarge(f"the search passes {max_nodes:,} nodes before depth {depth}")
    value = result.score if board.turn == chess.WHITE else -result.score
    move = result.best_move.uci() if result.best_move else None
    return result.nodes, result.evaluations, seconds, value, move


def compare_techniques(name: str, board: chess.Board, depths: list[int],
                       evaluate: Callable | None = None, progress: Callable[[str], None] | None
                       = None, max_nodes: int | None = None) -> list[TechniqueRow]:
    """Every row of `technique_rows` at each of ``depths`` (each a fresh search); ``progress``
    gets a line a depth. With ``max_nodes`` the rows together search at most that many nodes:
    TooLarge, naming the row, if they need more."""
    rows: list[TechniqueRow] = []
    left = max_nodes
    for depth in depths:
        b = mean_branching(board, depth)
        for label, kind, off in technique_rows():
            if left is not None and left <= 0:  # a limit of 0 nodes would be no limit
                raise TooLarge(f"too large: the rows before {label!r} at depth {depth} take "
                               f"{max_nodes:,} nodes here; choose a smaller depth")
            try:
                nodes, evaluations, seconds, value, move = measure_technique(
                    board, depth, off, evaluate, left)
            except TooLarge:
                raise TooLarge(f"too large: the rows to {label!r} at depth {depth} pass "
                               f"{max_nodes:,} nodes here; choose a smaller depth") from None
            if left is not None:
                left -= nodes
            rows.append(TechniqueRow(label, kind, [t.key for t in off], name, board.fen(), depth,
                                     nodes, evaluations, seconds, nodes ** (1 / depth), value,
                                     move, b, minimal_tree(b, depth)))
        if progress is not None:
            done = rows[-len(technique_rows()):]
            progress(f"{name}, depth {depth}: {len(done)} rows in "
                     f"{sum(r.seconds for r in done):.1f} s")
    return rows
