"""Unit tests of the search's parts: the transposition table, move ordering, time budget, the search."""

from __future__ import annotations

import random
import tracemalloc

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import params
from engine.bitmove import is_quiet_code, move_code
from engine.movepick import OrderingTables, ordered_moves
from engine.perft import KIWIPETE
from engine.score import MATE
from engine.search import Search, fixed_depth_search, position_key
from engine.timeman import Limits, budget, soft_scale
from engine.tt import EXACT, LOWER, UPPER, TranspositionTable, score_from_tt, score_to_tt

from staged_order import staged_order


def random_board(seed: int, plies: int) -> chess.Board:
    rng = random.Random(seed)
    board = chess.Board()
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
    return board


# ---------------------------------------------------------------------- transposition table

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


def test_position_key_is_equal_for_transpositions_and_differs_for_side_to_move():
    a = chess.Board()
    for uci in ("g1f3", "g8f6", "b1c3"):
        a.push_uci(uci)
    b = chess.Board()
    for uci in ("b1c3", "g8f6", "g1f3"):
        b.push_uci(uci)
    assert position_key(a) == position_key(b)
    c = a.copy()
    c.turn = not c.turn
    assert position_key(a) != position_key(c)


def test_position_key_ignores_an_en_passant_square_without_capture():
    a = chess.Board()
    a.push_uci("e2e4")  # sets ep square e3, but no black pawn can take
    b = chess.Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
    assert position_key(a) == position_key(b)


# ---------------------------------------------------------------------- move ordering

def test_an_en_passant_killer_is_yielded_once_with_the_captures():
    # c4xd3 en passant goes to an empty square: as a killer it must not come a second time.
    board = chess.Board("rnb1kbr1/ppnpp3/4q2p/4Pp2/2pP2RP/2N3PN/PPP3P1/1RBQKB2 b q d3 0 17")
    tables = OrderingTables()
    tables.record_killer(chess.Move.from_uci("c4d3"), 3)
    produced = list(ordered_moves(board, None, tables, 3))
    assert produced.count(chess.Move.from_uci("c4d3")) == 1
    assert len(produced) == board.legal_moves.count()


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.integers(0, 80))
def test_ordered_moves_yields_every_legal_move_exactly_once(seed, plies):
    board = random_board(seed, plies)
    tables = OrderingTables()
    rng = random.Random(seed)
    legal = list(board.legal_moves)
    # A hash move and killers from elsewhere (possibly illegal here) must not break anything.
    foreign = [chess.Move.from_uci(u) for u in ("e2e4", "e7e8q", "a1h8", "g1f3")]
    hash_move = rng.choice(legal + foreign + [None])
    for killer in (rng.choice(legal + foreign), rng.choice(legal + foreign)):
        tables.record_killer(killer, 3)
    produced = list(ordered_moves(board, hash_move, tables, 3))
    assert sorted(m.uci() for m in produced) == sorted(m.uci() for m in legal)
    if hash_move in legal:
        assert produced[0] == hash_move


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10**6), st.integers(0, 120))
def test_a_table_move_from_anywhere_comes_first_exactly_when_it_is_legal(seed, plies):
    # Legal as python-chess lists the moves: its `is_legal` also accepts castling written as the
    # king taking its rook, which would list the same move twice.
    board = random_board(seed, plies)
    legal = set(board.legal_moves)
    tables = OrderingTables()
    for origin in range(64):
        for target in range(64):
            for promotion in (None, chess.QUEEN):
                move = chess.Move(origin, target, promotion)
                if origin != target:
                    first = next(iter(ordered_moves(board, move, tables, 3)), None)
                    assert (first == move) == (move in legal), move


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 10**6), st.integers(0, 120))
def test_moves_come_in_the_staged_order_of_python_chess_moves(seed, plies):
    board = random_board(seed, plies)
    assert list(ordered_moves(board, None, OrderingTables(), 3)) == staged_order(board), board.fen()


@pytest.mark.parametrize("fen", [
    "4k3/8/8/8/1q6/8/3B4/4K3 w - - 0 1",  # the pinned bishop may move along the pin only
    "4k3/4r3/8/8/8/8/4P3/4K3 w - - 0 1",  # the pinned pawn may still advance
    "4k3/8/8/8/8/3p4/8/R3K2R w KQ - 0 1",  # castling, and king squares the pawn guards
    "r3k2r/8/8/8/8/8/8/4K3 b kq - 0 1",
    "8/8/8/K2pP2r/8/8/8/7k w - d6 0 1",  # en passant would expose the king along the rank
    "8/8/8/3pP3/8/8/8/k3K3 w - d6 0 1",  # en passant allowed
    "4k3/8/8/6n1/1q6/8/3B4/4K3 w - - 0 1",  # a pinned bishop may take its pinner only
    "4k3/8/8/8/8/2n5/3r4/4K3 w - - 0 1",  # the king may not take a defended rook
    "r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1",  # captures with promotion, castling rooks
    "1r2k3/P7/8/8/8/8/6q1/4K2R w K - 0 1",  # queen promotions and under-promotions
    "4k3/8/8/3p4/4P3/2n2Q2/8/4K3 w - - 0 1",  # a capture that loses material comes last
])
def test_moves_respect_pins_en_passant_guarded_squares_and_castling(fen):
    board = chess.Board(fen)
    assert list(ordered_moves(board, None, OrderingTables(), 0)) == staged_order(board)


def test_queen_promotions_come_first_and_under_promotions_after_the_captures():
    board = chess.Board("1r2k3/P7/8/8/8/8/6q1/4K2R w K - 0 1")
    moves = [move.uci() for move in ordered_moves(board, None, OrderingTables(), 0)]
    assert moves[:2] == ["a7b8q", "a7a8q"]
    assert [move[-1] for move in moves[2:8]] == ["r", "b", "n"] * 2  # by victim: b8 first
    assert not any(move[-1] in "qrbn" for move in moves[8:])


def test_captures_come_most_valuable_victim_first():
    board = chess.Board("4k3/8/8/2q1r3/3P4/8/8/7K w - - 0 1")  # d4 can take the queen or the rook
    assert next(ordered_moves(board, None, OrderingTables(), 0)) == chess.Move.from_uci("d4c5")


def test_least_valuable_attacker_first_for_the_same_victim():
    board = chess.Board("4k3/8/8/3r4/2P5/8/3Q4/4K3 w - - 0 1")
    assert next(ordered_moves(board, None, OrderingTables(), 0)) == chess.Move.from_uci("c4d5")


def test_killer_comes_before_other_quiet_moves():
    board = chess.Board()
    tables = OrderingTables()
    killer = chess.Move.from_uci("h2h3")
    tables.record_killer(killer, 2)
    assert next(iter(ordered_moves(board, None, tables, 2))) == killer


def test_history_orders_quiet_moves():
    board = chess.Board()
    tables = OrderingTables()
    good = chess.Move.from_uci("b1c3")
    tables.history[chess.WHITE][good.from_square | good.to_square << 6] = 500
    assert list(ordered_moves(board, None, tables, 5))[0] == good


# ---------------------------------------------------------------------- time management

def test_time_budget_stays_well_inside_the_clock():
    for clock in (30, 100, 1000, 60000):
        for inc in (0, 10, 1000):
            b = budget(Limits(wtime=clock, btime=clock, winc=inc, binc=inc), chess.WHITE, 30)
            assert 0 < b.soft <= b.hard
            assert b.hard < max(clock / 1000, 0.002) or b.hard <= 0.002


def test_movetime_and_infinite_budgets():
    b = budget(Limits(movetime=1000), chess.BLACK, 30)
    assert 0.99 < b.hard <= 1.0 and b.soft == b.hard
    # Move Overhead is a reserve for a clock, not taken out of a fixed movetime.
    assert budget(Limits(movetime=100), chess.WHITE, 100).hard > 0.09
    assert budget(Limits(infinite=True), chess.WHITE, 30).hard is None
    assert budget(Limits(depth=5), chess.WHITE, 30).hard is None


def test_soft_limit_shrinks_when_settled_and_stretches_when_the_best_move_changes_or_score_falls():
    settled = soft_scale(0.0, 0)
    assert settled < 1
    assert soft_scale(1.0, 0) > settled
    assert soft_scale(2.0, 0) > soft_scale(1.0, 0)
    assert soft_scale(0.0, 80) > settled
    assert soft_scale(10.0, 500) == 2.5  # capped: the hard limit is the real bound


def test_the_clock_shares_are_search_parameters_a_tuner_can_set():
    clock = Limits(wtime=60000, btime=60000, winc=600, binc=600)
    declared = budget(clock, chess.WHITE, 30)
    assert declared == budget(clock, chess.WHITE, 30, params.KERNEL_PARAMS)
    fewer_moves = budget(clock, chess.WHITE, 30, params.with_overrides("MOVES_TO_GO=10"))
    assert fewer_moves.soft > 1.5 * declared.soft
    assert fewer_moves.hard > declared.hard
    larger_share = budget(clock, chess.WHITE, 30, params.with_overrides("SOFT_SHARE=140"))
    assert larger_share.soft == pytest.approx(2 * declared.soft)
    assert larger_share.hard == declared.hard
    assert soft_scale(0.0, 0, params.with_overrides("SETTLED_SCALE=90")) == pytest.approx(0.9)


def test_only_clock_budgets_are_flexible():
    assert budget(Limits(wtime=60000, btime=60000), chess.WHITE, 30).flexible
    assert not budget(Limits(movetime=1000), chess.WHITE, 30).flexible


def test_movestogo_one_may_use_most_of_the_clock_but_not_all():
    b = budget(Limits(wtime=10000, btime=10000, movestogo=1), chess.WHITE, 30)
    assert 3 < b.hard < 10


# ---------------------------------------------------------------------- the search

def test_search_is_deterministic_for_the_bench_signature():
    first = fixed_depth_search(chess.Board(KIWIPETE), 4)
    second = fixed_depth_search(chess.Board(KIWIPETE), 4)
    assert (first.nodes, first.best_move, first.score) == (second.nodes, second.best_move, second.score)


def test_search_takes_a_hanging_queen():
    board = chess.Board("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1")
    assert fixed_depth_search(board, 3).best_move == chess.Move.from_uci("d2d5")


def test_search_node_limit_is_exact():
    search = Search(TranspositionTable(16))
    result = search.run(chess.Board(KIWIPETE), Limits(nodes=777))
    assert result.nodes == 777
    assert result.best_move in chess.Board(KIWIPETE).legal_moves



def test_the_last_info_line_begins_with_the_move_played_when_the_limit_ends_an_iteration():
    # A node limit stops the search inside an iteration, where a move searched so far may
    # already have replaced the previous best (here at each of these limits, before the fix):
    # the move played must be the last line's first.
    fen = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9"
    for nodes in range(140, 460, 20):
        reports = []
        result = Search(TranspositionTable(1)).run(chess.Board(fen), Limits(nodes=nodes),
                                                   report=reports.append)
        assert reports[-1].pv[0] == result.best_move, nodes


def test_stalemate_at_the_horizon_is_scored_as_a_draw():
    # Qc7 stalemates the bare king; at depth 1 only quiescence sees the position after it.
    board = chess.Board("k7/8/1K1Q4/8/8/8/8/8 w - - 0 1")
    stalemating = chess.Move.from_uci("d6c7")
    result = Search(TranspositionTable(1)).run(board, Limits(depth=1, searchmoves=[stalemating]))
    assert result.score == 0
    assert fixed_depth_search(board, 1).best_move != stalemating


def test_multipv_lines_are_reported_in_order_of_score_even_when_a_later_line_scores_higher(monkeypatch):
    """Each line is searched with its own window, so line 2 can come out above line 1."""
    line_scores = [10, 50, 30]

    def fake_aspiration(self, root_moves, depth, pv_index, report):
        root_moves[pv_index].score = line_scores[pv_index] + depth
        root_moves[pv_index].pv = [root_moves[pv_index].move]

    monkeypatch.setattr(Search, "_aspiration", fake_aspiration)
    reports = []
    search = Search(TranspositionTable(1))
    search.run(chess.Board(), Limits(depth=2), multipv=3, report=reports.append)
    last = [info for info in reports if info.depth == 2]
    assert [info.multipv for info in last] == [1, 2, 3]
    assert [info.score for info in last] == [52, 32, 12]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.integers(0, 120))
def test_quiet_move_test_agrees_with_python_chess(seed, plies):
    board = random_board(seed, plies)
    for move in board.legal_moves:
        assert is_quiet_code(move_code(board, move)) == (move.promotion is None
                                                         and not board.is_capture(move))


def test_a_new_parameter_is_one_declaration_from_which_its_slot_defaults_and_oracle_follow(
        tmp_path, monkeypatch):
    # The first of the two edits a new rule needs (the second is the rule reading
    # params[P.NEW_MARGIN]): its declaration in PARAMETERS. Everything else follows from it.
    import sys
    import types

    import engine.params as params

    code = open(params.__file__).read().replace(
        "PARAMETERS = (\n",
        'PARAMETERS = (\n    Parameter("NEW_MARGIN", (70, 140), NEVER, 10, 300, 10, prunes=True),\n', 1)
    assert "NEW_MARGIN" in code
    path = tmp_path / "params_with_a_new_parameter.py"
    path.write_text(code)
    added = types.ModuleType("params_with_a_new_parameter")
    added.__file__ = str(path)
    monkeypatch.setitem(sys.modules, added.__name__, added)
    exec(compile(code, str(path), "exec"), added.__dict__)
    assert added.NEW_MARGIN == 0 and added.NEW_MARGIN_DEPTHS == 2
    assert added.PARAMS == params.PARAMS + 2
    assert added.KERNEL_PARAMS[:2].tolist() == [70, 140]
    assert added.KERNEL_PARAMS[2:].tolist() == params.KERNEL_PARAMS.tolist()  # the rest moved
    for name in ("RAZOR", "TABLEBASE_MEN", "PVS"):
        assert getattr(added, name) == getattr(params, name) + 2
    assert added.without_pruning(added.KERNEL_PARAMS)[:2].tolist() == [params.NEVER] * 2


def test_parameter_overrides_set_declared_values_and_refuse_bad_ones():
    import engine.params as params

    tuned = params.with_overrides("RAZOR=310,560 SEE=90")
    assert tuned[params.RAZOR:params.RAZOR + 2].tolist() == [310, 560] and tuned[params.SEE] == 90
    assert (tuned[params.SEE + 1:] == params.KERNEL_PARAMS[params.SEE + 1:]).all()
    for bad in ("RAZR=3", "RAZOR=300", "SEE=ninety", "NULL_MOVE_DEPTH_DIVISOR=0"):
        with pytest.raises(ValueError):
            params.with_overrides(bad)
    assert params.with_overrides(f"NULL_MOVE_DEPTH={params.NEVER}")[params.NULL_MOVE_DEPTH] == params.NEVER
    assert params.tuned({"BRUDNO_PARAMS": "SEE=ninety"}) is params.KERNEL_PARAMS
    assert params.tuned({"BRUDNO_PARAMS": "SEE=90"})[params.SEE] == 90


def test_the_spsa_step_moves_values_towards_the_side_that_won_within_their_ranges():
    from scripts.matches import spsa

    parameters = spsa.tuned_parameters(["SEE", "RAZOR"])
    values = {"RAZOR": [300.0, 550.0], "SEE": [100.0]}
    signs = {"RAZOR": [1, -1], "SEE": [1]}
    plus = spsa.perturbed(values, signs, 2.0, parameters, +1)
    assert plus == {"RAZOR": [350.0, 500.0], "SEE": [120.0]}  # two steps of 25 and of 10
    won = spsa.update(values, signs, 0.5, 2.0, +2, parameters)
    assert won["RAZOR"][0] > 300 and won["RAZOR"][1] < 550 and won["SEE"][0] > 100
    capped = spsa.update(values, signs, 100.0, 2.0, +2, parameters)
    assert capped["SEE"] == [200]  # SEE's range ends at 200
    assert spsa.overrides(won) == f"RAZOR={round(won['RAZOR'][0])},{round(won['RAZOR'][1])} SEE={round(won['SEE'][0])}"


def test_every_reported_line_is_legal_from_the_root():
    # A later root move that fails high on its null window is reported with its own line (none
    # beyond it), never with the line another move's search left behind.
    lines = 0
    for fen in (KIWIPETE, chess.STARTING_FEN, "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9",
                "2r3k1/pp3ppp/4p3/3n4/3P4/P4N2/1P3PPP/2R3K1 w - - 0 1"):
        board = chess.Board(fen)
        reports = []
        Search(TranspositionTable(16)).run(board, Limits(depth=9), multipv=2, report=reports.append)
        for info in reports:
            replay = board.copy()
            for move in info.pv:
                assert move in replay.legal_moves, (fen, info.depth, [m.uci() for m in info.pv])
                replay.push(move)
            lines += 1
    assert lines > 40


def test_a_root_move_that_fails_high_on_its_scout_gets_no_line_left_by_another_move():
    # The first root move (a3) is searched with the window and leaves its line; the second (exd5)
    # fails high on its null window, is not searched again, and must not inherit a3's line.
    from engine.search import RootMove

    board = chess.Board()
    for san in ("e4", "d5"):
        board.push_san(san)
    search = Search(TranspositionTable(16))
    search.prepare(board, Limits(depth=5))
    search.root_depth = 5
    root = [RootMove(chess.Move.from_uci("a2a3")), RootMove(chess.Move.from_uci("e4d5"))]
    search._search_root(root, 5, -300, 0, 0)
    assert root[0].move.uci() == "e4d5" and root[0].score >= 0  # it failed high and went first
    for rm in root:
        replay = board.copy()
        for move in rm.pv:
            assert move in replay.legal_moves, [m.uci() for m in rm.pv]
            replay.push(move)
