"""Syzygy endgame tablebases (through chess.syzygy): WDL probes for the search, DTZ-ranked root moves.

`Tablebases.open` takes a SyzygyPath value; `probe_wdl` answers inside the search; `probe_root`
tells the root which moves keep the best result and which of them makes progress under the
50-move rule (or, with the rule off as Syzygy50MoveRule=false asks, counts cursed wins and blessed
losses as wins and losses). Probes never raise: a position the tables cannot answer gives None.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Callable

import chess
import chess.syzygy

# The scores are defined with the TT's, which stores them relative to the node like mate scores.
from engine.evaluation.score import MATE_BOUND, TB_WIN_SCORE, TB_WIN_THRESHOLD, wdl_to_score

if TYPE_CHECKING:
    from engine.search.results import Info
    from engine.search.timeman import Limits

__all__ = ["RootProbe", "TablebaseError", "Tablebases", "split_syzygy_path",
           "tablebase_root_limits", "with_tablebase_score"]

DEFAULT_PROBE_LIMIT = 7
DEFAULT_PROBE_DEPTH = 1

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

    moves: the legal moves that keep the tables' result (WDL), the best first: for a win the
        fastest progress to a zeroing move, for a loss the longest resistance, for a draw the
        first in generation order. With DTZ only moves[0] is ranked: the others follow in
        generation order, and under a high halfmove clock they may be too slow to keep a win.
    wdl: the outcome from the side to move, -2..2, with the halfmove clock taken into account
        (1 = cursed win, -1 = blessed loss: both draws under the 50-move rule; without the rule,
        Tablebases.rule50 False, every win is 2 and every loss -2).
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
        self.probe_depth: int = DEFAULT_PROBE_DEPTH
        """The SyzygyProbeDepth option: see `probes_in_tree`."""
        self.rule50: bool = True
        """The Syzygy50MoveRule option: False counts cursed wins and blessed losses (draws under
        the 50-move rule) as wins and losses, in every probe."""

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

    @property
    def tree_probe_depth(self) -> int:
        """The least remaining depth at which the tree probes a position of exactly `limit`
        pieces: probe_depth, or 0 when the tables stop below probe_limit (as in Stockfish, whose
        SyzygyProbeDepth then no longer applies). Positions with fewer pieces are probed at any
        depth: their probes are cheap, and they cut the tree most."""
        return self.probe_depth if self.probe_limit <= self._max_pieces else 0

    def probes_in_tree(self, pieces: int, depth: int) -> bool:
        """Whether the search probes a node of ``pieces`` pieces (kings included) with ``depth``
        plies left (besides its halfmove clock at 0 and no castling rights)."""
        return pieces < self.limit or (pieces == self.limit and depth >= self.tree_probe_depth)

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
            return _counted(tables.probe_wdl(board), self.rule50)
        except _PROBE_ERRORS:
            return None

    def probe_root(self, board: chess.Board) -> RootProbe | None:
        """Rank the root moves of a tablebase position (see RootProbe), or None.

        None when the position cannot be probed or has no legal moves. `board` is not touched.
        DTZ ranking costs a few milliseconds, up to about 30 for 4 pieces (WDL alone about 1-3).
        """
        tables = self._probeable(board)
        if tables is None or not any(board.legal_moves):
            return None
        work = board.copy(stack=False)
        try:
            return _rank_by_dtz(tables, work, self.rule50)
        except _PROBE_ERRORS:
            pass
        # Without DTZ tables the root can still drop the moves that spoil the result.
        try:
            return _rank_by_wdl(tables, work, self.rule50)
        except _PROBE_ERRORS:
            return None


def _counted(wdl: int, rule50: bool) -> int:
    """``wdl`` as it counts: with the 50-move rule off a cursed win is a win, a blessed loss a loss."""
    return wdl if rule50 or abs(wdl) != 1 else 2 * wdl


def _rank_by_dtz(tables: chess.syzygy.Tablebase, board: chess.Board, rule50: bool = True) -> RootProbe:
    """RootProbe from DTZ; raises a probe error if a table is missing.

    Every move gets its WDL (a fraction of a millisecond each); DTZ, about a millisecond per
    python-chess lookup, is sought only for the moves that keep the best result, and only
    until the best of them is known. Without the 50-move rule the moves that keep a win include
    the cursed ones, ranked by DTZ with the others (a true win's DTZ is the lower).
    """
    clock = board.halfmove_clock
    # (move, wdl, dtz, exact): the dtz of a quiet move to a won or lost position is found later.
    ranked: list[tuple[chess.Move, int, int | None, bool]] = []
    for move in list(board.legal_moves):
        zeroing = board.is_zeroing(move)
        board.push(move)
        try:
            mate = board.is_checkmate()
            wdl = 2 if mate else -tables.probe_wdl(board)
        finally:
            board.pop()
        if mate:
            ranked.append((move, 2, 1, True))
        elif zeroing:
            # Right after a zeroing move the WDL value is exact, and it is all DTZ says.
            ranked.append((move, wdl, chess.syzygy.dtz_before_zeroing(wdl), True))
        else:
            ranked.append((move, wdl, 0 if wdl == 0 else None, False))
    top = max(_counted(wdl, rule50) for _, wdl, _, _ in ranked)
    keep = [item for item in ranked if _counted(item[1], rule50) == top]
    # Ascending DTZ serves both sides: the smallest positive DTZ wins fastest, the most negative
    # DTZ loses slowest. Among equals a mate comes first (sorted() keeps the order of `ranked`).
    known = sorted((item for item in keep if item[2] is not None), key=lambda item: item[2])
    best = known[0] if known else None
    unknown = [(move, wdl) for move, wdl, dtz, _ in keep if dtz is None]
    # A mate or a zeroing move that keeps the win (DTZ 1) cannot be bettered.
    if unknown and not (best is not None and best[2] == 1):
        results = {wdl for _, wdl in unknown}
        # Cursed and true wins (or losses) together: each move is looked up as python-chess does.
        wdl = results.pop() if len(results) == 1 else (1 if top > 0 else -1)
        move, dtz = _lowest_dtz(tables, board, [move for move, _ in unknown], wdl)
        if best is None or dtz < best[2]:
            best = (move, top, dtz, False)
    assert best is not None
    best_move, _, dtz, exact = best
    if rule50:
        wdl = _outcome(dtz, clock, exact)
    else:
        wdl = 2 if dtz > 0 else -2 if dtz < 0 else 0
    # (A cursed win's DTZ may pass 1000 plies: its score stays among the tablebase scores.)
    if wdl == 2:
        score = max(TB_WIN_SCORE - dtz, TB_WIN_THRESHOLD)
    elif wdl == -2:
        score = min(-TB_WIN_SCORE - dtz, -TB_WIN_THRESHOLD)
    else:
        score = 0
    moves = [best_move] + [move for move, _, _, _ in keep if move != best_move]
    return RootProbe(moves=moves, wdl=wdl, dtz=dtz, score=score)


def _lowest_dtz(tables: chess.syzygy.Tablebase, board: chess.Board, moves: list[chess.Move],
                wdl: int) -> tuple[chess.Move, int]:
    """The move of `moves` (quiet moves, all with the result `wdl`, or ±1 when cursed and true
    results mix) with the lowest DTZ, and it.

    A DTZ table holds one side to move. When it holds the side to move after `moves`, each
    costs one lookup. When it holds ours instead, python-chess would answer each move with a
    search over the replies (about 100-300 lookups for the root, 0.1-0.3 s); here that search
    is bounded, as alpha-beta: a move's replies are looked at only until one shows it no
    better than the best so far, and the root's own DTZ (one lookup) ends the search once a
    move reaches it.
    """
    if abs(wdl) == 2:
        board.push(moves[0])
        try:
            _, stored = tables.probe_dtz_table(board, -wdl)
        finally:
            board.pop()
    if abs(wdl) != 2 or stored >= 0:
        # (Cursed wins and blessed losses are rare enough for python-chess's own search.)
        best: tuple[chess.Move, int] | None = None
        for move in moves:
            board.push(move)
            try:
                reply = -tables.probe_dtz(board)
            finally:
                board.pop()
            # One more ply for the move itself, away from zero.
            dtz = reply + (reply > 0) - (reply < 0)
            if best is None or dtz < best[1]:
                best = (move, dtz)
        assert best is not None
        return best

    target = tables.probe_dtz(board)
    # Likely best moves first: fewer replies for the loser after ours, or our king more central
    # after ours when we lose. The first moves set the bound that cuts the others short.
    if wdl > 0:
        moves = sorted(moves, key=lambda move: _reply_count(board, move))
    else:
        moves = sorted(moves, key=lambda move: _king_centre_distance(board, move))
    value = _winning_move_dtz if wdl > 0 else _losing_move_dtz
    best = None
    for move in moves:
        board.push(move)
        try:
            dtz = value(tables, board, _NO_BOUND if best is None else best[1])
        finally:
            board.pop()
        if dtz is not None:
            best = (move, dtz)
            if dtz <= target:
                break
    assert best is not None
    return best


_NO_BOUND = 1 << 16


def _reply_count(board: chess.Board, move: chess.Move) -> int:
    board.push(move)
    try:
        return board.legal_moves.count()
    finally:
        board.pop()


def _king_centre_distance(board: chess.Board, move: chess.Move) -> int:
    """How far from the centre the mover's king stands after `move` (0 on d4, d5, e4, e5)."""
    king = move.to_square if move.from_square == board.king(board.turn) else board.king(board.turn)
    assert king is not None
    file, rank = chess.square_file(king), chess.square_rank(king)
    return max(3 - file, file - 4) + max(3 - rank, rank - 4)


def _winning_move_dtz(tables: chess.syzygy.Tablebase, child: chess.Board, bound: int) -> int | None:
    """DTZ of the winning quiet move that led to `child` (the loser to move), or None if it is
    not below `bound`. As python-chess computes it: the loser's longest reply, plus our move."""
    worst = 2  # a zeroing reply by the loser: the move and the reply
    # The loser's most central king moves first: the likeliest to resist longest.
    for reply in sorted(child.legal_moves, key=lambda reply: _king_centre_distance(child, reply)):
        if worst >= bound:
            return None
        if not child.is_zeroing(reply):
            child.push(reply)
            try:
                worst = max(worst, tables.probe_dtz(child) + 2)
            finally:
                child.pop()
    return worst if worst < bound else None


def _losing_move_dtz(tables: chess.syzygy.Tablebase, child: chess.Board, bound: int) -> int | None:
    """DTZ (negative) of the losing quiet move that led to `child` (the winner to move), or None
    if it is not below `bound`. As python-chess computes it: the winner's fastest way to a
    zeroing move (1 for a zeroing move that keeps the win, or a mate), plus our move."""
    # Zeroing replies first (one that keeps the win ends the look at once), then the ones that
    # leave the loser fewest moves: the likeliest to be the fastest.
    replies = []
    for reply in child.legal_moves:
        zeroing = child.is_zeroing(reply)
        child.push(reply)
        replies.append((not zeroing, child.legal_moves.count(), reply))
        child.pop()
    replies.sort(key=lambda item: item[:2])
    shortest = _NO_BOUND
    for quiet, _, reply in replies:
        child.push(reply)
        try:
            if not quiet:
                length = 1 if tables.probe_wdl(child) == -2 else _NO_BOUND
            elif child.is_checkmate():
                length = 1
            else:
                ours = tables.probe_dtz(child)  # the loser's DTZ after the reply, negative
                length = 1 - ours if ours < 0 else _NO_BOUND
        finally:
            child.pop()
        shortest = min(shortest, length)
        if -shortest - 1 >= bound:
            return None
    return -shortest - 1


def _rank_by_wdl(tables: chess.syzygy.Tablebase, board: chess.Board, rule50: bool = True) -> RootProbe:
    """RootProbe from WDL alone, for directories without DTZ tables."""
    ranked = []
    for move in list(board.legal_moves):
        zeroing = board.is_zeroing(move)
        board.push(move)
        try:
            mate = board.is_checkmate()
            wdl = 2 if mate else _counted(-tables.probe_wdl(board), rule50)
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


def tablebase_root_limits(probe: RootProbe, limits: Limits) -> Limits:
    """In the tables: search only the moves that keep the result, and only the one that makes the
    fastest progress (the DTZ-best move) when winning or losing."""
    moves = probe.moves
    if probe.wdl != 0 and probe.dtz is not None:
        moves = moves[:1]
    if limits.searchmoves:
        moves = [m for m in moves if m in limits.searchmoves] or limits.searchmoves
    return replace(limits, searchmoves=moves)


def with_tablebase_score(probe: RootProbe, report: Callable[[Info], None]) -> Callable[[Info], None]:
    """``report``, with the tablebase's score in place of the search's (but for a mate found)."""
    def tablebase_report(info: Info) -> None:
        if abs(info.score) < MATE_BOUND:
            info = replace(info, score=probe.score)
        report(replace(info, tbhits=info.tbhits + 1))

    return tablebase_report
