"""Runs a UCI engine over an EPD test suite and reports how many it solves.

Plain suites (Bratko-Kopec, ECM) are scored by their ``bm`` / ``am``
operations: a position is solved when the engine's move is one of the best
moves and none of the avoid moves. The Strategic Test Suite (STS) also gives
points per move: ``c9`` lists moves in UCI and ``c8`` their points (10 for the
best), so a run scores up to 10 points per position, reported overall and per
theme (the theme is the ``id`` without its number, e.g. "STS(v1.0) Undermine").

Example::

    scripts/matches/epd.py --engine scripts/brudno --movetime 1 \\
        ../shared/data/tactics/bratko_kopec_test.epd
    scripts/matches/epd.py --engine /usr/games/stockfish --depth 6 --concurrency 2 \\
        ../shared/data/tactics/STS1-STS15_LAN_v3.epd
"""
from __future__ import annotations

import argparse
import asyncio
import collections
import dataclasses
import logging
import re
import shlex
import sys
from typing import Dict, List, Optional, Sequence, TextIO, Tuple

import chess
import chess.engine

from scripts.matches.match import EngineSpec, EngineStartError, Player, parse_options

MAX_POINTS = 10


@dataclasses.dataclass
class EpdPosition:
    """One test position with what counts as a right answer."""

    board: chess.Board
    id: str
    best: List[chess.Move] = dataclasses.field(default_factory=list)
    avoid: List[chess.Move] = dataclasses.field(default_factory=list)
    points: Dict[chess.Move, int] = dataclasses.field(default_factory=dict)

    @property
    def theme(self) -> str:
        return theme_of(self.id)


def theme_of(epd_id: str) -> str:
    """The id without its trailing number: "STS(v1.0) Undermine.001" -> "STS(v1.0) Undermine"."""
    return re.sub(r"[.\s]*\d+$", "", epd_id) or epd_id


def theme_key(theme: str) -> str:
    """What themes are grouped by: the STS version tag where there is one.

    The STS file names one theme two ways ("Knight Outposts/Repositioning/
    Centralization" and ".../Centralization/Repositioning"); its tag is the same.
    """
    m = re.match(r"STS\(v[\d.]+\)", theme)
    return m.group(0) if m else theme


def parse_sts_points(board: chess.Board, c8: str, c9: str) -> Dict[chess.Move, int]:
    """Points per move from STS's c8 (points) and c9 (UCI moves) fields.

    A move listed twice (a few STS lines do that) keeps its higher score.
    """
    scores, moves = c8.split(), c9.split()
    if len(scores) != len(moves):
        raise ValueError(f"c8 has {len(scores)} scores but c9 has {len(moves)} moves")
    points: Dict[chess.Move, int] = {}
    for uci, score in zip(moves, scores):
        move = board.parse_uci(uci)
        points[move] = max(points.get(move, 0), int(score))
    return points


def parse_epd_line(line: str, fallback_id: str = "") -> EpdPosition:
    """Parses one EPD line; bm/am are SAN (python-chess resolves them)."""
    board, ops = chess.Board.from_epd(line)
    epd_id = str(ops.get("id", fallback_id))
    position = EpdPosition(board, epd_id, list(ops.get("bm", [])), list(ops.get("am", [])))
    if "c8" in ops and "c9" in ops:
        position.points = parse_sts_points(board, str(ops["c8"]), str(ops["c9"]))
    if not (position.best or position.avoid or position.points):
        raise ValueError("position has no bm, am or c8/c9")
    return position


def load_suite(path: str) -> List[EpdPosition]:
    """All positions of an EPD file, in file order."""
    positions = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            try:
                positions.append(parse_epd_line(line, fallback_id=f"line {lineno}"))
            except ValueError as err:
                raise ValueError(f"{path}:{lineno}: {err}") from None
    return positions


def is_solved(position: EpdPosition, move: Optional[chess.Move]) -> bool:
    """bm: the move is a best move; am: it is not an avoid move; both when both are given.

    An STS position without bm counts as solved for its full-points move.
    """
    if move is None:
        return False
    if position.avoid and move in position.avoid:
        return False
    if position.best:
        return move in position.best
    if position.points and not position.avoid:
        return position.points.get(move, 0) == max(position.points.values())
    return True


def points_for(position: EpdPosition, move: Optional[chess.Move]) -> int:
    """STS points of the move played (0 for unlisted moves or no move)."""
    if move is None:
        return 0
    return min(position.points.get(move, 0), MAX_POINTS)


@dataclasses.dataclass
class PositionResult:
    index: int
    position: EpdPosition
    move: Optional[chess.Move]
    solved: bool
    points: int
    error: Optional[str] = None


def score_position(index: int, position: EpdPosition, move: Optional[chess.Move],
                   error: Optional[str] = None) -> PositionResult:
    return PositionResult(index, position, move, is_solved(position, move), points_for(position, move), error)


@dataclasses.dataclass
class ThemeScore:
    name: str
    positions: int = 0
    solved: int = 0
    points: int = 0
    scored_positions: int = 0  # positions that carry STS points

    @property
    def max_points(self) -> int:
        return MAX_POINTS * self.scored_positions


def tally(results: Sequence[PositionResult]) -> Tuple[ThemeScore, List[ThemeScore]]:
    """Overall and per-theme totals (themes in order of first appearance)."""
    overall = ThemeScore("total")
    themes: Dict[str, ThemeScore] = {}
    names: Dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for result in sorted(results, key=lambda r: r.index):
        key = theme_key(result.position.theme)
        names[key][result.position.theme] += 1
        theme = themes.setdefault(key, ThemeScore(key))
        for score in (overall, theme):
            score.positions += 1
            score.solved += result.solved
            if result.position.points:
                score.scored_positions += 1
                score.points += result.points
    for key, theme in themes.items():
        theme.name = names[key].most_common(1)[0][0]
    return overall, list(themes.values())


def _pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def describe_result(result: PositionResult) -> str:
    """One line per position for --verbose."""
    board = result.position.board
    played = board.san(result.move) if result.move is not None and result.move in board.legal_moves else (
        result.move.uci() if result.move is not None else "none")
    parts = [f"{result.position.id:<45}", f"{played:<8}", "ok" if result.solved else "--"]
    if result.position.points:
        parts.append(f"{result.points:>2}/{MAX_POINTS}")
    if result.position.best:
        parts.append("bm " + " ".join(board.san(m) for m in result.position.best))
    if result.position.avoid:
        parts.append("am " + " ".join(board.san(m) for m in result.position.avoid))
    if result.error:
        parts.append(f"[{result.error}]")
    return " ".join(parts)


def report(results: Sequence[PositionResult], title: str) -> str:
    """The summary line, plus a per-theme table when the suite has STS points."""
    overall, themes = tally(results)
    line = f"{title}: solved {overall.solved}/{overall.positions} ({_pct(overall.solved, overall.positions)})"
    if overall.scored_positions:
        line += f", points {overall.points}/{overall.max_points} ({_pct(overall.points, overall.max_points)})"
    errors = sum(1 for r in results if r.error)
    if errors:
        line += f", engine errors {errors}"
    lines = [line]
    if overall.scored_positions:
        width = max(len(t.name) for t in themes)
        for t in themes:
            lines.append(f"  {t.name:<{width}}  points {t.points:>4}/{t.max_points:<4} "
                         f"({_pct(t.points, t.max_points):>6})  solved {t.solved:>3}/{t.positions}")
    return "\n".join(lines)


async def run_suite(positions: Sequence[EpdPosition], spec: EngineSpec, limit: chess.engine.Limit,
                    concurrency: int = 1, move_timeout: float = 300.0, init_timeout: float = 120.0,
                    verbose: Optional[TextIO] = None) -> Tuple[List[PositionResult], str]:
    """Asks the engine for a move in every position; returns the results and the engine's name.

    Each position starts with ucinewgame, so results do not depend on order.
    A crash or hang scores the position as unsolved and restarts the engine.
    """
    queue = collections.deque(enumerate(positions))
    results: List[PositionResult] = []
    players = [Player(spec, init_timeout) for _ in range(max(1, min(concurrency, len(positions))))]
    timeout = (limit.time or 0.0) + 5.0 if limit.time is not None else move_timeout
    try:
        for player in players:  # one at a time: a launcher may build its venv on first run
            await player.start()
        name = spec.name or players[0].id_name() or spec.command[0]

        async def worker(player: Player) -> None:
            while queue:
                index, position = queue.popleft()
                move, error = None, None
                try:
                    await player.new_game()
                    played, _ = await player.play(position.board, limit, timeout)
                    move = played.move
                except asyncio.TimeoutError:
                    error = "timeout"
                except (chess.engine.EngineError, EngineStartError) as err:
                    error = str(err) or type(err).__name__
                if error:
                    await player.kill()
                result = score_position(index, position, move, error)
                results.append(result)
                if verbose:
                    print(describe_result(result), file=verbose, flush=True)

        await asyncio.gather(*(worker(p) for p in players))
        return sorted(results, key=lambda r: r.index), name
    finally:
        for player in players:
            await player.close()


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("suite", help="EPD file")
    p.add_argument("--engine", required=True, metavar="CMD", help="engine command line (shell-split)")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="UCI option (repeatable)")
    p.add_argument("--name", help="engine name for the report")
    p.add_argument("--movetime", type=float, metavar="SECONDS", help="time per position")
    p.add_argument("--depth", type=int, help="depth per position")
    p.add_argument("--nodes", type=int, help="nodes per position")
    p.add_argument("--limit", type=int, metavar="N", help="only the first N positions")
    p.add_argument("--concurrency", type=int, default=1, help="positions in parallel (default 1)")
    p.add_argument("--move-timeout", type=float, default=300.0, metavar="SECONDS",
                   help="hang limit per position with --depth/--nodes (default 300)")
    p.add_argument("--verbose", action="store_true", help="print each position's result")
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.movetime is None and args.depth is None and args.nodes is None:
        parser.error("give --movetime, --depth or --nodes")
    if (args.movetime is not None and args.movetime <= 0) or any(
            v is not None and v < 1 for v in (args.depth, args.nodes, args.limit, args.concurrency)):
        parser.error("--movetime, --depth, --nodes, --limit and --concurrency must be positive")
    try:
        positions = load_suite(args.suite)
        spec = EngineSpec(shlex.split(args.engine), parse_options(args.option), args.name)
    except (OSError, ValueError) as err:
        parser.error(str(err))
    if not spec.command:
        parser.error("--engine is empty")
    if args.limit:
        positions = positions[:args.limit]
    logging.basicConfig(level=logging.ERROR, format="%(message)s")

    limit = chess.engine.Limit(time=args.movetime, depth=args.depth, nodes=args.nodes)
    try:
        results, name = asyncio.run(run_suite(positions, spec, limit, args.concurrency, args.move_timeout,
                                              verbose=sys.stdout if args.verbose else None))
    except EngineStartError as err:
        print(f"epd.py: {err}", file=sys.stderr)
        return 3
    what = ", ".join(f"{k} {v:g}" for k, v in (("movetime", args.movetime), ("depth", args.depth),
                                                ("nodes", args.nodes)) if v is not None)
    print(report(results, f"{args.suite.rsplit('/', 1)[-1]} [{name}, {what}]"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
