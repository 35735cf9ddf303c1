"""Minimax against alpha-beta on a chess position, as in German Wikipedia's "Alpha-Beta-Suche".

    python -m scripts.studies.alphabeta_table [--fen FEN] [--depth D] [--json] [--plot PATH | --no-plot]
                                      [--tree PATH [--tree-search ordered|plain]]
    python -m scripts.studies.alphabeta_table --techniques [--fen FEN] [--bench] [--depth D]
                                      [--evaluation network|classical] [--json]
                                      [--plot PATH | --no-plot]

The article ("Vergleich von Minimax und AlphaBeta") searches one position to four plies with
Minimax, AlphaBeta and AlphaBeta with move ordering and counts the evaluations and cutoffs.
This script does the same with the textbook searches of `engine.teaching.textbook`, adds alpha-beta
with perfect ordering (Knuth and Moore's minimal tree) and, for comparison, Brudno's own
search. Without --fen it uses Kiwipete and the start position.

It prints a Markdown table per position (or, with --json, only a JSON list of rows) and plots
the evaluations against the depth on a log scale.

`--tree PATH` also writes the search of one row, "AlphaBeta with move ordering"
(`--tree-search ordered`, the default) or "AlphaBeta" (`plain`), as an HTML page: every
position it visited with its move in SAN, window and value, and under each node that cut the
moves it pruned. The page's counts are checked against the row's. Depth 2-3 keeps it readable.

`--techniques` prints instead what each technique of Brudno's real search saves: rows that add
them one at a time in the textbook's order, from alpha-beta with move ordering to the full search,
and rows that take each one out of the full search. Every row is Brudno's own search
(engine/search/root.py and the kernel of engine/search/scout.py) with techniques switched off through the
kernel's params slots and the Search's switches, never a second search. The plot is then of the
rows' nodes against the depth (each depth a fresh search).
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import chess

from engine.board.perft import KIWIPETE
# The techniques' rows and measurement; also named here for this script's callers and tests.
from engine.teaching.techniques import (BASE, BRANCHING_PLIES, DEFAULT_NOTE, FULL,  # noqa: F401
                               TECHNIQUES, Technique, TechniqueRow, compare_techniques,
                               mean_branching, mean_branching_factor, measure_technique,
                               minimal_tree, switched_search, technique_rows)
from engine.teaching.textbook.drawing import chess_page
from engine.teaching.textbook.games import ChessGame
from engine.teaching.textbook.ordering import MvvLvaKillers
from engine.teaching.textbook.recording import SearchTrace, trace_alphabeta, trace_ordered
from engine.teaching.textbook.search import (PerfectOrdering, SearchResult, alphabeta, minimax,
                                             ordered_alphabeta)

DEFAULT_POSITIONS = (("Kiwipete", KIWIPETE), ("Start position", chess.STARTING_FEN))
DEFAULT_DEPTH = 4
DEFAULT_PLOT = "out/alphabeta_table.png"  # out/ is ignored by git

MINIMAX = "Minimax"
ALPHABETA = "AlphaBeta"
ORDERED = "AlphaBeta with move ordering"
PERFECT = "AlphaBeta with perfect ordering"
BRUDNO = "Brudno PVS"

# The article's table (a different position, depth 4); its share cut was an estimate.
ARTICLE = (
    (MINIMAX, 28_018_531, 0, "0 %", 134.87),
    (ALPHABETA, 2_005_246, 136_478, "91.50 %", 9.88),
    (ORDERED, 128_307, 27_025, "99.28 %", 0.99),
)


@dataclass
class Measurement:
    """One search of one position, before it is compared with the others."""

    algorithm: str
    exact: bool  # a plain fixed-depth search, so its value must be minimax's
    evaluations: int
    cutoffs: int
    nodes: int
    seconds: float
    value: int  # centipawns from White's view
    best_move: str | None


@dataclass
class Row(Measurement):
    cut_share: float  # 1 - evaluations / minimax evaluations
    vs_minimax: float  # evaluations / minimax evaluations
    vs_minimal: float  # evaluations / perfect ordering's evaluations
    fen: str
    depth: int


class ValueMismatch(RuntimeError):
    """Two exact searches of the same tree disagree: one of them is wrong."""


class ProgressGame(ChessGame):
    """A chess game that reports on stderr, at most once a second, how many root moves are done."""

    def __init__(self, board: chess.Board, label: str) -> None:
        super().__init__(board)
        self.label = label
        self.total = len(self.moves())
        self.done = 0
        self.last_report = time.monotonic()

    def pop(self) -> None:
        self.board.pop()
        if self.board.ply() == self.root_ply:
            self.done += 1
            now = time.monotonic()
            if now - self.last_report >= 1.0 or self.done == self.total:
                self.last_report = now
                end = "\n" if self.done == self.total else ""
                print(f"\r{self.label}: {self.done}/{self.total} root moves", end=end,
                      file=sys.stderr, flush=True)


def measure(algorithm: str, search: Callable[[], SearchResult]) -> Measurement:
    start = time.perf_counter()
    result = search()
    seconds = time.perf_counter() - start
    c = result.counters
    move = result.best_move.uci() if result.best_move else None
    return Measurement(algorithm, True, c.evaluations, c.cutoffs, c.nodes, seconds,
                       result.value, move)


def exact_measurements(board: chess.Board, depth: int, progress: bool = False) -> list[Measurement]:
    """The four fixed-depth searches: static evaluation at depth 0, no quiescence, no TT."""
    minimax_game = ProgressGame(board, f"Minimax depth {depth}") if progress else ChessGame(board)
    rows = [
        measure(MINIMAX, lambda: minimax(minimax_game, depth)),
        measure(ALPHABETA, lambda: alphabeta(ChessGame(board), depth)),
        measure(ORDERED, lambda: ordered_alphabeta(ChessGame(board), depth, MvvLvaKillers())),
    ]
    perfect = PerfectOrdering(depth, helper=MvvLvaKillers())
    row = measure(PERFECT, lambda: ordered_alphabeta(ChessGame(board), depth, perfect))
    # The exact values come from an oracle a real program does not have: do not time it.
    row.seconds -= perfect.seconds
    rows.append(row)
    return rows


def brudno_measurement(board: chess.Board, depth: int) -> Measurement | None:
    """Brudno's search (iterative deepening, TT, aspiration windows, pruning, quiescence).

    Not exact: pruning and quiescence change the value, so it is left out of the check.
    """
    try:
        from engine.search.root import fixed_depth_search
    except ImportError as error:
        print(f"Brudno row skipped: engine.search.fixed_depth_search is not available ({error})",
              file=sys.stderr)
        return None
    start = time.perf_counter()
    result = fixed_depth_search(board.copy(), depth)
    seconds = time.perf_counter() - start
    # Brudno scores from the side to move's view; the table uses White's.
    value = result.score if board.turn == chess.WHITE else -result.score
    move = result.best_move.uci() if result.best_move else None
    return Measurement(BRUDNO, False, result.evaluations, result.cutoffs, result.nodes,
                       seconds, value, move)


# The rows a tree page can show: --tree-search's choices.
TREE_SEARCHES = {"ordered": ORDERED, "plain": ALPHABETA}


def traced_search(board: chess.Board, depth: int, algorithm: str) -> SearchTrace:
    """The search of the table's row `algorithm`, recorded: the same call as in
    `exact_measurements`, so it visits the same positions."""
    if algorithm == ORDERED:
        return trace_ordered(ChessGame(board), depth, MvvLvaKillers())
    if algorithm == ALPHABETA:
        return trace_alphabeta(ChessGame(board), depth)
    raise ValueError(f"no tree for {algorithm!r}: only {', '.join(TREE_SEARCHES.values())}")


def tree_page(board: chess.Board, depth: int, algorithm: str, rows: list[Row]) -> str:
    """The HTML page of the row's search; raises ValueMismatch if it counts otherwise."""
    trace = traced_search(board, depth, algorithm)
    row = next(r for r in rows if r.algorithm == algorithm)
    c = trace.result.counters
    if (c.nodes, c.evaluations, c.cutoffs) != (row.nodes, row.evaluations, row.cutoffs):
        raise ValueMismatch(f"the tree of {algorithm!r} counts {c}, the row "
                            f"{row.nodes} nodes, {row.evaluations} evaluations, "
                            f"{row.cutoffs} cutoffs")
    return chess_page(board, trace, depth, algorithm)


def check_values(rows: list[Measurement]) -> None:
    values = {row.algorithm: row.value for row in rows if row.exact}
    if len(set(values.values())) > 1:
        raise ValueMismatch(f"exact searches disagree on the root value: {values}")


def compare(board: chess.Board, depth: int, progress: bool = False,
            brudno: bool = True) -> list[Row]:
    """All rows of the table for one position; raises ValueMismatch if exact rows disagree."""
    measurements = exact_measurements(board, depth, progress)
    if brudno:
        measurement = brudno_measurement(board, depth)
        if measurement is not None:
            measurements.append(measurement)
    check_values(measurements)
    full = measurements[0].evaluations
    minimal = next(m.evaluations for m in measurements if m.algorithm == PERFECT)
    return [Row(**asdict(m), cut_share=1 - m.evaluations / full,
                vs_minimax=m.evaluations / full, vs_minimal=m.evaluations / minimal,
                fen=board.fen(), depth=depth)
            for m in measurements]


def markdown(name: str, rows: list[Row]) -> str:
    depth = rows[0].depth
    leaves = rows[0].evaluations
    b = mean_branching_factor(leaves, depth)
    lines = [
        f"### {name}, depth {depth}",
        "",
        f"`{rows[0].fen}`: {leaves:,} leaves, mean branching factor b = {b:.1f}; "
        f"a uniform tree with this b has b^d = {b ** depth:,.0f} leaves and a minimal tree "
        f"(Knuth-Moore, b^ceil(d/2) + b^floor(d/2) - 1) of {minimal_tree(b, depth):,.0f}.",
        "",
        "| Algorithm | Evaluations | Cutoffs | Share of the tree cut | Seconds "
        "| vs Minimax | vs minimal tree | Value (cp, White) | Best move |",
        "|---|--:|--:|--:|--:|--:|--:|--:|---|",
    ]
    for r in rows:
        name = r.algorithm if r.exact else f"{r.algorithm} *"
        lines.append(f"| {name} | {r.evaluations:,} | {r.cutoffs:,} | {r.cut_share:.2%} "
                     f"| {r.seconds:.2f} | {r.vs_minimax:.2%} | {r.vs_minimal:.2f}x "
                     f"| {r.value} | {r.best_move} |")
    lines += [
        "",
        "Share of the tree cut = 1 - evaluations / Minimax's evaluations, counted exactly "
        "(the article estimated it). Perfect ordering's seconds leave out the oracle that "
        "finds the exact values.",
    ]
    if any(not r.exact for r in rows):
        lines.append("\n\\* Brudno's search is not exact (iterative deepening, transposition "
                     "table, aspiration windows, pruning and quiescence search: its evaluations "
                     "include quiescence nodes and its value differs), so it is shown for "
                     "comparison only and left out of the check that all rows agree on the value.")
    return "\n".join(lines)


def article_markdown() -> str:
    lines = ["### The article's table (its own position, depth 4)", "",
             "| Algorithm | Evaluations | Cutoffs | Share of the tree cut (estimated) | Seconds |",
             "|---|--:|--:|--:|--:|"]
    for algorithm, evaluations, cutoffs, share, seconds in ARTICLE:
        lines.append(f"| {algorithm} | {evaluations:,} | {cutoffs:,} | {share} | {seconds} |")
    return "\n".join(lines)


def plot(curves: list[tuple[str, int, dict[str, list[int]]]], path: str) -> None:
    """One panel per position: evaluations against depth, with b^d and the minimal tree."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(curves), figsize=(6.5 * len(curves), 5), squeeze=False)
    for ax, (name, leaves, evaluations) in zip(axes[0], curves):
        depths = list(range(1, len(evaluations[MINIMAX]) + 1))
        b = mean_branching_factor(leaves, depths[-1])
        for algorithm, counts in evaluations.items():
            ax.plot(depths, counts, marker="o", label=algorithm)
        ax.plot(depths, [b ** d for d in depths], "k--", label=f"b^d (b = {b:.1f})")
        ax.plot(depths, [minimal_tree(b, d) for d in depths], "k:",
                label="b^ceil(d/2) + b^floor(d/2) - 1")
        ax.set_yscale("log")
        ax.set_xticks(depths)
        ax.set_xlabel("depth (plies)")
        ax.set_ylabel("evaluations")
        ax.set_title(name)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize="small")
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def write_tree(path: str, board: chess.Board, depth: int, algorithm: str,
               rows: list[Row]) -> None:
    page = tree_page(board, depth, algorithm, rows)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(page, encoding="utf-8")
    row = next(r for r in rows if r.algorithm == algorithm)
    print(f"tree of {algorithm!r} written to {path}: {row.nodes:,} positions, "
          f"{row.evaluations:,} evaluations, {row.cutoffs:,} cutoffs, as in the row",
          file=sys.stderr)


# --------------------------------------------------------------------------- --techniques
# What each technique of Brudno's search saves, measured on the search itself: the rows and their
# measurement are engine/teaching/techniques.py's (the page shows them too); this script prints and plots.

DEFAULT_TECHNIQUES_PLOT = "out/techniques_nodes.png"


def techniques_markdown(rows: list[TechniqueRow]) -> str:
    """The table of one position at one depth, as docs/textbook.md shows it."""
    first = rows[0]
    d = first.depth
    lines = [
        f"### {first.position}, depth {d}",
        "",
        f"`{first.fen}`: b = {first.branching:.1f} (perft({min(d, BRANCHING_PLIES)}) ** "
        f"(1/{min(d, BRANCHING_PLIES)})); minimal tree b^ceil(d/2) + b^floor(d/2) - 1 = "
        f"{first.minimal_tree:,.0f} leaves.",
        "",
        "| Row | Nodes | Evaluations | Seconds | EBF | Minimal tree | Nodes / minimal "
        "| Value (cp, White) | Best move |",
        "|---|--:|--:|--:|--:|--:|--:|--:|---|",
    ]
    for r in rows:
        lines.append(f"| {r.row} | {r.nodes:,} | {r.evaluations:,} | {r.seconds:.2f} "
                     f"| {r.ebf:.2f} | {r.minimal_tree:,.0f} | {r.nodes / r.minimal_tree:.2f} "
                     f"| {r.value} | {r.best_move} |")
    return "\n".join(lines)


def techniques_sums_markdown(rows: list[TechniqueRow]) -> str:
    """The rows summed over every position (at one depth), against the full search's sum."""
    positions = len({r.position for r in rows})
    labels = list(dict.fromkeys(r.row for r in rows))
    sums = {label: [r for r in rows if r.row == label] for label in labels}
    full = sum(r.nodes for r in rows if r.kind == "add" and not r.off)
    lines = [f"### All {positions} positions, depth {rows[0].depth}: sums", "",
             "| Row | Nodes | Evaluations | Seconds | Nodes / full search's |",
             "|---|--:|--:|--:|--:|"]
    for label, mine in sums.items():
        nodes = sum(r.nodes for r in mine)
        lines.append(f"| {label} | {nodes:,} | {sum(r.evaluations for r in mine):,} "
                     f"| {sum(r.seconds for r in mine):.2f} | {nodes / full:.2f} |")
    return "\n".join(lines)


def techniques_notes() -> str:
    lines = ["EBF = nodes ** (1 / depth). Nodes count every node the search visits (PV, "
             "null-window and quiescence nodes); the minimal tree counts leaves. What each "
             "technique off means:", ""]
    for t in TECHNIQUES:
        lines.append(f"- {t.name}: {t.note or DEFAULT_NOTE}")
    return "\n".join(lines)


def plot_techniques(rows: list[TechniqueRow], path: str) -> None:
    """Nodes against depth, a panel per position and kind of row, with the minimal tree."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    positions = list(dict.fromkeys(r.position for r in rows))
    kinds = (("add", "adding one technique at a time"), ("without", "the full search without one"))
    fig, axes = plt.subplots(len(positions), 2, figsize=(13, 3.8 * len(positions)),
                             squeeze=False, sharey="row", layout="constrained")
    colours = plt.get_cmap("tab10").colors
    for axes_row, position in zip(axes, positions):
        mine = [r for r in rows if r.position == position]
        depths = sorted({r.depth for r in mine})
        minimal = {r.depth: r.minimal_tree for r in mine}
        full = sorted((r.depth, r.nodes) for r in mine if r.kind == "add" and not r.off)
        for ax, (kind, title) in zip(axes_row, kinds):
            labels = [label for label in dict.fromkeys(r.row for r in mine if r.kind == kind)
                      if not label.endswith(f"(= {FULL})")]
            for i, label in enumerate(labels):
                points = sorted((r.depth, r.nodes) for r in mine if r.row == label)
                ax.plot(*zip(*points), marker=".", color=colours[i % len(colours)],
                        linestyle="-" if i < len(colours) else "--", linewidth=1,
                        label=label.replace(f"{FULL} without ", "without "))
            # The full search, thick, in both panels: where the adding ends, and the reference
            # of the taking out.
            ax.plot(*zip(*full), color="black", linewidth=2.5, label=FULL)
            ax.plot(depths, [minimal[d] for d in depths], "k:", label="minimal tree (leaves)")
            ax.set_yscale("log")
            ax.set_xticks(depths)
            ax.set_xlabel("depth (plies)")
            ax.set_ylabel("nodes")
            ax.set_title(f"{position}: {title}", fontsize="medium")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.01, 1))
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    fig.savefig(buffer, dpi=80)
    plt.close(fig)
    # A few colours suffice for lines: the palette keeps the PNG in docs/ small.
    from PIL import Image  # matplotlib's own dependency
    Image.open(buffer).quantize(colors=32).save(path, optimize=True)


def techniques_main(args: argparse.Namespace, positions: list[tuple[str, str]]) -> int:
    evaluate = None  # the Search's default: the classical evaluation
    if args.evaluation == "network":
        from engine.evaluation.network import evaluator
        evaluate = evaluator()
    depths = list(range(1, args.depth + 1)) if not args.no_plot else [args.depth]
    all_rows: list[TechniqueRow] = []
    for name, board in positions:
        progress = None if args.json else lambda line: print(line, file=sys.stderr, flush=True)
        rows = compare_techniques(name, board, depths, evaluate, progress)
        all_rows += rows
        if not args.json:
            print(techniques_markdown([r for r in rows if r.depth == args.depth]), end="\n\n",
                  flush=True)
    if args.json:
        print(json.dumps([asdict(r) for r in all_rows], indent=1))
    else:
        if len(positions) > 1:
            print(techniques_sums_markdown([r for r in all_rows if r.depth == args.depth]),
                  end="\n\n")
        print(techniques_notes())
    if not args.no_plot:
        plot_techniques(all_rows, args.plot or DEFAULT_TECHNIQUES_PLOT)
        print(f"plot written to {args.plot or DEFAULT_TECHNIQUES_PLOT}", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fen", help="search this position (default: Kiwipete and the start)")
    parser.add_argument("--depth", type=int, default=DEFAULT_DEPTH, help="plies (default 4)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON only")
    parser.add_argument("--plot", help=f"PNG path (default {DEFAULT_PLOT}, with --techniques "
                                       f"{DEFAULT_TECHNIQUES_PLOT})")
    parser.add_argument("--no-plot", action="store_true", help="do not plot")
    parser.add_argument("--no-brudno", action="store_true", help="leave out Brudno's search")
    parser.add_argument("--tree", metavar="PATH",
                        help="also write the search tree of one row as an HTML page (of --fen, "
                             "or of the start position)")
    parser.add_argument("--tree-search", choices=sorted(TREE_SEARCHES), default="ordered",
                        help=f"the row drawn by --tree: ordered = {ORDERED!r} (default), "
                             f"plain = {ALPHABETA!r}")
    parser.add_argument("--techniques", action="store_true",
                        help="instead: what each technique of Brudno's search saves, added one at "
                             "a time and taken out one at a time, to --depth")
    parser.add_argument("--bench", action="store_true",
                        help="with --techniques: also the bench positions (engine/protocol/bench.py)")
    parser.add_argument("--evaluation", choices=("network", "classical"), default="network",
                        help="with --techniques: the search's evaluation (default network, as "
                             "in play and in the bench)")
    args = parser.parse_args(argv)
    if args.depth < 1:
        parser.error("--depth must be at least 1")
    if args.techniques:
        if args.tree:
            parser.error("--tree draws the textbook searches, not --techniques")
        boards = ([("Position", chess.Board(args.fen))] if args.fen
                  else [(name, chess.Board(fen)) for name, fen in DEFAULT_POSITIONS])
        if args.bench:
            from engine.protocol.bench import POSITIONS, bench_board
            boards += [(f"Bench {i}", bench_board(entry)) for i, entry in enumerate(POSITIONS, 1)]
        return techniques_main(args, boards)
    if args.fen:
        positions = [("Position", args.fen)]
    elif args.tree:
        # The page shows the search of one position; its FEN is written on the page.
        positions = [("Start position", chess.STARTING_FEN)]
    else:
        positions = list(DEFAULT_POSITIONS)

    all_rows: list[Row] = []
    curves = []
    try:
        for name, fen in positions:
            board = chess.Board(fen)
            # Shallower depths only feed the plot; the table is the last depth.
            depths = range(1, args.depth + 1) if not args.no_plot else [args.depth]
            per_depth = [compare(board, d, progress=(d == args.depth),
                                 brudno=not args.no_brudno) for d in depths]
            rows = per_depth[-1]
            all_rows += rows
            if not args.json:
                print(markdown(name, rows), end="\n\n", flush=True)
            curves.append((name, rows[0].evaluations,
                           {r.algorithm: [rs[i].evaluations for rs in per_depth]
                            for i, r in enumerate(rows)}))
            if args.tree:
                write_tree(args.tree, board, args.depth, TREE_SEARCHES[args.tree_search], rows)
    except ValueMismatch as error:
        print(f"error: {error}", file=sys.stderr)
        return 1

    if args.json:
        print(json.dumps([asdict(row) for row in all_rows], indent=1))
    else:
        print(article_markdown())
    if not args.no_plot:
        try:
            plot(curves, args.plot or DEFAULT_PLOT)
            print(f"plot written to {args.plot or DEFAULT_PLOT}", file=sys.stderr)
        except ImportError:
            print("matplotlib is not installed: no plot", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
