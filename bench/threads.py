"""What more search processes buy: wall-clock time to depth and `stop` latency, by Threads.

For each Threads value it starts the engine once, then on the bench positions:

* time to depth: `ucinewgame` (the shared table cleared), `go depth D`, the wall time from `go` to
  `bestmove`, with the depth and nodes (all processes) of the last `info` line;
* stop: `go infinite`, `stop` after --stop-after seconds, the time from `stop` to `bestmove`.

Positions are taken in the same order for every Threads value, and the values alternate per
position (1, 2, 1, 2, ...), so that a change in the machine's load hits both alike. Run it on an
otherwise idle machine: a speed-up needs a free core per process.

    .venv/bin/python -m bench.threads --threads 1 2 --depth 9 --positions 12
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

from bench.movetime import Pipe, percentile
from engine.protocol.bench import POSITIONS

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def start(command: list[str], threads: int, hash_mb: int) -> Pipe:
    pipe = Pipe(command)
    pipe.send("uci")
    pipe.read_until("uciok")
    pipe.send(f"setoption name Threads value {threads}")
    pipe.send(f"setoption name Hash value {hash_mb}")
    pipe.send("isready")
    pipe.read_until("readyok")
    return pipe


def last_info(lines: list[str]) -> dict[str, int]:
    info = [line.split() for line in lines if line.startswith("info depth")]
    if not info:
        return {}
    words = info[-1]
    return {key: int(words[words.index(key) + 1]) for key in ("depth", "nodes") if key in words}


def time_to_depth(pipe: Pipe, fen: str, depth: int) -> tuple[float, dict[str, int]]:
    pipe.send("ucinewgame")
    pipe.send(f"position fen {fen}")
    pipe.send("isready")
    pipe.read_until("readyok")
    sent = time.perf_counter()
    pipe.send(f"go depth {depth}")
    lines = pipe.read_until("bestmove")
    return time.perf_counter() - sent, last_info(lines)


def stop_latency(pipe: Pipe, fen: str, after: float) -> float:
    pipe.send(f"position fen {fen}")
    pipe.send("isready")
    pipe.read_until("readyok")
    pipe.send("go infinite")
    time.sleep(after)
    sent = time.perf_counter()
    pipe.send("stop")
    pipe.read_until("bestmove")
    return time.perf_counter() - sent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--engine", default=os.path.join(ROOT, "scripts", "brudno"))
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--hash", type=int, default=64, help="MB")
    parser.add_argument("--depth", type=int, default=9)
    parser.add_argument("--positions", type=int, default=12, help="bench positions for time to depth")
    parser.add_argument("--stops", type=int, default=50, help="stop tries per Threads value (0: none)")
    parser.add_argument("--stop-after", type=float, default=0.3, help="seconds of search before stop")
    args = parser.parse_args()

    pipes = {t: start(args.engine.split(), t, args.hash) for t in args.threads}
    seconds = {t: [] for t in args.threads}
    nodes = {t: 0 for t in args.threads}
    for i in range(args.positions):
        fen = POSITIONS[i % len(POSITIONS)]
        for t in args.threads:
            used, info = time_to_depth(pipes[t], fen, args.depth)
            seconds[t].append(used)
            nodes[t] += info.get("nodes", 0)
            print(f"position {i + 1} Threads {t}: {used:.2f} s, depth {info.get('depth')}, "
                  f"nodes {info.get('nodes')}", file=sys.stderr, flush=True)
    latencies = {t: [] for t in args.threads}
    for i in range(args.stops):
        fen = POSITIONS[i % len(POSITIONS)]
        for t in args.threads:
            latencies[t].append(stop_latency(pipes[t], fen, args.stop_after) * 1000)
    for pipe in pipes.values():
        pipe.send("quit")
        pipe.process.wait(timeout=10)

    base = args.threads[0]
    print(f"| Threads | time to depth {args.depth}, {args.positions} positions (s) | speed-up vs {base} "
          f"| nodes (all processes) | nodes/s | stop p50 (ms) | stop p99 (ms) | stop max (ms) |")
    print("|--:|--:|--:|--:|--:|--:|--:|--:|")
    for t in args.threads:
        total = sum(seconds[t])
        stops = latencies[t]
        stop_cells = (f"{statistics.median(stops):.1f} | {percentile(stops, 0.99):.1f} | {max(stops):.1f}"
                      if stops else "- | - | -")
        print(f"| {t} | {total:.1f} | {sum(seconds[base]) / total:.2f}x | {nodes[t]:,} "
              f"| {nodes[t] / total:,.0f} | {stop_cells} |")


if __name__ == "__main__":
    main()
