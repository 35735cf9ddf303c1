"""Options as Stockfish configurations set them: Hash up to Stockfish's maximum (refused beyond the
machine's memory), Syzygy50MoveRule and SyzygyProbeDepth, and a lichess-bot `uci_options` block."""

from __future__ import annotations

import io

import chess
import chess.engine
import pytest

from engine.protocol.options import MAX_HASH
from engine.protocol.uci import UciProtocol
from engine.search.table_size import BYTES_PER_ENTRY, entries_for, physical_memory
from paths import DATA
from uci_client import ENGINE_COMMAND, RawUci

SYZYGY = DATA / "syzygy"
# A KQvK win in 11 (tests/test_tablebase.py) with the halfmove clock at 90: a draw by the 50-move
# rule if Black claims it, a win without the rule.
CURSED_KQVK = "8/8/8/8/8/2k5/8/K6Q w - - 90 1"


@pytest.fixture(scope="module")
def protocol():
    """The engine in this process, its search loaded, so that its table can be looked at."""
    protocol = UciProtocol(io.StringIO())
    assert protocol.engine.wait_ready(timeout=300)
    yield protocol
    protocol.engine.quit()


def answer(protocol: UciProtocol, command: str) -> list[str]:
    start = len(protocol.output.getvalue())
    protocol.handle(command)
    return protocol.output.getvalue()[start:].splitlines()


def test_hash_is_announced_up_to_stockfishs_maximum(protocol):
    announced = answer(protocol, "uci")
    assert "option name Hash type spin default 16 min 1 max 33554432" in announced
    assert MAX_HASH == 33554432


@pytest.mark.skipif((physical_memory() or 0) < 12 * 1024 ** 3, reason="needs 12 GiB of memory")
def test_a_hash_of_8192_mb_is_accepted(protocol):
    assert not any("error" in line for line in answer(protocol, "setoption name Hash value 8192"))
    tt = protocol.engine.tt
    assert tt.megabytes == 8192 and tt.entries == entries_for(8192)
    assert protocol.engine.options["Hash"] == 8192
    assert not any("error" in line for line in answer(protocol, "setoption name Hash value 16"))
    assert protocol.engine.tt.megabytes == 16


@pytest.mark.skipif((physical_memory() or 1 << 62) >= entries_for(MAX_HASH) * BYTES_PER_ENTRY,
                    reason="the machine holds the largest table")
def test_a_hash_beyond_the_machines_memory_is_refused_and_the_table_kept(protocol):
    answer(protocol, "setoption name Hash value 32")
    table = protocol.engine.tt.table
    lines = answer(protocol, f"setoption name Hash value {MAX_HASH}")
    assert len(lines) == 1 and lines[0].startswith("info string error:")
    assert "more than this machine's memory" in lines[0] and "the table keeps its size" in lines[0]
    assert protocol.engine.tt.table is table and protocol.engine.tt.megabytes == 32
    assert protocol.engine.options["Hash"] == 32


def test_a_lichess_bot_block_of_stockfish_options_is_accepted():
    uci_options = {"Hash": 64, "Threads": 1, "Move Overhead": 300, "SyzygyPath": str(SYZYGY),
                   "Syzygy50MoveRule": False, "SyzygyProbeDepth": 4, "UCI_ShowWDL": True}
    engine = chess.engine.SimpleEngine.popen_uci(ENGINE_COMMAND, timeout=120)
    try:
        engine.configure(uci_options)  # python-chess checks each name, type and range
        assert engine.options["SyzygyProbeDepth"].default == 1
        assert (engine.options["SyzygyProbeDepth"].min, engine.options["SyzygyProbeDepth"].max) == (1, 100)
        assert engine.options["Syzygy50MoveRule"].default is True
        info = engine.analyse(chess.Board(), chess.engine.Limit(depth=3))
        assert "wdl" in info and info["pv"][0] in chess.Board().legal_moves
    finally:
        engine.quit()


def test_syzygy50moverule_false_scores_a_cursed_tablebase_win_as_a_win():
    engine = RawUci()
    try:
        engine.start()
        assert not any("error" in line for line in engine.setoption("SyzygyPath", str(SYZYGY)))
        with_rule = engine.go(CURSED_KQVK, "go depth 3")
        assert "info string tablebase position: wdl 1, dtz 11" in with_rule
        assert [line for line in with_rule if " score " in line][-1].split(" score ")[1].startswith("cp 0 ")
        engine.setoption("Syzygy50MoveRule", "false")
        without = engine.go(CURSED_KQVK, "go depth 3")
        assert "info string tablebase position: wdl 2, dtz 11" in without
        assert [line for line in without if " score " in line][-1].split(" score ")[1].startswith("cp 19989 ")
    finally:
        engine.close()


def test_syzygyprobedepth_reaches_the_tablebases_the_search_is_given(protocol):
    for value in ("7", "1"):
        assert not any("error" in line for line in answer(protocol, f"setoption name SyzygyProbeDepth value {value}"))
        assert protocol.engine.tablebases.probe_depth == int(value)
    lines = answer(protocol, "setoption name SyzygyProbeDepth value 0")
    assert len(lines) == 1 and "between 1 and 100" in lines[0]
    assert protocol.engine.tablebases.probe_depth == 1
