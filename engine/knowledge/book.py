"""Polyglot opening book (through chess.polyglot): check a book file, then pick book moves.

The engine asks `pick` before searching; `None` means "not in book, search".
"""

from __future__ import annotations

import os
import random
import struct

import chess
import chess.polyglot

__all__ = ["BookError", "OpeningBook"]

# Polyglot entries: 8-byte big-endian key, 2-byte move, 2-byte weight, 4-byte learn.
_ENTRY_SIZE = 16
_KEY = struct.Struct(">Q")
# A sorted book stays sorted in any subsequence, so checking evenly spaced keys never rejects
# a good book, while random bytes fail within a few entries; the cap keeps open() fast on
# books of hundreds of megabytes.
_MAX_KEYS_CHECKED = 65536
_NO_BOOK = ("", "<empty>")


class BookError(Exception):
    """An opening book file could not be used; the message says why, for an `info string`."""


class OpeningBook:
    """A Polyglot book: closed until `open` succeeds."""

    def __init__(self) -> None:
        self._reader: chess.polyglot.MemoryMappedReader | None = None
        self._path: str | None = None

    @property
    def is_open(self) -> bool:
        return self._reader is not None

    @property
    def path(self) -> str | None:
        """The file of the open book, or None."""
        return self._path

    def open(self, path: str) -> None:
        """Open the Polyglot book at `path`, closing any book opened before.

        An empty path or `<empty>` (the usual UCI "no file" value) only closes.
        Raises BookError if the file is missing, unreadable, or not a Polyglot book; the object
        is then closed, so a failed `setoption` never leaves the old book silently in use.
        """
        self.close()
        path = path.strip()
        if path in _NO_BOOK:
            return
        if not os.path.exists(path):
            raise BookError(f"opening book not found: {path}")
        if os.path.isdir(path):
            raise BookError(f"opening book path is a directory, not a Polyglot .bin file: {path}")
        size = os.path.getsize(path)
        if size == 0:
            raise BookError(f"opening book is empty (0 bytes): {path}")
        if size % _ENTRY_SIZE:
            raise BookError(f"not a Polyglot opening book: {path} has {size} bytes, "
                            f"not a multiple of the {_ENTRY_SIZE}-byte entry size")
        try:
            reader = chess.polyglot.open_reader(path)
        except OSError as error:
            raise BookError(f"cannot read opening book {path}: {error.strerror or error}") from None
        try:
            _check_sorted(reader, path)
        except BookError:
            reader.close()
            raise
        self._reader, self._path = reader, path

    def close(self) -> None:
        """Close the book (a no-op when none is open)."""
        if self._reader is not None:
            self._reader.close()
        self._reader, self._path = None, None

    def entries(self, board: chess.Board) -> list[tuple[chess.Move, int]]:
        """(move, weight) for every legal book move of `board`, heaviest first; [] if none.

        Entries of weight 0 (Polyglot's way to delete a move) are left out. Ties keep book order.
        """
        if self._reader is None:
            return []
        # find_all already converts Polyglot's king-takes-rook castling to the board's notation
        # and drops illegal entries (hash collisions); the explicit is_legal keeps the promise
        # "never an illegal move" independent of that library detail.
        found = [(entry.move, entry.weight) for entry in self._reader.find_all(board)
                 if board.is_legal(entry.move)]
        found.sort(key=lambda item: -item[1])
        return found

    def pick(self, board: chess.Board, *, best_only: bool = False,
             rng: random.Random | None = None) -> chess.Move | None:
        """A book move for `board`, or None when the position is not in the book.

        Weighted random by the entries' weights; with `best_only` the heaviest entry (the first
        in book order on ties), which is deterministic. `rng` makes the random choice
        reproducible; without it the `random` module's global generator is used.
        """
        found = self.entries(board)
        if not found:
            return None
        if best_only:
            return found[0][0]
        moves = [move for move, _ in found]
        weights = [weight for _, weight in found]
        return (rng or random).choices(moves, weights=weights)[0]


def _check_sorted(reader: chess.polyglot.MemoryMappedReader, path: str) -> None:
    # python-chess only checks the file size; a file of random bytes would open fine and then
    # answer nonsense (or nothing), because lookups are binary searches over sorted keys.
    count = len(reader)
    step = max(1, count // _MAX_KEYS_CHECKED)
    previous = -1
    for index in range(0, count, step):
        (key,) = _KEY.unpack_from(reader.mmap, index * _ENTRY_SIZE)
        if key < previous:
            raise BookError(f"not a Polyglot opening book: {path} is not sorted by position key "
                            f"(entry {index}); the file is corrupt or in another format")
        previous = key
