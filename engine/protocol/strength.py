"""Playing strength below full: `Skill Level`, `UCI_LimitStrength` and `UCI_Elo`.

A level is a number from 0 (weakest) to 20 (full strength). Below 20 the engine is weakened by
honest means only: its search is capped in depth and nodes, it searches several lines (MultiPV),
and it plays one of them at random, weighted towards the best, among those within a margin of the
best score. Both the margin and the randomness shrink as the level rises. Nothing ever waits.
`UCI_Elo` maps to the two measured levels of ``ELO_AT_LEVEL`` (games against Stockfish,
docs/strength-levels.md) around it, and each game is played at one of them.
"""

from __future__ import annotations

import bisect
import math
import random
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Callable

import chess

from engine.evaluation.score import MATE_BOUND

if TYPE_CHECKING:
    from engine.search.results import Info
    from engine.search.root import Search
    from engine.search.timeman import Limits

FULL_LEVEL = 20
# The Elo measured at some levels: Stockfish 15.1's UCI_Elo scale, the machine-scaled 10 s + 0.1 s,
# 100 games or more each (docs/strength-levels.md prints this table); levels 0 and 3, below
# Stockfish's lowest UCI_Elo, chained to level 5. UCI_Elo runs from the first to the last, full
# strength as measured.
ELO_AT_LEVEL: tuple[tuple[int, int], ...] = (
    (0, 287), (3, 650), (5, 926), (8, 1254), (10, 1449), (12, 1752), (15, 1879), (17, 2221),
    (20, 2667))
ELO_MIN = ELO_AT_LEVEL[0][1]
ELO_MAX = ELO_AT_LEVEL[-1][1]  # full strength
CANDIDATES = 4  # lines searched (MultiPV) just below full strength; more at low levels


@dataclass(frozen=True)
class Plan:
    """How a level searches and chooses."""

    level: float
    depth: int | None  # None: no cap
    nodes: int | None
    candidates: int  # MultiPV lines to choose from
    margin: int  # centipawns: lines worse than the best by more are never played
    temperature: float  # centipawns: a line's weight is exp(-(loss) / temperature)

    @property
    def full(self) -> bool:
        return self.level >= FULL_LEVEL


def plan_for_level(level: float) -> Plan:
    """The search caps and the choice of a level in [0, 20] (20: full strength, no caps)."""
    level = min(max(float(level), 0.0), float(FULL_LEVEL))
    if level >= FULL_LEVEL:
        return Plan(level, None, None, 1, 0, 0.0)
    weakness = 1.0 - level / FULL_LEVEL  # 1 at level 0, 0.05 at level 19
    # Squared: the first probe (10 games a level against Stockfish UCI_Elo 1350) found level 0
    # near 1300 and the levels bunched together; low levels now choose among more, worse lines.
    return Plan(level=level,
                depth=_depth_cap(level),
                # Caps a depth that a busy position would make slow; never binds at depth 1.
                nodes=int(5000 * 2 ** (level / 3)),
                candidates=CANDIDATES + round(6 * weakness ** 2),
                margin=int(10 + 800 * weakness ** 2),
                temperature=1.0 + 300.0 * weakness ** 2)


def _depth_cap(level: float) -> int:
    """1 + level/3 up to level 15 (depth 6), then two plies a level: full strength reaches depth
    12 or so at the scaled 10 s + 0.1 s, and a slower climb left a cliff between 19 and 20."""
    if level <= 15:
        return 1 + int(level // 3)
    return int(6 + 2 * (level - 15))


def level_for_game(options: dict, rng: random.Random) -> int:
    """The level one game is played at. A Skill Level is itself. A UCI_Elo between two measured
    levels plays each game at one of them, the stronger with the probability that makes the
    expected score against a player of that Elo even (the logistic Elo model, from the two
    levels' measured Elo). A level in between is not measured: its depth cap steps every third
    level, so its strength is not on a line between them; and moves mixed from both levels within
    one game play at the weaker's strength more than at the share of its moves (docs/
    strength-levels.md)."""
    if not options.get("UCI_LimitStrength"):
        return round(options.get("Skill Level", FULL_LEVEL))
    weaker, stronger, share = levels_for_elo(options["UCI_Elo"])
    return stronger if rng.random() < share else weaker


def levels_for_elo(elo: int) -> tuple[int, int, float]:
    """The measured levels just below and just above ``elo`` (both the same at a measured Elo), and
    the share of its games that `level_for_game` plays at the stronger."""
    elo = min(max(elo, ELO_MIN), ELO_MAX)
    elos = [e for _, e in ELO_AT_LEVEL]
    i = bisect.bisect_left(elos, elo)
    if elos[i] == elo:
        return ELO_AT_LEVEL[i][0], ELO_AT_LEVEL[i][0], 1.0
    (weaker, weaker_elo), (stronger, stronger_elo) = ELO_AT_LEVEL[i - 1], ELO_AT_LEVEL[i]
    low, high = expected_score(weaker_elo, elo), expected_score(stronger_elo, elo)
    return weaker, stronger, (0.5 - low) / (high - low)


def expected_score(elo: float, opponent: float) -> float:
    """The logistic Elo model's expected score of a player of ``elo`` against ``opponent``."""
    return 1.0 / (1.0 + 10.0 ** ((opponent - elo) / 400.0))


@dataclass
class Line:
    """One searched line: its score (centipawns or mate score, side to move) and moves."""

    score: int
    pv: list[chess.Move] = field(default_factory=list)


def choose(lines: list[Line], plan: Plan, rng: random.Random) -> Line:
    """The line to play: the best at full strength, else a weighted random one within the margin.

    ``lines`` come best first. A line worse by ``loss`` centipawns weighs exp(-loss / temperature);
    a won mate is always played when found (only a full-strength search finds it reliably anyway,
    and refusing it looks like a bug, not like weakness).
    """
    if not lines:
        raise ValueError("no line to choose from")
    best = lines[0]
    if plan.full or len(lines) == 1 or best.score >= MATE_BOUND:
        return best
    eligible = [line for line in lines if best.score - line.score <= plan.margin]
    weights = [math.exp(-(best.score - line.score) / plan.temperature) for line in eligible]
    return rng.choices(eligible, weights=weights, k=1)[0]


def weakened_move(search: Search, board: chess.Board, limits: Limits, plan: Plan, shown: int,
                  rng: random.Random, report: Callable[[Info], None]
                  ) -> tuple[chess.Move | None, chess.Move | None]:
    """Below full strength: a search capped by ``plan`` over several lines, then `choose` among
    them. Only the ``shown`` lines the user asked for (MultiPV) are reported while searching; the
    chosen line is reported last, as line 1, so that the GUI's PV agrees with the bestmove."""
    lines: dict[int, Info] = {}

    def collect(info: Info) -> None:
        if info.bound is None:
            lines[info.multipv] = info
        if info.multipv <= shown:
            report(info)

    depth = min(d for d in (limits.depth, plan.depth) if d is not None)
    nodes = min(n for n in (limits.nodes, plan.nodes) if n is not None)
    capped = replace(limits, depth=depth, nodes=nodes)
    result = search.run(board, capped, max(shown, plan.candidates), report=collect)
    if not lines:  # no iteration completed (a tiny clock): the search's own move
        return result.best_move, result.ponder_move
    ordered = [lines[k] for k in sorted(lines)]
    chosen = choose([Line(info.score, info.pv) for info in ordered], plan, rng)
    info = next(info for info in ordered if info.pv == chosen.pv)
    report(replace(info, multipv=1, nodes=search.nodes, time=search.elapsed()))
    ponder = chosen.pv[1] if len(chosen.pv) > 1 else None
    return chosen.pv[0], ponder
