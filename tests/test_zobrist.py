"""The position key: a real Zobrist key, distinct for every piece on every square."""

from __future__ import annotations

import chess
import chess.polyglot
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.search.root import fixed_depth_search
from engine.board.zobrist import key_and_check, position_key


def test_every_piece_on_every_square_with_either_side_to_move_has_its_own_key() -> None:
    keys = set()
    for colour in chess.COLORS:
        for piece_type in chess.PIECE_TYPES:
            for square in chess.SQUARES:
                board = chess.Board(None)
                board.set_piece_at(square, chess.Piece(piece_type, colour))
                for turn in chess.COLORS:
                    board.turn = turn
                    keys.add(position_key(board))
    assert len(keys) == 2 * 6 * 64 * 2


def test_a_rook_on_a1_and_a_rook_on_f8_give_different_keys() -> None:
    # Python's hash() of an int is taken modulo 2**61 - 1, so a key built with it confused
    # bit 61 (f8) with bit 0 (a1).
    board = chess.Board("r5k1/8/8/8/8/8/5PPP/6K1 b - - 0 1")
    after_ra1, after_rf8 = board.copy(), board.copy()
    after_ra1.push_uci("a8a1")
    after_rf8.push_uci("a8f8")
    assert after_ra1.is_checkmate()
    assert position_key(after_ra1) != position_key(after_rf8)


def test_a_position_that_only_collided_with_an_earlier_one_is_not_scored_as_a_repetition() -> None:
    # Kh4-h3 would give the start position with the rook on a1 instead of f8: not a repetition,
    # so White, a rook down, must not find a "draw" there.
    board = chess.Board("5rk1/8/8/8/8/7K/8/8 b - - 0 1")
    for move in ("f8f1", "h3h4", "f1a1"):
        board.push_uci(move)
    result = fixed_depth_search(board, 3)
    assert result.score < -300


def test_the_start_position_has_the_published_polyglot_key() -> None:
    assert position_key(chess.Board()) == 0x463B96181691FC9C


def test_en_passant_counts_only_when_the_capture_is_legal() -> None:
    # After d2-d4 the black pawn on e4 could take en passant, but it is pinned to its king.
    pinned = chess.Board("4k3/8/8/8/4p3/8/3P4/4R2K w - - 0 1")
    pinned.push_uci("d2d4")
    assert pinned.ep_square is not None and not pinned.has_legal_en_passant()
    without_ep = chess.Board(pinned.fen().replace(" d3 ", " - "))
    assert position_key(pinned) == position_key(without_ep)

    free = chess.Board("4k3/8/8/8/4p3/8/3P4/7K w - - 0 1")
    free.push_uci("d2d4")
    assert free.has_legal_en_passant()
    assert position_key(free) != position_key(chess.Board(free.fen().replace(" d3 ", " - ")))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=10_000), max_size=120))
def test_keys_equal_polyglot_keys_and_checks_equal_python_chess_along_random_games(picks) -> None:
    board = chess.Board()
    for pick in picks:
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(moves[pick % len(moves)])
        key, in_check = key_and_check(board)
        assert in_check == board.is_check()
        if board.ep_square is None or board.has_legal_en_passant():
            assert key == chess.polyglot.zobrist_hash(board)


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
