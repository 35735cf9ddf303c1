"""Tests for the static evaluation (engine/evaluation/evaluate.py)."""

import random
import re

import chess
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.evaluation import evaluate as ev
from engine.evaluation.evaluate import evaluate, evaluation_report, evaluation_terms
from engine.board.perft import KIWIPETE


def random_game(seed: int, plies: int) -> list[chess.Board]:
    """Positions of a random legal game from the start position."""
    rng = random.Random(seed)
    board = chess.Board()
    positions = [board.copy(stack=False)]
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
        positions.append(board.copy(stack=False))
    return positions


def white_view(board: chess.Board) -> int:
    score = evaluate(board)
    return score if board.turn == chess.WHITE else -score


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 200))
def test_evaluation_is_exactly_colour_symmetric(seed, plies):
    for board in random_game(seed, plies):
        assert evaluate(board) == evaluate(board.mirror()), board.fen()


def test_terms_swap_colours_on_mirrored_board():
    board = chess.Board(KIWIPETE)
    terms, phase, score = evaluation_terms(board)
    mirrored_terms, mirrored_phase, mirrored_score = evaluation_terms(board.mirror())
    assert (terms[:, 0, :] == mirrored_terms[:, 1, :]).all()
    assert (terms[:, 1, :] == mirrored_terms[:, 0, :]).all()
    assert (phase, score) == (mirrored_phase, mirrored_score)


def test_evaluate_returns_a_python_int_and_leaves_the_board_alone():
    board = chess.Board(KIWIPETE)
    fen = board.fen()
    assert type(evaluate(board)) is int
    assert board.fen() == fen


def test_start_position_is_nearly_equal():
    assert abs(evaluate(chess.Board())) < 50
    black_to_move = chess.Board()
    black_to_move.turn = chess.BLACK
    assert abs(evaluate(black_to_move)) < 50


def test_extra_queen_is_good_for_its_owner_whoever_is_to_move():
    board = chess.Board("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    assert evaluate(board) > 700
    board.turn = chess.BLACK
    assert evaluate(board) < -700


def test_bitboards_with_the_h8_bit_set_are_handled():
    # h8 is bit 63: the int no longer fits a signed 64-bit integer.
    board = chess.Board("4k2r/8/8/8/8/8/8/4K3 w - - 0 1")
    assert evaluate(board) < -300
    assert evaluate(board) == evaluate(board.mirror())


def test_passed_pawn_on_seventh_scores_more_than_on_third():
    on_third = chess.Board("4k3/8/8/8/8/P7/8/4K3 w - - 0 1")
    on_seventh = chess.Board("4k3/P7/8/8/8/8/8/4K3 w - - 0 1")
    assert evaluate(on_seventh) > evaluate(on_third) + 100
    passed_third = evaluation_terms(on_third)[0][ev.T_PASSED, 0]
    passed_seventh = evaluation_terms(on_seventh)[0][ev.T_PASSED, 0]
    assert (passed_seventh > passed_third).all()


def test_blocked_pawn_is_not_passed():
    board = chess.Board("4k3/8/p7/8/8/P7/8/4K3 w - - 0 1")
    terms = evaluation_terms(board)[0]
    assert (terms[ev.T_PASSED] == 0).all()


def test_bishop_pair_bonus_needs_two_bishops():
    pair = chess.Board("4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1")
    single = chess.Board("4k3/8/8/8/8/8/8/2N1KB2 w - - 0 1")
    assert list(evaluation_terms(pair)[0][ev.T_BISHOP_PAIR, 0]) == list(ev.WEIGHTS[ev.F_BISHOP_PAIR])
    assert (evaluation_terms(single)[0][ev.T_BISHOP_PAIR] == 0).all()


def test_doubled_and_isolated_pawns_are_penalised():
    healthy = chess.Board("4k3/8/8/8/8/8/PP6/4K3 w - - 0 1")
    doubled = chess.Board("4k3/8/8/8/8/P7/P7/4K3 w - - 0 1")
    pawns = ev.T_PAWNS
    assert (evaluation_terms(doubled)[0][pawns, 0] < evaluation_terms(healthy)[0][pawns, 0]).all()


def test_exposed_king_is_less_safe_than_a_sheltered_one():
    sheltered = chess.Board("6k1/5ppp/8/8/8/8/5PPP/6K1 w - - 0 1")
    exposed = chess.Board("6k1/5ppp/8/8/8/8/8/6K1 w - - 0 1")
    king = ev.T_KING
    assert evaluation_terms(exposed)[0][king, 0, 0] < evaluation_terms(sheltered)[0][king, 0, 0]


def test_pieces_attacking_the_king_zone_cost_the_defender():
    quiet = chess.Board("6k1/5ppp/8/8/8/8/5PPP/Q2R2K1 w - - 0 1")
    attack = chess.Board("6k1/5ppp/7Q/6N1/8/8/5PPP/6K1 w - - 0 1")
    king = ev.T_KING
    assert evaluation_terms(attack)[0][king, 1, 0] < evaluation_terms(quiet)[0][king, 1, 0]


def test_extreme_material_stays_within_bounds():
    board = chess.Board("7k/8/8/8/QQQQQQQQ/QQQQQQQQ/QQQQQQQQ/QQQQQQQK w - - 0 1")
    assert evaluate(board) == ev.EVAL_LIMIT
    board.turn = chess.BLACK
    assert evaluate(board) == -ev.EVAL_LIMIT
    nine_queens = chess.Board("qqqqqqqq/q6k/8/8/8/8/QQQQQQQQ/Q6K w - - 0 1")
    assert abs(evaluate(nine_queens)) <= ev.EVAL_LIMIT


def test_interpreted_kernel_agrees_with_compiled_kernel():
    for board in random_game(7, 60)[::10] + [chess.Board(KIWIPETE)]:
        assert ev.evaluate_kernel.py_func(*ev.board_arguments(board)) == evaluate(board)


def test_report_names_every_term_and_matches_evaluate():
    board = chess.Board(KIWIPETE)
    board.push_san("Qxf6")  # Black to move, White a knight up
    report = evaluation_report(board)
    for name in ev.TERM_NAMES:
        assert name in report
    assert "Game phase" in report
    white = re.search(r"White's view\): [+-][\d.]+ \((-?\d+) cp\)", report)
    side = re.search(r"side to move, Black\): [+-][\d.]+ \((-?\d+) cp\)", report)
    assert white and side
    assert int(white.group(1)) == white_view(board)
    assert int(side.group(1)) == evaluate(board)
    assert all(line == line.rstrip() for line in report.splitlines())


# ---------------------------------------------------------------------- the weights as data

def score_from_coefficients(board: chess.Board) -> int:
    """The evaluation rebuilt from the coefficient vector and the weights, side to move's view."""
    coefs, phase = ev.feature_coefficients(board)
    mg = int(round(coefs @ ev.WEIGHTS[:, 0]))
    eg = int(round(coefs @ ev.WEIGHTS[:, 1]))
    white = max(-ev.EVAL_LIMIT, min(ev.EVAL_LIMIT, ev.taper(mg, eg, phase)))
    return white if board.turn == chess.WHITE else -white


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 160))
def test_coefficients_dotted_with_the_weights_give_the_kernels_score(seed, plies):
    for board in random_game(seed, plies)[::7]:
        assert score_from_coefficients(board) == evaluate(board), board.fen()


def test_coefficients_of_a_mirrored_board_are_negated_except_the_tempo():
    board = chess.Board(KIWIPETE)
    coefs, phase = ev.feature_coefficients(board)
    mirrored, mirrored_phase = ev.feature_coefficients(board.mirror())
    assert phase == mirrored_phase
    # The side to move changes colour with the mirror, so the tempo flips too.
    assert (mirrored == -coefs).all()


def test_the_kernel_takes_its_weights_as_an_argument():
    board = chess.Board(KIWIPETE)
    doubled = np.ascontiguousarray(ev.WEIGHTS * 2)
    args = ev.board_arguments(board)[:-1]
    white = ev.evaluate_kernel(*args, ev.WEIGHTS)
    # Doubling every weight doubles the midgame and endgame sums (up to the taper's rounding).
    assert abs(ev.evaluate_kernel(*args, doubled) - 2 * white) <= 1


def test_the_weight_file_round_trips_and_refuses_another_layout(tmp_path):
    path = tmp_path / "w.npz"
    ev.save_weights(ev.WEIGHTS, path)
    assert (ev.load_weights(path) == ev.WEIGHTS).all()
    np.savez(tmp_path / "bad.npz", weights=ev.WEIGHTS[:-1], block_names=np.array(["x"]),
             block_lengths=np.array([1]))
    with pytest.raises(ValueError):
        ev.load_weights(tmp_path / "bad.npz")
