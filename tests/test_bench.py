"""The bench: its node count is the build's signature, so it must be the same on every run."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import chess

from engine.protocol.bench import POSITIONS, run_bench


# The build's signature: `scripts/brudno bench` (depth 5, every bench position). A change to the
# search that changes the tree changes it; update it deliberately, with the commit that does.
BENCH_SIGNATURE = 95_928


def test_bench_signature_is_the_recorded_one() -> None:
    nodes, _ = run_bench(depth=5, out=lambda line: None)
    assert nodes == BENCH_SIGNATURE


def test_readme_quotes_the_pinned_bench_signature() -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    paragraph = readme[readme.index("**Bench signature**"):]
    quoted = re.search(r"\(([\d,]+) since", paragraph)
    assert quoted is not None and int(quoted.group(1).replace(",", "")) == BENCH_SIGNATURE


def test_bench_node_count_is_the_same_on_every_run():
    first, second = [], []
    nodes_first, _ = run_bench(depth=3, out=first.append, positions=POSITIONS[:6])
    nodes_second, _ = run_bench(depth=3, out=second.append, positions=POSITIONS[:6])
    assert nodes_first == nodes_second > 0
    assert f"Nodes searched  : {nodes_first}" in first


def test_bench_command_prints_stockfish_style_totals():
    result = subprocess.run([sys.executable, "-m", "engine", "bench", "2"], capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert sum(line.startswith("Position") for line in lines) == len(POSITIONS)
    for label in ("Total time (ms) :", "Nodes searched  :", "Nodes/second    :"):
        assert any(line.startswith(label) for line in lines), label


def bench_results(output: str) -> list[str]:
    """The per-position and total lines of a bench run without their timings, which vary."""
    return [re.sub(r"time +\d+ ms", "", line) for line in output.splitlines()
            if line.startswith(("Position", "Nodes searched"))]


def test_bench_over_uci_searches_the_same_positions_to_the_same_nodes():
    over_uci = subprocess.run([sys.executable, "-m", "engine"], input="bench 2\nquit\n",
                              capture_output=True, text=True, timeout=300)
    direct = subprocess.run([sys.executable, "-m", "engine", "bench", "2"], capture_output=True,
                            text=True, timeout=300)
    assert over_uci.returncode == 0, over_uci.stderr
    assert direct.returncode == 0, direct.stderr
    results = bench_results(over_uci.stdout)
    assert len(results) == len(POSITIONS) + 1, over_uci.stdout
    assert re.fullmatch(r"Nodes searched  : [1-9]\d*", results[-1]), results[-1]
    assert results == bench_results(direct.stdout)


def test_perft_command_prints_divide():
    result = subprocess.run([sys.executable, "-m", "engine", "perft", "3"], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0
    assert "Nodes searched: 8902" in result.stdout
    assert "e2e4: 600" in result.stdout


def test_bench_searches_stockfishs_chess960_position_as_chess960():
    from engine.protocol.bench import bench_board

    entry = POSITIONS[-1]
    board = bench_board(entry)
    assert board.chess960 and board.move_stack and board.castling_rights
    lines = []
    nodes, _ = run_bench(depth=3, out=lines.append, positions=[entry])
    assert nodes > 0
    move = lines[0].split("bestmove")[1].split()[0]
    assert chess.Move.from_uci(move) in board.legal_moves


def test_perft_command_counts_a_chess960_position_with_king_takes_rook_castling():
    result = subprocess.run([sys.executable, "-m", "engine", "perft", "--chess960", "1",
                             "4rkr1/4p1p1/8/8/8/8/8/5KR1", "w", "G", "-", "0", "1"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "f1g1: 1" in result.stdout
    assert "Nodes searched: 12" in result.stdout
