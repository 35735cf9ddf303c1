"""How exactly `go movetime N` is kept: the time from sending `go` to reading `bestmove`.

Speaks UCI to the engine over a pipe (no client library in between), cycles through the bench
positions, and prints, per requested movetime, the median and the 99th percentile of the time
used and of its excess over the request, and the depth reached.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import time

from engine.protocol.bench import POSITIONS

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


class Pipe:
    def __init__(self, command: list[str]) -> None:
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True, bufsize=1)

    def send(self, line: str) -> None:
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def read_until(self, prefix: str) -> list[str]:
        lines = []
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError(f"engine exited before '{prefix}'")
            lines.append(line.strip())
            if line.startswith(prefix):
                return lines


def measure(pipe: Pipe, movetime: int, searches: int) -> tuple[list[float], list[int]]:
    used, depths = [], []
    for i in range(searches):
        pipe.send(f"position fen {POSITIONS[i % len(POSITIONS)]}")
        pipe.send("isready")
        pipe.read_until("readyok")
        sent = time.perf_counter()
        pipe.send(f"go movetime {movetime}")
        lines = pipe.read_until("bestmove")
        used.append((time.perf_counter() - sent) * 1000)
        depth = [int(line.split()[2]) for line in lines if line.startswith("info depth")]
        depths.append(max(depth, default=0))
    return used, depths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--engine", default=os.path.join(ROOT, "scripts", "brudno"))
    parser.add_argument("--movetime", type=int, nargs="+", default=[100, 300, 1000])
    parser.add_argument("--searches", type=int, default=100, help="searches per movetime")
    args = parser.parse_args()

    pipe = Pipe(args.engine.split())
    pipe.send("uci")
    pipe.read_until("uciok")
    pipe.send("isready")
    pipe.read_until("readyok")
    print("| movetime (ms) | searches | used p50 | used p99 | over p50 | over p99 | max | depth p50 |")
    print("|--:|--:|--:|--:|--:|--:|--:|--:|")
    for movetime in args.movetime:
        used, depths = measure(pipe, movetime, args.searches)
        over = [u - movetime for u in used]
        print(f"| {movetime} | {len(used)} | {statistics.median(used):.1f} | {percentile(used, 0.99):.1f} "
              f"| {statistics.median(over):+.1f} | {percentile(over, 0.99):+.1f} | {max(used):.1f} "
              f"| {statistics.median(depths):.0f} |", flush=True)
    pipe.send("quit")
    pipe.process.wait(timeout=10)


if __name__ == "__main__":
    main()
