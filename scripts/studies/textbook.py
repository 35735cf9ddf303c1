"""Minimax and alpha-beta on the lecture's toy games, printed step by step and drawn.

    python -m scripts.studies.textbook tree [--start-at-zero] [--svg PATH] [--html PATH]
    python -m scripts.studies.textbook matchsticks [N] [--svg PATH] [--html PATH]

`tree` prints the minimax value of every inner position of the 31-position binary tree,
then the alpha-beta trace (one line per visited position), the result and the positions
alpha-beta never visits. `--start-at-zero` adds the same for a max node that starts its
value at 0 instead of alpha, which loses a cutoff.

`matchsticks` solves the game "take 1 or 2, whoever takes the last match loses".

`--svg` / `--html` also draw the search (`engine.teaching.textbook.drawing`): the tree with the visit
order, window and backed-up value of every visited state, the cutoffs, and what was never
reached; with --start-at-zero both searches side by side, for matchsticks minimax and
alpha-beta side by side.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from engine.teaching.textbook.drawing import Panel, tree_page, tree_svg
from engine.teaching.textbook.games import (TREE_FIRST_LEAF, TREE_MAX_VALUE, TREE_MIN_VALUE,
                                            TREE_SIZE, BinaryTree, Matchsticks)
from engine.teaching.textbook.recording import MovePath
from engine.teaching.textbook.recording import trace_alphabeta, trace_minimax
from engine.teaching.textbook.search import SearchResult, alphabeta, minimax


def tree_values() -> dict[int, int]:
    """The minimax value of every inner position, each searched as a root of its own.

    A position's player is fixed by its level, so a subtree is searched from the tree's root
    with the moves leading to it played first.
    """
    values = {}
    for position in range(TREE_FIRST_LEAF):
        game = BinaryTree()
        for step in path_to(position)[1:]:
            game.push(step)
        values[position] = minimax(game).value
    return values


def path_to(position: int) -> list[int]:
    path = [position]
    while path[-1] > 0:
        path.append((path[-1] - 1) // 2)
    return path[::-1]


def position(path: MovePath) -> int:
    """The tree's position a path of moves leads to (a move is the position it leads to)."""
    return path[-1] if path else 0


def traced_alphabeta(max_start: int | None = None) -> tuple[list[str], SearchResult, list[int]]:
    """The trace lines, the result, and the positions never visited."""
    trace = trace_alphabeta(BinaryTree(), alpha=TREE_MIN_VALUE, beta=TREE_MAX_VALUE,
                            max_start=max_start)
    lines = [f"pos = {position(node.path):2d} alpha = {node.alpha:2d} beta = {node.beta:2d}"
             for node in trace.nodes]
    visited = {position(node.path) for node in trace.nodes}
    pruned = [p for p in range(TREE_SIZE) if p not in visited]
    return lines, trace.result, pruned


def print_alphabeta(max_start: int | None = None) -> list[int]:
    lines, result, pruned = traced_alphabeta(max_start)
    print("\n".join(lines))
    print(f"Pos: {0:2d} Value: {result.value:2d} BestPos: {result.best_move:2d}")
    print("Pruned:", " ".join(str(p) for p in pruned))
    return pruned


def tree_panels(start_at_zero: bool) -> list[Panel]:
    """Alpha-beta on the lecture's tree; with `start_at_zero` the bug beside it, the states it
    no longer prunes ringed."""
    full = trace_minimax(BinaryTree())
    right = trace_alphabeta(BinaryTree(), alpha=TREE_MIN_VALUE, beta=TREE_MAX_VALUE)
    panels = [Panel("Alpha-beta: a max node starts at alpha", right, full)]
    if start_at_zero:
        bug = trace_alphabeta(BinaryTree(), alpha=TREE_MIN_VALUE, beta=TREE_MAX_VALUE,
                              max_start=TREE_MIN_VALUE)
        lost = frozenset(bug.by_path()) - frozenset(right.by_path())
        panels.append(Panel("The classic bug: a max node starts at 0", bug, full,
                            highlight=lost, highlight_note="no longer pruned"))
    return panels


TREE_CAPTION = (f"The lecture's tree: position p has the children 2p+1 and 2p+2, the leaves "
                f"{TREE_FIRST_LEAF}-{TREE_SIZE - 1} hold the values; the root is searched "
                f"with the window ({TREE_MIN_VALUE}, {TREE_MAX_VALUE}).")


def draw_tree(start_at_zero: bool, svg_path: str | None, html_path: str | None) -> None:
    panels = tree_panels(start_at_zero)

    def name(path: MovePath) -> str:
        return str(position(path))

    svg = tree_svg(panels, name, caption=TREE_CAPTION, name_legend="position")
    title = "Alpha-beta on the lecture's 31-position tree"
    write(svg_path, svg)
    write(html_path, tree_page(svg, panels, name, title))


def write(path: str | None, text: str) -> None:
    """Writes `text` to `path` (making its folder), if a path is given."""
    if path is None:
        return
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    print(f"written to {path}", file=sys.stderr)


def tree_command(start_at_zero: bool) -> None:
    print("Minimax values:")
    for position, value in tree_values().items():
        print(f"Pos: {position:2d} Value: {value:2d}")
    print()
    print(f"Alpha-beta (alpha = {TREE_MIN_VALUE}, beta = {TREE_MAX_VALUE} at the root):")
    pruned = print_alphabeta()
    if start_at_zero:
        print()
        print("Alpha-beta with max nodes starting at 0 instead of alpha:")
        pruned_from_zero = print_alphabeta(max_start=TREE_MIN_VALUE)
        lost = sorted(set(pruned) - set(pruned_from_zero))
        print("No longer pruned:", " ".join(str(p) for p in lost))


def matchsticks_command(matches: int) -> None:
    print(f"Matchsticks, {matches} matches: take 1 or 2, whoever takes the last match loses; "
          "White moves first.")
    full = minimax(Matchsticks(matches))
    print(f"Game tree: {full.counters.nodes} positions, {full.counters.evaluations} finished games")
    winner = "White" if full.value > 0 else "Black"
    print(f"Minimax value of the start: {full.value:+d} ({winner} wins), best move: take "
          f"{full.best_move}")
    print()
    print("Value of each state (+1: White wins, -1: Black wins):")
    print("matches  White to move  Black to move")
    for left in range(matches + 1):
        white = minimax(Matchsticks(left, white_to_move=True)).value
        black = minimax(Matchsticks(left, white_to_move=False)).value
        print(f"{left:7d}  {white:+13d}  {black:+13d}")
    print()
    for name, result in (("minimax", full), ("alpha-beta", alphabeta(Matchsticks(matches)))):
        c = result.counters
        print(f"{name:>10}: value {result.value:+d}, {c.nodes} states visited, "
              f"{c.nodes - c.evaluations} expanded, {c.evaluations} finished games evaluated, "
              f"{c.cutoffs} cutoffs")


def draw_matchsticks(matches: int, svg_path: str | None, html_path: str | None) -> None:
    """Minimax and alpha-beta side by side over the whole game tree."""
    full = trace_minimax(Matchsticks(matches))
    panels = [Panel("Minimax: every position", full, full, windows=False),
              Panel("Alpha-beta", trace_alphabeta(Matchsticks(matches)), full)]

    def name(path: MovePath) -> str:
        return str(matches - sum(path))  # the matches left

    caption = (f"Matchsticks, {matches} matches: take 1 or 2 (the edges), whoever takes the "
               "last match loses. White (MAX) moves first; +1: White wins, −1: Black wins.")
    svg = tree_svg(panels, name, move_label=lambda take: f"−{take}", signed=True,
                   caption=caption, name_legend="matches left")
    write(svg_path, svg)
    write(html_path, tree_page(svg, panels, name, f"Matchsticks, {matches} matches",
                               signed=True))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    tree = commands.add_parser("tree", help="the 31-position binary tree")
    tree.add_argument("--start-at-zero", action="store_true",
                      help="also show alpha-beta with max nodes starting at 0 instead of alpha")
    sticks = commands.add_parser("matchsticks", help="take 1 or 2, the last match loses")
    sticks.add_argument("matches", nargs="?", type=int, default=5)
    for command in (tree, sticks):
        command.add_argument("--svg", metavar="PATH", help="draw the search as an SVG picture")
        command.add_argument("--html", metavar="PATH",
                             help="the picture and the trace as an HTML page")
    args = parser.parse_args(argv)
    if args.command == "tree":
        tree_command(args.start_at_zero)
        draw_tree(args.start_at_zero, args.svg, args.html)
    else:
        if args.matches < 1:
            parser.error("need at least one match")
        matchsticks_command(args.matches)
        draw_matchsticks(args.matches, args.svg, args.html)
    return 0


if __name__ == "__main__":
    sys.exit(main())
