"""Won tablebase endings are converted at any time control, and tablebase scores survive the TT.

The games run the real engine process through chess.engine with the Syzygy tables of
tests/data/syzygy; the expected values come from python-chess's own reader.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

import chess
import chess.engine
import chess.syzygy
import pytest

from engine.evaluation.evaluate import EVAL_LIMIT
from engine.evaluation.score import wdl_to_score
from engine.knowledge.tablebase import Tablebases
from engine.evaluation.score import MATE, MATE_BOUND, MAX_PLY, TB_WIN_SCORE, TB_WIN_THRESHOLD
from engine.search.tt import score_from_tt, score_to_tt
from tests.paths import DATA

ROOT = Path(__file__).resolve().parent.parent
SYZYGY = DATA / "syzygy"
ENGINE_COMMAND = [sys.executable, "-m", "engine"]

KRVK = "8/8/8/4k3/8/8/8/R3K3 w - - 0 1"  # the position of the issue: DTZ 27
KQVK = "8/8/8/3k4/8/8/8/KQ6 w - - 0 1"  # DTZ 17
KPVK = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"  # the king must lead its pawn: a win only with the move
KQVKR = "8/8/2r5/4k3/8/8/8/KQ6 w - - 0 1"  # DTZ 55
# Positions whose root ranking python-chess alone answers with 120-350 DTZ lookups (0.1-0.3 s).
SLOW_ROOTS = [KRVK, KQVK, KQVKR, "8/2K3k1/1Q6/8/8/8/8/7r w - - 0 1", "8/2K5/4B3/3N4/8/8/4k3/8 b - - 0 1"]


@pytest.fixture(scope="module")
def syzygy_dir() -> str:
    assert (SYZYGY / "KRvK.rtbz").is_file(), f"the Syzygy tables of the repository are missing from {SYZYGY}"
    return str(SYZYGY)


@pytest.fixture(scope="module")
def reference(syzygy_dir: str):
    with chess.syzygy.open_tablebase(syzygy_dir) as tables:
        yield tables


@pytest.fixture(scope="module")
def engine(syzygy_dir: str):
    engine = chess.engine.SimpleEngine.popen_uci(ENGINE_COMMAND, cwd=ROOT, timeout=120)
    engine.configure({"SyzygyPath": syzygy_dir})
    engine.ping()  # the first `isready` waits for the numba evaluation: keep it out of the games
    yield engine
    engine.quit()


def self_play(engine: chess.engine.SimpleEngine, fen: str, limit: chess.engine.Limit,
              max_plies: int = 150) -> tuple[chess.Board, int]:
    """The engine against itself until the game ends (draws by claim included); the board and
    the highest halfmove clock seen."""
    board = chess.Board(fen)
    game = object()  # a new game for the engine: ucinewgame
    longest = 0
    while not board.is_game_over(claim_draw=True) and len(board.move_stack) < max_plies:
        board.push(engine.play(board, limit, game=game).move)
        longest = max(longest, board.halfmove_clock)
    return board, longest


def assert_white_mates(fen: str, board: chess.Board, longest: int) -> None:
    game = chess.Board(fen).variation_san(board.move_stack)
    assert board.is_checkmate(), f"{board.outcome(claim_draw=True)}: {game}"
    assert board.turn == chess.BLACK, game
    assert longest < 100, game  # never a draw claim under the 50-move rule


# --- conversion through UCI ------------------------------------------------------------------

@pytest.mark.parametrize("fen, seconds", [(KRVK, 0.1), (KRVK, 0.05), (KQVK, 0.05), (KPVK, 0.05)],
                         ids=["KRvK-0.1s", "KRvK-0.05s", "KQvK-0.05s", "KPvK-0.05s"])
def test_won_endings_are_mated_at_short_fixed_move_times(engine, reference, fen: str, seconds: float) -> None:
    assert reference.probe_wdl(chess.Board(fen)) == 2
    board, longest = self_play(engine, fen, chess.engine.Limit(time=seconds))
    assert_white_mates(fen, board, longest)
    # Both sides follow DTZ, so the game is as long as the DTZ of the start (give or take the
    # ply python-chess's DTZ may be short) plus, for the pawn, the phases after each zeroing move.
    if chess.Board(fen).pawns == 0:
        assert len(board.move_stack) <= reference.probe_dtz(chess.Board(fen)) + 1


def test_krvk_is_mated_on_a_clock_with_a_fifty_millisecond_increment(engine) -> None:
    """`go wtime ... winc 50`: the root ranking counts against the clock, which must never run out."""
    board = chess.Board(KRVK)
    clocks = {chess.WHITE: 1.0, chess.BLACK: 1.0}
    game = object()
    longest = 0
    while not board.is_game_over(claim_draw=True) and len(board.move_stack) < 150:
        limit = chess.engine.Limit(white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK],
                                   white_inc=0.05, black_inc=0.05)
        started = time.monotonic()
        move = engine.play(board, limit, game=game).move
        clocks[board.turn] -= time.monotonic() - started
        assert clocks[board.turn] > 0, f"{'white' if board.turn else 'black'} lost on time at ply {len(board.move_stack)}"
        clocks[board.turn] += 0.05
        board.push(move)
        longest = max(longest, board.halfmove_clock)
    assert_white_mates(KRVK, board, longest)


def test_a_short_movetime_still_reports_the_dtz_score(engine, reference) -> None:
    """`go movetime 50` leaves little time after the DTZ ranking of the root; the root is still
    ranked by DTZ, so the score is the tablebase win in DTZ plies, not the WDL-only guess."""
    board = chess.Board(KRVK)
    result = engine.play(board, chess.engine.Limit(time=0.05), info=chess.engine.INFO_SCORE)
    dtz = reference.probe_dtz(board)
    assert result.info["score"].relative == chess.engine.Cp(TB_WIN_SCORE - dtz)
    after = board.copy()
    after.push(result.move)
    assert -reference.probe_dtz(after) + 1 == dtz  # the move keeps the shortest way


# --- the cost of DTZ root ranking ------------------------------------------------------------

@pytest.fixture
def counted_lookups(monkeypatch) -> list[int]:
    """Counts DTZ table lookups (python-chess's Tablebase.probe_dtz_table, each up to ~1 ms)."""
    count = [0]
    lookup = chess.syzygy.Tablebase.probe_dtz_table

    def counting(self, board: chess.Board, wdl: int):
        count[0] += 1
        return lookup(self, board, wdl)

    monkeypatch.setattr(chess.syzygy.Tablebase, "probe_dtz_table", counting)
    return count


@pytest.mark.parametrize("fen", SLOW_ROOTS)
def test_dtz_root_ranking_needs_few_table_lookups(syzygy_dir, reference, counted_lookups, fen: str) -> None:
    tables = Tablebases()
    tables.open(syzygy_dir)
    board = chess.Board(fen)
    try:
        probe = tables.probe_root(board)
    finally:
        tables.close()
    # What python-chess's full ranking would have said, counted apart.
    lookups = counted_lookups[0]
    board.push(probe.moves[0])
    assert -reference.probe_dtz(board) + (1 if probe.dtz > 0 else -1) == probe.dtz
    assert lookups <= 60, f"{lookups} DTZ lookups for {fen}"


def random_tablebase_positions(count: int, seed: int) -> list[chess.Board]:
    """Legal 3-4 man positions, both sides to move, some with a high halfmove clock."""
    rng = random.Random(seed)
    material = ["KRk", "KQk", "KPk", "KBNk", "KQkr", "KRkb", "KPkp", "KRkp", "KQkp", "KBBk", "KNNk",
                "KRkn", "KPPk", "KQkq", "KRkr"]
    boards: list[chess.Board] = []
    while len(boards) < count:
        board = chess.Board(None)
        pieces = rng.choice(material)
        for symbol, square in zip(pieces, rng.sample(chess.SQUARES, len(pieces))):
            board.set_piece_at(square, chess.Piece.from_symbol(symbol))
        board.turn = rng.choice(chess.COLORS)
        board.halfmove_clock = rng.choice([0, 0, 0, 30, 80])
        if board.is_valid() and not board.is_game_over():
            boards.append(board)
    return boards


def reference_ranking(reference: chess.syzygy.Tablebase, board: chess.Board) -> dict[chess.Move, tuple[int, int]]:
    """(WDL, DTZ) after each root move, by python-chess's probes alone."""
    ranking = {}
    for move in board.legal_moves:
        board.push(move)
        if board.is_checkmate():
            ranking[move] = (2, 1)
        elif board.halfmove_clock == 0:
            wdl = -reference.probe_wdl(board)
            ranking[move] = (wdl, chess.syzygy.dtz_before_zeroing(wdl))
        else:
            reply = -reference.probe_dtz(board)
            ranking[move] = (-reference.probe_wdl(board), reply + (reply > 0) - (reply < 0))
        board.pop()
    return ranking


def test_the_root_move_keeps_the_best_result_by_the_shortest_dtz(syzygy_dir, reference) -> None:
    tables = Tablebases()
    tables.open(syzygy_dir)
    try:
        for board in random_tablebase_positions(120, seed=12):
            probe = tables.probe_root(board)
            ranking = reference_ranking(reference, board)
            best_wdl = max(wdl for wdl, _ in ranking.values())
            wdl, dtz = ranking[probe.moves[0]]
            assert wdl == best_wdl, board.fen()
            if best_wdl != 0:
                assert dtz == min(d for w, d in ranking.values() if w == best_wdl), board.fen()
            assert {move for move, (w, _) in ranking.items() if w == best_wdl} == set(probe.moves), board.fen()
    finally:
        tables.close()


# --- tablebase scores in the transposition table ---------------------------------------------

def test_evaluations_never_reach_the_tablebase_range() -> None:
    # Scores beyond TB_WIN_THRESHOLD are distances and get moved; the evaluation is clamped below.
    assert EVAL_LIMIT < TB_WIN_THRESHOLD
    assert wdl_to_score(2, MAX_PLY) >= TB_WIN_THRESHOLD and wdl_to_score(-2, MAX_PLY) <= -TB_WIN_THRESHOLD
    for score in (-EVAL_LIMIT, -1, 0, 1, 250, EVAL_LIMIT):
        for ply in (0, 1, 17, MAX_PLY):
            assert score_to_tt(score, ply) == score == score_from_tt(score, ply)


def test_a_tablebase_win_is_stored_relative_to_the_node() -> None:
    # Probed at ply 7: a tablebase position right here, whatever the ply.
    assert score_to_tt(wdl_to_score(2, 7), 7) == TB_WIN_SCORE
    assert score_to_tt(wdl_to_score(-2, 7), 7) == -TB_WIN_SCORE


@pytest.mark.parametrize("stored_at, read_at", [(7, 3), (3, 7), (10, 0), (0, 12)])
def test_a_tablebase_score_read_at_another_ply_keeps_its_distance(stored_at: int, read_at: int) -> None:
    # A node whose tablebase win lies 4 plies below it, met again through a transposition.
    win = wdl_to_score(2, stored_at + 4)
    assert score_from_tt(score_to_tt(win, stored_at), read_at) == wdl_to_score(2, read_at + 4)
    loss = wdl_to_score(-2, stored_at + 4)
    assert score_from_tt(score_to_tt(loss, stored_at), read_at) == wdl_to_score(-2, read_at + 4)


def test_mate_scores_still_convert_as_before() -> None:
    mate_in_9_plies_from_ply_5 = MATE - 14
    stored = score_to_tt(mate_in_9_plies_from_ply_5, 5)
    assert stored == MATE - 9
    assert score_from_tt(stored, 1) == MATE - 10
    assert score_from_tt(score_to_tt(-MATE + 14, 5), 1) == -MATE + 10
    assert score_from_tt(stored, 1) >= MATE_BOUND


def test_conversion_round_trips_at_the_same_ply() -> None:
    for score in (0, 500, EVAL_LIMIT, TB_WIN_THRESHOLD, TB_WIN_SCORE - 100, TB_WIN_SCORE, MATE_BOUND, MATE - 1):
        for sign in (1, -1):
            for ply in (0, 1, 33, MAX_PLY):
                assert score_from_tt(score_to_tt(sign * score, ply), ply) == sign * score
