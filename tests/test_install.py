"""The installed command: `pip install .` gives `brudno`, which answers `uci` at once even while
its kernels are still being compiled on the first run."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from importlib.metadata import entry_points

from engine import cli


def test_the_brudno_console_command_is_declared_in_the_installed_metadata():
    (script,) = [ep for ep in entry_points(group="console_scripts") if ep.name == "brudno"]
    assert script.value == "engine.cli:main"
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
