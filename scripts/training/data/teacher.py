"""Builds the data generator's teacher, Stockfish 15.1, for this machine's CPU.

    .venv/bin/python -m scripts.training.data.teacher        # into ~/.local/share/brudno/teacher/stockfish

Debian's Stockfish 15.1 is compiled for any x86-64 (SSE2); built from the same source for the
CPU it runs on (AVX2, AVX-512, VNNI: the ``ARCH`` its Makefile offers) it searches the same tree
faster, so the generator makes more positions an hour with the same labels. The build exports
the network from the installed Stockfish (``export_net``: no download), compiles the ``sf_15.1``
tag with ``make build ARCH=...``, and keeps the binary only if its ``bench`` visits exactly as
many nodes as the installed one's (the same search, move for move). The generator
(scripts/training/data/generate.py) uses the built teacher when it is there (``default_teacher``).
"""
from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from scripts.training.data.chunks import data_folder

SOURCE = "https://github.com/official-stockfish/Stockfish.git"
TAG = "sf_15.1"
NETWORK = "nn-ad9b42354671.nnue"  # sf_15.1's src/evaluate.h, EvalFileDefaultName
INSTALLED = "/usr/games/stockfish"
BENCH = ["bench", "16", "1", "10"]


def teacher_path() -> Path:
    """Where the built teacher lives: beside the data folder, so that a kept machine keeps it."""
    return data_folder().parent / "teacher" / "stockfish"


def default_teacher() -> str:
    """The built teacher if there is one, else the installed Stockfish."""
    built = teacher_path()
    return str(built) if os.access(built, os.X_OK) else INSTALLED


def choose_arch(flags: set[str]) -> str:
    """The Makefile ARCH for a CPU with these /proc/cpuinfo flags (the fastest it can run)."""
    if {"avx512_vnni", "avx512bw", "avx512f"} <= flags:
        return "x86-64-vnni512"
    if {"avx512bw", "avx512f"} <= flags:
        return "x86-64-avx512"
    if "avx2" in flags:
        # BMI2's pext is microcoded (slow) on AMD before Zen 3, so AVX2 alone is the safe choice.
        return "x86-64-avx2"
    if {"sse4_1", "popcnt"} <= flags:
        return "x86-64-sse41-popcnt"
    return "x86-64"


def cpu_flags() -> set[str]:
    text = Path("/proc/cpuinfo").read_text()
    match = re.search(r"^flags\s*:(.*)$", text, re.MULTILINE)
    return set(match.group(1).split()) if match else set()


def bench_nodes(binary: str) -> int:
    """The node count of Stockfish's ``bench`` (printed on stderr)."""
    done = subprocess.run([binary, *BENCH], capture_output=True, text=True, timeout=600)
    match = re.search(r"Nodes searched\s*:\s*(\d+)", done.stdout + done.stderr)
    if not match:
        raise RuntimeError(f"{binary} bench printed no node count")
    return int(match.group(1))


def build(source: str, installed: str, dest: Path, arch: str, jobs: int) -> None:
    with tempfile.TemporaryDirectory(prefix="brudno-teacher-") as tmp:
        tree = Path(tmp) / "Stockfish"
        subprocess.run(["git", "-c", "advice.detachedHead=false", "clone", "--quiet", "--depth", "1",
                        "--branch", TAG, source, str(tree)], check=True)
        src = tree / "src"
        net = src / NETWORK
        subprocess.run([installed], input=f"export_net {net}\nquit\n", text=True,
                       capture_output=True, check=True, timeout=60)
        if not net.exists() or hashlib.sha256(net.read_bytes()).hexdigest()[:12] != NETWORK[3:15]:
            raise RuntimeError(f"{installed} did not export the network {NETWORK}")
        made = subprocess.run(["make", f"-j{jobs}", "build", f"ARCH={arch}", "COMP=gcc"], cwd=src,
                              capture_output=True, text=True)
        if made.returncode != 0:
            raise RuntimeError(f"make failed:\n{made.stderr[-3000:]}")
        built = src / "stockfish"
        want, got = bench_nodes(installed), bench_nodes(str(built))
        if want != got:
            raise RuntimeError(f"the build's bench visits {got:,} nodes, the installed one's {want:,}")
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built, dest.with_suffix(".new"))
        os.replace(dest.with_suffix(".new"), dest)
        print(f"{dest}: Stockfish 15.1, ARCH={arch}, bench {got:,} nodes as {installed}'s")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", default=SOURCE, help="the Stockfish git repository (a URL or a path)")
    parser.add_argument("--installed", default=INSTALLED, help="the installed Stockfish 15.1 (its network)")
    parser.add_argument("--dest", type=Path, default=None, help="where the binary goes")
    parser.add_argument("--arch", default=None, help="the Makefile ARCH (default: chosen from /proc/cpuinfo)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    build(args.source, args.installed, args.dest or teacher_path(), args.arch or choose_arch(cpu_flags()),
          args.jobs)


if __name__ == "__main__":
    main()
