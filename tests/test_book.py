"""The Polyglot book service: opening, picking, and refusing files that are not books."""

from __future__ import annotations

import collections
import random
from pathlib import Path

import chess
import chess.polyglot
import pytest

from engine.knowledge.book import BookError, OpeningBook
from paths import DATA

BOOK_FILE = DATA / "books" / "performance.bin"

# After 1.e4 c5 the book has three moves with distinct weights: Nf3 306, Nc3 12, c3 10.
SICILIAN = ["e2e4", "c7c5"]
# 1.e4 e5 2.Nf3 Nc6 3.Bb5 Nf6: the book castles here, stored as Polyglot's e1h1.
BERLIN = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "g8f6"]


def _board(moves: list[str], *, chess960: bool = False) -> chess.Board:
    board = chess.Board(chess960=chess960)
    for uci in moves:
        board.push_uci(uci)
    return board


@pytest.fixture
def book_path() -> str:
    assert BOOK_FILE.is_file(), f"the opening book {BOOK_FILE} is missing from the checkout"
    return str(BOOK_FILE)


@pytest.fixture
def book(book_path: str):
    opened = OpeningBook()
    opened.open(book_path)
    yield opened
    opened.close()


def test_a_new_book_is_closed_and_answers_nothing() -> None:
    book = OpeningBook()
    assert not book.is_open
    assert book.path is None
    assert book.pick(chess.Board()) is None
    assert book.entries(chess.Board()) == []


def test_open_and_close_toggle_is_open(book_path: str) -> None:
    book = OpeningBook()
    book.open(book_path)
    assert book.is_open and book.path == book_path
    book.close()
    assert not book.is_open and book.path is None
    book.close()  # closing twice is harmless


@pytest.mark.parametrize("no_file", ["", "<empty>", "  "])
def test_empty_path_means_no_book(book: OpeningBook, no_file: str) -> None:
    book.open(no_file)
    assert not book.is_open


def test_start_position_pick_is_a_legal_book_move(book: OpeningBook) -> None:
    board = chess.Board()
    entries = book.entries(board)
    assert {move.uci() for move, _ in entries} == {"e2e4", "d2d4", "c2c4"}
    move = book.pick(board)
    assert move is not None
    assert board.is_legal(move)
    assert move in [m for m, _ in entries]


def test_entries_are_heaviest_first(book: OpeningBook) -> None:
    entries = book.entries(_board(SICILIAN))
    assert [(move.uci(), weight) for move, weight in entries] == [("g1f3", 306), ("b1c3", 12), ("c2c3", 10)]


def test_best_only_always_gives_the_heaviest_entry(book: OpeningBook) -> None:
    board = _board(SICILIAN)
    best = max(book.entries(board), key=lambda item: item[1])[0]
    picks = {book.pick(board, best_only=True, rng=random.Random(seed)) for seed in range(20)}
    assert picks == {best}
    assert best == chess.Move.from_uci("g1f3")


def test_best_only_on_tied_weights_is_deterministic(book: OpeningBook) -> None:
    # Every start-position entry has weight 1: the first one in book order wins the tie.
    board = chess.Board()
    first = book.entries(board)[0][0]
    assert {book.pick(board, best_only=True) for _ in range(10)} == {first}


def test_seeded_rng_gives_reproducible_picks(book: OpeningBook) -> None:
    def line(seed: int) -> list[chess.Move]:
        rng = random.Random(seed)
        board = chess.Board()
        played = []
        while (move := book.pick(board, rng=rng)) is not None and len(played) < 30:
            played.append(move)
            board.push(move)
        return played

    assert line(7) == line(7)
    assert line(7) and line(11)
    assert len({tuple(line(seed)) for seed in range(10)}) > 1


def test_random_picks_follow_the_weights(book: OpeningBook) -> None:
    board = _board(SICILIAN)
    rng = random.Random(3)
    counts = collections.Counter(book.pick(board, rng=rng).uci() for _ in range(3280))
    # Expected shares 306/328, 12/328, 10/328: Nf3 about 3060 times, the others about 100 each.
    assert 2950 < counts["g1f3"] < 3170
    assert 50 < counts["b1c3"] < 170
    assert 30 < counts["c2c3"] < 150


def test_position_out_of_book_gives_none(book: OpeningBook) -> None:
    assert book.pick(_board(["h2h4", "h7h5", "g2g4", "a7a5", "h1h3"])) is None
    assert book.pick(chess.Board("8/8/4k3/8/8/3K4/4P3/8 w - - 0 1")) is None
    assert book.entries(chess.Board("8/8/4k3/8/8/3K4/4P3/8 w - - 0 1")) == []


def test_castling_entries_come_back_in_standard_notation(book_path: str, book: OpeningBook) -> None:
    board = _board(BERLIN)
    with chess.polyglot.open_reader(book_path) as reader:
        raw = [entry.move for entry in reader.find_all(chess.polyglot.zobrist_hash(board))]
    assert chess.Move(chess.E1, chess.H1) in raw  # Polyglot stores castling as king takes rook
    moves = [move for move, _ in book.entries(board)]
    assert chess.Move.from_uci("e1g1") in moves
    assert chess.Move(chess.E1, chess.H1) not in moves
    assert all(board.is_legal(move) for move in moves)


def test_castling_entries_stay_king_takes_rook_on_a_chess960_board(book: OpeningBook) -> None:
    board = _board(BERLIN, chess960=True)
    moves = [move for move, _ in book.entries(board)]
    assert chess.Move(chess.E1, chess.H1) in moves
    assert all(board.is_legal(move) for move in moves)


def test_hundreds_of_random_picks_along_book_lines_are_legal(book: OpeningBook) -> None:
    rng = random.Random(2024)
    picks = 0
    while picks < 500:
        board = chess.Board()
        while (move := book.pick(board, rng=rng, best_only=rng.random() < 0.1)) is not None:
            assert board.is_legal(move), (board.fen(), move)
            board.push(move)
            picks += 1
    assert picks >= 500


def test_missing_file_raises_a_clear_error(tmp_path: Path) -> None:
    book = OpeningBook()
    missing = tmp_path / "nope.bin"
    with pytest.raises(BookError, match="not found") as caught:
        book.open(str(missing))
    assert str(missing) in str(caught.value)
    assert not book.is_open


def test_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(BookError, match="directory"):
        OpeningBook().open(str(tmp_path))


def test_empty_file_is_refused(tmp_path: Path) -> None:
    # python-chess would accept it as a book without entries; that is almost surely a mistake.
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    with pytest.raises(BookError, match="empty"):
        OpeningBook().open(str(empty))


def test_garbage_of_odd_size_is_refused(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(random.Random(1).randbytes(1000))  # 1000 is not a multiple of 16
    with pytest.raises(BookError, match="not a Polyglot opening book.*1000 bytes"):
        OpeningBook().open(str(garbage))


def test_garbage_of_entry_multiple_size_is_refused(tmp_path: Path) -> None:
    # python-chess only checks the size, so this one would open; its keys are not sorted.
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(random.Random(2).randbytes(16 * 256))
    with chess.polyglot.open_reader(str(garbage)) as reader:
        assert len(reader) == 256
    with pytest.raises(BookError, match="not sorted"):
        OpeningBook().open(str(garbage))


def test_failed_open_leaves_the_previous_book_closed(book: OpeningBook, tmp_path: Path) -> None:
    assert book.is_open
    with pytest.raises(BookError):
        book.open(str(tmp_path / "nope.bin"))
    assert not book.is_open
    assert book.pick(chess.Board()) is None
