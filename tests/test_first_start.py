"""A fresh install driven as Cute Chess drives it: `readyok` within 2 s, every move searched.

Slow (a new virtual environment, an install from PyPI and the kernels' compile: a minute or two),
so off by default: `scripts/test --slow -k first_start`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import chess
import pytest

from tests.uci_client import RawUci

ROOT = Path(__file__).resolve().parents[1]

# Cute Chess's limits: `uciok` within 35 s of starting the engine, `readyok` within 15 s of
# `isready` (its PingTimeout). The issue asks for 2 s.
UCI_LIMIT = 35.0
READY_LIMIT = 2.0


def _tracked_files_copy(destination: Path) -> Path:
    """The checkout as a clean clone has it (no .venv, no compiled kernels, no build/)."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    for name in files.stdout.decode().split("\0"):
        if name and (ROOT / name).is_file():
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target)
    return destination


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A clean clone installed by pip into a new environment: (the environment, its variables)."""
    tmp_path = tmp_path_factory.mktemp("install")
    source = _tracked_files_copy(tmp_path / "brudno")
    venv = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = {key: value for key, value in os.environ.items()
           if key not in ("NUMBA_CACHE_DIR", "PYTHONPATH", "VIRTUAL_ENV", "BRUDNO_NO_KERNEL_COPY")}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")  # numba's per-user cache: empty too
    install = subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", str(source)],
                             env=env, capture_output=True, text=True, timeout=900)
    assert install.returncode == 0, install.stderr[-3000:]
    return venv, env


def _plays_searched_moves(command: list[str], env: dict[str, str], cwd: Path,
                          min_depth: int = 1) -> None:
    """The engine of ``command`` answers `readyok` at once (after `uciok`, then after `ucinewgame`,
    as Cute Chess asks) and searches four moves on a 10+0.1 clock, each with an `info depth` of at
    least ``min_depth`` before its `bestmove`."""
    client = RawUci(command, env=env, cwd=str(cwd))
    try:
        client.send("uci")
        client.read_until("uciok", timeout=UCI_LIMIT)
        for _ in range(2):
            sent = time.monotonic()
            client.send("isready")
            client.read_until("readyok", timeout=15)
            assert time.monotonic() - sent < READY_LIMIT
            client.send("ucinewgame")
        board = chess.Board()
        clock = {chess.WHITE: 10_000, chess.BLACK: 10_000}
        for _ in range(4):
            moves = " ".join(move.uci() for move in board.move_stack)
            client.send(f"position startpos moves {moves}" if moves else "position startpos")
            sent = time.monotonic()
            client.send(f"go wtime {clock[chess.WHITE]} btime {clock[chess.BLACK]} winc 100 binc 100")
            lines = client.read_until("bestmove", timeout=15)
            clock[board.turn] += 100 - int((time.monotonic() - sent) * 1000)
            assert clock[board.turn] > 0, "lost on time"
            depths = [int(line.split()[2]) for line in lines if line.startswith("info depth")]
            assert depths and max(depths) >= min_depth, lines
            move = chess.Move.from_uci(lines[-1].split()[1])
            assert move in board.legal_moves
            board.push(move)
    finally:
        assert client.close() == 0


@pytest.mark.slow
def test_an_install_with_the_users_own_numba_cache_dir_searches_its_first_move(
        installed: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    venv, env = installed
    env = dict(env, NUMBA_CACHE_DIR=str(tmp_path / "numba"))  # numba looks only there
    _plays_searched_moves([str(venv / "bin" / "brudno")], env, tmp_path, min_depth=3)


@pytest.mark.slow
def test_a_read_only_install_searches_its_first_move(installed: tuple[Path, dict[str, str]],
                                                      tmp_path: Path) -> None:
    venv, env = installed
    package = next(venv.glob("lib/python*/site-packages/engine"))
    # The package on a read-only mount, in a namespace of the engine's own (as a system image or
    # a shared install has it): numba cannot keep its caches beside the modules.
    wrapper = ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c",
               f'mount --bind -o ro "{package}" "{package}" && exec "{venv / "bin" / "brudno"}"']
    probe = subprocess.run(wrapper[:-1] + [f'mount --bind -o ro "{package}" "{package}" && '
                                           f'! touch "{package}/probe" 2>/dev/null'],
                           capture_output=True)
    if probe.returncode != 0:
        pytest.skip("this system lets no test mount a read-only folder (unshare)")
    _plays_searched_moves(wrapper, env, tmp_path, min_depth=3)


@pytest.mark.slow
def test_a_fresh_install_answers_isready_at_once_and_searches_every_move(
        installed: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    venv, env = installed
    _plays_searched_moves([str(venv / "bin" / "brudno")], env, tmp_path)
