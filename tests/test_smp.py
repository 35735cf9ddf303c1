"""Lazy SMP: the shared table across processes, the helper processes' life, and the search with them.

None of these tests measures time: a wait has a generous timeout only so that a bug fails the test
instead of hanging it.
"""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import threading
import time

import chess
import pytest

from engine.board.perft import KIWIPETE
from engine.search.root import Search
from engine.search.root import helper_skips_depth
from engine.search.smp import HelperPool
from engine.search.timeman import Limits
from engine.search.tt import EXACT, LOWER, TranspositionTable
from uci_client import ENGINE_COMMAND, RawUci

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def children(pid: int) -> set[int]:
    """Live child processes of ``pid`` (from /proc; zombies, already ended, left out)."""
    found = set()
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/children") as f:
                found.update(int(child) for child in f.read().split())
        except OSError:
            pass
    return {child for child in found if is_running(child)}


def is_running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_until(condition, timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def brudno_blocks(pid: int) -> list[str]:
    return [name for name in os.listdir("/dev/shm") if name.startswith(f"brudno-{pid}-")]


class StubHelpers:
    """Stands in for a HelperPool: reports a fixed node count, records what the search asked."""

    def __init__(self, nodes: int) -> None:
        self.helper_nodes = nodes
        self.calls: list[str] = []

    def start(self, board, limits, generation) -> None:
        self.calls.append("start")

    def halt(self) -> None:
        self.calls.append("halt")

    def nodes(self) -> int:
        return self.helper_nodes


@pytest.fixture(scope="module")
def pool():
    """One table shared with two helper processes, for the tests that need real helpers."""
    tt = TranspositionTable(8, shared=True)
    errors: list[str] = []
    helpers = HelperPool(2, tt, errors.append)
    helpers.wait_ready()
    helpers.errors = errors
    yield helpers
    helpers.close()
    tt.close()


# ---------------------------------------------------------------------- the shared table

def test_an_entry_stored_in_another_process_is_probed_here_and_back():
    tt = TranspositionTable(1, shared=True)
    key = 0x9E3779B97F4A7C15
    tt.store(key + 1, 3, LOWER, 12, chess.Move.from_uci("g1f3"))
    child = f"""
import chess
from engine.search.tt import TranspositionTable, EXACT
tt = TranspositionTable.attach({tt.shared_name!r}, {tt.entries})
print(tt.probe({key + 1}))
tt.store({key}, 9, EXACT, -321, chess.Move.from_uci("b7b8q"))
"""
    result = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "(3, 1, 12, Move.from_uci('g1f3'))"
    assert tt.probe(key) == (9, EXACT, -321, chess.Move.from_uci("b7b8q"))
    tt.close()


def test_an_illegal_move_from_the_table_is_never_searched_nor_played():
    board = chess.Board()
    search = Search(TranspositionTable(1))
    # Another position's entry under this key, or a torn write: a move that is not legal here.
    search.tt.store(search_key(board), 20, EXACT, 500, chess.Move.from_uci("a1h8"))
    root = [rm.move for rm in search._root_moves(board, [])]
    assert sorted(m.uci() for m in root) == sorted(m.uci() for m in board.legal_moves)
    result = search.run(board, Limits(depth=2))
    assert result.best_move in board.legal_moves


def search_key(board: chess.Board) -> int:
    from engine.board.zobrist import position_key

    return position_key(board)


# ---------------------------------------------------------------------- the search with helpers

def test_reported_nodes_include_the_helpers_and_the_helpers_start_and_stop_with_the_search():
    helpers = StubHelpers(1000)
    search = Search(TranspositionTable(1))
    search.helpers = helpers
    infos = []
    result = search.run(chess.Board(KIWIPETE), Limits(depth=3), report=infos.append)
    assert infos and infos[-1].nodes == result.nodes + 1000
    assert helpers.calls == ["start", "halt"]


def test_go_nodes_counts_the_helpers_nodes_too():
    search = Search(TranspositionTable(1))
    search.helpers = StubHelpers(10**6)  # the helpers alone are over the limit
    result = search.run(chess.Board(KIWIPETE), Limits(nodes=5000))
    assert result.nodes < 5000 and result.best_move is not None


def test_go_nodes_stops_when_the_main_search_and_the_helpers_together_reach_the_limit():
    search = Search(TranspositionTable(1))
    search.helpers = StubHelpers(3000)
    result = search.run(chess.Board(KIWIPETE), Limits(nodes=5000))
    assert result.nodes == 2000


def test_depth_six_with_a_helper_plays_a_legal_move_and_the_helpers_searched(pool):
    board = chess.Board(KIWIPETE)
    search = Search(pool.tt)
    search.helpers = pool
    infos = []
    result = search.run(board, Limits(depth=6), report=infos.append)
    assert result.best_move in board.legal_moves
    pool.wait_idle()
    assert pool.nodes() > 0  # every helper searched and counted its nodes
    assert all(pool.control[i] > 0 for i in range(1, 3))
    assert infos[-1].depth == 6
    assert not pool.errors


def test_helpers_stop_when_told_and_fill_the_shared_table(pool):
    pool.tt.clear()
    pool.start(chess.Board(), Limits(), generation=pool.tt.generation)  # no limit: until stopped
    pool.wait_idle()  # stops them, and kills any that does not answer
    assert all(h.state == "idle" for h in pool.helpers)
    assert pool.tt.table.any()  # the helpers' entries are in this process's table
    assert not pool.errors


def test_helpers_follow_the_table_into_a_new_block_after_a_resize(pool):
    tt = pool.tt
    tt.resize(4)
    pool.attach(tt)
    pool.wait_ready()
    assert not brudno_blocks(os.getpid())  # every helper attached it: the name is gone
    pool.start(chess.Board(KIWIPETE), Limits(), generation=tt.generation)
    pool.wait_idle()
    assert tt.table.any()
    assert not pool.errors


def test_helpers_search_different_depths_from_each_other():
    patterns = {tuple(helper_skips_depth(i, d, 0) for d in range(1, 13)) for i in range(1, 9)}
    assert len(patterns) == 8
    for i in range(1, 9):
        skipped = [helper_skips_depth(i, d, 0) for d in range(1, 13)]
        assert any(skipped) and not all(skipped)


# ---------------------------------------------------------------------- helper processes' life

@linux_only
def test_starting_and_closing_helpers_leaves_no_process_behind():
    me = os.getpid()
    before = children(me)
    tt = TranspositionTable(1, shared=True)
    helpers = HelperPool(2, tt, lambda text: None)
    helpers.wait_ready()
    assert len(children(me) - before) == 2
    helpers.close()
    tt.close()
    assert children(me) == before
    assert not brudno_blocks(me)


@linux_only
def test_helpers_started_from_a_thread_that_ends_live_on():
    # The kernel's parent-death signal follows the thread that started a process, not the
    # process: the engine's loader thread starts helpers when Threads came before the load.
    tt = TranspositionTable(1, shared=True)
    made: list[HelperPool] = []

    def start_and_stay_until_started() -> None:  # as the loader goes on with its own work
        made.append(HelperPool(1, tt, lambda text: None))
        made[0].wait_ready()  # each helper asks for the signal as it starts

    starter = threading.Thread(target=start_and_stay_until_started)
    starter.start()
    starter.join()
    helpers = made[0]
    try:
        process = helpers.helpers[0].process
        time.sleep(0.5)
        assert process.poll() is None
        assert helpers.active == 1
    finally:
        helpers.close()
        tt.close()


@linux_only
def test_threads_option_starts_helpers_and_quit_ends_them():
    engine = RawUci()
    try:
        engine.send("setoption name Threads value 3")
        engine.send("isready")
        engine.read_until("readyok")
        helpers = children(engine.process.pid)
        assert len(helpers) == 2
        engine.send("position startpos moves e2e4 e7e5")
        engine.send("go depth 6")
        lines = engine.read_until("bestmove")
        move = lines[-1].split()[1]
        board = chess.Board()
        board.push_uci("e2e4")
        board.push_uci("e7e5")
        assert chess.Move.from_uci(move) in board.legal_moves
        assert any(line.startswith("info depth 6") for line in lines)
        engine.send("setoption name Threads value 2")  # the old helpers go, one new one comes
        engine.send("isready")
        engine.read_until("readyok")
        assert len(children(engine.process.pid)) == 1
        assert not children(engine.process.pid) & helpers
        helpers |= children(engine.process.pid)
    finally:
        assert engine.close() == 0
    assert wait_until(lambda: not any(is_running(pid) for pid in helpers))


@linux_only
def test_killing_the_engine_leaves_no_helper_behind():
    engine = RawUci()
    engine.send("setoption name Threads value 3")
    engine.send("isready")
    engine.read_until("readyok")
    helpers = children(engine.process.pid)
    assert len(helpers) == 2
    engine.send("go infinite")
    engine.read_until("info depth 2")
    engine.process.send_signal(signal.SIGKILL)
    engine.process.wait(30)
    assert wait_until(lambda: not any(is_running(pid) for pid in helpers))
    # The blocks' names go once every helper has attached; killed before that (isready does not
    # wait for slow helpers), they go when the next engine starts its helpers.
    nxt = RawUci()
    try:
        nxt.send("setoption name Threads value 2")
        nxt.send("isready")
        nxt.read_until("readyok")
        assert not brudno_blocks(engine.process.pid)
    finally:
        assert nxt.close() == 0


def test_fuzzed_input_with_helpers_never_kills_the_engine_nor_yields_an_illegal_bestmove():
    from test_robustness import (check_bestmoves_are_legal, check_no_exception_escaped, fuzz_lines,
                                 fuzz_script)

    lines = fuzz_lines(random.Random(17), 600)
    # Helpers from the start; later more of them, and a table resized under them.
    lines[:0] = ["setoption name Threads value 2", "isready"]
    lines.insert(200, "setoption name Threads value 3")
    lines.insert(400, "setoption name Hash value 8")
    result = subprocess.run(ENGINE_COMMAND, input=fuzz_script(lines), capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "readyok" in result.stdout
    check_no_exception_escaped(result.stdout, result.stderr)
    # No helper failed nor was killed (each such message names its helper; an isready that only
    # says helpers are still starting is no failure).
    assert re.search(r"helper \d", result.stdout) is None
    check_bestmoves_are_legal(lines, result.stdout)


@pytest.fixture
def loaded_engine():
    """The engine process with its search loaded (`uci`, `isready` answered); it must quit
    cleanly."""
    engine = RawUci()
    try:
        engine.send("uci", "isready")
        engine.read_until("readyok")
        yield engine
    finally:
        assert engine.close() == 0


@linux_only
def test_go_never_waits_for_helpers_still_starting(loaded_engine):
    engine = loaded_engine
    # No `isready` after Threads: the helper is still starting (a process loading numba) when
    # `go` arrives, and joins a later search instead.
    engine.send("setoption name Threads value 2", "position startpos")
    started = time.monotonic()
    engine.send("go movetime 200")
    lines = engine.read_until("bestmove")
    elapsed = time.monotonic() - started
    assert chess.Move.from_uci(lines[-1].split()[1]) in chess.Board().legal_moves
    assert elapsed < 0.6


@linux_only
def test_isready_never_waits_for_starting_helpers_past_its_limit(loaded_engine):
    from engine.protocol.uci import READY_WAIT

    engine = loaded_engine
    # Seven helpers loading numba on a small machine take seconds; Cute Chess gives up on
    # `readyok` after 15 s, however many threads it asked for.
    engine.send("setoption name Threads value 8")
    started = time.monotonic()
    engine.send("isready")
    engine.read_until("readyok")
    assert time.monotonic() - started < READY_WAIT + 1.0
    engine.send("position startpos", "go depth 6")
    lines = engine.read_until("bestmove")
    assert chess.Move.from_uci(lines[-1].split()[1]) in chess.Board().legal_moves


# ---------------------------------------------------------------------- a helper that dies

@linux_only
def test_a_killed_helper_is_replaced_at_once_and_joins_the_search_under_way():
    tt = TranspositionTable(2, shared=True)
    errors: list[str] = []
    helpers = HelperPool(1, tt, errors.append)
    try:
        helpers.wait_ready()
        assert not brudno_blocks(os.getpid())  # the names are gone: the new one cannot use them
        killed = helpers.helpers[0].process
        helpers.start(chess.Board(KIWIPETE), Limits(), generation=tt.generation)  # until stopped
        killed.send_signal(signal.SIGKILL)
        assert wait_until(lambda: helpers.helpers[0].process.pid != killed.pid), errors
        assert errors == ["helper 1 exited (code -9); a new one is starting"]
        replacement = helpers.helpers[0]
        assert helpers.active == 1
        # It joins the search under way once it has loaded, and searches in the shared table.
        assert wait_until(lambda: helpers.nodes() > 0, timeout=120), errors
        assert replacement.state == "searching"
        helpers.wait_idle()
        assert replacement.state == "idle" and tt.table.any()
    finally:
        helpers.close()
        tt.close()


@linux_only
def test_after_a_helper_is_killed_the_engine_searches_with_two_again():
    engine = RawUci()
    try:
        engine.send("setoption name Threads value 2")
        wait_for_helpers(engine)
        (helper,) = children(engine.process.pid)
        os.kill(helper, signal.SIGKILL)
        # Said as soon as its output closes (once all its threads are gone), between commands.
        said: list[str] = []
        assert wait_until(lambda: said.extend(engine.sync()) or said)
        assert said == ["info string helper 1 exited (code -9); a new one is starting"]
        lines = engine.go(None, "go movetime 300")
        assert chess.Move.from_uci(lines[-1].split()[1]) in chess.Board().legal_moves
        wait_for_helpers(engine)  # the new one has loaded
        (replacement,) = children(engine.process.pid)
        assert replacement != helper
        before = cpu_ticks(replacement)
        lines = engine.go(None, "go movetime 1000")
        assert cpu_ticks(replacement) - before > 20  # it searched beside the main search
        assert not any("helper" in line for line in lines)
    finally:
        assert engine.close() == 0


def wait_for_helpers(engine: RawUci) -> None:
    """Returns once `isready` no longer says that helpers are still starting."""
    deadline = time.monotonic() + 120
    while any("still loading" in line for line in engine.sync()):
        assert time.monotonic() < deadline, "the helpers did not start within 120 s"


def cpu_ticks(pid: int) -> int:
    """User and system time of ``pid`` in clock ticks (from /proc)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])
