"""The page's "See the pruning" panel: the textbook searches of the position on the board.

For one position and a depth of 1-4 plies it runs the three exact rows of
`scripts/studies/alphabeta_table.py` (Minimax, AlphaBeta, AlphaBeta with move ordering: the same calls,
so the same evaluations, cut-offs and share of the tree cut), then records one of the searches
with `engine.teaching.textbook.recording` and draws it with `engine.teaching.textbook.drawing`: the folding tree in
SAN of `chess_page` and, for trees small enough to read, the SVG picture of the docs.

A `TreeJob` runs in a thread of its own (never in the web server's request thread), reports its
progress (root moves done, positions visited) and stops at the next move the search plays once
it is cancelled. Requests for trees the page cannot hold are refused before anything runs.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import chess

from engine.teaching.textbook.games import ChessGame
from engine.teaching.textbook.ordering import MvvLvaKillers
from engine.teaching.textbook.recording import SearchTrace, trace_alphabeta, trace_minimax, trace_ordered
from engine.teaching.textbook.search import SearchResult, alphabeta, minimax, ordered_alphabeta

MINIMAX = "Minimax"
ALPHABETA = "AlphaBeta"
ORDERED = "AlphaBeta with move ordering"
ROWS = (MINIMAX, ALPHABETA, ORDERED)
# The searches the page can draw, by the name the page sends.
DRAWN = {"ordered": ORDERED, "plain": ALPHABETA, "minimax": MINIMAX}

MIN_DEPTH, MAX_DEPTH = 1, 4
# Minimax visits every position of the tree: above this estimate of its leaves (Kiwipete at
# depth 4 has 4.1 million, about a minute here) the page refuses rather than run for minutes.
MAX_ESTIMATED_LEAVES = 6_000_000
# A guard should the estimate be far off: a search stops past this many positions.
MAX_POSITIONS = 12_000_000
# The folding tree is one HTML list item per position (about 300 bytes): 20,000 make a 6 MB page.
MAX_DRAWN_POSITIONS = 20_000
# The SVG picture lays the whole game tree out one 64-pixel slot per leaf.
MAX_PICTURE_LEAVES = 60


class TreeRequestError(ValueError):
    """A tree the page will not compute, with the reason to show."""


class Cancelled(Exception):
    """The user cancelled the job."""


class TooLarge(Exception):
    """A search passed MAX_POSITIONS."""


def check_request(board: chess.Board, depth: int, drawn: str) -> None:
    """Raise TreeRequestError, with a message for the user, for a request the page refuses."""
    if drawn not in DRAWN:
        raise TreeRequestError(f"unknown search {drawn!r}: choose one of {', '.join(DRAWN)}")
    if not MIN_DEPTH <= depth <= MAX_DEPTH:
        raise TreeRequestError(f"depth {depth} is out of range: the page draws "
                               f"{MIN_DEPTH} to {MAX_DEPTH} plies")
    if board.is_game_over():
        raise TreeRequestError("the game is over in this position: there is no tree to search")
    estimate = estimated_leaves(board, depth)
    if estimate > MAX_ESTIMATED_LEAVES:
        raise TreeRequestError(
            f"too large: Minimax would evaluate about {estimate:,.0f} positions at depth "
            f"{depth} here (the page stops at {MAX_ESTIMATED_LEAVES:,}); choose a smaller depth")


def estimated_leaves(board: chess.Board, depth: int) -> float:
    """About how many leaves Minimax evaluates: the mean branching of two plies, to the depth."""
    moves = list(board.legal_moves)
    if depth == 1 or not moves:
        return len(moves)
    replies = 0
    for move in moves:
        board.push(move)
        replies += max(board.legal_moves.count(), 1)
        board.pop()
    return (replies ** 0.5) ** depth


@dataclass
class Row:
    """One row of the table: what one search did on the position."""

    algorithm: str
    evaluations: int
    cutoffs: int
    nodes: int
    seconds: float
    value: int  # centipawns from White's view
    best_move: str | None  # UCI
    best_san: str | None
    cut_share: float = 0.0  # 1 - evaluations / Minimax's evaluations
    value_text: str = ""  # as the drawings print it: +13, −118, #1


@dataclass
class Progress:
    """What the job is doing, as the page shows it."""

    state: str = "running"  # running, done, cancelled, error
    search: str = MINIMAX
    root_done: int = 0
    root_total: int = 0
    positions: int = 0
    message: str = ""


class WatchedGame(ChessGame):
    """A chess game that counts the search's moves for the progress and stops it when the
    job is cancelled: the searches call `push` for every position, so it is checked there."""

    def __init__(self, board: chess.Board, job: TreeJob) -> None:
        super().__init__(board)
        self.job = job

    def push(self, move: chess.Move) -> None:
        job = self.job
        if job.cancelled.is_set():
            raise Cancelled
        job.progress.positions += 1
        if job.progress.positions > MAX_POSITIONS:
            raise TooLarge
        self.board.push(move)

    def pop(self) -> None:
        self.board.pop()
        if self.board.ply() == self.root_ply:
            self.job.progress.root_done += 1
            self.job.tick()


def _row(algorithm: str, board: chess.Board, result: SearchResult, seconds: float) -> Row:
    from engine.teaching.textbook.drawing import value_text

    c = result.counters
    move = result.best_move
    return Row(algorithm, c.evaluations, c.cutoffs, c.nodes, seconds, result.value,
               move.uci() if move else None, board.san(move) if move else None,
               value_text=value_text(result.value, signed=True))


def run_rows(board: chess.Board, depth: int,
             game: Callable[[], ChessGame] | None = None,
             on_search: Callable[[str], None] | None = None) -> list[Row]:
    """The three exact rows for `board` at `depth`, as `scripts/studies/alphabeta_table.py` computes
    them (same searches, same move orderings), with the share of the tree each cut."""
    make = game or (lambda: ChessGame(board))
    searches = {
        MINIMAX: lambda: minimax(make(), depth),
        ALPHABETA: lambda: alphabeta(make(), depth),
        ORDERED: lambda: ordered_alphabeta(make(), depth, MvvLvaKillers()),
    }
    rows = []
    for algorithm, search in searches.items():
        if on_search:
            on_search(algorithm)
        start = time.perf_counter()
        result = search()
        rows.append(_row(algorithm, board, result, time.perf_counter() - start))
    values = {row.value for row in rows}
    # Alpha-beta never changes minimax's value: a difference is a bug in a search.
    assert len(values) == 1, f"the exact searches disagree on the value: {rows}"
    for row in rows:
        row.cut_share = 1 - row.evaluations / rows[0].evaluations
    return rows


def trace(board: chess.Board, depth: int, algorithm: str,
          game: Callable[[], ChessGame] | None = None) -> SearchTrace:
    """The search of the row `algorithm`, recorded: the same call as in `run_rows`."""
    made = (game or (lambda: ChessGame(board)))()
    if algorithm == ORDERED:
        return trace_ordered(made, depth, MvvLvaKillers())
    if algorithm == ALPHABETA:
        return trace_alphabeta(made, depth)
    return trace_minimax(made, depth)


def san_path_namer(board: chess.Board) -> Callable[[tuple[Any, ...]], str]:
    """Names a state in the SVG picture by the SAN of the move that led to it."""
    def name(path: tuple[Any, ...]) -> str:
        if not path or path[0] is None:
            return "root"
        b = board.copy(stack=False)
        for move in path[:-1]:
            b.push(move)
        return b.san(path[-1])
    return name


def picture(board: chess.Board, depth: int, traces: dict[str, SearchTrace]) -> str:
    """The three searches drawn over the minimax tree, side by side, as in docs/textbook.md."""
    from engine.teaching.textbook.drawing import Panel, tree_svg

    full = traces[MINIMAX]
    panels = [Panel(MINIMAX, full, full, windows=False),
              Panel(ALPHABETA, traces[ALPHABETA], full),
              Panel(ORDERED, traces[ORDERED], full)]
    return tree_svg(panels, san_path_namer(board), signed=True, name_legend="move (SAN)",
                    caption=f"Depth {depth}; values in centipawns from White's view; "
                            "White (MAX) maximises, Black (MIN) minimises.")


@dataclass
class TreeJob:
    """One request of the pruning panel, computed in its own thread."""

    fen: str
    chess960: bool
    depth: int
    drawn: str  # a key of DRAWN
    on_progress: Callable[[TreeJob], None] = lambda job: None
    id: str = ""
    progress: Progress = field(default_factory=Progress)
    rows: list[Row] = field(default_factory=list)
    html: str | None = None  # chess_page of the drawn search, once done
    svg: str | None = None  # the picture, for small trees
    note: str = ""  # why a part is not drawn
    cancelled: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None
    _last_tick: float = 0.0

    def board(self) -> chess.Board:
        return chess.Board(self.fen, chess960=self.chess960)

    def start(self) -> None:
        self.thread = threading.Thread(target=self._run, name=f"tree-{self.id}", daemon=True)
        self.thread.start()

    def cancel(self) -> None:
        self.cancelled.set()

    def tick(self, force: bool = False) -> None:
        """Report progress, at most five times a second."""
        now = time.monotonic()
        if force or now - self._last_tick >= 0.2:
            self._last_tick = now
            self.on_progress(self)

    def _game(self) -> ChessGame:
        board = self.board()
        self.progress.root_done = 0
        self.progress.positions = 0
        self.progress.root_total = board.legal_moves.count()
        return WatchedGame(board, self)

    def _searching(self, algorithm: str) -> None:
        self.progress.search = algorithm
        self.tick(force=True)

    def _run(self) -> None:
        board = self.board()
        try:
            self.rows = run_rows(board, self.depth, self._game, self._searching)
            drawn = DRAWN[self.drawn]
            row = next(r for r in self.rows if r.algorithm == drawn)
            if row.nodes > MAX_DRAWN_POSITIONS:
                self.note = (f"{drawn} visits {row.nodes:,} positions here, more than the "
                             f"{MAX_DRAWN_POSITIONS:,} the page draws: the counts are above; "
                             "draw a smaller depth or the ordered search")
            else:
                self._searching(f"drawing {drawn}")
                self.html = self._page(board, drawn, row)
            if self.rows[0].evaluations <= MAX_PICTURE_LEAVES:
                traces = {name: trace(board, self.depth, name) for name in ROWS}
                self.svg = picture(board, self.depth, traces)
            self.progress.state = "done"
        except Cancelled:
            self.progress.state = "cancelled"
            self.progress.message = "cancelled"
        except TooLarge:
            self.progress.state = "error"
            self.progress.message = (f"stopped: {self.progress.search} passed "
                                     f"{MAX_POSITIONS:,} positions; choose a smaller depth")
        except Exception as error:  # shown to the user rather than lost in a thread
            self.progress.state = "error"
            self.progress.message = f"{type(error).__name__}: {error}"
        self.tick(force=True)

    def _page(self, board: chess.Board, drawn: str, row: Row) -> str:
        from engine.teaching.textbook.drawing import chess_page

        recorded = trace(board, self.depth, drawn, self._game)
        c = recorded.result.counters
        # The drawing must be the row's search: the same positions, leaves and cut-offs.
        if (c.nodes, c.evaluations, c.cutoffs) != (row.nodes, row.evaluations, row.cutoffs):
            raise AssertionError(f"the drawn tree counts {c}, its row {row}")
        return chess_page(board, recorded, self.depth, drawn)

    def summary(self) -> dict[str, Any]:
        """What the page shows of the job (the drawings are fetched by address)."""
        return {"id": self.id, "depth": self.depth, "drawn": DRAWN[self.drawn],
                "fen": self.fen, "progress": asdict(self.progress),
                "rows": [asdict(row) for row in self.rows], "has_tree": self.html is not None,
                "has_picture": self.svg is not None, "note": self.note}
