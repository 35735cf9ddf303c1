"""Tests for scripts/studies/alphabeta_table.py on small searches: minimax counts every leaf, all
exact searches agree on the value, --json prints only parseable rows, and the --tree page
draws the same search as its row."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import chess
import pytest

from scripts.studies import alphabeta_table as table
from engine.board.perft import KIWIPETE
from engine.evaluation.score import MATE

ROOT = Path(__file__).resolve().parents[1]
# White mates with Qxf7 (scholar's mate): a game that ends inside a depth-2 horizon.
SCHOLARS_MATE = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"


def perft(board: chess.Board, depth: int) -> int:
    if depth == 0:
        return 1
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += perft(board, depth - 1)
        board.pop()
    return total


def tree_leaves(board: chess.Board, depth: int) -> int:
    """Leaves of the search tree: states at the horizon and games that end before it."""
    if depth == 0 or board.is_game_over():
        return 1
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += tree_leaves(board, depth - 1)
        board.pop()
    return total


@pytest.mark.parametrize("depth", [2, 3])
def test_minimax_evaluations_equal_perft_from_the_start_position(depth):
    rows = table.compare(chess.Board(), depth, brudno=False)
    assert rows[0].algorithm == table.MINIMAX
    assert rows[0].evaluations == perft(chess.Board(), depth)


@pytest.mark.parametrize("fen, depth", [(chess.STARTING_FEN, 2), (chess.STARTING_FEN, 3),
                                        (SCHOLARS_MATE, 2)])
def test_exact_rows_agree_on_the_value_and_cut_a_share_between_0_and_1(fen, depth):
    rows = table.compare(chess.Board(fen), depth, brudno=False)
    assert [r.algorithm for r in rows] == [table.MINIMAX, table.ALPHABETA, table.ORDERED,
                                           table.PERFECT]
    assert len({r.value for r in rows}) == 1
    for r in rows:
        assert 0 <= r.cut_share <= 1
        assert r.evaluations <= rows[0].evaluations
    assert rows[0].cut_share == 0
    assert rows[-1].vs_minimal == 1


def test_a_mate_inside_the_horizon_scores_as_mate_and_counts_as_one_leaf():
    board = chess.Board(SCHOLARS_MATE)
    rows = table.compare(board, 2, brudno=False)
    # perft counts no leaf below the mated king; the search evaluates the mate once.
    assert rows[0].evaluations == tree_leaves(board, 2) == perft(board, 2) + 1
    assert rows[0].value == MATE - 1
    assert {r.best_move for r in rows} == {"h5f7"}


def test_disagreeing_exact_rows_raise_value_mismatch():
    rows = [table.Measurement(table.MINIMAX, True, 20, 0, 21, 0.1, 15, "e2e4"),
            table.Measurement(table.ALPHABETA, True, 10, 3, 12, 0.1, 14, "e2e4"),
            table.Measurement(table.BRUDNO, False, 10, 3, 12, 0.1, 99, "d2d4")]
    with pytest.raises(table.ValueMismatch):
        table.check_values(rows)
    table.check_values([rows[0], rows[2]])  # inexact rows may differ


def test_minimal_tree_formula_for_uniform_trees():
    # Knuth and Moore: b^ceil(d/2) + b^floor(d/2) - 1.
    assert table.minimal_tree(2, 4) == 7
    assert table.minimal_tree(20, 3) == 419
    assert table.mean_branching_factor(20 ** 4, 4) == pytest.approx(20)


def test_json_output_is_only_a_list_of_rows_with_the_required_keys(tmp_path):
    completed = subprocess.run(
        [sys.executable, "-m", "scripts.studies.alphabeta_table", "--fen", chess.STARTING_FEN,
         "--depth", "2", "--json", "--plot", str(tmp_path / "plot.png")],
        cwd=ROOT, capture_output=True, text=True, check=True)
    rows = json.loads(completed.stdout)
    required = {"algorithm", "evaluations", "cutoffs", "cut_share", "seconds", "value",
                "best_move"}
    assert len(rows) >= 4
    for row in rows:
        assert required <= row.keys()
    exact = [row for row in rows if row["exact"]]
    assert len({row["value"] for row in exact}) == 1
    assert exact[0]["evaluations"] == perft(chess.Board(), 2)
    assert all(0 <= row["cut_share"] <= 1 for row in exact)
    assert (tmp_path / "plot.png").stat().st_size > 0


@pytest.mark.slow
def test_kiwipete_depth_3_minimax_counts_perft_and_all_exact_rows_agree():
    rows = table.compare(chess.Board(KIWIPETE), 3)
    assert rows[0].evaluations == 97_862
    assert len({r.value for r in rows if r.exact}) == 1


class TreePage(HTMLParser):
    """Reads the chess tree page back: each node's attributes and the moves listed as pruned
    under it."""

    def __init__(self) -> None:
        super().__init__()
        self.nodes: list[dict[str, str]] = []
        self.counts: dict[str, str] = {}
        self.open: list[dict[str, str]] = []  # the list items we are inside
        self.in_pruned = self.in_struck = False

    def handle_starttag(self, tag, attrs):
        attrs = {key: value or "" for key, value in attrs}
        if tag == "li":
            node = {**attrs, "pruned_moves": [], "children": [],
                    "parent": self.open[-1] if self.open else None}
            if node["parent"]:
                node["parent"]["children"].append(node)
            self.nodes.append(node)
            self.open.append(node)
        elif tag == "table" and attrs.get("id") == "counts":
            self.counts = attrs
        elif tag == "div" and attrs.get("class") == "pruned":
            self.in_pruned = True
        elif tag == "s" and self.in_pruned:
            self.in_struck = True

    def handle_endtag(self, tag):
        if tag == "li":
            self.open.pop()
        elif tag == "div":
            self.in_pruned = False
        elif tag == "s":
            self.in_struck = False

    def handle_data(self, data):
        if self.in_struck:
            self.open[-1]["pruned_moves"].append(data)


def read_page(text: str) -> TreePage:
    page = TreePage()
    page.feed(text)
    return page


def with_class(page: TreePage, name: str) -> list[dict]:
    return [node for node in page.nodes if name in node["class"].split()]


def test_tree_page_counts_equal_the_ordered_alphabeta_rows_evaluations(tmp_path):
    tree = tmp_path / "tree.html"
    completed = subprocess.run(
        [sys.executable, "-m", "scripts.studies.alphabeta_table", "--fen", SCHOLARS_MATE, "--depth", "2",
         "--json", "--no-plot", "--no-brudno", "--tree", str(tree)],
        cwd=ROOT, capture_output=True, text=True, check=True)
    row = next(r for r in json.loads(completed.stdout) if r["algorithm"] == table.ORDERED)
    page = read_page(tree.read_text(encoding="utf-8"))
    assert page.counts["data-algorithm"] == table.ORDERED
    assert int(page.counts["data-evaluations"]) == row["evaluations"]
    # Counted from the drawn tree itself, not only from the page's summary.
    assert len(with_class(page, "node")) == row["nodes"]
    assert len(with_class(page, "leaf")) == row["evaluations"]
    assert len(with_class(page, "cutoff")) == row["cutoffs"]
    assert page.nodes[0]["data-value"] == str(row["value"]) == str(MATE - 1)


def position_of(node: dict, fen: str) -> chess.Board:
    """The position of a node of the page, by playing the SAN moves from the root to it."""
    line = []
    while node["parent"] is not None:
        line.append(node["data-san"])
        node = node["parent"]
    board = chess.Board(fen)
    for san in reversed(line):
        board.push_san(san)
    return board


def test_tree_page_lists_under_each_node_that_cut_the_moves_it_pruned_in_san():
    board = chess.Board(SCHOLARS_MATE)
    rows = table.compare(board, 2, brudno=False)
    page = read_page(table.tree_page(board, 2, table.ORDERED, rows))
    cut = with_class(page, "cutoff")
    assert len(cut) == next(r.cutoffs for r in rows if r.algorithm == table.ORDERED)
    assert sum(len(node["pruned_moves"]) for node in cut) == int(page.counts["data-pruned"])
    for node in cut:
        # The moves searched and the moves pruned are the legal moves, each once; the last
        # one searched caused the cutoff.
        position = position_of(node, SCHOLARS_MATE)
        searched = [child["data-san"] for child in node["children"]]
        assert len(node["pruned_moves"]) == int(node["data-pruned"])
        assert sorted(searched + node["pruned_moves"]) == sorted(
            position.san(move) for move in position.legal_moves)
        assert "refutes" in node["children"][-1]["class"].split()
    assert not [node for node in page.nodes if node["pruned_moves"] and node not in cut]


def test_tree_page_of_plain_alphabeta_counts_its_own_row_and_a_mismatch_is_refused():
    board = chess.Board()
    rows = table.compare(board, 2, brudno=False)
    page = read_page(table.tree_page(board, 2, table.ALPHABETA, rows))
    plain = next(r for r in rows if r.algorithm == table.ALPHABETA)
    assert len(with_class(page, "leaf")) == plain.evaluations
    assert len(with_class(page, "node")) == plain.nodes
    wrong = [dataclasses.replace(r, evaluations=r.evaluations + 1) for r in rows]
    with pytest.raises(table.ValueMismatch):
        table.tree_page(board, 2, table.ALPHABETA, wrong)


def test_tree_page_without_a_fen_draws_the_start_position(tmp_path):
    tree = tmp_path / "tree.html"
    subprocess.run([sys.executable, "-m", "scripts.studies.alphabeta_table", "--depth", "2", "--json",
                    "--no-plot", "--no-brudno", "--tree", str(tree)],
                   cwd=ROOT, capture_output=True, text=True, check=True)
    text = tree.read_text(encoding="utf-8")
    assert chess.STARTING_FEN in text
    page = read_page(text)
    # The root's 20 moves are all drawn: the page is of the start position.
    assert len(with_class(page, "node")) > 20
    assert int(page.counts["data-evaluations"]) == len(with_class(page, "leaf"))


# ---------------------------------------------------------------------------- --techniques

def rows_by_label(board: chess.Board, depth: int, labels: set[str]) -> dict:
    """(nodes, evaluations, seconds, value, best move) of the technique rows named ``labels``,
    by label, with the network evaluating (as in play and in docs/textbook.md's table)."""
    from engine.evaluation.network import evaluator

    evaluate = evaluator()
    return {label: table.measure_technique(board, depth, off, evaluate)
            for label, _, off in table.technique_rows() if label in labels}


def test_the_full_row_is_the_default_search_and_the_base_row_switches_everything_off():
    from engine.search.root import fixed_depth_search

    rows = table.technique_rows()
    assert rows[0] == (table.BASE, "add", table.TECHNIQUES)
    assert rows[len(table.TECHNIQUES)][2] == ()  # the last row that adds one: nothing off
    board = chess.Board(KIWIPETE)
    full = table.measure_technique(board, 4, ())
    default = fixed_depth_search(board.copy(), 4)
    assert (full[0], full[1], full[4]) == (default.nodes, default.evaluations,
                                            default.best_move.uci())
    # With every technique off the search visits more nodes than with all of them on.
    base = table.measure_technique(board, 4, table.TECHNIQUES)
    assert base[0] > full[0]


def test_with_every_technique_off_the_search_is_alpha_beta_and_finds_minimax_value():
    # No quiescence, no pruning, no reductions: the classical evaluation at the horizon, as the
    # textbook searches have it. The check extensions stay in every row; here they leave the
    # value as it is.
    board = chess.Board()
    nodes, _, _, value, move = table.measure_technique(board, 3, table.TECHNIQUES)
    ordered = table.exact_measurements(board, 3)[2]
    assert (value, move) == (ordered.value, ordered.best_move) == (34, "b1c3")
    full = table.measure_technique(board, 3, ())
    assert full[3] != value  # quiescence and pruning change the value


def test_taking_out_each_technique_changes_the_search_of_the_start_or_kiwipete():
    full_label = table.technique_rows()[len(table.TECHNIQUES)][0]
    without = [label for label, kind, _ in table.technique_rows() if kind == "without"]
    rows = rows_by_label(chess.Board(), 6, set(without) | {full_label})
    full = rows.pop(full_label)[0]
    assert len(rows) == len(table.TECHNIQUES)
    # A technique that never acts in one search (an aspiration window that never fails, with
    # some networks, from the start) must act in the other.
    kiwipete = rows_by_label(chess.Board(KIWIPETE), 5, set(without) | {full_label})
    kiwipete_full = kiwipete.pop(full_label)[0]
    for label, (nodes, *_) in rows.items():
        assert nodes != full or kiwipete[label][0] != kiwipete_full, label
    # Those that only skip or shorten moves cost nodes when they are out.
    for name in ("PVS", "null move", "late-move reductions",
                 "futility, late-move and SEE pruning, razoring"):
        assert rows[f"{table.FULL} without {name}"][0] > full, name


def test_the_pruning_techniques_switch_off_exactly_the_rules_of_without_pruning():
    from engine.search.params import KERNEL_PARAMS, without_pruning
    from engine.search.timeman import Limits

    search = table.switched_search(tuple(t for t in table.TECHNIQUES
                                         if t.key in ("null", "pruning", "iir")), hash_mb=1)
    search.prepare(chess.Board(), Limits())
    assert search.kernel_params.tolist() == without_pruning(KERNEL_PARAMS).tolist()


def test_the_minimal_tree_column_is_knuth_and_moores_formula_with_perfts_branching():
    rows = table.compare_techniques("Start", chess.Board(), [2])
    kiwipete = table.compare_techniques("Kiwipete", chess.Board(KIWIPETE), [3])
    for r in rows:  # perft(2) = 400: b = 20, 20 + 20 - 1
        assert r.branching == pytest.approx(20)
        assert r.minimal_tree == pytest.approx(39)
        assert r.ebf == pytest.approx(r.nodes ** (1 / 2))
    b = 97_862 ** (1 / 3)
    for r in kiwipete:
        assert r.minimal_tree == pytest.approx(b ** 2 + b - 1)
    assert len(rows) == len(table.technique_rows()) == 2 * len(table.TECHNIQUES) + 1


def test_techniques_json_and_plot_come_from_the_command_line(tmp_path):
    completed = subprocess.run(
        [sys.executable, "-m", "scripts.studies.alphabeta_table", "--techniques", "--fen",
         chess.STARTING_FEN, "--depth", "2", "--evaluation", "classical", "--json",
         "--plot", str(tmp_path / "nodes.png")],
        cwd=ROOT, capture_output=True, text=True, check=True)
    rows = json.loads(completed.stdout)
    assert [r["depth"] for r in rows] == [1] * 21 + [2] * 21
    assert {r["kind"] for r in rows} == {"add", "without"}
    assert all(r["best_move"] and r["nodes"] > 0 for r in rows)
    assert (tmp_path / "nodes.png").stat().st_size > 0
