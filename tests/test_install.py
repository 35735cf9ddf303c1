"""The installed command: `pip install .` gives `brudno`, which answers `uci` at once even while
its kernels are still being compiled on the first run."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from importlib.metadata import entry_points

import chess

from engine.protocol import cli


def test_the_brudno_console_command_is_declared_in_the_installed_metadata():
    (script,) = [ep for ep in entry_points(group="console_scripts") if ep.name == "brudno"]
    assert script.value == "engine.protocol.cli:main"
    assert script.load() is cli.main


def test_uciok_comes_at_once_while_the_kernels_compile_into_an_empty_cache(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))  # a first run: nothing compiled yet
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
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
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
