"""The installed command: `pip install .` gives `brudno`, which answers `uci` at once even while
its kernels are still being compiled on the first run; the wheel holds the data files."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import zipfile
from importlib.metadata import entry_points
from pathlib import Path

import chess

from engine import cli

ROOT = Path(__file__).resolve().parents[1]


def test_the_brudno_console_command_is_declared_in_the_installed_metadata():
    (script,) = [ep for ep in entry_points(group="console_scripts") if ep.name == "brudno"]
    assert script.value == "engine.cli:main"
    assert script.load() is cli.main


def test_uciok_comes_at_once_while_the_kernels_compile_into_an_empty_cache(tmp_path):
    # A first run: nothing compiled yet (the package's kernels are not copied into the cache).
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), BRUDNO_NO_KERNEL_COPY="1")
    process = subprocess.Popen([sys.executable, "-m", "engine"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    try:
        sent = time.monotonic()
        process.stdin.write("uci\n")
        process.stdin.flush()
        while (line := process.stdout.readline()) and line.strip() != "uciok":
            pass
        assert line.strip() == "uciok"
        assert time.monotonic() - sent < 3.0
    finally:
        process.stdin.write("quit\n")
        process.stdin.flush()
        assert process.wait(timeout=120) == 0


def test_a_go_on_a_short_clock_while_the_kernels_compile_answers_a_legal_move_in_time(tmp_path):
    """A first run (empty cache) asked to move at once, with no `isready` first: the engine must
    not wait for the compilation past its clock."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), BRUDNO_NO_KERNEL_COPY="1")
    process = subprocess.Popen([sys.executable, "-m", "engine"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    try:
        process.stdin.write("uci\nucinewgame\nposition startpos moves e2e4\n")
        process.stdin.flush()
        while (line := process.stdout.readline()) and line.strip() != "uciok":
            pass
        sent = time.monotonic()
        process.stdin.write("go wtime 1000 btime 1000\n")
        process.stdin.flush()
        while (line := process.stdout.readline()) and not line.startswith("bestmove"):
            pass
        elapsed = time.monotonic() - sent
        move = line.split()[1]
        board = chess.Board()
        board.push_uci("e2e4")
        assert chess.Move.from_uci(move) in board.legal_moves
        assert elapsed < 1.0, f"answered after {elapsed:.2f} s on a 1 s clock"
    finally:
        process.stdin.write("quit\n")
        process.stdin.flush()
        assert process.wait(timeout=120) == 0


def test_the_wheel_holds_the_weights_and_the_page_and_its_build_warns_of_no_package(tmp_path):
    # The build's input as pip takes it from a clone (without compiled files), built without its
    # kernels (BRUDNO_NO_KERNEL_BUILD) to keep it short; the test extra brings setuptools >= 77.
    source = tmp_path / "brudno"
    source.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(ROOT / "engine", source / "engine",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                           "--verbose", "--wheel-dir", str(tmp_path / "dist"), str(source)],
                          env={**os.environ, "BRUDNO_NO_KERNEL_BUILD": "1"}, capture_output=True,
                          text=True, timeout=600)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-3000:]
    assert "Package would be ignored" not in output and "absent from the `packages`" not in output
    (wheel,) = (tmp_path / "dist").glob("brudno-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    static = ROOT / "engine" / "teaching" / "web" / "static"
    expected = ["engine/evaluation/weights/network.npz", "engine/evaluation/weights/classical.npz",
                *(f"engine/teaching/web/static/{file.name}" for file in static.iterdir()
                  if file.is_file() and not file.name.startswith("."))]
    assert len(expected) > 2 and not [name for name in expected if name not in names]
