"""The staged move order (engine/search/movepick.py): every legal move once, in the walk's order."""

from __future__ import annotations

import random

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.board.bitmove import is_quiet_code, move_code
from engine.search.history import OrderingTables
from engine.search.movepick import ordered_moves

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


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.integers(0, 120))
def test_quiet_move_test_agrees_with_python_chess(seed, plies):
    board = random_board(seed, plies)
    for move in board.legal_moves:
        assert is_quiet_code(move_code(board, move)) == (move.promotion is None
                                                         and not board.is_capture(move))
