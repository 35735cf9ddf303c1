"""Lazy SMP over processes: helpers that search the main search's root, sharing its table.

With ``Threads`` = k the engine keeps k - 1 helper processes (Python threads would share one core
through the GIL). Each is ``python -m engine.search.smp``, started once when the option is set: it loads
the kernels from numba's cache, attaches the shared transposition table and a small control block,
and waits for commands on its stdin, one JSON object a line:

    {"cmd": "search", "id": n, "fen": ..., "moves": [...], "chess960": ..., "searchmoves": [...],
     "generation": g}                  search that position until told to stop
    {"cmd": "attach", "name": ..., "entries": n}    use the resized table
    {"cmd": "newgame"}                 forget the move-ordering history
    {"cmd": "evaluation", "network": path or null}  evaluate with that network (null: classical)
    {"cmd": "quit"}

and answers on its stdout with ``{"ready": ...}`` / ``{"error": ...}`` once started, ``{"done": n}``
when search n has stopped and ``{"attached": name}``. A helper never prints to the engine's
output: the main search alone decides the move and reports. The helpers only fill the table, which
makes the main search's later iterations cheaper, the Lazy SMP speed-up. They diverge from the
main search and from each other by skipping different iteration depths (`search.helper_skips_depth`)
and by their own move-ordering history.

A helper that dies (killed, out of memory) is replaced as soon as its output closes: the thread
that reads it starts a new one in its place and says so through ``on_error``, and the new one
joins the search under way, or the next one, as soon as it has loaded. (Not at the next `start`:
a killed process's output closes only once all its threads are gone, which may be after a `go`
that follows at once.) A replacement that fails before it is ready is not replaced again (it
would fail again); nor is a helper told to quit.

The control block holds int64 words: word 0 is the id of the last search told to stop (a helper
searching id n stops once it reads n or more there, so stopping needs no message and reaches a busy
helper at once), word i the nodes helper i has searched in the current search (the main search
adds them to its reports, as Stockfish sums its threads).

No helper outlives its engine: on Linux each asks the kernel for SIGKILL when the engine thread that
started it ends (prctl PR_SET_PDEATHSIG; one thread starts them all and lives as long as the
engine), and everywhere a thread of the helper reads its stdin and exits at end of file, which
comes when the engine is gone.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Callable

import chess
import numpy as np

from engine.search import params, shm

if TYPE_CHECKING:
    from engine.search.timeman import Limits
    from engine.search.tt import TranspositionTable

STOP_WORD = 0
START_TIMEOUT = 120.0  # seconds for a helper to load its kernels on a busy machine
IDLE_TIMEOUT = 10.0  # seconds for a stopped helper to report; one that does not is killed
# A search waits this long for helpers still finishing the last one (they were told to stop when
# it ended); one that is later sits this search out, so that no `go` pays more on its clock.
START_WAIT = 0.01
QUIT_TIMEOUT = 2.0
PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])


class _Helper:
    """The engine's handle on one helper process."""

    def __init__(self, index: int, process: subprocess.Popen) -> None:
        self.index = index
        self.process = process
        self.state = "starting"  # starting, idle, searching, attaching, quitting, dead
        self.search_id = 0  # the last search it was given
        self.started = False  # whether it ever reported ready
        self.replacement = False  # whether it was started in place of one that died


class HelperPool:
    """k - 1 helper processes sharing ``tt`` with the main search; see the module docstring.

    The main search calls `start` when it starts, `halt` when it ends and `nodes` for its
    reports; the engine calls `wait_ready`, `attach`, `new_game` and `close`. ``on_error`` gets a
    line of text when a helper fails (the engine shows it as `info string`); the pool goes on with
    the helpers it has left.
    """

    def __init__(self, count: int, tt: TranspositionTable, on_error: Callable[[str], None]) -> None:
        if not tt.is_shared:
            raise ValueError("the helpers need a shared transposition table")
        shm.remove_orphans()
        self.tt = tt
        self.on_error = on_error
        self.search_id = 0
        self._counted = np.zeros(0, dtype=np.int64)  # the helpers searching the current search
        self._search: dict | None = None  # the search under way, for a helper that starts during it
        self._lock = threading.Condition()
        self._control_block = shm.create(8 * (count + 1), "ctl")
        self.control = np.ndarray((count + 1,), dtype=np.int64, buffer=self._control_block.buf)
        self.helpers: list[_Helper] = []
        # The blocks' names are removed once every helper, the last one spawned too, has them open.
        self._unlink_pending = False
        for index in range(1, count + 1):
            self._spawn(index)
        with self._lock:
            self._unlink_pending = True
            self._unlink_when_attached()

    def _spawn(self, index: int, position: int | None = None) -> bool:
        """Starts helper ``index`` (in place of the one at ``position`` in `helpers`, if given);
        whether it started. A replacement is given the blocks' descriptors, their names being
        gone once the first helpers attached them."""
        control, table = self._control_block.name, self.tt.shared_name
        inherited: tuple[int, ...] = ()
        if position is not None:
            descriptors = (shm.descriptor(self._control_block), self.tt.shared_descriptor)
            if None not in descriptors:
                inherited = descriptors
                control, table = (f"{shm.INHERITED}{fd}" for fd in descriptors)
        command = [sys.executable, "-m", "engine.search.smp", str(index), str(os.getpid()),
                   control, table, str(self.tt.entries)]
        try:
            process = _start_process(command, inherited)
        except OSError as error:
            self.on_error(f"helper {index} not started: {error}")
            return False
        helper = _Helper(index, process)
        helper.replacement = position is not None
        if position is None:
            self.helpers.append(helper)
        else:
            self.helpers[position] = helper
        threading.Thread(target=self._read, args=(helper,), name=f"brudno-helper-{index}",
                         daemon=True).start()
        return True

    def _replace(self, helper: _Helper, code: int | None) -> None:
        """Called by ``helper``'s reader once it has exited: starts a new one in its place, unless
        it was told to quit or was itself a replacement that never got ready (a second that fails
        so would fail every time)."""
        if helper not in self.helpers or helper.state == "quitting":
            return
        helper.state = "dead"
        if not helper.started and helper.replacement:
            self.on_error(f"helper {helper.index} exited (code {code}); {self.active} left")
            return
        for stream in (helper.process.stdin, helper.process.stdout):
            try:
                stream.close()
            except (OSError, ValueError):
                pass
        if self._spawn(helper.index, self.helpers.index(helper)):
            self.on_error(f"helper {helper.index} exited (code {code}); a new one is starting")

    # ------------------------------------------------------------------ messages

    def _read(self, helper: _Helper) -> None:
        """Runs on a thread per helper: applies its answers to its state, until it ends."""
        for line in helper.process.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            with self._lock:
                if "ready" in message and helper.state == "starting":
                    helper.state = "idle"
                    helper.started = True
                    self._join_search(helper)
                elif "error" in message:
                    self.on_error(f"helper {helper.index}: {message['error']}")
                elif message.get("done") == helper.search_id and helper.state == "searching":
                    helper.state = "idle"
                elif message.get("attached") == self.tt.shared_name and helper.state == "attaching":
                    helper.state = "idle"
                self._unlink_when_attached()
                self._lock.notify_all()
        try:  # its output closed: it has exited, or is exiting
            code = helper.process.wait(QUIT_TIMEOUT)
        except subprocess.TimeoutExpired:
            code = None
        with self._lock:
            self._replace(helper, code)
            helper.state = "dead"
            self._unlink_when_attached()
            self._lock.notify_all()

    def _join_search(self, helper: _Helper) -> None:
        """Sets a helper that has just started searching the search under way, if one is."""
        search = self._search
        if search is None or self.control is None or self.control[STOP_WORD] >= search["id"]:
            return
        self.control[helper.index] = 0
        if self._send(helper, search):
            helper.state = "searching"
            helper.search_id = search["id"]
            self._counted = np.append(self._counted, helper.index)

    def _unlink_when_attached(self) -> None:
        # Once every helper has opened the blocks (after the pool started, or after `attach`),
        # their names can go: nothing is left in /dev/shm then, whatever happens to the engine.
        if self._unlink_pending and not any(h.state in ("starting", "attaching") for h in self.helpers):
            self._unlink_pending = False
            self.tt.unlink()
            shm.unlink(self._control_block)

    def _send(self, helper: _Helper, message: dict) -> bool:
        try:
            helper.process.stdin.write(json.dumps(message) + "\n")
            helper.process.stdin.flush()
            return True
        except (BrokenPipeError, OSError, ValueError):
            return False

    def _wait(self, busy_states: tuple[str, ...], timeout: float) -> list[_Helper]:
        """Waits until no helper is in ``busy_states``; returns those still in one at the timeout."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while True:
                late = [h for h in self.helpers if h.state in busy_states]
                remaining = deadline - time.monotonic()
                if not late or remaining <= 0:
                    return late
                self._lock.wait(remaining)

    @property
    def active(self) -> int:
        """Helpers alive (started or starting)."""
        return sum(1 for h in self.helpers if h.state not in ("dead", "quitting"))

    # ------------------------------------------------------------------ for the engine

    def wait_ready(self, timeout: float = START_TIMEOUT) -> None:
        """Returns once every helper has loaded and attached the table (or failed)."""
        for helper in self._wait(("starting", "attaching"), timeout):
            self.on_error(f"helper {helper.index} did not start within {timeout:.0f} s")
            self._kill(helper)

    def started(self, timeout: float) -> bool:
        """Whether every helper has loaded and attached the table, waiting at most ``timeout``
        seconds (a slow one is left to start: `wait_ready` gives up on it)."""
        return not self._wait(("starting", "attaching"), timeout)

    def attach(self, tt: TranspositionTable) -> None:
        """Points the helpers at ``tt`` (the engine's table, resized into a new block). The
        engine calls `wait_ready` before it resizes, so that no helper is still opening the old one."""
        self.wait_idle()
        with self._lock:
            self.tt = tt
            for helper in self.helpers:
                if helper.state == "idle" and self._send(helper, {"cmd": "attach", "name": tt.shared_name,
                                                                  "entries": tt.entries}):
                    helper.state = "attaching"
            self._unlink_pending = True
            self._unlink_when_attached()

    def set_evaluation(self, network: str | None) -> None:
        """The helpers evaluate with the network in the file ``network``, or the classical
        evaluation if None; each loads it before its next search."""
        for helper in self.helpers:
            if helper.state != "dead":
                self._send(helper, {"cmd": "evaluation", "network": network})

    def set_parameters(self, overrides: str) -> None:
        """The helpers search with engine/search/params.py's values changed by ``overrides`` (the
        BRUDNO_PARAMS text), from their next search on."""
        for helper in self.helpers:
            if helper.state != "dead":
                self._send(helper, {"cmd": "parameters", "overrides": overrides})

    def new_game(self) -> None:
        for helper in self.helpers:
            if helper.state != "dead":
                self._send(helper, {"cmd": "newgame"})

    def close(self) -> None:
        """Stops and ends every helper (killing one that does not quit), and frees the blocks."""
        self.halt()
        with self._lock:
            for helper in self.helpers:
                if helper.state != "dead":
                    helper.state = "quitting"
                    self._send(helper, {"cmd": "quit"})
        deadline = time.monotonic() + QUIT_TIMEOUT
        for helper in self.helpers:
            try:
                helper.process.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self._kill(helper)
            for stream in (helper.process.stdin, helper.process.stdout):
                try:
                    stream.close()
                except (OSError, ValueError):
                    pass
        self.helpers = []
        self.control = None
        self.tt.unlink()
        shm.unlink(self._control_block)
        try:
            self._control_block.close()
        except BufferError:
            pass

    def _kill(self, helper: _Helper) -> None:
        """Kills a helper that did not answer in time: its reader then starts a new one in its
        place, unless it was told to quit."""
        if helper.state != "quitting":
            helper.state = "dead"
        try:
            helper.process.kill()
            helper.process.wait(QUIT_TIMEOUT)
        except (OSError, subprocess.TimeoutExpired):
            pass

    # ------------------------------------------------------------------ for the main search

    def start(self, board: chess.Board, limits: Limits, generation: int) -> None:
        """Sets every idle helper searching ``board`` (with its game history, for repetitions);
        one still starting joins when it is ready."""
        self.halt()
        self._wait(("searching",), START_WAIT)
        history = board.copy()
        moves: list[str] = []
        while history.move_stack and len(moves) < board.halfmove_clock:
            moves.append(history.pop().uci())
        moves.reverse()
        with self._lock:
            self.search_id += 1
            message = {"cmd": "search", "id": self.search_id, "fen": history.fen(), "moves": moves,
                       "chess960": board.chess960, "generation": generation,
                       "searchmoves": [move.uci() for move in limits.searchmoves]}
            self._search = message
            counted = []
            for helper in self.helpers:
                # A helper still starting (a `go` without `isready` after `setoption Threads`), or
                # still finishing the last search, joins at the next one.
                if helper.state == "idle":
                    self.control[helper.index] = 0
                    if self._send(helper, message):
                        helper.state = "searching"
                        helper.search_id = self.search_id
                        counted.append(helper.index)
            self._counted = np.array(counted, dtype=np.int64)

    def halt(self) -> None:
        """Tells every helper to stop the current search (they read it within a few ms)."""
        self._search = None
        if self.control is not None:
            self.control[STOP_WORD] = self.search_id

    def wait_idle(self, timeout: float = IDLE_TIMEOUT) -> None:
        """Stops the current search and waits until every helper has said it stopped."""
        self.halt()
        for helper in self._wait(("searching",), timeout):
            self.on_error(f"helper {helper.index} did not stop within {timeout:.0f} s; killed")
            self._kill(helper)

    def nodes(self) -> int:
        """Nodes the helpers have searched in the current search (as of their last report)."""
        if self.control is None:
            return 0
        return int(self.control[self._counted].sum())


# ---------------------------------------------------------------------- the helper process

class _SharedStop:
    """Stands in for the search's StopSignal: set once the engine has stopped search_id. The
    scout kernel reads the same word (``word[0] >= at``)."""

    def __init__(self, control: np.ndarray) -> None:
        self.control = control
        self.word = control[STOP_WORD:]
        self.search_id = 0

    @property
    def at(self) -> int:
        return self.search_id

    def is_set(self) -> bool:
        return self.control[STOP_WORD] >= self.search_id


_starter: ThreadPoolExecutor | None = None
_starter_lock = threading.Lock()


def _start_process(command: list[str], inherited: tuple[int, ...] = ()) -> subprocess.Popen:
    """Starts a helper (with the descriptors ``inherited`` open in it) from one thread that lives
    as long as the engine: the kernel's parent-death signal (`_die_with_parent`) follows the
    thread that started a process, so a helper started from a short-lived thread (the loader's)
    would die with that thread."""
    global _starter
    with _starter_lock:
        if _starter is None:
            _starter = ThreadPoolExecutor(max_workers=1, thread_name_prefix="brudno-helper-start")
    return _starter.submit(subprocess.Popen, command, cwd=PACKAGE_ROOT, stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, text=True, bufsize=1,
                           pass_fds=inherited).result()


def _die_with_parent(parent: int) -> None:
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            import signal

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # 1: PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the engine died before the request took effect
        os._exit(0)


def _read_commands(stream, commands: list, ready: threading.Condition) -> None:
    """Reads commands into ``commands``; at end of file the engine is gone, and so is this process."""
    for line in stream:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        with ready:
            commands.append(message)
            ready.notify()
    os._exit(0)


def helper_main(argv: list[str]) -> int:
    index, parent = int(argv[0]), int(argv[1])
    control_name, tt_name, entries = argv[2], argv[3], int(argv[4])
    _die_with_parent(parent)
    # The protocol goes to the real stdout; anything else printed (a library's warning) to stderr.
    answers = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def answer(message: dict) -> None:
        answers.write(json.dumps(message) + "\n")

    commands: list[dict] = []
    ready = threading.Condition()
    threading.Thread(target=_read_commands, args=(sys.stdin, commands, ready), daemon=True).start()
    try:
        from engine.evaluation import network
        from engine.evaluation.evaluate import evaluate as classical_evaluate
        from engine.search.root import Search  # importing the search compiles its kernels
        from engine.search.timeman import Limits
        from engine.search.tt import TranspositionTable

        control_block = shm.attach(control_name)
        control = np.ndarray((len(control_block.buf) // 8,), dtype=np.int64, buffer=control_block.buf)
        search = Search(TranspositionTable.attach(tt_name, entries))
    except Exception as error:
        answer({"error": f"start-up failed: {type(error).__name__}: {error}"})
        return 1
    stop = _SharedStop(control)
    search.stop_event = stop
    search.thread_index = index
    search.shared_nodes = control
    answer({"ready": True})

    while True:
        with ready:
            while not commands:
                ready.wait()
            command = commands.pop(0)
        kind = command.get("cmd")
        if kind == "quit":
            return 0
        if kind == "newgame":
            search.tables.clear()
        elif kind == "parameters":
            try:
                search.parameters = params.with_overrides(command["overrides"])
            except ValueError as error:
                answer({"error": f"parameters not changed: {error}"})
        elif kind == "evaluation":
            search.evaluate = classical_evaluate
            if command["network"] is not None:
                try:
                    search.evaluate = network.evaluator(command["network"])
                except (OSError, ValueError) as error:
                    answer({"error": f"cannot load the network ({error}); evaluating classically"})
        elif kind == "attach":
            try:
                table = TranspositionTable.attach(command["name"], command["entries"])
            except OSError as error:
                answer({"error": f"cannot open the resized table: {error}"})
                return 1
            search.tt.close()
            search.tt = table
            answer({"attached": command["name"]})
        elif kind == "search":
            stop.search_id = command["id"]
            try:
                board = chess.Board(command["fen"], chess960=command["chess960"])
                for move in command["moves"]:
                    board.push_uci(move)
                search.tt.generation = command["generation"]
                limits = Limits(searchmoves=[chess.Move.from_uci(m) for m in command["searchmoves"]])
                search.run(board, limits)
            except Exception:
                traceback.print_exc()  # stderr; the engine goes on without this search's help
            control[index] = search.nodes
            answer({"done": command["id"]})


if __name__ == "__main__":
    sys.exit(helper_main(sys.argv[1:]))
