"""Tests for engine/trace.py: the tree the scout kernel records is the tree it searched (its nodes
the search's nodes, its root value the search's value) and names the rules that pruned it."""

from __future__ import annotations

import chess
import pytest

from engine import scout
from engine.search import Search, fixed_depth_search
from engine.timeman import Limits
from engine.trace import TraceTooLarge, count_nodes, trace_search
from engine.tt import TranspositionTable

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
    assert search.kernel_counts.shape == (scout.COUNTS,)
