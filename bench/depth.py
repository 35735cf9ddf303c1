"""Nodes and time to each depth: how fast the search's tree grows, in one table from one run.

Each position is searched from an empty table and fresh ordering tables to ``--depth``; every
finished iteration's node count and time are read from the search's own report. The table gives,
per depth, the geometric mean over the positions (as the depth issue states its target) and the
effective branching factor (nodes to this depth over nodes to the one before).

Positions: twelve middlegames of Stockfish's bench (engine/protocol/bench.py, entries 2-13), or an EPD/FEN
file with ``--positions``.

    .venv/bin/python -m bench.depth --depth 9
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Sequence

import chess

from engine.protocol.bench import POSITIONS, bench_board
from engine.search.results import Info
from engine.search.root import Search
from engine.search.timeman import Limits
from engine.search.tt import TranspositionTable

MIDDLEGAMES = POSITIONS[1:13]


def load_positions(path: str | None) -> list[chess.Board]:
    if path is None:
        return [bench_board(entry) for entry in MIDDLEGAMES]
    boards = []
    for line in Path(path).read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            boards.append(chess.Board(" ".join(line.split()[:6])) if line.count(" ") >= 5
                          else chess.Board.from_epd(line)[0])
    return boards


def depth_profile(board: chess.Board, depth: int, hash_mb: int) -> dict[int, tuple[int, float]]:
    """{depth: (nodes, seconds)} of each finished iteration of a fresh search of ``board``."""
    reached: dict[int, tuple[int, float]] = {}

    def report(info: Info) -> None:
        if info.multipv == 1 and info.bound is None:
            reached[info.depth] = (info.nodes, info.time)

    Search(TranspositionTable(hash_mb)).run(board, Limits(depth=depth), report=report)
    return reached


def geometric_mean(values: Sequence[float]) -> float:
    return math.exp(sum(math.log(max(v, 1e-9)) for v in values) / len(values))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depth", type=int, default=9, help="deepest iteration (default 9)")
    parser.add_argument("--positions", help="EPD or FEN file (default: 12 bench middlegames)")
    parser.add_argument("--hash", type=int, default=64, help="table size in MB (default 64)")
    args = parser.parse_args(argv)

    boards = load_positions(args.positions)
    profiles = []
    start = time.perf_counter()
    for number, board in enumerate(boards, 1):
        profile = depth_profile(board, args.depth, args.hash)
        profiles.append(profile)
        nodes, seconds = profile.get(args.depth, (0, 0.0))
        print(f"position {number:2d}: depth {args.depth} in {nodes:9,d} nodes {seconds:7.2f} s",
              file=sys.stderr)
    print(f"{len(boards)} positions, {time.perf_counter() - start:.0f} s in all")
    print(f"{'depth':>5} {'nodes (geo. mean)':>18} {'time s (geo. mean)':>19} {'branching':>10}")
    previous = None
    for d in range(1, args.depth + 1):
        rows = [p[d] for p in profiles if d in p]
        if len(rows) < len(profiles):
            continue  # a mate found early ends some searches before this depth
        nodes = geometric_mean([r[0] for r in rows])
        seconds = geometric_mean([r[1] for r in rows])
        branching = f"{nodes / previous:10.2f}" if previous else f"{'':>10}"
        print(f"{d:>5} {nodes:18,.0f} {seconds:19.3f} {branching}")
        previous = nodes
    return 0


if __name__ == "__main__":
    sys.exit(main())
