"""Speed in the configurations users run: nodes/s with SyzygyPath set, with UCI_Chess960 on and
with Use NNUE on, each against the plain engine, in one run.

The twelve middlegames of bench/depth.py are searched to ``--depth`` from an empty table in each
configuration in turn, position by position (so that a change of machine load hits all alike):
plain; with the 3-4 men tables of ../shared/data/syzygy (or tests/data/syzygy) open, which no
node of these positions can reach; as Chess960 boards (the same standard positions); and with the
network evaluation. Each line gives the nodes, the time and nodes/s summed over the positions, and
the ratio of nodes/s to the plain engine's.

    .venv/bin/python -m bench.configs --depth 8
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Sequence

import chess

from bench.depth import MIDDLEGAMES
from engine.protocol.bench import bench_board
from engine.search.root import Search
from engine.knowledge.tablebase import Tablebases
from engine.search.timeman import Limits
from engine.search.tt import TranspositionTable

ROOT = Path(__file__).resolve().parents[1]

SYZYGY = [ROOT.parent / "shared" / "data" / "syzygy", ROOT / "tests" / "data" / "syzygy"]
CONFIGS = ("plain", "SyzygyPath", "UCI_Chess960", "Use NNUE")


def configured(config: str, board: chess.Board, hash_mb: int) -> tuple[Search, chess.Board]:
    """A fresh search and board as the engine sets them up for ``config``."""
    search = Search(TranspositionTable(hash_mb))
    if config == "SyzygyPath":
        tables = Tablebases()
        tables.open(str(next(path for path in SYZYGY if path.is_dir())))
        search.tablebases = tables
    elif config == "UCI_Chess960":
        board = chess.Board(board.fen(shredder=True), chess960=True)
    elif config == "Use NNUE":
        from engine.evaluation import network

        search.evaluate = network.evaluator()
    return search, board


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depth", type=int, default=8, help="search depth (default 8)")
    parser.add_argument("--hash", type=int, default=64, help="table size in MB (default 64)")
    args = parser.parse_args(argv)

    totals = {config: [0, 0.0] for config in CONFIGS}
    for number, entry in enumerate(MIDDLEGAMES, 1):
        # Each position starts with another configuration, so that none always runs first.
        for config in CONFIGS[number % 4:] + CONFIGS[:number % 4]:
            search, board = configured(config, bench_board(entry), args.hash)
            start = time.perf_counter()
            search.run(board, Limits(depth=args.depth))
            totals[config][0] += search.nodes
            totals[config][1] += time.perf_counter() - start
        print(f"position {number:2d} done", file=sys.stderr)
    plain_nps = totals["plain"][0] / totals["plain"][1]
    print(f"{len(MIDDLEGAMES)} middlegames, depth {args.depth}")
    print(f"{'configuration':<14} {'nodes':>10} {'time s':>8} {'nodes/s':>9} {'of plain':>9}")
    for config in CONFIGS:
        nodes, seconds = totals[config]
        print(f"{config:<14} {nodes:10,d} {seconds:8.2f} {nodes / seconds:9,.0f} "
              f"{nodes / seconds / plain_nps:9.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
