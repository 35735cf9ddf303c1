"""Syzygy endgame tablebases (through chess.syzygy): WDL probes for the search, DTZ-ranked root moves.

`Tablebases.open` takes a SyzygyPath value; `probe_wdl` answers inside the search; `probe_root`
tells the root which moves keep the best result and which of them makes progress under the
50-move rule. Probes never raise: a position the tables cannot answer gives None.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

import chess
import chess.syzygy

__all__ = ["TB_WIN_SCORE", "TB_WIN_THRESHOLD", "RootProbe", "TablebaseError", "Tablebases",
           "split_syzygy_path", "wdl_to_score"]

TB_WIN_SCORE = 20000
"""Score of a tablebase win: below the search's mate scores (about 30000 - 256), above any evaluation."""

TB_WIN_THRESHOLD = TB_WIN_SCORE - 1000
"""Root tablebase wins, and `wdl_to_score` wins below ply 1000, score at least this (losses at most minus it)."""

DEFAULT_PROBE_LIMIT = 7

_NO_PATH = ("", "<empty>")
# A win whose zeroing move lies this many plies ahead (halfmove clock included) may already be
# a draw by the 50-move rule; one ply less than the rule because python-chess's DTZ may be one
# ply short (see chess.syzygy.Tablebase.probe_dtz).
_RULE50_WIN_HORIZON = 99
# Errors a probe can meet: KeyError/MissingTableError for positions without tables (too many
# pieces, castling rights, a missing file), OSError when a lazily opened file turns out bad.
_PROBE_ERRORS = (KeyError, OSError, ValueError, IndexError)


class TablebaseError(Exception):
    """Tablebases could not be opened; the message says why, for an `info string`."""


@dataclass(frozen=True)
class RootProbe:
    """The tablebase verdict on a root position.

    moves: the legal moves that keep the best outcome, best first (for a win the fastest progress
        to a zeroing move, for a loss the longest resistance; draws in generation order).
    wdl: the outcome from the side to move, -2..2, with the halfmove clock taken into account
        (1 = cursed win, -1 = blessed loss: both draws under the 50-move rule).
    dtz: DTZ of moves[0] from the side to move, in plies including the move itself (positive when
        winning); None if only WDL tables were found, in which case `moves` is ranked by WDL only
        (mates first, then zeroing moves) and the search should choose among them.
    score: what to report: TB_WIN_SCORE - dtz for a win, -TB_WIN_SCORE - dtz for a loss
        (dtz < 0), 0 for draws, cursed wins and blessed losses.
    """

    moves: list[chess.Move]
    wdl: int
    dtz: int | None
    score: int


def wdl_to_score(wdl: int, ply: int = 0) -> int:
    """A search score for a WDL probe `ply` plies from the root: nearer wins score higher."""
    if wdl == 2:
        return TB_WIN_SCORE - ply
    if wdl == -2:
        return -TB_WIN_SCORE + ply
    return 0


def split_syzygy_path(path: str) -> list[str]:
    """The directories of a SyzygyPath value, in order.

    Separated by ';' on Windows (where ':' belongs to drive letters) and by ':' or ';' elsewhere.
    Blank parts are dropped; "" and "<empty>" mean no directories.
    """
    if path.strip() in _NO_PATH:
        return []
    separators = ";" if os.name == "nt" else ":;"
    parts = (part.strip() for part in re.split(f"[{re.escape(separators)}]", path))
    return [os.path.expanduser(part) for part in parts if part]


class Tablebases:
    """Syzygy tables from one or more directories; empty (every probe None) until `open`."""

    def __init__(self) -> None:
        self._tables: chess.syzygy.Tablebase | None = None
        self._max_pieces = 0
        self._directories: list[str] = []
        self.probe_limit: int = DEFAULT_PROBE_LIMIT
        """The SyzygyProbeLimit option: positions with more pieces are not probed."""

    @property
    def is_open(self) -> bool:
        return self._tables is not None

    @property
    def directories(self) -> list[str]:
        return list(self._directories)

    @property
    def max_pieces(self) -> int:
        """The most pieces (kings included) of any WDL table found; 0 when closed."""
        return self._max_pieces

    @property
    def limit(self) -> int:
        """The most pieces a probed position may have: min(max_pieces, probe_limit)."""
        return min(self._max_pieces, self.probe_limit)

    def open(self, path: str) -> None:
        """Load the tables in the directories of the SyzygyPath value `path`.

        "" or "<empty>" only closes. Raises TablebaseError if a directory does not exist, holds no
        Syzygy table, holds a file that is not a valid table, or if no WDL table (.rtbw) is found
        at all; the object is then closed, so a bad `setoption` never leaves old tables in use.
        """
        self.close()
        directories = split_syzygy_path(path)
        if not directories:
            return
        tables = chess.syzygy.Tablebase()
        try:
            max_pieces = 0
            for directory in directories:
                max_pieces = max(max_pieces, _add_directory(tables, directory))
            if not tables.wdl:
                raise TablebaseError(f"no Syzygy WDL tables (.rtbw) in {os.pathsep.join(directories)}: "
                                     f"DTZ tables alone cannot be probed")
        except Exception:
            tables.close()
            raise
        self._tables, self._max_pieces, self._directories = tables, max_pieces, directories

    def close(self) -> None:
        """Forget all tables (a no-op when none are open)."""
        if self._tables is not None:
            self._tables.close()
        self._tables, self._max_pieces, self._directories = None, 0, []

    def _probeable(self, board: chess.Board) -> chess.syzygy.Tablebase | None:
        """The tables if they may answer for `board`, else None."""
        if board.castling_rights or chess.popcount(board.occupied) > self.limit:
            return None
        return self._tables

    def probe_wdl(self, board: chess.Board) -> int | None:
        """WDL for the side to move (2 win, 1 cursed win, 0 draw, -1 blessed loss, -2 loss), or None.

        As in the tables, the value assumes the halfmove clock was just reset, so it is exact
        right after a capture or pawn move. None when the tables cannot answer: too many pieces,
        castling rights, a missing table. python-chess plays and takes back captures on `board`
        while probing, so the board must not be shared with another thread meanwhile.
        """
        tables = self._probeable(board)
        if tables is None:
            return None
        try:
            return tables.probe_wdl(board)
        except _PROBE_ERRORS:
            return None

    def probe_root(self, board: chess.Board, use_dtz: bool = True) -> RootProbe | None:
        """Rank the root moves of a tablebase position (see RootProbe), or None.

        None when the position cannot be probed or has no legal moves. `board` is not touched.
        ``use_dtz=False`` ranks by WDL only: a few milliseconds instead of up to a few hundred.
        """
        tables = self._probeable(board)
        if tables is None or not any(board.legal_moves):
            return None
        work = board.copy(stack=False)
        if use_dtz:
            try:
                return _rank_by_dtz(tables, work)
            except _PROBE_ERRORS:
                pass
        # Without DTZ tables the root can still drop the moves that spoil the result.
        try:
            return _rank_by_wdl(tables, work)
        except _PROBE_ERRORS:
            return None


def _rank_by_dtz(tables: chess.syzygy.Tablebase, board: chess.Board) -> RootProbe:
    """RootProbe from DTZ; raises a probe error if a table is missing."""
    clock = board.halfmove_clock
    ranked = []
    for move in list(board.legal_moves):
        zeroing = board.is_zeroing(move)
        board.push(move)
        try:
            if board.is_checkmate():
                dtz, exact = 1, True
            elif zeroing:
                # Right after a zeroing move the WDL value is exact, and it is all DTZ says.
                dtz, exact = chess.syzygy.dtz_before_zeroing(-tables.probe_wdl(board)), True
            else:
                reply = -tables.probe_dtz(board)
                # One more ply for the move itself, away from zero.
                dtz, exact = reply + (reply > 0) - (reply < 0), False
        finally:
            board.pop()
        ranked.append((move, dtz, _outcome(dtz, clock, exact)))
    best = max(outcome for _, _, outcome in ranked)
    # Ascending DTZ serves both sides: the smallest positive DTZ wins fastest, the most
    # negative DTZ loses slowest; equal values keep generation order.
    keep = sorted((item for item in ranked if item[2] == best), key=lambda item: item[1])
    dtz = keep[0][1]
    if best == 2:
        score = TB_WIN_SCORE - dtz
    elif best == -2:
        score = -TB_WIN_SCORE - dtz
    else:
        score = 0
    return RootProbe(moves=[move for move, _, _ in keep], wdl=best, dtz=dtz, score=score)


def _rank_by_wdl(tables: chess.syzygy.Tablebase, board: chess.Board) -> RootProbe:
    """RootProbe from WDL alone, for directories without DTZ tables."""
    ranked = []
    for move in list(board.legal_moves):
        zeroing = board.is_zeroing(move)
        board.push(move)
        try:
            mate = board.is_checkmate()
            wdl = 2 if mate else -tables.probe_wdl(board)
        finally:
            board.pop()
        ranked.append((move, wdl, (not mate, not zeroing)))
    best = max(wdl for _, wdl, _ in ranked)
    keep = sorted((item for item in ranked if item[1] == best), key=lambda item: item[2])
    # The distance is unknown: report the win as the slowest one the 50-move rule allows.
    score = wdl_to_score(best, 100)
    return RootProbe(moves=[move for move, _, _ in keep], wdl=best, dtz=None, score=score)


def _outcome(dtz: int, clock: int, exact: bool) -> int:
    """WDL of a root move with DTZ `dtz` when the halfmove clock stands at `clock`."""
    if dtz > 0:
        # A mate or a zeroing move by us is exact: fine as long as the clock has not run out.
        horizon = _RULE50_WIN_HORIZON + exact
        return 2 if clock + dtz <= horizon else 1
    if dtz < 0:
        # For the defender assume the shortest loss: the opponent's zeroing move must come
        # before the clock reaches 100, i.e. at most 100 - clock plies from now.
        return -2 if clock - dtz <= 100 else -1
    return 0


def _add_directory(tables: chess.syzygy.Tablebase, directory: str) -> int:
    """Add the tables of one directory; the most pieces of its WDL tables (0 if only DTZ)."""
    if not os.path.isdir(directory):
        what = "is not a directory" if os.path.exists(directory) else "does not exist"
        raise TablebaseError(f"Syzygy path {directory!r} {what}")
    try:
        names = sorted(os.listdir(directory))
    except OSError as error:
        raise TablebaseError(f"cannot list Syzygy directory {directory!r}: {error.strerror or error}") from None
    found = 0
    max_pieces = 0
    for name in names:
        stem, ext = os.path.splitext(name)
        if ext not in (chess.Board.tbw_suffix, chess.Board.tbz_suffix) or not chess.syzygy.is_tablename(stem):
            continue
        path = os.path.join(directory, name)
        _check_table_file(path, ext)
        if tables.add_file(path):
            found += 1
            if ext == chess.Board.tbw_suffix:
                max_pieces = max(max_pieces, len(stem) - 1)  # letters minus the "v": KQvK is 3
    if not found:
        raise TablebaseError(f"no Syzygy tables (.rtbw/.rtbz files) in {directory!r}")
    return max_pieces


def _check_table_file(path: str, ext: str) -> None:
    # chess.syzygy opens files lazily on the first probe and then raises OSError on a bad one;
    # checking the header here turns a truncated download into a clear error at setoption time.
    magic = chess.Board.tbw_magic if ext == chess.Board.tbw_suffix else chess.Board.tbz_magic
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as handle:
            header = handle.read(len(magic))
    except OSError as error:
        raise TablebaseError(f"cannot read Syzygy table {path!r}: {error.strerror or error}") from None
    # Valid Syzygy files are 16 bytes more than a multiple of 64 (the check chess.syzygy applies).
    if header != magic or size % 64 != 16:
        raise TablebaseError(f"not a valid Syzygy table (bad header or truncated): {path!r}")
