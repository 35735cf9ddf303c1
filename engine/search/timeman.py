"""Time management: the limits of a `go` command and the time budget derived from them.

The search gets two deadlines: a soft one (do not start another iteration after it) and a hard
one (abort the iteration in progress and play the best move found so far). Both are in seconds
from the moment the clock starts for us (the `go`, or the `ponderhit` when pondering). Under a
clock the soft one stretches or shrinks with how settled the search is (`soft_scale`). Their
numbers are search parameters (engine/search/params.py: MOVES_TO_GO, INCREMENT_SHARE, SOFT_SHARE,
SETTLED_SCALE), so a tuner of games sets them as it sets the kernel's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import chess
import numpy as np

from engine.search import params


@dataclass
class Limits:
    """What a `go` command asks for; ``None`` means "not given"."""

    wtime: int | None = None  # milliseconds
    btime: int | None = None
    winc: int = 0
    binc: int = 0
    movestogo: int | None = None
    movetime: int | None = None
    depth: int | None = None
    nodes: int | None = None
    mate: int | None = None  # moves, as in `go mate N`
    infinite: bool = False
    ponder: bool = False
    searchmoves: list[chess.Move] = field(default_factory=list)
    perft: int | None = None

    def has_clock(self) -> bool:
        return self.wtime is not None or self.btime is not None


@dataclass
class TimeBudget:
    soft: float | None  # seconds; None: no time limit
    hard: float | None
    flexible: bool = False  # the soft limit may be scaled by `soft_scale` (clock games only)


# The engine cannot answer faster than this after a deadline: the scout kernel reads its stop word
# every 1024 nodes (a few ms), the Python nodes read the clock every few dozen, then the answer is
# printed.
REACTION_MARGIN = 0.015
# A `go movetime` has no clock to protect, only a promise to answer at the movetime: the search
# stops this much before it, the time it takes to notice the deadline and print `bestmove`
# (measured by bench/movetime.py).
MOVETIME_MARGIN = 0.002


def budget(limits: Limits, turn: chess.Color, move_overhead_ms: int,
           parameters: np.ndarray | None = None) -> TimeBudget:
    """Soft and hard deadlines for the side to move, with ``Move Overhead`` kept in reserve on a
    clock. A `go movetime` searches for the whole movetime, as in Stockfish: Move Overhead is a
    reserve against losing on time, and a fixed time per move has no clock to lose.

    A `go ponder` is budgeted like the same `go` without `ponder`: the engine applies the budget
    from the `ponderhit` on, and searches without a limit until then. ``parameters``: the search's
    (default `params.active()`).
    """
    if limits.infinite:
        return TimeBudget(None, None)
    if limits.movetime is not None:
        usable = max(0.001, limits.movetime / 1000 - MOVETIME_MARGIN)
        return TimeBudget(usable, usable)
    overhead = move_overhead_ms / 1000
    if not limits.has_clock():
        return TimeBudget(None, None)

    clock = limits.wtime if turn == chess.WHITE else limits.btime
    if clock is None:
        clock = limits.btime if turn == chess.WHITE else limits.wtime
    increment = (limits.winc if turn == chess.WHITE else limits.binc) / 1000
    remaining = (clock or 0) / 1000 - overhead - REACTION_MARGIN
    if remaining <= 0:
        # Inside the reserve: answer as fast as possible and let the increment refill the clock.
        return TimeBudget(0.001, 0.002)

    parameters = params.active() if parameters is None else parameters
    moves_to_go = limits.movestogo if limits.movestogo else int(parameters[params.MOVES_TO_GO])
    moves_to_go = max(1, min(moves_to_go, 50))
    share = remaining / moves_to_go + increment * float(parameters[params.INCREMENT_SHARE]) / 100
    # The last move before a time control may use much of what is left, never all of it.
    hard = min(share * 4, remaining * (0.7 if moves_to_go == 1 else 0.3))
    soft = min(share * float(parameters[params.SOFT_SHARE]) / 100, hard)
    return TimeBudget(max(0.001, soft), max(0.002, hard), flexible=True)


def soft_scale(best_move_changes: float, score_drop: int,
               parameters: np.ndarray | None = None) -> float:
    """The factor on the soft limit after an iteration: SETTLED_SCALE hundredths while the best
    move stays put, up to 2.5 while it keeps changing or the score is falling (the hard limit
    still caps it).

    ``best_move_changes`` counts changes of the best move, halved at every iteration, so recent
    ones weigh most; ``score_drop`` is how many centipawns the score fell in the last iteration.
    """
    parameters = params.active() if parameters is None else parameters
    scale = float(parameters[params.SETTLED_SCALE]) / 100 + 0.8 * best_move_changes
    if score_drop > 15:
        scale *= 1.0 + min(score_drop, 150) / 150
    return min(scale, 2.5)
