"""How long the numba kernels take to compile into an empty cache, module by module, and to load
from it (docs/startup.md).

    .venv/bin/python -m bench.startup

Each measurement is a fresh process importing the engine's modules in dependency order with
NUMBA_CACHE_DIR set to a new empty folder (the compile), then again with the same folder (the load).
BRUDNO_NO_KERNEL_COPY keeps the package's own compiled kernels out of that folder
(engine/kernel_cache.py would copy them there).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODULES = ("board.bitboards", "board.bitmove", "board.zobrist", "evaluation.score",
           "evaluation.evaluate", "board.movegen", "board.see", "search.tt", "search.tt_kernels",
           "search.params", "search.movepick", "evaluation.endgame", "evaluation.network",
           "search.scout", "search.root")

CHILD = """
import importlib, json, sys, time
times = {}
for name in sys.argv[1:]:
    started = time.perf_counter()
    importlib.import_module("engine." + name)
    times[name] = time.perf_counter() - started
print(json.dumps(times))
"""


def import_times(cache: str) -> dict[str, float]:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, BRUDNO_NO_KERNEL_COPY="1", PYTHONPATH=str(ROOT))
    result = subprocess.run([sys.executable, "-c", CHILD, *MODULES], env=env, cwd=ROOT,
                            capture_output=True, text=True, check=True)
    return json.loads(result.stdout.splitlines()[-1])


def main() -> None:
    with tempfile.TemporaryDirectory() as cache:
        compiled = import_times(cache)
        loaded = import_times(cache)
    print("| module | compile (s) | load (s) |\n|---|---|---|")
    for name in MODULES:
        print(f"| {name} | {compiled[name]:.2f} | {loaded[name]:.2f} |")
    print(f"| all | {sum(compiled.values()):.2f} | {sum(loaded.values()):.2f} |")


if __name__ == "__main__":
    main()
