"""engine/search/history.py: the quiet move's score and the bonus and malus of a cut-off."""

from __future__ import annotations

import chess
import numpy as np

from engine.board import movecode
from engine.search.history import (HISTORY_MAX, NO_MOVE, OrderingTables, board_piece_to,
                                   butterfly_at, by_score_into, continuation_row, piece_to,
                                   quiet_score, record_cutoff)

KNIGHT_F3 = movecode.make(chess.G1, chess.F3, 0, chess.KNIGHT, 0)
PAWN_E4 = movecode.make(chess.E2, chess.E4, 0, chess.PAWN, 0)
STRONG = 2048  # HISTORY_BONUS on: every table, strong engines' bonus up to this


def _histories(*backs: int, white: bool = True):
    """A node's ``histories`` over fresh tables, the moves one, two and four plies back given by
    their piece_to (NO_MOVE: none), with the tables' views."""
    tables = OrderingTables(4)
    back_1, back_2, back_4 = (list(backs) + [NO_MOVE] * 3)[:3]
    histories = (tables.table, butterfly_at(white), continuation_row(back_1),
                 continuation_row(back_2), continuation_row(back_4))
    return histories, tables.history[white], tables.continuation


def test_a_quiet_score_sums_the_butterfly_and_the_continuation_entries():
    histories, butterfly, continuation = _histories(5, 700, 9)
    column = piece_to(KNIGHT_F3, True)
    butterfly[movecode.butterfly(KNIGHT_F3)] = 1000
    continuation[5, column] = 200
    continuation[700, column] = 30
    continuation[9, column] = 4
    assert quiet_score(histories, KNIGHT_F3, True) == 1234
    # Without the moves before, the butterfly entry alone.
    assert quiet_score(histories[:2] + (NO_MOVE, NO_MOVE, NO_MOVE), KNIGHT_F3, True) == 1000


def test_a_cut_off_rewards_the_move_and_punishes_those_tried_before_it_in_every_table():
    histories, butterfly, continuation = _histories(5, 700, 9)
    killers = np.full(2, -1, dtype=np.int64)
    record_cutoff(KNIGHT_F3, True, 6, histories, np.array([PAWN_E4]), killers, STRONG)
    bonus = min(16 * 36 + 128 * 5, STRONG)
    assert butterfly[movecode.butterfly(KNIGHT_F3)] == bonus
    assert butterfly[movecode.butterfly(PAWN_E4)] == -bonus
    for back in (5, 700, 9):
        assert continuation[back, piece_to(KNIGHT_F3, True)] == bonus
        assert continuation[back, piece_to(PAWN_E4, True)] == -bonus
    assert killers[0] == movecode.table_move(KNIGHT_F3)


def test_the_bonus_is_capped_at_the_scale():
    histories, butterfly, _ = _histories()
    record_cutoff(KNIGHT_F3, True, 30, histories, np.empty(0, dtype=np.int64),
                  np.full(2, -1, dtype=np.int64), STRONG)
    assert butterfly[movecode.butterfly(KNIGHT_F3)] == STRONG


def test_without_the_scale_the_butterfly_table_alone_keeps_the_small_bonus():
    histories, butterfly, continuation = _histories(5, 700, 9)
    record_cutoff(KNIGHT_F3, True, 6, histories, np.array([PAWN_E4]),
                  np.full(2, -1, dtype=np.int64), 0)
    assert butterfly[movecode.butterfly(KNIGHT_F3)] == 36
    assert butterfly[movecode.butterfly(PAWN_E4)] == -36
    assert not continuation.any()


def test_gravity_keeps_every_entry_within_the_limit():
    histories, butterfly, continuation = _histories(5, 700, white=False)
    killers = np.full(2, -1, dtype=np.int64)
    for _ in range(200):
        record_cutoff(KNIGHT_F3, False, 20, histories, np.array([PAWN_E4]), killers, STRONG)
    assert HISTORY_MAX // 2 < butterfly[movecode.butterfly(KNIGHT_F3)] <= HISTORY_MAX
    assert -HISTORY_MAX <= continuation[700, piece_to(PAWN_E4, False)] < -HISTORY_MAX // 2


def test_quiet_moves_are_ordered_by_falling_score_keeping_ties_in_order():
    out = np.empty(5, dtype=np.int64)
    n = by_score_into(out, np.array([10, 11, 12, 13]), np.array([5, 9, 5, -1]))
    assert out[:n].tolist() == [11, 10, 12, 13]


def test_the_root_knows_the_men_of_the_moves_before_it():
    board = chess.Board()
    board.push_uci("g1f3")
    board.push_uci("e7e5")
    assert board_piece_to(board, 1) == 384 + (chess.PAWN - 1) * 64 + chess.E5
    assert board_piece_to(board, 2) == (chess.KNIGHT - 1) * 64 + chess.F3
    board.push_uci("f3e5")  # the pawn of the move two plies back is gone
    assert board_piece_to(board, 2) == NO_MOVE
    assert board_piece_to(board, 1) == (chess.KNIGHT - 1) * 64 + chess.E5
    assert board_piece_to(chess.Board(), 1) == NO_MOVE


def test_ageing_halves_every_history_table():
    tables = OrderingTables(4)
    tables.continuation[3, 4] = 100
    tables.history[chess.WHITE][7] = -60
    tables.age()
    assert tables.continuation[3, 4] == 50
    assert tables.history[chess.WHITE][7] == -30


def test_the_tables_of_each_side_and_the_continuation_table_do_not_overlap():
    tables = OrderingTables(4)
    tables.history[chess.WHITE][:] = 1
    tables.history[chess.BLACK][:] = 2
    tables.continuation[:] = 3
    assert sorted(np.unique(tables.table, return_counts=True)[1].tolist()) == [
        4096, 4096, 768 * 768]
