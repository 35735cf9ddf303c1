"""The one UCI client of the tests: the real engine process, spoken to line by line.

A reader thread queues the engine's output, so that every wait has a timeout that fires even when
the engine prints nothing (a blocking readline would wait for ever).
"""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
import time

ENGINE_COMMAND = [sys.executable, "-m", "engine"]


class RawUci:
    """The engine process spoken to line by line; a reader thread makes every wait time out."""

    def __init__(self, command: list[str] = ENGINE_COMMAND, env: dict[str, str] | None = None,
                 cwd: str | None = None) -> None:
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True, bufsize=1, env=env, cwd=cwd)
        self._lines: queue.Queue[str | None] = queue.Queue()
        self.lines: list[str] = []  # every line read so far
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self._lines.put(line.rstrip("\n"))
        self._lines.put(None)

    def send(self, *lines: str) -> None:
        for line in lines:
            self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def read_until(self, prefix: str, timeout: float = 60) -> list[str]:
        """Lines up to and including the first one starting with ``prefix``."""
        deadline = time.monotonic() + timeout
        seen: list[str] = []
        while True:
            try:
                line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no {prefix!r} within {timeout} s; got {seen[-20:]}") from None
            if line is None:
                raise AssertionError(f"the engine exited before {prefix!r}; got {seen[-20:]}")
            seen.append(line)
            self.lines.append(line)
            if line.startswith(prefix):
                return seen

    def start(self) -> None:
        self.send("uci")
        self.read_until("uciok")
        deadline = time.monotonic() + 120
        # `readyok` comes within 1.5 s even while the kernels compile (a cold cache, as in CI's
        # first run): wait until the search is really there, so that tests time searches only.
        while any("still loading" in line for line in self.sync()):
            assert time.monotonic() < deadline, "the search did not load within 120 s"

    def sync(self, timeout: float = 60) -> list[str]:
        """Everything the engine printed before answering an `isready` (without the readyok)."""
        self.send("isready")
        return self.read_until("readyok", timeout)[:-1]

    def setoption(self, name: str, value: str) -> list[str]:
        """The lines printed in answer to one `setoption`."""
        self.send(f"setoption name {name} value {value}")
        return self.sync()

    def go(self, fen: str | None, command: str, timeout: float = 60) -> list[str]:
        self.send("position startpos" if fen is None else f"position fen {fen}", command)
        return self.read_until("bestmove", timeout)

    def close(self) -> int:
        try:
            self.send("quit")
        except (BrokenPipeError, OSError):
            pass
        try:
            return self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise
