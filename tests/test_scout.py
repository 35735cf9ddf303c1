"""The scout kernel (engine/scout.py) is the Python search (Search.quiescence, and Search.pvs off
the principal variation), only faster: the same score, nodes, table and move-ordering tables
wherever the kernel searches, and no trace where it gives up."""

from __future__ import annotations

import random
from typing import Callable

import chess
import numpy as np
import pytest

from engine import network
from engine import scout as compiled
from engine.bench import POSITIONS
from engine.evaluate import evaluate
from engine.tablebase import Tablebases
from engine.params import RECAPTURES_ONLY_AFTER
from engine.results import SearchResult
from engine.search import INFINITY, Search, SearchAborted
from engine.timeman import Limits
from engine.tt import TranspositionTable
from paths import DATA


def positions_along_random_games(count: int, seed: int = 7) -> list[chess.Board]:
    """Positions not in check from random play out of the bench positions (captures preferred,
    so that the quiescence trees are not all trivial)."""
    rng = random.Random(seed)
    boards = []
    while len(boards) < count:
        board = chess.Board(rng.choice(POSITIONS[:30]))
        for _ in range(rng.randrange(1, 30)):
            moves = list(board.legal_moves)
            if not moves:
                break
            captures = [m for m in moves if board.is_capture(m)]
            board.push(rng.choice(captures if captures and rng.random() < 0.5 else moves))
        if not board.is_check() and not board.is_game_over():
            boards.append(board)
    return boards


# Endings the kernel must score as the Python search does: won against a bare king (the rule of
# engine/endgame.py), and sides with only pawns (stalemate in quiescence).
ENDINGS = [
    "8/8/8/4k3/8/8/8/KQ6 w - - 0 1",
    "8/8/8/3k4/8/8/8/K1R5 b - - 0 1",
    "8/8/3k4/8/8/2B5/8/K1N5 w - - 0 1",
    "k7/8/1K6/P7/8/8/8/8 w - - 0 1",
    "7k/5K2/6P1/8/8/8/8/8 w - - 0 1",
    "8/5p1k/5P2/5K1P/8/8/8/8 w - - 0 1",
    "8/8/4kp2/8/2P2K2/8/8/8 b - - 0 1",
    "7k/5K1p/7P/8/8/8/8/n6R w - - 0 1",  # Rxa1 stalemates
    "7k/5K1p/7P/8/8/8/8/R7 b - - 0 1",  # stalemate
    "8/8/8/3k4/8/2b5/4N3/7K w - - 0 1",  # Nxc3+ leaves too little to mate, in check
    "4k3/8/8/8/3B4/8/8/1n2K3 b - - 0 1",
]


def both_searches(board: chess.Board, alpha: int, beta: int,
                  qply: int) -> tuple[Search, int, Search, int, bool]:
    """The Python search and the kernel's of one quiescence node: searches, scores, and whether
    the kernel searched the node's tree (it is called once the node has been counted and probed)."""
    python = Search(TranspositionTable(1))
    python.prepare(board, Limits())
    python.compiled_quiescence = False
    python_score = python.quiescence(alpha, beta, 1, qply)
    kernel = Search(TranspositionTable(1))
    kernel.prepare(board, Limits())
    results = []
    run_kernel = kernel._run_kernel

    def recording(*args: int) -> int | None:
        results.append(run_kernel(*args))
        return results[-1]

    kernel._run_kernel = recording
    kernel_score = kernel.quiescence(alpha, beta, 1, qply)
    return python, python_score, kernel, kernel_score, bool(results) and results[0] is not None


def test_scout_kernel_quiescence_finds_the_python_score_with_the_same_nodes_and_table() -> None:
    searched = 0
    boards = positions_along_random_games(150) + [chess.Board(fen) for fen in ENDINGS]
    for i, board in enumerate(boards):
        static = evaluate(board)
        qply = RECAPTURES_ONLY_AFTER if i % 3 == 0 and board.move_stack else 0
        for alpha, beta in ((-INFINITY, INFINITY), (static - 60, static + 60), (static + 90, static + 91)):
            python, python_score, kernel, kernel_score, by_kernel = both_searches(board, alpha, beta, qply)
            searched += by_kernel
            assert kernel_score == python_score, board.fen()
            assert (kernel.nodes, kernel.evaluations, kernel.cutoffs, kernel.seldepth) == (
                python.nodes, python.evaluations, python.cutoffs, python.seldepth), board.fen()
            assert np.array_equal(kernel.tt.table, python.tt.table), board.fen()
    # Every one of these trees is searched whole by the kernel (checks and promotions included).
    assert searched == 3 * len(boards)


def test_scout_kernel_quiescence_leaves_the_table_as_it_was_when_it_gives_up() -> None:
    # With room to record only two table stores, the kernel gives up at the third, after
    # overwriting two entries: it must put them back.
    board = chess.Board("3r2k1/5p2/8/8/8/8/5PPP/3R2K1 w - - 0 1")
    search = Search(TranspositionTable(1))
    search.prepare(board, Limits())
    search.kernel_undo = np.zeros(3 * 2, dtype=np.uint64)
    search.tt.store(12345, 3, 0, 77, None)
    before = search.tt.table.copy()
    assert search._run_kernel(0, -INFINITY, INFINITY, 1, 0, None) is None
    assert np.array_equal(search.tt.table, before)
    assert search.nodes == 0 and search.evaluations == 0
    # The Python search then does the node, and its children are again offered to the kernel.
    assert search.quiescence(-INFINITY, INFINITY, 1) > 400


def test_scout_kernel_quiescence_stops_at_the_node_budget() -> None:
    board = chess.Board(POSITIONS[1])
    search = Search(TranspositionTable(1))
    search.prepare(board, Limits(nodes=3))
    search.nodes = 1  # the node itself, counted by the caller
    try:
        search._run_kernel(0, -INFINITY, INFINITY, 1, 0, None)
    except Exception as stop:  # SearchAborted
        assert type(stop).__name__ == "SearchAborted"
    else:
        raise AssertionError("the search went on past its node limit")
    assert search.nodes == 3
    assert compiled.OUT_OF_NODES < compiled.GAVE_UP


@pytest.mark.parametrize("raise_word", ["stop", "deadline"])
def test_scout_kernel_stops_within_a_thousand_nodes_of_the_stop_word(raise_word: str) -> None:
    # `stop` (or the deadline's timer) raises the word the kernel reads, and a long call ends
    # within the 1,024 nodes between two reads.
    board = chess.Board(POSITIONS[2])

    def scout_search(stopped: bool) -> Search:
        search = Search(TranspositionTable(16))
        search.prepare(board, Limits())
        search.root_depth = 12
        if stopped and raise_word == "stop":
            search.stop_event.set()
        elif stopped:
            search.stop_event.word[0] = 1  # what the deadline's timer does
        search.nodes = 1
        try:
            search._run_kernel(10, 30, 31, 1, 0, None)
        except SearchAborted:
            assert stopped
        return search

    assert scout_search(False).nodes > 5000
    stopped = scout_search(True)
    assert 1 < stopped.nodes <= 1 + 1024
    # A new search starts with the word down again.
    stopped.stop_event.clear()
    assert stopped.run(board, Limits(depth=3)).best_move is not None


def searched(board: chess.Board, depth: int, compiled_scout: bool, frontier_calls: list[bool],
             tablebases: Tablebases | None = None,
             evaluation: Callable[[chess.Board], int] = evaluate) -> tuple[Search, SearchResult]:
    """A fresh search of ``board`` to ``depth``; ``frontier_calls`` gets, for each frontier node
    offered to the kernel, whether the kernel searched it."""
    search = Search(TranspositionTable(1))
    search.compiled_scout = compiled_scout
    search.tablebases = tablebases
    search.evaluate = evaluation
    run_kernel = search._run_kernel

    def recording(depth: int, *args: object) -> int | None:
        result = run_kernel(depth, *args)
        if depth == 1:
            frontier_calls.append(result is not None)
        return result

    search._run_kernel = recording
    return search, search.run(board, Limits(depth=depth))


def test_scout_kernel_searches_the_same_tree_as_the_python_search() -> None:
    frontier_calls: list[bool] = []
    boards = (positions_along_random_games(40, seed=11) + [chess.Board(fen) for fen in POSITIONS[1:30]]
              + [chess.Board(fen) for fen in ENDINGS])
    for board in boards:
        python, python_result = searched(board, 4, False, [])
        kernel, kernel_result = searched(board, 4, True, frontier_calls)
        assert (kernel_result.best_move, kernel_result.score, kernel_result.pv) == (
            python_result.best_move, python_result.score, python_result.pv), board.fen()
        assert (kernel.nodes, kernel.evaluations, kernel.cutoffs, kernel.seldepth) == (
            python.nodes, python.evaluations, python.cutoffs, python.seldepth), board.fen()
        assert np.array_equal(kernel.tt.table, python.tt.table), board.fen()
        for colour in chess.COLORS:
            assert np.array_equal(kernel.tables.history[colour], python.tables.history[colour]), board.fen()
        assert np.array_equal(kernel.tables.killers, python.tables.killers), board.fen()
    # Almost every frontier node is searched by the kernel.
    assert sum(frontier_calls) > 0.95 * len(frontier_calls) > 1000


def test_scout_kernel_leaves_no_trace_when_it_gives_up(monkeypatch) -> None:
    # Undo records with room for few entries make the kernel give up often, deep in its trees,
    # after table stores and cut-offs: the table, history, killers and counts must be as before.
    monkeypatch.setattr(compiled, "UNDO_STORES", 40)
    monkeypatch.setattr(compiled, "ORDERING_UNDO_ENTRIES", 30)
    undone: list[tuple[int, int]] = []  # the lengths of the undo records at each give-up
    undo = compiled.undo

    def recording_undo(*args: np.ndarray) -> None:
        counts = args[-1]
        undone.append((int(counts[compiled.UNDO_LENGTH]), int(counts[compiled.ORDERING_UNDO_LENGTH])))
        undo(*args)

    monkeypatch.setattr(compiled, "undo", recording_undo)
    give_ups_after_stores = give_ups_after_cutoffs = 0
    for board in positions_along_random_games(15, seed=12) + [chess.Board(fen) for fen in POSITIONS[1:13]]:
        search = Search(TranspositionTable(1))
        run_kernel = search._run_kernel

        def checking(depth: int, alpha: int, beta: int, ply: int, *args: object) -> int | None:
            table = search.tt.table.copy()
            history = [h.copy() for h in search.tables.history]
            killers = search.tables.killers.copy()
            counted = (search.nodes, search.evaluations, search.cutoffs, search.seldepth)
            result = run_kernel(depth, alpha, beta, ply, *args)
            if result is None:
                nonlocal give_ups_after_stores, give_ups_after_cutoffs
                give_ups_after_stores += undone[-1][0] > 0
                give_ups_after_cutoffs += undone[-1][1] > 0
                assert np.array_equal(search.tt.table, table)
                assert all(np.array_equal(h, before) for h, before in zip(search.tables.history, history))
                assert np.array_equal(search.tables.killers, killers)
                assert (search.nodes, search.evaluations, search.cutoffs, search.seldepth) == counted
            return result

        search._run_kernel = checking
        search.run(board, Limits(depth=5))
    assert give_ups_after_stores >= 10 and give_ups_after_cutoffs >= 10


@pytest.mark.parametrize("depth", [1, 2])
def test_scout_kernel_node_is_the_python_node(depth: int) -> None:
    # One node near the horizon, with windows below, around and above its static score, and its
    # checks extended (as deep in an iteration): score, counts, table and history agree.
    searched = 0
    boards = positions_along_random_games(60, seed=13) + [chess.Board(fen) for fen in ENDINGS]
    for i, board in enumerate(boards):
        static = evaluate(board)
        for alpha in (static - 400, static - 100, static, static + 100, static + 400):
            searches = []
            for compiled_scout in (False, True):
                search = Search(TranspositionTable(1))
                search.prepare(board, Limits())
                search.root_depth = 4
                search.compiled_scout = compiled_scout
                search.nodes = 1  # the node itself, counted by the caller
                searches.append((search, search.pvs(depth, alpha, alpha + 1, 1, False, i % 2 == 0)))
            (python, python_score), (kernel, kernel_score) = searches
            assert kernel_score == python_score, board.fen()
            assert (kernel.nodes, kernel.evaluations, kernel.cutoffs, kernel.seldepth) == (
                python.nodes, python.evaluations, python.cutoffs, python.seldepth), board.fen()
            assert np.array_equal(kernel.tt.table, python.tt.table), board.fen()
            assert all(np.array_equal(k, p) for k, p in zip(kernel.tables.history, python.tables.history))
            assert np.array_equal(kernel.tables.killers, python.tables.killers), board.fen()
            searched += 1
    assert searched == 5 * len(boards)


# Positions from games where the move order must be built stage by stage, as the search reaches
# each stage: the history of the quiet moves changes while the killers are searched.
FROM_GAMES = [
    "8/2Q3pk/1p6/2b5/5P2/1n3P1P/5PK1/8 b - - 2 25",
    "8/6pk/6p1/8/8/2q2QK1/P7/8 b - - 15 49",
    "2r5/5p1p/p4k2/8/2N5/1P4P1/5K2/8 b - - 3 29",
]


def nodes_of_the_same_search_with_and_without_the_kernel(
        fen: str | chess.Board, depth: int, frontier_calls: list[bool] | None = None,
        tablebases: Tablebases | None = None,
        evaluation: Callable[[chess.Board], int] = evaluate) -> int:
    """Searches ``fen`` to ``depth`` with the scout kernel and without; asserts the two agree
    (nodes, score, PV, table) and returns the nodes."""
    board = chess.Board(fen) if isinstance(fen, str) else fen
    python, python_result = searched(board, depth, False, [], tablebases, evaluation)
    kernel, kernel_result = searched(board, depth, True,
                                     [] if frontier_calls is None else frontier_calls, tablebases,
                                     evaluation)
    assert (kernel.nodes, kernel_result.score, kernel_result.pv) == (
        python.nodes, python_result.score, python_result.pv), fen
    assert np.array_equal(kernel.tt.table, python.tt.table), fen
    return kernel.nodes


def test_scout_kernel_searches_the_same_tree_deeper_in_positions_from_games() -> None:
    for fen in FROM_GAMES:
        nodes_of_the_same_search_with_and_without_the_kernel(fen, 6)


# Openings where both sides may still castle, either way (the kernel plays castling too).
OPENINGS = [
    chess.STARTING_FEN,
    "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/2N2N2/PPPP1PPP/R1BQK2R w KQkq - 6 5",
    "r3kb1r/ppp1pppp/2nq1n2/3p1b2/3P1B2/2NQ1N2/PPP1PPPP/R3KB1R w KQkq - 6 6",
]


def test_scout_kernel_searches_the_same_tree_in_openings_with_castling() -> None:
    for fen in OPENINGS:
        nodes_of_the_same_search_with_and_without_the_kernel(fen, 6)


def chess960_positions(count: int, seed: int) -> list[chess.Board]:
    """Positions a few moves into random Chess960 games, with castling rights left to both sides."""
    rng = random.Random(seed)
    boards = []
    while len(boards) < count:
        board = chess.Board.from_chess960_pos(rng.randrange(960))
        for _ in range(rng.randrange(2, 12)):
            board.push(rng.choice([m for m in board.legal_moves if not board.is_castling(m)]))
        if (not board.is_check() and board.castling_rights & board.occupied_co[chess.WHITE]
                and board.castling_rights & board.occupied_co[chess.BLACK]):
            boards.append(board)
    return boards


def test_scout_kernel_searches_the_same_tree_in_chess960_positions_and_castles_there() -> None:
    # King-takes-rook castling on any files, played in the kernel (it once gave up on every node
    # whose side could still castle).
    frontier_calls: list[bool] = []
    boards = chess960_positions(12, seed=960)
    for board in boards:
        nodes_of_the_same_search_with_and_without_the_kernel(board, 5, frontier_calls)
    assert all(frontier_calls) and len(frontier_calls) > 500


def test_scout_kernel_searches_the_same_tree_with_tablebases_and_hands_over_only_probes() -> None:
    tablebases = Tablebases()
    tablebases.open(str(DATA / "syzygy"))
    assert tablebases.limit == 4
    # Middlegames: no node can be probed, so the kernel searches every frontier node.
    frontier_calls: list[bool] = []
    for fen in POSITIONS[1:5]:
        nodes_of_the_same_search_with_and_without_the_kernel(fen, 5, frontier_calls, tablebases)
    assert all(frontier_calls) and len(frontier_calls) > 200
    # Endings of five men that capture into the tables: the probes go to the Python search (the
    # trees stay the same), and the kernel searches the rest.
    frontier_calls = []
    for fen in ("8/8/4k3/3r4/8/2R1K3/6P1/8 w - - 0 1", "8/5k2/8/3p4/3P4/2N5/4K3/6b1 w - - 0 1"):
        nodes_of_the_same_search_with_and_without_the_kernel(fen, 7, frontier_calls, tablebases)
    assert 0 < sum(frontier_calls) < len(frontier_calls)


def test_scout_kernel_searches_the_same_tree_with_the_network_evaluating() -> None:
    # The kernel evaluates with the network from first layers it updates move by move; the Python
    # search computes each evaluation from scratch. Any difference would change the tree.
    frontier_calls: list[bool] = []
    evaluation = network.evaluator()
    for board in ([chess.Board(fen) for fen in POSITIONS[1:7]] + chess960_positions(2, seed=3)
                  + [chess.Board(fen) for fen in ENDINGS[:4]]):
        nodes_of_the_same_search_with_and_without_the_kernel(board, 5, frontier_calls,
                                                             evaluation=evaluation)
    assert all(frontier_calls) and len(frontier_calls) > 300


# Nodes of depth-5 searches of tests/data/positions_from_games.fen, fresh tables each (568,261 from
# c15f239 to 6f276f5; 529,045 with the late-move reductions of the commit after it).
GAMES_SIGNATURE = 529_045


@pytest.mark.slow
def test_scout_kernel_searches_the_same_tree_in_150_positions_from_games() -> None:
    # Endings, checks and repetitions as games meet them (the bench's positions missed two kernel
    # bugs these caught). Also pins the total, as the bench signature does: a change of the tree
    # must change it on purpose.
    lines = (DATA / "positions_from_games.fen").read_text().splitlines()
    total = sum(nodes_of_the_same_search_with_and_without_the_kernel(line, 5)
                for line in lines if line and not line.startswith("#"))
    assert total == GAMES_SIGNATURE
