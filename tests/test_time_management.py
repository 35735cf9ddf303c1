"""The clock (engine/search/timeman.py): the budgets of each kind of `go` and how stability scales them."""

from __future__ import annotations

import chess
import pytest

from engine.search import params
from engine.search.timeman import Limits, budget, soft_scale


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
    more_increment = budget(clock, chess.WHITE, 30, params.with_overrides("INCREMENT_SHARE=175"))
    assert more_increment.soft > declared.soft


def test_the_largest_increment_share_never_budgets_the_whole_clock():
    # A share of two increments exceeds a low clock: the hard limit must still stay inside it.
    counted = params.with_overrides("INCREMENT_SHARE=200")
    for clock_ms in (50, 300, 1000, 5000):
        b = budget(Limits(wtime=clock_ms, btime=clock_ms, winc=100, binc=100), chess.WHITE, 30,
                   counted)
        assert 0 < b.soft <= b.hard < clock_ms / 1000


def test_only_clock_budgets_are_flexible():
    assert budget(Limits(wtime=60000, btime=60000), chess.WHITE, 30).flexible
    assert not budget(Limits(movetime=1000), chess.WHITE, 30).flexible


def test_movestogo_one_may_use_most_of_the_clock_but_not_all():
    b = budget(Limits(wtime=10000, btime=10000, movestogo=1), chess.WHITE, 30)
    assert 3 < b.hard < 10
