"""Plays matches between two UCI engines and reports the score, Elo and SPRT.

The runner keeps a real clock for each side (the wall time of every move is
charged against it), plays each opening twice with colours reversed, ends
games only by the rules of chess (no adjudication unless ``--max-moves`` is
given), and makes every abnormal ending visible: time forfeits, illegal moves
and crashed or hung engines are reported per engine and written into the PGN.

Example::

    scripts/matches/match.py --engine1 scripts/brudno --option1 Hash=32 \\
        --engine2 /usr/games/stockfish --option2 UCI_LimitStrength=true \\
        --option2 UCI_Elo=1350 --tc 10+0.1 --games 100 --concurrency 2 \\
        --openings ../shared/data/openings/8moves_v3_sample992.epd \\
        --pgn out/match.pgn --sprt 0 10

The clock accounting and opening schedule are plain functions at the top, so tests can import
them; the statistics (score, Elo with error bars, SPRT) are in scripts/matches/stats.py.
"""
from __future__ import annotations

import argparse
import asyncio
import collections
import dataclasses
import datetime
import logging
import math
import os
import random
import shlex
import signal
import sys
import time
from typing import Deque, Dict, List, Optional, Sequence, Tuple, TextIO

import chess
import chess.engine
import chess.pgn

from scripts.matches.stats import (elo_estimate, likelihood_of_superiority, score_fraction, sprt_bounds,
                         sprt_decision, sprt_llr)


# ---------------------------------------------------------------------------
# Time control and clock accounting


@dataclasses.dataclass(frozen=True)
class TimeControl:
    """Sudden death with increment, both in seconds."""

    base: float
    inc: float = 0.0

    def pgn(self) -> str:
        return f"{_fmt_seconds(self.base)}+{_fmt_seconds(self.inc)}"


def _fmt_seconds(x: float) -> str:
    return f"{x:g}"


def parse_tc(text: str) -> TimeControl:
    """Parses ``base+inc`` (or just ``base``) in seconds, e.g. ``10+0.1``."""
    base_text, sep, inc_text = text.partition("+")
    try:
        base = float(base_text)
        inc = float(inc_text) if sep else 0.0
    except ValueError:
        raise ValueError(f"time control must look like BASE+INC in seconds, got {text!r}") from None
    if not (base > 0 and inc >= 0 and math.isfinite(base) and math.isfinite(inc)):
        raise ValueError(f"time control needs BASE > 0 and INC >= 0, got {text!r}")
    return TimeControl(base, inc)


def charge_clock(remaining: float, elapsed: float, inc: float) -> Tuple[float, bool]:
    """Charges one move's wall time to a clock.

    Returns the new remaining time and whether the side flagged. The increment
    is only added for a move completed in time: a clock that went below zero
    has already lost, and adding the increment would hide that.
    """
    left = remaining - elapsed
    if left < 0:
        return left, True
    return left + inc, False


# ---------------------------------------------------------------------------
# Openings and the game schedule


@dataclasses.dataclass(frozen=True)
class ScheduledGame:
    """One game of the match: its number (1-based), opening and colours."""

    number: int
    opening_index: int
    engine1_white: bool


def load_openings(path: str, chess960: bool = False) -> List[str]:
    """Reads an EPD (or FEN) file and returns the positions as FENs (Shredder-FEN for Chess960)."""
    fens = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            try:
                board, _ = chess.Board.from_epd(line, chess960=chess960)
            except ValueError as err:
                raise ValueError(f"{path}:{lineno}: cannot parse opening: {err}") from None
            fens.append(board.fen(shredder=chess960))
    if not fens:
        raise ValueError(f"{path}: no openings")
    return fens


def chess960_openings() -> List[str]:
    """The 960 Chess960 start positions in Scharnagl numbering, as Shredder-FENs."""
    return [chess.Board.from_chess960_pos(n).fen(shredder=True) for n in range(960)]


def opening_order(n_openings: int, seed: Optional[int]) -> List[int]:
    """File order without a seed; a reproducible shuffle with one."""
    order = list(range(n_openings))
    if seed is not None:
        random.Random(seed).shuffle(order)
    return order


def schedule_games(n_games: int, n_openings: int, seed: Optional[int] = None) -> List[ScheduledGame]:
    """Game pairs: each opening is played twice, engine1 White then Black.

    Engine1's colour therefore alternates from game to game. Openings wrap
    around when there are more pairs than openings.
    """
    order = opening_order(n_openings, seed)
    return [
        ScheduledGame(number=i + 1, opening_index=order[(i // 2) % n_openings], engine1_white=(i % 2 == 0))
        for i in range(n_games)
    ]


# ---------------------------------------------------------------------------
# Results and terminations

CHECKMATE = "checkmate"
STALEMATE = "stalemate"
INSUFFICIENT = "insufficient material"
FIFTY_MOVES = "fifty-move rule"
REPETITION = "threefold repetition"
TIME_FORFEIT = "time forfeit"
ILLEGAL_MOVE = "illegal move"
CRASH = "engine crash"
HANG = "engine hang"
MAX_MOVES = "max moves"


def result_string(winner: Optional[chess.Color]) -> str:
    """PGN result from the winning colour (None for a draw)."""
    if winner is None:
        return "1/2-1/2"
    return "1-0" if winner == chess.WHITE else "0-1"


def rules_termination(board: chess.Board) -> Optional[Tuple[Optional[chess.Color], str]]:
    """(winner, reason) if the game is over by the rules, else None.

    Threefold repetition and the fifty-move rule end the game as soon as they
    are claimable from the position on the board. This deliberately does not
    use ``board.outcome(claim_draw=True)``: python-chess also counts a claim
    made by announcing a move that *would* repeat or reach 100 half-moves,
    which ends games a move early, even for a side that would play on.
    """
    if board.is_checkmate():
        return (not board.turn, CHECKMATE)
    if board.is_stalemate():
        return (None, STALEMATE)
    if board.is_insufficient_material():
        return (None, INSUFFICIENT)
    if board.is_fifty_moves():
        return (None, FIFTY_MOVES)
    if board.is_repetition(3):
        return (None, REPETITION)
    return None


def time_forfeit_winner(board: chess.Board, flagged: chess.Color) -> Optional[chess.Color]:
    """The flagging side loses, unless the opponent could never mate (then a draw)."""
    opponent = not flagged
    return None if board.has_insufficient_material(opponent) else opponent


# ---------------------------------------------------------------------------
# Engines


@dataclasses.dataclass
class EngineSpec:
    """How to start one engine: command line, UCI options, display name."""

    command: List[str]
    options: Dict[str, str] = dataclasses.field(default_factory=dict)
    name: Optional[str] = None


def parse_options(pairs: Sequence[str]) -> Dict[str, str]:
    """Turns repeated ``name=value`` arguments into a dict (order kept)."""
    options: Dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"UCI option must be NAME=VALUE, got {pair!r}")
        options[name.strip()] = value.strip()
    return options


class EngineStartError(Exception):
    """An engine could not be started or configured."""


class _Protocol(chess.engine.UciProtocol):
    # Keeps the engine's last stderr lines so a crash report can show them
    # (python-chess would otherwise log every stderr line as a warning).
    def __init__(self) -> None:
        super().__init__()
        self.stderr_tail: Deque[str] = collections.deque(maxlen=20)

    def error_line_received(self, line: str) -> None:
        self.stderr_tail.append(line)


class Player:
    """One engine process of one worker, restarted after it misbehaves."""

    def __init__(self, spec: EngineSpec, init_timeout: float) -> None:
        self.spec = spec
        self.init_timeout = init_timeout
        self.transport: Optional[asyncio.SubprocessTransport] = None
        self.protocol: Optional[_Protocol] = None

    @property
    def alive(self) -> bool:
        return self.protocol is not None and not self.protocol.returncode.done()

    def stderr_tail(self) -> List[str]:
        return list(self.protocol.stderr_tail) if self.protocol else []

    async def start(self) -> None:
        """Starts the process, runs the UCI handshake and sets the options."""
        await self.kill()
        try:
            self.transport, self.protocol = await _Protocol.popen(self.spec.command)
        except OSError as err:
            raise EngineStartError(f"cannot run {shlex.join(self.spec.command)}: {err}") from None
        try:
            await asyncio.wait_for(self.protocol.initialize(), self.init_timeout)
            if self.spec.options:
                await asyncio.wait_for(self.protocol.configure(self.spec.options), self.init_timeout)
        except asyncio.TimeoutError:
            await self.kill()
            raise EngineStartError(f"{shlex.join(self.spec.command)}: no UCI handshake within {self.init_timeout:g} s") from None
        except chess.engine.EngineError as err:
            tail = self.stderr_tail()
            await self.kill()
            detail = f" (stderr: {tail[-1]})" if tail else ""
            raise EngineStartError(f"{shlex.join(self.spec.command)}: {err}{detail}") from None

    def id_name(self) -> Optional[str]:
        return self.protocol.id.get("name") if self.protocol else None

    async def new_game(self) -> None:
        """Starts the process if needed, then ucinewgame and isready.

        Done before the clocks start, so an engine that clears its tables on
        ucinewgame is not charged for it. python-chess would otherwise send
        ucinewgame inside the first timed ``play`` of an engine process.
        """
        if not self.alive:
            await self.start()
        assert self.protocol is not None
        self.protocol.send_line("ucinewgame")
        self.protocol.first_game = False
        await asyncio.wait_for(self.protocol.ping(), self.init_timeout)

    async def play(self, board: chess.Board, limit: chess.engine.Limit, timeout: float) -> Tuple[chess.engine.PlayResult, float]:
        """Asks for a move; returns it with the wall time the request took."""
        assert self.protocol is not None
        start = time.perf_counter()
        result = await asyncio.wait_for(
            self.protocol.play(board, limit, info=chess.engine.INFO_BASIC | chess.engine.INFO_SCORE), timeout)
        return result, time.perf_counter() - start

    async def kill(self) -> None:
        if self.transport is not None:
            try:
                self.transport.kill()
            except ProcessLookupError:
                pass
            if self.protocol is not None:
                try:
                    await asyncio.wait_for(asyncio.shield(self.protocol.returncode), 5.0)
                except asyncio.TimeoutError:
                    pass
            self.transport.close()
        self.transport = None

    async def close(self) -> None:
        """Asks the engine to quit, killing it if it does not."""
        if self.alive:
            assert self.protocol is not None
            try:
                await asyncio.wait_for(self.protocol.quit(), 3.0)
            except (asyncio.TimeoutError, chess.engine.EngineError):
                pass
        await self.kill()


# ---------------------------------------------------------------------------
# Playing one game


@dataclasses.dataclass(frozen=True)
class SearchLimits:
    """What each move gets: a clock, and/or fixed nodes, depth or movetime."""

    tc: Optional[TimeControl] = None
    nodes: Optional[int] = None
    depth: Optional[int] = None
    movetime: Optional[float] = None
    max_moves: Optional[int] = None
    hang_margin: float = 5.0
    move_timeout: float = 300.0

    def describe(self) -> str:
        parts = []
        if self.tc:
            parts.append(f"tc {self.tc.pgn()}")
        if self.movetime is not None:
            parts.append(f"movetime {self.movetime:g}s")
        if self.depth is not None:
            parts.append(f"depth {self.depth}")
        if self.nodes is not None:
            parts.append(f"nodes {self.nodes}")
        return ", ".join(parts)

    def pgn_time_control(self) -> str:
        if self.tc:
            return self.tc.pgn()
        if self.movetime is not None:
            return f"1/{_fmt_seconds(self.movetime)}"
        return "-"

    def engine_limit(self, clocks: Dict[chess.Color, float]) -> chess.engine.Limit:
        limit = chess.engine.Limit(nodes=self.nodes, depth=self.depth, time=self.movetime)
        if self.tc:
            limit.white_clock, limit.black_clock = clocks[chess.WHITE], clocks[chess.BLACK]
            limit.white_inc = limit.black_inc = self.tc.inc
        return limit

    def move_deadline(self, remaining: float) -> float:
        """How long a move may take before the engine is declared hung."""
        if self.tc:
            budget = remaining
        elif self.movetime is not None:
            budget = self.movetime
        else:
            return self.move_timeout
        return max(budget, 0.0) + self.hang_margin


@dataclasses.dataclass
class GameRecord:
    """What happened in one game, ready for the tally and the PGN."""

    scheduled: ScheduledGame
    opening_fen: str
    white: str
    black: str
    moves: List[chess.Move]
    comments: List[str]
    winner: Optional[chess.Color]
    termination: str
    detail: str
    culprit: Optional[chess.Color] = None  # side that forfeited, played illegally or crashed
    chess960: bool = False

    @property
    def result(self) -> str:
        return result_string(self.winner)

    def engine1_points(self) -> float:
        if self.winner is None:
            return 0.5
        return 1.0 if (self.winner == chess.WHITE) == self.scheduled.engine1_white else 0.0


def _move_comment(info: chess.engine.InfoDict, mover: chess.Color, elapsed: float) -> str:
    parts = []
    score = info.get("score")
    if score is not None:
        pov = score.pov(mover)
        mate = pov.mate()
        parts.append(f"{'+' if mate > 0 else '-'}M{abs(mate)}" if mate is not None else f"{pov.score() / 100:+.2f}")
    depth = info.get("depth")
    if depth is not None:
        parts.append(f"/{depth}" if parts else f"d{depth}")
    text = "".join(parts)
    return f"{text} {elapsed:.3f}s".strip()


async def play_game(scheduled: ScheduledGame, opening_fen: str, white: Player, black: Player,
                    names: Tuple[str, str], limits: SearchLimits, chess960: bool = False) -> GameRecord:
    """Plays one game from the opening; never raises for engine misbehaviour. With ``chess960``
    python-chess sets UCI_Chess960 on both engines and sends castling as king-takes-rook."""
    board = chess.Board(opening_fen, chess960=chess960)
    players = {chess.WHITE: white, chess.BLACK: black}
    comments: List[str] = []
    clocks = {chess.WHITE: limits.tc.base, chess.BLACK: limits.tc.base} if limits.tc else {}

    def finish(winner: Optional[chess.Color], termination: str, detail: str,
               culprit: Optional[chess.Color] = None) -> GameRecord:
        return GameRecord(scheduled, opening_fen, names[0], names[1], list(board.move_stack), comments,
                          winner, termination, detail, culprit, chess960)

    for colour in (chess.WHITE, chess.BLACK):
        try:
            await players[colour].new_game()
        except (EngineStartError, chess.engine.EngineError, asyncio.TimeoutError) as err:
            await players[colour].kill()
            return finish(not colour, CRASH, f"{chess.COLOR_NAMES[colour]} failed to start a game: {err or 'timeout'}",
                          colour)

    start_ply = board.ply()
    while True:
        over = rules_termination(board)
        if over:
            winner, reason = over
            detail = f"{chess.COLOR_NAMES[winner].capitalize()} mates" if winner is not None else f"draw by {reason}"
            return finish(winner, reason, detail)
        if limits.max_moves is not None and (board.ply() - start_ply) >= 2 * limits.max_moves:
            return finish(None, MAX_MOVES, f"adjudicated a draw after {limits.max_moves} moves")

        side = board.turn
        side_name = chess.COLOR_NAMES[side].capitalize()
        player = players[side]
        deadline = limits.move_deadline(clocks.get(side, 0.0))
        try:
            result, elapsed = await player.play(board, limits.engine_limit(clocks), deadline)
        except asyncio.TimeoutError:
            await player.kill()
            return finish(not side, HANG, f"{side_name} did not answer within {deadline:.1f} s", side)
        except chess.engine.EngineTerminatedError as err:
            tail = player.stderr_tail()
            await player.kill()
            detail = f"{side_name} crashed: {err}" + (f"; stderr: {' | '.join(tail[-3:])}" if tail else "")
            return finish(not side, CRASH, detail, side)
        except chess.engine.EngineError as err:
            # python-chess raises this for a bestmove that is not legal here.
            await player.kill()
            return finish(not side, ILLEGAL_MOVE, f"{side_name} made an illegal move: {err}", side)

        if limits.tc:
            clocks[side], flagged = charge_clock(clocks[side], elapsed, limits.tc.inc)
            if flagged:
                return finish(time_forfeit_winner(board, side), TIME_FORFEIT,
                              f"{side_name} loses on time ({clocks[side]:+.3f} s)", side)

        move = result.move
        if move is None or move not in board.legal_moves:
            await player.kill()
            what = "no move" if move is None else f"illegal move {move.uci()}"
            return finish(not side, ILLEGAL_MOVE, f"{side_name} played {what}", side)
        comments.append(_move_comment(result.info, side, elapsed))
        board.push(move)


def game_to_pgn(record: GameRecord, event: str, time_control: str) -> chess.pgn.Game:
    """PGN of a finished game; the ending's detail is the last comment."""
    game = chess.pgn.Game()
    game.setup(chess.Board(record.opening_fen, chess960=record.chess960))
    game.headers["Event"] = event
    game.headers["Site"] = "?"
    game.headers["Date"] = datetime.date.today().strftime("%Y.%m.%d")
    game.headers["Round"] = str(record.scheduled.number)
    game.headers["White"] = record.white
    game.headers["Black"] = record.black
    game.headers["Result"] = record.result
    game.headers["Termination"] = record.termination
    game.headers["TimeControl"] = time_control
    node: chess.pgn.GameNode = game
    for move, comment in zip(record.moves, record.comments):
        node = node.add_variation(move, comment=comment)
    node.comment = f"{node.comment} {record.detail}".strip() if node.comment else record.detail
    return game


def _culprit(game: chess.pgn.Game, winner: Optional[chess.Color]) -> chess.Color:
    """The side an abnormal ending blames: the loser, or, for a drawn time forfeit (the opponent
    could not mate), the side its detail at the end of the last comment names."""
    if winner is not None:
        return not winner
    return chess.BLACK if "Black loses on time" in game.end().comment else chess.WHITE


def games_from_pgn(path: str, names: Tuple[str, str], event: str, time_control: str) -> List[GameRecord]:
    """The games of this match already in the PGN file at ``path``: those of the two engines
    ``names`` under ``event`` and ``time_control``, as records enough for the tally (result,
    termination, culprit; no moves). Other games in the file are left out."""
    records: List[GameRecord] = []
    abnormal = {TIME_FORFEIT, ILLEGAL_MOVE, CRASH, HANG}
    results = {"1-0": chess.WHITE, "0-1": chess.BLACK, "1/2-1/2": None}
    with open(path, encoding="utf-8") as pgn:
        while True:
            offset = pgn.tell()
            headers = chess.pgn.read_headers(pgn)
            if headers is None:
                return records
            if (headers.get("Event") != event or headers.get("TimeControl") != time_control
                    or {headers.get("White"), headers.get("Black")} != set(names)
                    or headers.get("Result") not in results or not headers.get("Round", "").isdigit()):
                continue
            winner = results[headers["Result"]]
            termination = headers.get("Termination", "")
            culprit = None
            if termination in abnormal:
                here = pgn.tell()
                pgn.seek(offset)
                culprit = _culprit(chess.pgn.read_game(pgn), winner)
                pgn.seek(here)
            scheduled = ScheduledGame(number=int(headers["Round"]), opening_index=-1,
                                      engine1_white=headers["White"] == names[0])
            records.append(GameRecord(scheduled, headers.get("FEN", chess.STARTING_FEN), headers["White"],
                                      headers["Black"], [], [], winner, termination, "", culprit))


# ---------------------------------------------------------------------------
# The match


@dataclasses.dataclass
class EngineTally:
    time_forfeits: int = 0
    illegal_moves: int = 0
    crashes: int = 0


@dataclasses.dataclass
class Tally:
    """Running totals from engine1's point of view."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    engines: Tuple[EngineTally, EngineTally] = dataclasses.field(default_factory=lambda: (EngineTally(), EngineTally()))
    terminations: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    # The sequential test's verdict when a bound was first crossed: (decision, games, LLR). Games
    # still in flight then are counted in the totals, not in the verdict.
    sprt_verdict: Optional[Tuple[str, int, float]] = None

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    def add(self, record: GameRecord) -> None:
        points = record.engine1_points()
        if points == 1.0:
            self.wins += 1
        elif points == 0.0:
            self.losses += 1
        else:
            self.draws += 1
        self.terminations[record.termination] += 1
        if record.culprit is not None:
            engine1_culprit = (record.culprit == chess.WHITE) == record.scheduled.engine1_white
            tally = self.engines[0 if engine1_culprit else 1]
            if record.termination == TIME_FORFEIT:
                tally.time_forfeits += 1
            elif record.termination == ILLEGAL_MOVE:
                tally.illegal_moves += 1
            elif record.termination in (CRASH, HANG):
                tally.crashes += 1


def _fmt_elo(x: float) -> str:
    return "+inf" if x == math.inf else "-inf" if x == -math.inf else f"{x:+.1f}"


def progress_line(tally: Tally, total: int, sprt: Optional[Tuple[float, float]]) -> str:
    """The one-line status shown after every game."""
    est = elo_estimate(tally.wins, tally.draws, tally.losses)
    points = tally.wins + 0.5 * tally.draws
    line = (f"[{tally.games}/{total}] +{tally.wins} ={tally.draws} -{tally.losses} "
            f"{points:g}/{tally.games} ({100 * score_fraction(tally.wins, tally.draws, tally.losses):.1f}%) "
            f"Elo {_fmt_elo(est.elo)} [{_fmt_elo(est.lower)}, {_fmt_elo(est.upper)}]")
    if sprt:
        llr = sprt_llr(tally.wins, tally.draws, tally.losses, *sprt)
        lower, upper = sprt_bounds()
        line += f" LLR {llr:+.2f} [{lower:+.2f}, {upper:+.2f}]"
    return line


def summary(tally: Tally, names: Tuple[str, str], sprt: Optional[Tuple[float, float]]) -> str:
    """The final report, from engine1's point of view."""
    w, d, l = tally.wins, tally.draws, tally.losses
    n = tally.games
    est = elo_estimate(w, d, l)
    lines = [
        f"{names[0]} vs {names[1]}: {n} games, W/D/L {w}/{d}/{l}, "
        f"score {w + 0.5 * d:g}/{n} = {100 * score_fraction(w, d, l):.1f}%",
        f"Elo difference {_fmt_elo(est.elo)}, 95% interval [{_fmt_elo(est.lower)}, {_fmt_elo(est.upper)}], "
        f"LOS {100 * likelihood_of_superiority(w, l):.1f}%, draw ratio {100 * d / n if n else 0:.1f}%",
    ]
    if sprt:
        llr = sprt_llr(w, d, l, *sprt)
        bounds = sprt_bounds()
        decision = sprt_decision(llr, bounds)
        when = ""
        if tally.sprt_verdict is not None and tally.sprt_verdict[1] != n:
            decision, decided_at, decided_llr = tally.sprt_verdict
            when = f" at game {decided_at} (LLR {decided_llr:+.3f}; the games in flight then are in the totals)"
        verdict = {"H1": f"H1 accepted (elo >= {sprt[1]:g})", "H0": f"H0 accepted (elo <= {sprt[0]:g})",
                   None: "inconclusive"}[decision]
        lines.append(f"SPRT elo0={sprt[0]:g} elo1={sprt[1]:g} alpha=beta=0.05 (logistic Elo, trinomial GSPRT): "
                     f"LLR {llr:+.3f}, bounds [{bounds[0]:+.3f}, {bounds[1]:+.3f}]: {verdict}{when}")
    if tally.terminations:
        lines.append("Terminations: " + ", ".join(f"{k} {v}" for k, v in tally.terminations.most_common()))
    width = max(len(names[0]), len(names[1]))
    for name, et in zip(names, tally.engines):
        lines.append(f"{name:<{width}}  time forfeits {et.time_forfeits}, illegal moves {et.illegal_moves}, "
                     f"crashes {et.crashes}")
    return "\n".join(lines)


@dataclasses.dataclass
class MatchConfig:
    engine1: EngineSpec
    engine2: EngineSpec
    limits: SearchLimits
    games: int = 2
    openings: Optional[List[str]] = None
    seed: Optional[int] = None
    concurrency: int = 1
    pgn_path: Optional[str] = None
    resume: bool = False
    event: str = "Brudno match"
    sprt: Optional[Tuple[float, float]] = None
    init_timeout: float = 120.0
    chess960: bool = False


def _distinct_names(first: str, second: str) -> Tuple[str, str]:
    return (first, second) if first != second else (f"{first} (1)", f"{second} (2)")


def _check_sprt(config: MatchConfig, tally: Tally) -> None:
    """Records the sequential test's verdict the first time a bound is crossed."""
    if config.sprt and tally.sprt_verdict is None:
        llr = sprt_llr(tally.wins, tally.draws, tally.losses, *config.sprt)
        decision = sprt_decision(llr, sprt_bounds())
        if decision:
            tally.sprt_verdict = (decision, tally.games, llr)


async def run_match(config: MatchConfig, tally: Tally, progress: Optional[TextIO] = None) -> Tuple[str, str]:
    """Plays the match, updating ``tally`` as games finish; returns the names.

    Raises EngineStartError if an engine cannot be started at all.
    """
    openings = config.openings or (chess960_openings() if config.chess960 else [chess.STARTING_FEN])
    schedule = collections.deque(schedule_games(config.games, len(openings), config.seed))
    workers = max(1, min(config.concurrency, len(schedule)))
    pairs = [(Player(config.engine1, config.init_timeout), Player(config.engine2, config.init_timeout))
             for _ in range(workers)]
    stop = False
    tty = progress is not None and progress.isatty()
    pgn_file = open(config.pgn_path, "a", encoding="utf-8") if config.pgn_path else None
    try:
        # One at a time: a launcher that builds its environment on first run
        # must not race with itself.
        for pair in pairs:
            for player in pair:
                await player.start()
        names = _distinct_names(config.engine1.name or pairs[0][0].id_name() or os.path.basename(config.engine1.command[0]),
                                config.engine2.name or pairs[0][1].id_name() or os.path.basename(config.engine2.command[0]))

        if config.resume and config.pgn_path and os.path.exists(config.pgn_path):
            done = games_from_pgn(config.pgn_path, names, config.event, config.limits.pgn_time_control())
            for record in done:
                tally.add(record)
            played = {record.scheduled.number for record in done}
            schedule = collections.deque(game for game in schedule if game.number not in played)
            if progress:
                print(f"resumed {len(done)} games from {config.pgn_path}", file=progress)
            _check_sprt(config, tally)
            stop = tally.sprt_verdict is not None

        async def worker(p1: Player, p2: Player) -> None:
            nonlocal stop
            while schedule and not stop:
                game = schedule.popleft()
                if game.engine1_white:
                    record = await play_game(game, openings[game.opening_index], p1, p2, names, config.limits,
                                             config.chess960)
                else:
                    record = await play_game(game, openings[game.opening_index], p2, p1, (names[1], names[0]),
                                             config.limits, config.chess960)
                tally.add(record)
                if pgn_file:
                    print(game_to_pgn(record, config.event, config.limits.pgn_time_control()), file=pgn_file, end="\n\n")
                    pgn_file.flush()
                if record.culprit is not None:
                    # Abnormal endings get a line of their own that the progress line does not overwrite.
                    note = f"game {game.number} ({record.white} vs {record.black}): {record.termination}: {record.detail}"
                    print(f"\r{note}\033[K" if tty else note, file=progress or sys.stderr)
                if progress:
                    line = progress_line(tally, config.games, config.sprt)
                    print(f"\r{line}\033[K" if tty else line, file=progress, end="" if tty else "\n", flush=True)
                _check_sprt(config, tally)
                stop = stop or tally.sprt_verdict is not None

        await asyncio.gather(*(worker(p1, p2) for p1, p2 in pairs))
        if progress and tty:
            print(file=progress)
        return names
    finally:
        for pair in pairs:
            for player in pair:
                await player.close()
        if pgn_file:
            pgn_file.close()


# ---------------------------------------------------------------------------
# Command line


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    for i in (1, 2):
        p.add_argument(f"--engine{i}", required=True, metavar="CMD", help=f"command line of engine {i} (shell-split)")
        p.add_argument(f"--option{i}", action="append", default=[], metavar="NAME=VALUE",
                       help=f"UCI option for engine {i} (repeatable)")
        p.add_argument(f"--name{i}", help=f"display name of engine {i} (default: its UCI id name)")
    p.add_argument("--tc", help="time control BASE+INC in seconds, with a real clock, e.g. 10+0.1")
    p.add_argument("--nodes", type=int, help="fixed nodes per move")
    p.add_argument("--depth", type=int, help="fixed depth per move")
    p.add_argument("--movetime", type=float, metavar="SECONDS", help="fixed time per move")
    p.add_argument("--games", type=int, default=2, help="total games (default 2: one opening, both colours)")
    p.add_argument("--openings", metavar="EPD", help="opening positions, each played with both colours")
    p.add_argument("--chess960", action="store_true",
                   help="Chess960: the openings (default: the 960 start positions) are played with "
                        "UCI_Chess960 on; --seed picks which")
    p.add_argument("--seed", type=int, help="shuffle the openings with this seed (default: file order)")
    p.add_argument("--concurrency", type=int, default=1, help="games in parallel (default 1)")
    p.add_argument("--pgn", metavar="FILE", help="append the games to this PGN file")
    p.add_argument("--resume", action="store_true",
                   help="count the games of this match already in the --pgn file (same engine names, "
                        "event and time control; --seed as before) and play only the rest of the schedule")
    p.add_argument("--event", default="Brudno match", help="PGN Event header")
    p.add_argument("--sprt", nargs=2, type=float, metavar=("ELO0", "ELO1"),
                   help="stop when the SPRT (alpha=beta=0.05) accepts H0 or H1")
    p.add_argument("--max-moves", type=int, help="adjudicate a draw after this many moves (default: never)")
    p.add_argument("--hang-margin", type=float, default=5.0, metavar="SECONDS",
                   help="a move taking longer than the clock (or movetime) plus this is a hang (default 5)")
    p.add_argument("--move-timeout", type=float, default=300.0, metavar="SECONDS",
                   help="hang limit per move in --nodes/--depth modes (default 300)")
    p.add_argument("--init-timeout", type=float, default=120.0, metavar="SECONDS",
                   help="time allowed for an engine to start and answer uci/isready (default 120)")
    p.add_argument("--quiet", action="store_true", help="no progress line")
    p.add_argument("--debug", action="store_true", help="log the UCI traffic")
    return p


def config_from_args(args: argparse.Namespace) -> MatchConfig:
    """Validates the parsed arguments; raises ValueError on a usage error."""
    if args.tc is None and args.nodes is None and args.depth is None and args.movetime is None:
        raise ValueError("give a time control (--tc) or --nodes, --depth or --movetime")
    for flag in ("nodes", "depth", "games", "concurrency", "max_moves"):
        value = getattr(args, flag)
        if value is not None and value < 1:
            raise ValueError(f"--{flag.replace('_', '-')} must be at least 1")
    if args.movetime is not None and args.movetime <= 0:
        raise ValueError("--movetime must be positive")
    if args.resume and not args.pgn:
        raise ValueError("--resume needs the --pgn file of the match")
    if args.sprt and args.sprt[0] >= args.sprt[1]:
        raise ValueError("--sprt needs ELO0 < ELO1")
    specs = []
    for i in (1, 2):
        command = shlex.split(getattr(args, f"engine{i}"))
        if not command:
            raise ValueError(f"--engine{i} is empty")
        specs.append(EngineSpec(command, parse_options(getattr(args, f"option{i}")), getattr(args, f"name{i}")))
    limits = SearchLimits(tc=parse_tc(args.tc) if args.tc else None, nodes=args.nodes, depth=args.depth,
                          movetime=args.movetime, max_moves=args.max_moves, hang_margin=args.hang_margin,
                          move_timeout=args.move_timeout)
    return MatchConfig(engine1=specs[0], engine2=specs[1], limits=limits, games=args.games,
                       openings=load_openings(args.openings, args.chess960) if args.openings else None,
                       seed=args.seed, chess960=args.chess960,
                       concurrency=args.concurrency, pgn_path=args.pgn, resume=args.resume, event=args.event,
                       sprt=tuple(args.sprt) if args.sprt else None, init_timeout=args.init_timeout)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        config = config_from_args(args)
    except (ValueError, OSError) as err:
        parser.error(str(err))
    logging.basicConfig(level=logging.DEBUG if args.debug else logging.ERROR, format="%(message)s")

    # A shell starts a background job with SIGINT ignored; a match run with `&` or nohup must
    # still stop on `kill -INT` with the results so far.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    tally = Tally()
    names = (config.engine1.name or shlex.join(config.engine1.command),
             config.engine2.name or shlex.join(config.engine2.command))
    print(f"{config.limits.describe()}, {config.games} games, concurrency {config.concurrency}", file=sys.stderr)
    try:
        names = asyncio.run(run_match(config, tally, None if args.quiet else sys.stderr))
    except EngineStartError as err:
        print(f"match.py: {err}", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        print("\ninterrupted; results so far:", file=sys.stderr)
        print(summary(tally, names, config.sprt))
        return 130
    print(summary(tally, names, config.sprt))
    return 0


if __name__ == "__main__":
    sys.exit(main())
