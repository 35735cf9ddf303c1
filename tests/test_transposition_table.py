"""The transposition table: what it keeps, what it replaces, its budget, mate scores."""

from __future__ import annotations

import random
import tracemalloc

import chess
import pytest

from engine.search import tt_kernels
from engine.evaluation.score import MATE
from engine.search.tt import EXACT, LOWER, UPPER, TranspositionTable, score_from_tt, score_to_tt


# Keys that differ only in their low 32 bits share a slot (the slot scales the high 32 bits).
OTHER_KEY_SAME_SLOT = 1 << 20


def test_tt_returns_what_was_stored_for_the_same_key_only():
    tt = TranspositionTable(1)
    move = chess.Move.from_uci("e2e4")
    tt.store(12345, 5, LOWER, 40, move)
    assert tt.probe(12345) == (5, LOWER, 40, move)
    assert tt.probe(12345 ^ OTHER_KEY_SAME_SLOT) is None  # same slot, other position


@pytest.mark.parametrize("depth, score", [(0, 0), (-3, -32001), (200, 32001), (1, -19872), (37, 31990)])
def test_tt_entry_round_trips_depth_score_bound_and_move(depth, score):
    key = 0xFEDCBA9876543210
    for bound, move in ((EXACT, chess.Move.from_uci("a7a8n")), (UPPER, chess.Move.from_uci("h1a8")),
                        (LOWER, None)):
        tt = TranspositionTable(1)
        tt.store(key, depth, bound, score, move)
        assert tt.probe(key) == (depth, bound, score, move)


def test_tt_keeps_the_deeper_entry_of_the_current_search():
    tt = TranspositionTable(1)
    tt.store(7, 8, EXACT, 10, None)
    tt.store(7 ^ OTHER_KEY_SAME_SLOT, 2, UPPER, -5, None)  # shallower, same slot: rejected
    assert tt.probe(7) is not None
    tt.new_search()
    tt.store(7 ^ OTHER_KEY_SAME_SLOT, 2, UPPER, -5, None)  # the old entry is stale now: replaced
    assert tt.probe(7) is None and tt.probe(7 ^ OTHER_KEY_SAME_SLOT) is not None


def test_tt_keeps_the_old_move_when_a_bound_without_move_is_stored():
    tt = TranspositionTable(1)
    move = chess.Move.from_uci("g1f3")
    tt.store(99, 3, LOWER, 50, move)
    tt.store(99, 4, UPPER, 20, None)
    assert tt.probe(99)[3] == move


def test_torn_or_foreign_entry_reads_as_a_miss():
    tt = TranspositionTable(1)
    key = 0x0123456789ABCDEF
    tt.store(key, 6, EXACT, 77, chess.Move.from_uci("e2e4"))
    slot = [i for i in range(0, len(tt.table), 2) if tt.table[i + 1] != 0]
    assert len(slot) == 1
    index = slot[0]
    # Another process wrote the data word of a different entry but not yet its key word.
    tt.table[index + 1] ^= 1 << 40
    assert tt.probe(key) is None
    # A foreign entry: written for another key that maps to the same slot.
    tt.table[index + 1] ^= 1 << 40
    assert tt.probe(key) is not None
    tt.table[index] ^= 1 << 5
    assert tt.probe(key) is None


def test_tt_empty_slot_is_a_miss_even_for_key_zero():
    assert TranspositionTable(1).probe(0) is None


def test_tt_uses_the_whole_hash_budget_with_sixteen_byte_entries():
    for megabytes in (1, 16, 3):
        tt = TranspositionTable(megabytes)
        assert tt.table.nbytes <= megabytes * 1024 * 1024
        assert tt.entries > (megabytes * 1024 * 1024 - 8192) // 16


@pytest.mark.parametrize("score", [MATE - 5, -(MATE - 7), 123, -40, 0])
def test_mate_scores_are_stored_relative_to_the_node(score):
    for ply in (0, 3, 10):
        assert score_from_tt(score_to_tt(score, ply), ply) == score
    if abs(score) > 1000:
        # Mate in 5 plies from the root, seen at ply 3, is mate in 2 plies from that node.
        assert abs(score_to_tt(score, 3)) == abs(score) + 3


def test_tt_never_holds_more_than_its_hash_budget():
    # The kernels and the move table are loaded once per process, not per table: load them first.
    TranspositionTable(1).store(1, 1, EXACT, 0, chess.Move.from_uci("e2e4"))
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    tt = TranspositionTable(1)
    board = chess.Board()
    moves = list(board.legal_moves)
    for i in range(tt.entries):
        tt.store(random.getrandbits(64), i % 20, EXACT, i % 3000, moves[i % 20])
    used = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert used <= 1024 * 1024, used


def test_hashfull_counts_the_current_search_only():
    tt = TranspositionTable(1)
    assert tt.hashfull() == 0
    # hashfull samples the first 1000 slots; a key's slot is its high 32 bits scaled to the table.
    for slot in range(1000):
        tt.store(-(-(slot << 32) // tt.entries) << 32, 1, EXACT, 0, None)
    assert tt.hashfull() == 1000
    tt.new_search()
    assert tt.hashfull() == 0


@pytest.mark.parametrize("static", [0, 1, -1, 8191, -8191, 250])
def test_tt_entry_keeps_the_static_score_beside_the_search_result(static):
    # The search's own entries carry the position's static score (engine/search/tt_kernels.py), which a
    # node that finds it does not compute again.
    tt = TranspositionTable(1)
    key = 0xFEDCBA9876543210
    tt_kernels.store_kernel(tt.table, key, tt.entries, (7, LOWER, -31990, 77, static),
                            tt.generation)
    assert tt_kernels.probe_kernel(tt.table, key, tt.entries) == (7, LOWER, -31990, 77, static)
    assert tt.probe(key)[:3] == (7, LOWER, -31990)
    # A result without one keeps the position's; another position's entry does not inherit it.
    tt_kernels.store_kernel(tt.table, key, tt.entries, (8, UPPER, 5, 0, tt_kernels.NO_EVAL),
                            tt.generation)
    assert tt_kernels.probe_kernel(tt.table, key, tt.entries)[4] == static
    other = key ^ OTHER_KEY_SAME_SLOT
    tt_kernels.store_kernel(tt.table, other, tt.entries, (9, EXACT, 0, 0, tt_kernels.NO_EVAL),
                            tt.generation)
    assert tt_kernels.probe_kernel(tt.table, other, tt.entries)[4] == tt_kernels.NO_EVAL


@pytest.mark.parametrize("static", [8192, -8192, 10000, -(MATE + 1)])
def test_tt_entry_keeps_no_static_score_past_its_range(static):
    tt = TranspositionTable(1)
    tt_kernels.store_kernel(tt.table, 42 << 32, tt.entries, (3, EXACT, 12, 0, static),
                            tt.generation)
    assert tt_kernels.probe_kernel(tt.table, 42 << 32, tt.entries) == (3, EXACT, 12, 0,
                                                                      tt_kernels.NO_EVAL)


def test_hashfull_reads_the_generation_beside_static_scores():
    tt = TranspositionTable(1)
    for slot in range(1000):
        key = -(-(slot << 32) // tt.entries) << 32
        tt_kernels.store_kernel(tt.table, key, tt.entries, (1, EXACT, 0, 0, -8191),
                                tt.generation)
    assert tt.hashfull() == 1000
    tt.new_search()
    assert tt.hashfull() == 0


def test_a_table_larger_than_the_machine_is_refused_and_the_old_one_kept(monkeypatch):
    from engine.search import table_size

    tt = TranspositionTable(2)
    move = chess.Move.from_uci("e2e4")
    tt.store(12345, 5, LOWER, 40, move)
    monkeypatch.setattr(table_size, "physical_memory", lambda: 64 * 1024 * 1024)
    with pytest.raises(MemoryError, match="more than this machine's memory"):
        tt.resize(128)
    assert tt.megabytes == 2 and tt.probe(12345) == (5, LOWER, 40, move)
    tt.resize(32)  # within it
    assert tt.megabytes == 32 and tt.probe(12345) is None


def test_the_largest_table_holds_two_to_the_32_entries_at_most():
    from engine.search.table_size import MAX_ENTRIES, entries_for

    assert entries_for(16) == 1_048_320
    assert entries_for(65537) == MAX_ENTRIES == entries_for(33554432)  # 64 GiB
