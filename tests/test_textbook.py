"""Tests for engine.textbook and scripts/textbook.py: the lecture's tree, matchsticks, and
the property that every alpha-beta variant returns minimax's value with fewer evaluations."""

from __future__ import annotations

import functools
import random
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.textbook.games import BinaryTree, ExplicitTree, Matchsticks
from engine.textbook.search import (UNLIMITED, alphabeta, minimax, negamax_alphabeta,
                                    ordered_alphabeta, perfect_alphabeta)

ROOT = Path(__file__).resolve().parents[1]

# The lecture's facts about the 31-position tree.
INNER_VALUES = {0: 4, 1: 4, 2: 2, 3: 4, 4: 8, 5: 2, 6: 14, 7: 4, 8: 2, 9: 6, 10: 8, 11: 1,
                12: 2, 13: 12, 14: 14}
# (position, alpha, beta) on entering each position, worked out by hand from the leaves.
TRACE = [(0, 0, 15), (1, 0, 15), (3, 0, 15), (7, 0, 15), (15, 0, 15), (16, 0, 4), (8, 4, 15),
         (17, 4, 15), (4, 0, 4), (9, 0, 4), (19, 0, 4), (20, 0, 4), (2, 4, 15), (5, 4, 15),
         (11, 4, 15), (23, 4, 15), (12, 4, 15), (25, 4, 15)]
PRUNED = [6, 10, 13, 14, 18, 21, 22, 24, 26, 27, 28, 29, 30]


def run_script(*args: str) -> list[str]:
    completed = subprocess.run([sys.executable, "scripts/textbook.py", *args], cwd=ROOT,
                               capture_output=True, text=True, check=True)
    return completed.stdout.splitlines()


def trace_line(pos: int, alpha: int, beta: int) -> str:
    return f"pos = {pos:2d} alpha = {alpha:2d} beta = {beta:2d}"


def test_tree_script_prints_values_trace_result_and_pruned_positions_line_by_line():
    expected = ["Minimax values:"]
    expected += [f"Pos: {p:2d} Value: {v:2d}" for p, v in INNER_VALUES.items()]
    expected += ["", "Alpha-beta (alpha = 0, beta = 15 at the root):"]
    expected += [trace_line(*entry) for entry in TRACE]
    expected += ["Pos:  0 Value:  4 BestPos:  1",
                 "Pruned: " + " ".join(map(str, PRUNED))]
    assert run_script("tree") == expected


def test_trace_format_pads_numbers_to_width_two():
    assert trace_line(0, 0, 15) == "pos =  0 alpha =  0 beta = 15"


def test_starting_a_max_node_at_zero_instead_of_alpha_visits_position_26():
    lines = run_script("tree", "--start-at-zero")
    variant = lines[lines.index("Alpha-beta with max nodes starting at 0 instead of alpha:") + 1:]
    visited = [int(line.split()[2]) for line in variant if line.startswith("pos =")]
    assert 26 in visited
    pruned = next(line for line in variant if line.startswith("Pruned:"))
    assert "26" not in pruned.split()
    assert "Pos:  0 Value:  4 BestPos:  1" in variant  # the value stays right
    assert variant[-1] == "No longer pruned: 26"


def test_every_algorithm_finds_value_4_and_best_position_1_in_the_tree():
    for search in (minimax, alphabeta, negamax_alphabeta, perfect_alphabeta):
        result = search(BinaryTree())
        assert (result.value, result.best_move) == (4, 1), search.__name__


def test_minimax_evaluates_all_16_leaves_of_the_tree_and_alphabeta_7():
    assert minimax(BinaryTree()).counters.evaluations == 16
    assert alphabeta(BinaryTree(), alpha=0, beta=15).counters.evaluations == 7


@functools.cache
def brute_force_winner(matches: int, white_to_move: bool) -> str:
    """Who wins with best play, by trying every move (no minimax values involved)."""
    mover, other = ("White", "Black") if white_to_move else ("Black", "White")
    if matches == 0:
        return mover  # the other player took the last match
    outcomes = [brute_force_winner(matches - take, not white_to_move)
                for take in (1, 2) if take <= matches]
    return mover if mover in outcomes else other


def test_matchstick_values_agree_with_brute_force():
    for matches in range(0, 13):
        for white_to_move in (True, False):
            expected = 1 if brute_force_winner(matches, white_to_move) == "White" else -1
            for search in (minimax, alphabeta, negamax_alphabeta, perfect_alphabeta):
                assert search(Matchsticks(matches, white_to_move)).value == expected


def test_matchsticks_script_reports_the_start_value_and_counts():
    lines = run_script("matchsticks", "5")
    expected = 1 if brute_force_winner(5, True) == "White" else -1
    assert f"Minimax value of the start: {expected:+d} (White wins), best move: take 1" in lines
    assert "Game tree: 20 positions, 8 finished games" in lines
    states = lines[lines.index("matches  White to move  Black to move") + 1:][:6]
    for left, line in enumerate(states):
        white, black = (int(v) for v in line.split()[1:])
        assert white == (1 if brute_force_winner(left, True) == "White" else -1)
        assert black == (1 if brute_force_winner(left, False) == "White" else -1)
    minimax_line = next(line for line in lines if line.lstrip().startswith("minimax:"))
    alphabeta_line = next(line for line in lines if line.lstrip().startswith("alpha-beta:"))
    assert "20 states visited" in minimax_line
    assert int(alphabeta_line.split(", ")[1].split()[0]) < 20


# Random game trees: an int is a leaf, a list holds 1..4 children, at most 5 levels.
@st.composite
def game_trees(draw: st.DrawFn) -> list:
    height = draw(st.integers(1, 5))

    def node(level: int):
        if level == height or (level > 0 and draw(st.integers(0, 3)) == 0):
            return draw(st.integers(-9, 9))
        return [node(level + 1) for _ in range(draw(st.integers(1, 4)))]

    return node(0)


@st.composite
def uniform_trees(draw: st.DrawFn) -> list:
    branching, height = draw(st.integers(1, 4)), draw(st.integers(1, 5))
    leaves = iter(draw(st.lists(st.integers(-9, 9), min_size=branching ** height,
                                max_size=branching ** height)))

    def node(level: int):
        if level == height:
            return next(leaves)
        return [node(level + 1) for _ in range(branching)]

    return node(0)


class ShuffledOrder:
    """An arbitrary move ordering: alpha-beta must not depend on it for the value."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def order(self, game, moves, ply):
        moves = list(moves)
        self.rng.shuffle(moves)
        return moves

    def cutoff(self, game, move, ply):
        pass


@settings(deadline=None)
@given(tree=game_trees(), depth=st.sampled_from([1, 2, 3, 4, UNLIMITED]), rng=st.randoms())
def test_alphabeta_variants_return_minimax_value_with_no_more_evaluations(tree, depth, rng):
    exact = minimax(ExplicitTree(tree), depth)
    results = {
        "max/min": alphabeta(ExplicitTree(tree), depth),
        "negamax": negamax_alphabeta(ExplicitTree(tree), depth),
        "ordered": ordered_alphabeta(ExplicitTree(tree), depth, ShuffledOrder(rng)),
        "perfect": perfect_alphabeta(ExplicitTree(tree), depth),
    }
    for name, result in results.items():
        assert result.value == exact.value, name
        assert result.counters.evaluations <= exact.counters.evaluations, name


@settings(deadline=None)
@given(tree=uniform_trees())
def test_perfect_ordering_never_evaluates_more_than_plain_alphabeta_on_uniform_trees(tree):
    plain = alphabeta(ExplicitTree(tree))
    perfect = perfect_alphabeta(ExplicitTree(tree))
    assert perfect.counters.evaluations <= plain.counters.evaluations


def test_max_min_and_negamax_alphabeta_search_the_same_tree():
    tree = [[[3, 17], [2, 12]], [[15, 25], [0, 2]], [[2, 5], [3, 9]]]
    max_min, negamax = alphabeta(ExplicitTree(tree)), negamax_alphabeta(ExplicitTree(tree))
    assert (max_min.value, max_min.best_move) == (negamax.value, negamax.best_move)
    assert max_min.counters == negamax.counters
