"""Compares search speed: raw python-chess move generation, Brudno and Sunfish.

On Stockfish's bench positions it measures, in one process:

* raw: a perft-style walk (generate legal moves, push, recurse, pop) with
  python-chess, the ceiling for any engine built on python-chess's board;
* engine: Brudno (``--engine``, default ``scripts/brudno``) over UCI, ``go
  movetime T`` (or ``go depth D``) per position after ``ucinewgame``, nodes
  and time from its last info line;
* sunfish: the same for Sunfish, if ``scripts/setup_sunfish`` has installed
  it (or ``--sunfish CMD``), using the nps it reports.

and prints a table with the ratios engine/raw, sunfish/raw, engine/sunfish.
"""
from __future__ import annotations

import argparse
import dataclasses
import logging
import os
import shlex
import sys
import time
from typing import Dict, List, Optional, Sequence, Tuple

import chess
import chess.engine

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_POSITIONS = os.path.join(ROOT, "..", "shared", "data", "bench", "stockfish_bench_defaults.fen")
DEFAULT_ENGINE = os.path.join(ROOT, "scripts", "brudno")
DEFAULT_SUNFISH = os.path.join(ROOT, ".venv-sunfish", "bin", "sunfish-uci")


def parse_bench_line(line: str) -> Optional[chess.Board]:
    """A board from ``FEN [moves m1 m2 ...]``; None for Chess960 or unusable lines."""
    fen, _, moves = line.strip().partition(" moves ")
    fields = fen.split()
    if len(fields) < 4 or not set(fields[2]) <= set("KQkq-"):
        return None  # Shredder-FEN castling (HFhf) means Chess960
    try:
        board = chess.Board(fen)
        for uci in moves.split():
            board.push_uci(uci)
    except ValueError:
        return None
    return board if board.is_valid() else None


def load_positions(path: str) -> List[chess.Board]:
    with open(path, encoding="utf-8") as f:
        boards = [parse_bench_line(line) for line in f if line.strip()]
    return [b for b in boards if b is not None]


class _OutOfTime(Exception):
    pass


def perft_walk(board: chess.Board, depth: int, budget: float) -> Tuple[int, float]:
    """Walks the tree to ``depth`` or until ``budget`` seconds pass.

    Returns (nodes, seconds), counting one node per push. Moves are listed
    before recursing because python-chess's move generator must not see the
    board change under it.
    """
    nodes = 0
    start = time.perf_counter()
    deadline = start + budget

    def walk(d: int) -> None:
        nonlocal nodes
        for move in list(board.legal_moves):
            board.push(move)
            nodes += 1
            if nodes & 1023 == 0 and time.perf_counter() > deadline:
                board.pop()
                raise _OutOfTime
            if d > 1:
                walk(d - 1)
            board.pop()

    board = board.copy()
    try:
        walk(depth)
    except _OutOfTime:
        pass
    return nodes, time.perf_counter() - start


@dataclasses.dataclass
class EngineSample:
    nodes: int
    seconds: float
    reported_nps: Optional[int]

    @property
    def nps(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0


def search_sample(engine: chess.engine.SimpleEngine, board: chess.Board, limit: chess.engine.Limit) -> EngineSample:
    """One search from a fresh game; nodes and time from the engine's info."""
    start = time.perf_counter()
    result = engine.play(board, limit, game=object(), info=chess.engine.INFO_ALL)
    wall = time.perf_counter() - start
    info = result.info
    seconds = info.get("time") or wall
    return EngineSample(int(info.get("nodes", 0)), float(seconds), info.get("nps"))


def safe_sample(engine: Optional[chess.engine.SimpleEngine], board: chess.Board, limit: chess.engine.Limit,
                label: str) -> Optional[EngineSample]:
    """search_sample, or None (with a message) once the engine fails; the column then stops."""
    if engine is None:
        return None
    try:
        return search_sample(engine, board, limit)
    except (chess.engine.EngineError, TimeoutError) as err:
        print(f"nps.py: {label} failed on {board.fen()}: {err}; column stopped", file=sys.stderr)
        return None


def rate(nodes: float, seconds: float) -> float:
    return nodes / seconds if seconds > 0 else 0.0


def ratio(a: Optional[float], b: Optional[float]) -> str:
    return f"{a / b:.4f}" if a and b else "-"


def fmt_rate(x: Optional[float]) -> str:
    return f"{x:,.0f}" if x is not None else "-"


def open_engine(command: List[str], options: Dict[str, str], label: str) -> Optional[chess.engine.SimpleEngine]:
    try:
        engine = chess.engine.SimpleEngine.popen_uci(command, timeout=120)
    except (OSError, chess.engine.EngineError, TimeoutError) as err:
        print(f"nps.py: {label} not run ({shlex.join(command)}: {err})", file=sys.stderr)
        return None
    if options:
        engine.configure(options)
    return engine


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--positions", default=DEFAULT_POSITIONS, help="bench FEN file")
    p.add_argument("--limit", type=int, metavar="N", help="only the first N usable positions")
    p.add_argument("--engine", default=DEFAULT_ENGINE, metavar="CMD", help="engine to measure (default scripts/brudno)")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="UCI option for --engine")
    p.add_argument("--sunfish", metavar="CMD", help="sunfish command (default: the one setup_sunfish installs)")
    p.add_argument("--no-sunfish", action="store_true", help="skip sunfish")
    p.add_argument("--movetime", type=float, default=1.0, metavar="SECONDS", help="time per position (default 1)")
    p.add_argument("--depth", type=int, help="fixed depth per position instead of --movetime")
    p.add_argument("--perft-depth", type=int, default=3, help="depth of the raw walk (default 3)")
    p.add_argument("--perft-budget", type=float, default=1.0, metavar="SECONDS",
                   help="time cap of the raw walk per position (default 1)")
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)
    try:
        boards = load_positions(args.positions)
    except OSError as err:
        parser.error(str(err))
    if args.limit:
        boards = boards[:args.limit]
    options = {}
    for pair in args.option:
        name, sep, value = pair.partition("=")
        if not sep:
            parser.error(f"--option must be NAME=VALUE, got {pair!r}")
        options[name] = value
    limit = chess.engine.Limit(depth=args.depth) if args.depth else chess.engine.Limit(time=args.movetime)

    engine = open_engine(shlex.split(args.engine), options, "engine")
    sunfish_cmd = args.sunfish or (DEFAULT_SUNFISH if os.path.exists(DEFAULT_SUNFISH) else None)
    sunfish = None
    if args.no_sunfish or not sunfish_cmd:
        if not args.no_sunfish:
            print("nps.py: sunfish not installed (run scripts/setup_sunfish), column skipped", file=sys.stderr)
    else:
        sunfish = open_engine(shlex.split(sunfish_cmd), {}, "sunfish")
    engine_name = engine.id.get("name", "engine") if engine else "engine"

    mode = f"depth {args.depth}" if args.depth else f"movetime {args.movetime:g}s"
    print(f"{len(boards)} positions; raw: perft depth {args.perft_depth} capped at {args.perft_budget:g}s; "
          f"engine ({engine_name}) and sunfish: {mode}")
    print(f"{'#':>3} {'raw nps':>10} {'engine nodes':>12} {'engine nps':>11} {'sunfish nps':>11}  fen")
    totals = {"raw": [0, 0.0], "engine": [0, 0.0], "sunfish": [0, 0.0]}
    # The first walk in a process runs cold (python-chess's lazy set-up); keep it out of the table.
    perft_walk(chess.Board(), 3, 0.3)
    failed = set()
    try:
        for i, board in enumerate(boards, 1):
            nodes, seconds = perft_walk(board, args.perft_depth, args.perft_budget)
            totals["raw"][0] += nodes
            totals["raw"][1] += seconds
            row = [f"{i:>3}", f"{fmt_rate(rate(nodes, seconds)):>10}"]
            sample = None if "engine" in failed else safe_sample(engine, board, limit, "engine")
            if engine and sample is None:
                failed.add("engine")
            if sample:
                totals["engine"][0] += sample.nodes
                totals["engine"][1] += sample.seconds
                row += [f"{sample.nodes:>12,}", f"{fmt_rate(sample.nps):>11}"]
            else:
                row += [f"{'-':>12}", f"{'-':>11}"]
            sample = None if "sunfish" in failed else safe_sample(sunfish, board, limit, "sunfish")
            if sunfish and sample is None:
                failed.add("sunfish")
            if sample:
                # Sunfish's own nps figure is the one quoted; nodes/time is the fallback.
                nps = sample.reported_nps or sample.nps
                totals["sunfish"][0] += nps * sample.seconds
                totals["sunfish"][1] += sample.seconds
                row.append(f"{fmt_rate(nps):>11}")
            else:
                row.append(f"{'-':>11}")
            row.append(" " + board.fen())
            print(" ".join(row), flush=True)
    finally:
        for e in (engine, sunfish):
            if e:
                try:
                    e.quit()
                except (chess.engine.EngineError, TimeoutError):
                    e.close()

    raw = rate(*totals["raw"])
    eng = rate(*totals["engine"]) if totals["engine"][1] else None
    sun = rate(*totals["sunfish"]) if totals["sunfish"][1] else None
    print(f"overall nps: raw {fmt_rate(raw)}, engine ({engine_name}) {fmt_rate(eng)}, sunfish {fmt_rate(sun)}")
    print(f"ratios: engine/raw {ratio(eng, raw)}, sunfish/raw {ratio(sun, raw)}, engine/sunfish {ratio(eng, sun)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
