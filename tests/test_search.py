"""The search as a whole: determinism, limits, reported lines, MultiPV, draws at the horizon."""

from __future__ import annotations

import chess

from engine.board.perft import KIWIPETE
from engine.search.root import Search, fixed_depth_search
from engine.search.timeman import Limits
from engine.search.tt import TranspositionTable


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
    from engine.search.root import RootMove

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
