"""Tests for engine.teaching.textbook and scripts/studies/textbook.py: the lecture's tree, matchsticks, the
property that every alpha-beta variant returns minimax's value with fewer evaluations, and
the pictures of the searches (read back from the SVG)."""

from __future__ import annotations

import functools
import random
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.teaching.textbook.games import BinaryTree, ExplicitTree, Matchsticks
from engine.teaching.textbook.recording import trace_alphabeta
from engine.teaching.textbook.search import (UNLIMITED, alphabeta, minimax, negamax_alphabeta,
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
    completed = subprocess.run([sys.executable, "-m", "scripts.studies.textbook", *args], cwd=ROOT,
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


# The pictures (scripts/studies/textbook.py --svg): read back through the data- attributes of the SVG.
SVG = "{http://www.w3.org/2000/svg}"
# The lecture's cutoffs, worked out by hand from TRACE: the visited position whose child in
# PRUNED was never searched, and that child.
CUTOFFS = {8: 18, 4: 10, 2: 6, 11: 24, 12: 26}


def drawing(*args: str) -> bytes:
    """The SVG that `scripts/studies/textbook.py ARGS --svg PATH` writes."""
    with tempfile.TemporaryDirectory() as folder:
        picture = Path(folder) / "picture.svg"
        run_script(*args, "--svg", str(picture))
        return picture.read_bytes()


@functools.cache
def draw(*args: str) -> ET.Element:
    """The picture, parsed; made once per test run, as each run starts a process."""
    return ET.fromstring(drawing(*args))


def panel_nodes(svg: ET.Element, panel: int,
                key: str = "data-name") -> dict[str, dict[str, str]]:
    """The attributes of each drawn state of a panel, by its name (or by `key`)."""
    group = svg.find(f"{SVG}g[@id='panel-{panel}']")
    nodes = [g.attrib for g in group.iter(f"{SVG}g") if "node" in g.get("class", "").split()]
    keys = [node[key] for node in nodes]
    assert len(keys) == len(set(keys)), "a state is drawn twice"
    return dict(zip(keys, nodes))


def panel_edges(svg: ET.Element, panel: int, kind: str) -> set[tuple[int, int]]:
    group = svg.find(f"{SVG}g[@id='panel-{panel}']")
    return {(int(g.get("data-from")), int(g.get("data-to"))) for g in group.iter(f"{SVG}g")
            if {"edge", kind} <= set(g.get("class", "").split())}


def states(nodes: dict[str, dict[str, str]], state: str) -> set[int]:
    return {int(name) for name, node in nodes.items() if node["data-state"] == state}


def test_tree_picture_draws_the_18_visits_of_the_trace_in_order_with_their_windows():
    nodes = panel_nodes(draw("tree"), 0)
    assert len(nodes) == 31
    visited = sorted((int(n["data-order"]), int(name), int(n["data-alpha"]), int(n["data-beta"]))
                     for name, n in nodes.items() if n["data-state"] == "visited")
    assert [entry[1:] for entry in visited] == TRACE
    assert [entry[0] for entry in visited] == list(range(1, 19))


def test_tree_picture_draws_the_13_pruned_positions_faint_and_crosses_out_the_cut_edges():
    svg = draw("tree")
    nodes = panel_nodes(svg, 0)
    assert sorted(states(nodes, "unreached")) == PRUNED
    assert {int(name) for name, n in nodes.items() if n.get("data-cutoff")} == set(CUTOFFS)
    assert panel_edges(svg, 0, "pruned") == set(CUTOFFS.items())
    # The cutoff is marked on the edge of the move that caused it: here always the left child
    # (2p + 1), which cut off the right one.
    assert all(child == 2 * parent + 2 for parent, child in CUTOFFS.items())
    assert panel_edges(svg, 0, "cutoff") == {(parent, 2 * parent + 1) for parent in CUTOFFS}


def test_tree_picture_backs_up_value_4_through_position_1_on_the_principal_path():
    svg = draw("tree")
    nodes = panel_nodes(svg, 0)
    assert nodes["0"]["data-value"] == "4" and "data-bound" not in nodes["0"]
    assert {int(name): int(n["data-value"]) for name, n in nodes.items()
            if n["data-state"] == "visited" and int(name) < 15 and "data-bound" not in n} \
        == {p: INNER_VALUES[p] for p in (0, 1, 3, 7)}
    assert panel_edges(svg, 0, "pv") == {(0, 1), (1, 3), (3, 7), (7, 15)}
    assert "value 4, best move to 1;" in ET.tostring(svg, encoding="unicode")


def test_start_at_zero_picture_differs_exactly_at_position_26_which_it_rings():
    svg = draw("tree", "--start-at-zero")
    right, bug = panel_nodes(svg, 0), panel_nodes(svg, 1)
    assert right == panel_nodes(draw("tree"), 0)
    assert states(right, "visited") ^ states(bug, "visited") == {26}
    assert states(bug, "visited") - states(right, "visited") == {26}
    assert {int(name) for name, n in bug.items() if n.get("data-highlight")} == {26}
    assert bug["0"]["data-value"] == "4"  # the value stays right


def test_tree_trace_records_what_the_search_counted():
    trace = trace_alphabeta(BinaryTree(), alpha=0, beta=15)
    assert [(node.path[-1] if node.path else 0, node.alpha, node.beta)
            for node in trace.nodes] == TRACE
    assert {node.path[-1] if node.path else 0: node.pruned for node in trace.cutoff_nodes()} \
        == {parent: [child] for parent, child in CUTOFFS.items()}
    assert (trace.result.value, trace.result.best_move) == (4, 1)


def test_matchsticks_picture_shows_minimax_visiting_all_20_states_and_alphabeta_17():
    svg = draw("matchsticks", "5")
    # Names (the matches left) repeat: the states are told apart by their moves.
    full, cut = panel_nodes(svg, 0, "data-path"), panel_nodes(svg, 1, "data-path")
    assert len(full) == len(cut) == 20
    assert {path for path, n in cut.items() if n["data-state"] == "unreached"} \
        == {"1 2 2", "2 2", "2 2 1"}
    for nodes, visited, cutoffs in ((full, 20, 0), (cut, 17, 3)):
        orders = sorted(int(n["data-order"]) for n in nodes.values() if "data-order" in n)
        assert orders == list(range(1, visited + 1))
        assert sum(1 for n in nodes.values() if n.get("data-cutoff")) == cutoffs
    result = alphabeta(Matchsticks(5))
    assert (result.counters.nodes, result.counters.cutoffs) == (17, 3)
    root = next(n for n in cut.values() if n["data-order"] == "1")
    assert root["data-value"] == "1"  # White wins


def test_pictures_are_deterministic_and_the_readme_picture_is_up_to_date():
    first = drawing("tree")
    assert drawing("tree") == first
    assert (ROOT / "docs" / "alphabeta-tree.svg").read_bytes() == first


def test_tree_html_page_holds_the_picture_and_a_row_per_visit(tmp_path):
    page = tmp_path / "tree.html"
    run_script("tree", "--html", str(page))
    text = page.read_text(encoding="utf-8")
    assert text.count('class="node visited') == 18 and text.count("<tr>") == 1 + 18
    assert "http" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "")
