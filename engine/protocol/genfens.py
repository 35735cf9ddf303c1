"""Opening positions for data generation: the `genfens` command OpenBench's DATAGEN runs.

    brudno "genfens 64 seed 12345 book None" "quit"

answers 64 lines `info string genfens <FEN>`: distinct legal positions, the same ones for the same
seed, each a few random plies from the start position (or from a random line of the book, an
EPD or PGN file), kept when the game is not over and a shallow search scores it within a margin
(a random walk hangs pieces: such an opening teaches only the obvious). Words after the book
may set `plies P` (random plies: P or P + 1; 8 from the start position, 2 from a book line),
`margin M` (centipawns, 400) and `depth D` (of the check, 4). docs/openbench.md.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import chess
import chess.pgn
import numpy as np

PLIES = 8  # from the start position: P or P + 1, so that either side may be to move
BOOK_PLIES = 2  # from a book line, which is an opening already
MARGIN = 400  # cp: a position scored further from equal is skipped
DEPTH = 4  # of the search that scores a candidate
TRIES = 200  # candidates allowed per position asked for, before giving up


@dataclass(frozen=True)
class Request:
    count: int
    seed: int
    book: str | None
    plies: int | None = None
    margin: int = MARGIN
    depth: int = DEPTH


def parse_request(tokens: list[str]) -> Request:
    """The request of `genfens N seed S book <None|path> [plies P] [margin M] [depth D]` (the
    tokens after `genfens`); ValueError saying what is wrong."""
    if len(tokens) < 5 or tokens[1] != "seed" or tokens[3] != "book":
        raise ValueError("genfens takes 'N seed S book <None|file> [plies P] [margin M] [depth D]'")
    try:
        count, seed = int(tokens[0]), int(tokens[2])
        extra = dict(zip(tokens[5::2], map(int, tokens[6::2])))
    except ValueError:
        raise ValueError("genfens: N, S and the values of plies, margin and depth are integers") from None
    unknown = set(extra) - {"plies", "margin", "depth"}
    if unknown or len(tokens[5:]) % 2:
        raise ValueError(f"genfens: unknown arguments {' '.join(tokens[5:])!r}")
    if count < 0 or extra.get("plies", 0) < 0 or extra.get("depth", 1) < 1:
        raise ValueError("genfens: N and plies must not be negative, depth must be positive")
    book = None if tokens[4].lower() == "none" else tokens[4]
    return Request(count, seed, book, extra.get("plies"), extra.get("margin", MARGIN),
                   extra.get("depth", DEPTH))


class Book:
    """The lines of an EPD file (one position a line) or the final positions of a PGN file's
    games, read one at a time when drawn (OpenBench's books run to millions of lines)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.pgn = self.path.suffix.lower() == ".pgn"
        if self.pgn:
            with open(self.path, encoding="utf-8", errors="replace") as handle:
                self.offsets = []
                while True:
                    offset = handle.tell()
                    if chess.pgn.read_headers(handle) is None:
                        break
                    self.offsets.append(offset)
        else:
            self.data = self.path.read_bytes()
            ends = np.flatnonzero(np.frombuffer(self.data, dtype=np.uint8) == ord("\n"))
            starts = np.concatenate(([0], ends + 1))
            ends = np.concatenate((ends, [len(self.data)]))
            keep = ends - starts > 1  # (blank lines are not positions)
            self.offsets = list(zip(starts[keep].tolist(), ends[keep].tolist()))
        if not self.offsets:
            raise ValueError(f"{self.path}: no positions")

    def __len__(self) -> int:
        return len(self.offsets)

    def board(self, index: int) -> chess.Board | None:
        """The position of line ``index``, None if it cannot be read."""
        try:
            if self.pgn:
                with open(self.path, encoding="utf-8", errors="replace") as handle:
                    handle.seek(self.offsets[index])
                    game = chess.pgn.read_game(handle)
                return None if game is None or game.errors else game.end().board()
            start, end = self.offsets[index]
            line = self.data[start:end].decode("utf-8", errors="replace").strip()
            board = chess.Board(None, chess960=True)
            board.set_epd(line)
            board.chess960 = board.has_chess960_castling_rights()
            return board if board.is_valid() else None
        except ValueError:
            return None


def search_score(evaluate: Callable[[chess.Board], int],
                 depth: int) -> Callable[[chess.Board], int | None]:
    """The check of `openings`: a search of ``depth`` plies with the engine's evaluation, from a
    fresh table each time (whether a position is kept does not depend on the ones before); None
    for a mate score."""
    from engine.evaluation.score import MATE_BOUND
    from engine.search.root import Search
    from engine.search.timeman import Limits
    from engine.search.tt import TranspositionTable

    search = Search(TranspositionTable(16))
    search.evaluate = evaluate

    def score(board: chess.Board) -> int | None:
        search.tt.clear()
        search.tables.clear()
        value = search.run(board, Limits(depth=depth)).score
        return None if abs(value) >= MATE_BOUND else value
    return score


def openings(request: Request, score: Callable[[chess.Board], int | None],
             book: Book | None = None) -> Iterator[chess.Board]:
    """``request.count`` distinct positions (fewer only if TRIES candidates a position do not
    find them): each a random line's end plus random plies, not over, and scored by ``score``
    (centipawns for the side to move, None for a mate) within ``request.margin``."""
    rng = random.Random(request.seed)
    if request.book is not None and book is None:
        book = Book(request.book)
    base = request.plies if request.plies is not None else (BOOK_PLIES if book else PLIES)
    seen: set[str] = set()
    found = 0
    for _ in range(TRIES * max(request.count, 1)):
        if found >= request.count:
            return
        board = chess.Board() if book is None else book.board(rng.randrange(len(book)))
        if board is None:
            continue
        for _ in range(base + rng.randrange(2)):
            moves = sorted(board.legal_moves, key=chess.Move.uci)
            if not moves:
                break
            board.push(rng.choice(moves))
        if board.is_game_over() or board.epd() in seen:
            continue
        value = score(board)
        if value is None or abs(value) > request.margin:
            continue
        seen.add(board.epd())
        found += 1
        yield chess.Board(board.fen(), chess960=board.chess960)  # (without the plies' stack)
