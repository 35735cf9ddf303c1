"""Perft against published node counts, and divide's Stockfish-style output."""

from __future__ import annotations

from pathlib import Path

import chess
import pytest

from engine.board.perft import KIWIPETE, divide, format_divide, perft, perft_report
from paths import DATA

CPW_FILE = DATA / "perft" / "cpw_standard_positions.epd"
ETHEREAL_FILE = DATA / "perft" / "ethereal_standard.epd"

# Bulk-counted perft runs at roughly 300-400k leaves per second: a million-leaf budget per
# position keeps the default run in seconds; the slow run goes one or two plies further.
DEFAULT_MAX_NODES = 1_000_000
SLOW_MAX_NODES = 20_000_000
ETHEREAL_SAMPLE_STEP = 16
ETHEREAL_DEFAULT_DEPTH = 4
ETHEREAL_SLOW_DEPTH = 5


def _load_suite(path: Path) -> list[tuple[str, dict[int, int]]]:
    """(FEN, {depth: count}) per line of a `FEN ;D1 n ;D2 n ...` file."""
    suite = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        fen, *fields = line.split(";")
        counts = {}
        for field in fields:
            label, value = field.split()
            counts[int(label.lstrip("D"))] = int(value)
        suite.append((fen.strip(), counts))
    return suite


def _cases(path: Path, pick) -> list:
    """pytest params (fen, depth, expected) chosen by `pick(index, counts) -> depth | None`."""
    cases = []
    for index, (fen, counts) in enumerate(_load_suite(path)):
        depth = pick(index, counts)
        if depth is not None:
            cases.append(pytest.param(fen, depth, counts[depth], id=f"line{index + 1}-d{depth}"))
    assert cases, f"no perft case picked from {path}"  # pytest would skip an empty parameter set
    return cases


def _deepest_under(counts: dict[int, int], limit: int) -> int | None:
    depths = [depth for depth, count in counts.items() if count < limit]
    return max(depths, default=None)


def _deepest_at_most(counts: dict[int, int], depth: int) -> int | None:
    # A few Ethereal lines list only some depths (one has D5 alone).
    return max((d for d in counts if d <= depth), default=None)


def _cpw_default(index: int, counts: dict[int, int]) -> int | None:
    return _deepest_under(counts, DEFAULT_MAX_NODES)


def _cpw_slow(index: int, counts: dict[int, int]) -> int | None:
    depth = _deepest_under(counts, SLOW_MAX_NODES)
    return depth if depth != _cpw_default(index, counts) else None


def _ethereal_default(index: int, counts: dict[int, int]) -> int | None:
    if index % ETHEREAL_SAMPLE_STEP:
        return None
    return _deepest_at_most(counts, ETHEREAL_DEFAULT_DEPTH)


def _ethereal_slow_all_lines(index: int, counts: dict[int, int]) -> int | None:
    return _deepest_at_most(counts, ETHEREAL_DEFAULT_DEPTH) or _deepest_under(counts, SLOW_MAX_NODES)


def _ethereal_slow_sample(index: int, counts: dict[int, int]) -> int | None:
    if index % ETHEREAL_SAMPLE_STEP:
        return None
    return _deepest_at_most(counts, ETHEREAL_SLOW_DEPTH)


@pytest.mark.parametrize("fen, depth, expected", _cases(CPW_FILE, _cpw_default))
def test_cpw_positions_match_published_counts(fen: str, depth: int, expected: int) -> None:
    assert perft(chess.Board(fen), depth) == expected


@pytest.mark.slow
@pytest.mark.parametrize("fen, depth, expected", _cases(CPW_FILE, _cpw_slow))
def test_cpw_positions_match_published_counts_deeper(fen: str, depth: int, expected: int) -> None:
    assert perft(chess.Board(fen), depth) == expected


@pytest.mark.parametrize("fen, depth, expected", _cases(ETHEREAL_FILE, _ethereal_default))
def test_ethereal_sample_matches_published_counts(fen: str, depth: int, expected: int) -> None:
    assert perft(chess.Board(fen), depth) == expected


@pytest.mark.slow
@pytest.mark.parametrize("fen, depth, expected", _cases(ETHEREAL_FILE, _ethereal_slow_all_lines))
def test_every_ethereal_position_matches_published_counts(fen: str, depth: int, expected: int) -> None:
    assert perft(chess.Board(fen), depth) == expected


@pytest.mark.slow
@pytest.mark.parametrize("fen, depth, expected", _cases(ETHEREAL_FILE, _ethereal_slow_sample))
def test_ethereal_sample_matches_published_counts_deeper(fen: str, depth: int, expected: int) -> None:
    assert perft(chess.Board(fen), depth) == expected


def test_depth_zero_counts_the_position_itself() -> None:
    assert perft(chess.Board(), 0) == 1
    assert divide(chess.Board(), 0) == []


def test_negative_depth_is_rejected() -> None:
    with pytest.raises(ValueError):
        perft(chess.Board(), -1)
    with pytest.raises(ValueError):
        divide(chess.Board(), -1)


def test_checkmated_position_has_no_leaves() -> None:
    mated = chess.Board("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")
    assert mated.is_checkmate()
    assert perft(mated, 1) == 0
    assert perft(mated, 3) == 0
    assert divide(mated, 2) == []
    assert format_divide(divide(mated, 2)) == "\nNodes searched: 0\n"


def test_perft_leaves_the_board_as_it_was() -> None:
    board = chess.Board(KIWIPETE)
    board.push_uci("e1g1")
    before_fen, before_stack = board.fen(), list(board.move_stack)
    perft(board, 3)
    divide(board, 2)
    assert board.fen() == before_fen
    assert board.move_stack == before_stack


@pytest.mark.parametrize("fen, depth", [(chess.STARTING_FEN, 3), (KIWIPETE, 2),
                                        ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 4)])
def test_divide_counts_sum_to_perft_in_generation_order(fen: str, depth: int) -> None:
    board = chess.Board(fen)
    results = divide(board, depth)
    assert [move for move, _ in results] == list(board.legal_moves)
    assert sum(count for _, count in results) == perft(board, depth)
    for move, count in results:
        board.push(move)
        assert count == perft(board, depth - 1)
        board.pop()


def test_format_divide_matches_stockfish_layout() -> None:
    board = chess.Board()
    text = format_divide(divide(board, 2))
    lines = text.split("\n")
    move_lines, tail = lines[:20], lines[20:]
    assert move_lines == [f"{move.uci()}: 20" for move in board.legal_moves]
    # Stockfish prints the move lines, "\nNodes searched: N\n" and an endl: an empty line, the
    # total, and an empty line after it once print() adds its newline.
    assert tail == ["", "Nodes searched: 400", ""]
    assert text.endswith("\n\nNodes searched: 400\n")


def test_format_divide_exact_text_for_a_small_position() -> None:
    board = chess.Board("4k3/8/8/8/8/8/8/4K2R w K - 0 1")
    # Black's king replies, counted by hand: checks along the 8th rank or the f-file take squares
    # away; e1g1 leaves the rook on f1 like h1f1.
    expected_moves = {"h1h8": 3, "h1h7": 2, "h1h6": 5, "h1h5": 5, "h1h4": 5, "h1h3": 5, "h1h2": 5,
                      "h1g1": 5, "h1f1": 3, "e1f2": 5, "e1e2": 5, "e1d2": 5, "e1f1": 5, "e1d1": 5,
                      "e1g1": 3}
    results = divide(board, 2)
    assert {move.uci(): count for move, count in results} == expected_moves
    expected_text = "".join(f"{move.uci()}: {count}\n" for move, count in results)
    expected_text += "\nNodes searched: 66\n"
    assert format_divide(results) == expected_text
    assert sum(expected_moves.values()) == 66


def test_report_at_depth_zero_has_only_the_total() -> None:
    assert perft_report(chess.Board(), 0) == "\nNodes searched: 1\n"


def test_report_at_depth_one_lists_every_move_once() -> None:
    board = chess.Board(KIWIPETE)
    text = perft_report(board, 1)
    assert text == "".join(f"{move.uci()}: 1\n" for move in board.legal_moves) + "\nNodes searched: 48\n"


def test_chess960_castling_prints_as_king_takes_rook() -> None:
    board = chess.Board("4k3/8/8/8/8/8/8/4K2R w K - 0 1", chess960=True)
    text = perft_report(board, 1)
    assert "e1h1: 1" in text
    assert "e1g1: 1" not in text
    assert text.endswith("\nNodes searched: 15\n")


CHESS960_FILE = DATA / "perft" / "chess960_sample.perft"


def _chess960_suite() -> list[tuple[str, dict[int, int]]]:
    """(FEN, {depth: count}) from the `id / epd / perft D N` blocks of a .perft file."""
    suite = []
    for line in CHESS960_FILE.read_text().splitlines():
        if line.startswith("epd "):
            suite.append((line[4:].strip() + " 0 1", {}))
        elif line.startswith("perft "):
            _, depth, count = line.split()
            suite[-1][1][int(depth)] = int(count)
    return suite


@pytest.mark.parametrize("fen, counts", _chess960_suite())
def test_chess960_positions_match_published_counts(fen: str, counts: dict[int, int]) -> None:
    board = chess.Board(fen, chess960=True)
    for depth in (1, 2, 3):
        assert perft(board, depth) == counts[depth], depth


@pytest.mark.slow
@pytest.mark.parametrize("fen, counts", _chess960_suite())
def test_chess960_positions_match_published_counts_at_depth_4(fen: str, counts: dict[int, int]) -> None:
    assert perft(chess.Board(fen, chess960=True), 4) == counts[4]


def test_the_chess960_sample_has_castling_in_its_trees() -> None:
    castles = 0
    for fen, _ in _chess960_suite():
        board = chess.Board(fen, chess960=True)
        for move in list(board.legal_moves):
            board.push(move)
            castles += sum(board.is_castling(reply) for reply in board.legal_moves)
            board.pop()
    assert castles > 0
