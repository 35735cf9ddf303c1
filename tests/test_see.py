"""Static exchange evaluation against a slow reference that plays the exchange on python-chess boards."""

from __future__ import annotations

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.board.piece_values import PIECE_VALUE
from engine.board.see import see
from tests.test_move_ordering import random_board


def reference_see(board: chess.Board, move: chess.Move) -> int:
    work = board.copy(stack=False)
    victim = work.piece_type_at(move.to_square)
    if board.is_en_passant(move):
        victim = chess.PAWN
        work.remove_piece_at(chess.square(chess.square_file(move.to_square),
                                          chess.square_rank(move.from_square)))
    mover = work.remove_piece_at(move.from_square)
    work.set_piece_at(move.to_square, mover)  # a promotion still counts as the pawn
    return PIECE_VALUE[victim or 0] - _best_recapture(work, move.to_square, not board.turn)


def _best_recapture(board: chess.Board, square: chess.Square, colour: chess.Color) -> int:
    """What ``colour`` gains at best by going on with the exchange on ``square`` (0: stop)."""
    attackers = list(board.attackers(colour, square))
    if not attackers:
        return 0
    origin = min(attackers, key=lambda sq: (PIECE_VALUE[board.piece_type_at(sq)], sq))
    captured = PIECE_VALUE[board.piece_type_at(square)]
    after = board.copy(stack=False)
    piece = after.remove_piece_at(origin)
    after.set_piece_at(square, piece)
    if piece.piece_type == chess.KING and after.attackers(not colour, square):
        return 0
    return max(0, captured - _best_recapture(after, square, not colour))


@pytest.mark.parametrize("fen, uci, value", [
    ("4k3/8/8/3p4/8/8/8/3RK3 w - - 0 1", "d1d5", 100),  # an undefended pawn
    ("4k3/8/4p3/3p4/8/8/8/3RK3 w - - 0 1", "d1d5", 100 - 500),  # a defended pawn, rook lost
    ("4k3/8/4p3/3p4/8/8/3R4/3RK3 w - - 0 1", "d2d5", 100 - 500 + 100),  # the second rook retakes
    ("3rk3/8/8/3p4/8/8/3R4/3QK3 w - - 0 1", "d2d5", 100),  # x-ray: queen behind, rook behind
    ("4k3/8/2n5/3p4/4P3/8/8/4K3 w - - 0 1", "e4d5", 100),  # pawn takes pawn, knight retakes, stop
    ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6", 100),  # en passant
    ("8/8/4k3/3p4/8/1B6/8/3RK3 w - - 0 1", "d1d5", 100),  # the king may not retake a defended rook
])
def test_see_of_textbook_exchanges(fen: str, uci: str, value: int) -> None:
    board = chess.Board(fen)
    move = chess.Move.from_uci(uci)
    assert board.is_pseudo_legal(move)
    assert see(board, move) == value
    assert reference_see(board, move) == value


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.integers(0, 100))
def test_see_agrees_with_the_reference_on_captures_of_random_positions(seed: int, plies: int) -> None:
    board = random_board(seed, plies)
    for move in board.generate_legal_captures():
        assert see(board, move) == reference_see(board, move), (board.fen(), move.uci())
