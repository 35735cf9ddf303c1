"""Tests for engine/teaching/trace.py: the tree the scout kernel records is the tree it searched (its nodes
the search's nodes, its root value the search's value) and names the rules that pruned it."""

from __future__ import annotations

from collections import Counter

import chess
import pytest

from engine.search import kernel_report
from engine.search.params import NEVER, default
from engine.search.root import Search, fixed_depth_search
from engine.search.timeman import Limits
from engine.teaching.trace import TraceTooLarge, TracingSearch, count_nodes, trace_search, tree
from engine.search.tt import TranspositionTable

IIR_DEPTH = default("IIR_DEPTH")

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def walk(node: dict) -> list[dict]:
    """Every node of a traced tree, the root first."""
    out = [node]
    for child in node["children"]:
        out += walk(child)
    return out


@pytest.mark.parametrize("fen, depth", [(chess.STARTING_FEN, 3), (KIWIPETE, 3), (KIWIPETE, 4)])
def test_traced_tree_has_one_node_per_node_the_kernel_counted(fen: str, depth: int) -> None:
    traced = trace_search(chess.Board(fen), depth)
    # The kernel counts each of its calls as a node; the Python root (one per aspiration pass)
    # is not one of them.
    assert count_nodes(traced.passes) == traced.nodes > 0


@pytest.mark.parametrize("fen, depth", [(chess.STARTING_FEN, 3), (KIWIPETE, 4)])
def test_root_value_is_the_value_of_the_same_search_untraced(fen: str, depth: int) -> None:
    board = chess.Board(fen)
    traced = trace_search(board, depth)
    untraced = fixed_depth_search(board, depth)
    assert traced.passes[-1]["value"] == traced.score == untraced.score
    assert traced.best_move == board.san(untraced.best_move)


def test_kiwipete_shows_beta_cutoffs_null_move_cutoffs_and_futility_pruning() -> None:
    nodes = walk(trace_search(chess.Board(KIWIPETE), 4).passes[-1])
    rules = {node["rule"] for node in nodes}
    pruned = {move["rule"] for node in nodes for move in node["pruned"]}
    hows = {node["how"] for node in nodes}
    assert {"beta cut-off", "null move cut-off", "reverse futility", "table cut"} <= rules
    assert {"beta cut-off", "futility pruning", "SEE pruning", "delta pruning"} <= pruned
    assert {"null move", "reduced (LMR)", "null window"} <= hows
    # A null-move cut-off is the null move's own search failing high for the other side.
    for node in nodes:
        if node["rule"] == "null move cut-off":
            null = next(c for c in node["children"] if c["how"] == "null move")
            assert -null["value"] >= node["beta"]


def test_windows_are_open_at_pv_nodes_and_null_elsewhere_below_the_root() -> None:
    root = trace_search(chess.Board(KIWIPETE), 3).passes[-1]
    for node in walk(root)[1:]:
        if node["kind"] == "PV":
            assert node["beta"] > node["alpha"] + 1
        elif node["kind"] == "non-PV":
            assert node["beta"] == node["alpha"] + 1


def test_a_tree_larger_than_the_limit_is_refused_with_its_size() -> None:
    with pytest.raises(TraceTooLarge, match="too large to draw.*more than the 100 drawn"):
        trace_search(chess.Board(KIWIPETE), 3, max_rows=100)


def test_the_search_passes_the_kernel_no_room_for_a_trace_unless_asked() -> None:
    # Counters only: the kernel's test (``counts.shape[0]``) finds no trace and it writes
    # nothing. The bench's node count (tests/test_bench.py) is the search's with the trace off.
    search = Search(TranspositionTable(1))
    search.prepare(chess.Board(KIWIPETE), Limits(depth=2))
    assert search.kernel_counts.shape == (kernel_report.COUNTS,)


IIR = "internal iterative reduction"
# The ways a parent searches a child at its full depth (less one ply): not reduced by LMR, not
# the null move or razoring's check.
FULL_DEPTH = {"searched", "null window", "again at full depth", "again with the window"}


def test_internal_iterative_reduction_is_marked_where_it_searched_the_moves_shallower() -> None:
    # Kiwipete at depth 5: ten nodes of depth 4 without a table move.
    depth = 5
    root = trace_search(chess.Board(KIWIPETE), depth).passes[-1]
    nodes = walk(root)[1:]
    marked = [node for node in nodes if node["mark"] == IIR]
    assert marked
    assert {node["mark"] for node in nodes} == {"", IIR}
    for node in marked:
        assert node["kind"] in ("PV", "non-PV") and node["depth"] >= IIR_DEPTH
    # Every tree node's children searched at full depth are a ply shallower than it, two below
    # a marked node (each one more if it is in check: the check extension of the iteration).
    for node in nodes:
        if node["kind"] == "quiescence" or node["depth"] < 2:
            continue
        for child in node["children"]:
            if child["how"] not in FULL_DEPTH:
                continue
            extended = child["move"][-1] in "+#" and child["ply"] < 2 * depth
            assert child["depth"] == node["depth"] - 1 - (node["mark"] == IIR) + extended, \
                (node["move"], child["move"])


def test_marking_iir_left_the_trees_other_marks_as_they_were() -> None:
    # Kiwipete at depth 5 as the trace drew it before IIR was marked (fcd16ee): its nodes, the
    # rules that ended them, how they were searched and the rules that pruned moves. (A change of
    # the search changes these, as it changes the bench's node count.)
    traced = trace_search(chess.Board(KIWIPETE), 5)
    nodes = [node for root in traced.passes for node in walk(root)[1:]]
    assert traced.nodes == len(nodes) == 3490
    assert Counter(node["rule"] for node in nodes) == {
        "": 681, "table cut": 447, "beta cut-off": 629, "reverse futility": 989, "razoring": 42,
        "stand pat": 604, "null move cut-off": 98}
    assert Counter(node["how"] for node in nodes) == {
        "searched": 1599, "null window": 959, "reduced (LMR)": 701,
        "razoring's quiescence check": 47, "null move": 184}
    assert Counter(move["rule"] for node in nodes for move in node["pruned"]) == {
        "beta cut-off": 8323, "late-move pruning": 2713, "SEE pruning": 1463,
        "delta pruning": 864, "futility pruning": 556}
    # The marked nodes keep the rule that ended them: the mark is a second one.
    assert {node["rule"] for node in nodes if node["mark"]} == {"beta cut-off", ""}


def test_with_iir_switched_off_no_node_is_marked() -> None:
    from engine.search.params import with_overrides

    search = TracingSearch(TranspositionTable(16), 5)
    search.parameters = with_overrides(f"IIR_DEPTH={NEVER}")
    search.run(chess.Board(KIWIPETE), Limits(depth=5))
    passes = tree(chess.Board(KIWIPETE), search.rows[:int(search.rows[0, 0]) + 1])
    nodes = [node for root in passes for node in walk(root)]
    assert len(nodes) > 1000 and not any(node["mark"] for node in nodes)
