"""One browser tab's game on the page: the board, its settings, and the Brudno process that plays
and analyses it.

The engine is the real UCI engine, `python -m engine` in a process of its own, driven through
python-chess's `chess.engine.SimpleEngine`, exactly as a GUI drives it. Every search runs in a
thread of the session's (the web server's request threads only change the game and start or stop
a search); its `info` lines are turned into live lines in SAN and sent to the tab's event stream.
A search is tagged with a generation number: a move, a take-back or a new game bumps it, so the
result of a search that was stopped on the way is never played.

Bad input (an illegal move, a malformed FEN, an out-of-range setting) raises `InputError` with
the message to show, before anything in the game changes.
"""

from __future__ import annotations

import datetime
import json
import os
import queue
import random
import sys
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import chess
import chess.engine
import chess.pgn
import chess.svg

from engine.protocol.strength import ELO_MAX, ELO_MIN, FULL_LEVEL
from engine.teaching.web.pruning import TreeJob, TreeRequestError, check_request

# Seconds python-chess waits for the engine to answer a command: the first `isready` after a
# fresh install waits for numba to compile the kernels (about half a minute on a slow machine).
ENGINE_TIMEOUT = 180.0
MIN_MOVETIME, MAX_MOVETIME = 0.05, 60.0
MAX_MULTIPV = 5
# A graph point for a mate: beyond any real evaluation, and the graph clips at it.
MATE_CP = 2000
PUBLISH_INTERVAL = 0.1  # seconds between live updates of a search


class InputError(ValueError):
    """Input the page refuses, with the message to show; nothing has changed."""


def engine_command() -> list[str]:
    """`python -m engine` with the interpreter running the server, finding this checkout's or
    this installation's `engine` package wherever the server was started."""
    return [sys.executable, "-m", "engine"]


def _engine_env() -> dict[str, str]:
    env = dict(os.environ)
    package_root = str(Path(__file__).resolve().parents[3])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    return env


@dataclass
class Settings:
    """How Brudno plays and analyses in this tab."""

    movetime: float = 1.0  # seconds per move
    strength: str = "full"  # full, skill (Skill Level) or elo (UCI_LimitStrength + UCI_Elo)
    skill: int = FULL_LEVEL
    elo: int = 1500
    multipv: int = 3  # lines shown in analyse mode

    def options(self) -> dict[str, Any]:
        """The UCI options of a playing search."""
        if self.strength == "elo":
            return {"UCI_LimitStrength": True, "UCI_Elo": self.elo}
        level = self.skill if self.strength == "skill" else FULL_LEVEL
        return {"UCI_LimitStrength": False, "Skill Level": level}

    def label(self) -> str:
        if self.strength == "elo":
            return f"Brudno (UCI_Elo {self.elo})"
        if self.strength == "skill":
            return f"Brudno (Skill Level {self.skill})"
        return "Brudno"


def score_text(score: chess.engine.Score) -> str:
    """A White's-view score as the page prints it: +0.35, #3 (White mates), #-2."""
    mate = score.mate()
    if mate is not None:
        return f"#{mate}"
    return f"{score.score() / 100:+.2f}"


def score_cp(score: chess.engine.Score) -> int:
    """A White's-view score in centipawns for the graph, mates at ±MATE_CP."""
    return max(-MATE_CP, min(MATE_CP, score.score(mate_score=MATE_CP)))


def color_name(color: chess.Color) -> str:
    return "white" if color == chess.WHITE else "black"


def parse_color(text: Any) -> chess.Color:
    if text == "white":
        return chess.WHITE
    if text == "black":
        return chess.BLACK
    if text == "random":
        return random.choice([chess.WHITE, chess.BLACK])
    raise InputError(f"side must be white, black or random, not {text!r}")


def _int(value: Any, name: str, low: int, high: int) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be a whole number, not {value!r}") from None
    if not low <= number <= high or isinstance(value, bool):
        raise InputError(f"{name} must be between {low} and {high}, not {value}")
    return number


class Session:
    """A tab's game, its engine process and its event subscribers."""

    def __init__(self, session_id: str, command: list[str] | None = None) -> None:
        self.id = session_id
        self.command = command or engine_command()
        self.lock = threading.RLock()
        self.subscribers: list[queue.Queue[tuple[str, str] | None]] = []
        self.last_seen = time.monotonic()
        self.closed = False
        self.board = chess.Board()
        self.human = chess.WHITE
        self.orientation = chess.WHITE
        self.mode = "play"  # play: Brudno answers; analyse: Brudno analyses, you move both sides
        self.settings = Settings()
        self.evals: dict[int, int] = {}  # ply (moves from the start) -> White's-view cp
        self.lines: dict[int, dict[str, Any]] = {}  # live lines of the current search
        self.thinking: str | None = None  # "play" or "analyse" while a search runs
        self.message = ""
        self.engine: chess.engine.SimpleEngine | None = None
        self.engine_state = "not started"
        self.engine_lock = threading.Lock()
        self.starting_engine: chess.engine.SimpleEngine | None = None
        self.generation = 0
        self.game_token = object()  # python-chess sends `ucinewgame` when it changes
        self.search: chess.engine.SimpleAnalysisResult | None = None
        self.search_threads: list[threading.Thread] = []
        self.tree_jobs: dict[str, TreeJob] = {}
        self._last_publish = 0.0

    # Events.
    def subscribe(self) -> queue.Queue[tuple[str, str] | None]:
        q: queue.Queue[tuple[str, str] | None] = queue.Queue()
        with self.lock:
            self.subscribers.append(q)
            wanted = self.mode == "analyse" or self.board.turn != self.human
            if wanted and self.thinking is None and not self.engine_state.startswith("error"):
                self._after_change()  # the tab came back (a reload): resume the search
            else:
                q.put(("state", json.dumps(self.state())))
        return q

    def hidden(self) -> None:
        """The tab is being closed or reloaded: stop the search now, not at the next write."""
        with self.lock:
            self._stop_search()
            self.last_seen = time.monotonic()

    def unsubscribe(self, q: queue.Queue[tuple[str, str] | None]) -> None:
        """A tab's stream closed; with no tab left watching, the search stops."""
        with self.lock:
            if q in self.subscribers:
                self.subscribers.remove(q)
            self.last_seen = time.monotonic()
            if not self.subscribers:
                self._stop_search()

    def publish(self, event: str, data: dict[str, Any]) -> None:
        text = json.dumps(data)
        with self.lock:
            for q in self.subscribers:
                q.put((event, text))

    def publish_state(self) -> None:
        with self.lock:
            self.publish("state", self.state())

    # What the page shows.
    def status(self) -> str:
        board = self.board
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            how = outcome.termination.name.replace("_", " ").lower()
            if outcome.winner is None:
                return f"Draw ({how}), {outcome.result()}"
            return f"{color_name(outcome.winner).capitalize()} wins ({how}), {outcome.result()}"
        if self.engine_state.startswith("error"):
            return f"The engine failed: {self.engine_state}"
        if self.mode == "analyse":
            return "Analysing: move for either side" if self.thinking else "Analyse mode"
        if board.turn == self.human:
            return "Your move" + (" (check)" if board.is_check() else "")
        if self.engine_state == "starting":
            return "Starting Brudno (the first start compiles its kernels)…"
        return "Brudno is thinking…" if self.thinking else "Brudno to move"

    def legal_targets(self) -> tuple[dict[str, list[str]], list[str]]:
        """Where each piece may go (castling by the king's square and by the rook's) and the
        from-to pairs that promote."""
        targets: dict[str, set[str]] = {}
        promotions = set()
        for move in self.board.legal_moves:
            frm = chess.square_name(move.from_square)
            for to in _move_targets(self.board, move):
                targets.setdefault(frm, set()).add(chess.square_name(to))
            if move.promotion:
                promotions.add(frm + chess.square_name(move.to_square))
        return {k: sorted(v) for k, v in targets.items()}, sorted(promotions)

    def svg(self) -> str:
        board = self.board
        last = board.peek() if board.move_stack else None
        check = board.king(board.turn) if board.is_check() else None
        return chess.svg.board(board, orientation=self.orientation, lastmove=last, check=check,
                               coordinates=True)

    def san_moves(self) -> list[str]:
        replay = self.start_board()
        sans = []
        for move in self.board.move_stack:
            sans.append(replay.san(move))
            replay.push(move)
        return sans

    def start_board(self) -> chess.Board:
        return self.board.root()

    def state(self) -> dict[str, Any]:
        with self.lock:
            targets, promotions = self.legal_targets()
            board = self.board
            return {
                "session": self.id, "fen": board.fen(), "start_fen": self.start_board().fen(),
                "svg": self.svg(), "orientation": color_name(self.orientation),
                "turn": color_name(board.turn), "human": color_name(self.human),
                "mode": self.mode, "targets": targets, "promotions": promotions,
                "moves": self.san_moves(), "ply_offset": _ply_offset(self.start_board()),
                "last_move": board.peek().uci() if board.move_stack else None,
                "status": self.status(), "game_over": board.is_game_over(claim_draw=True),
                "chess960": board.chess960,
                "evals": sorted(self.evals.items()), "settings": asdict(self.settings),
                "engine": self.engine_state, "thinking": self.thinking,
                "lines": [self.lines[k] for k in sorted(self.lines)],
                "can_take_back": self._can_take_back(), "message": self.message,
                "your_turn": self.mode == "analyse" or board.turn == self.human,
                "limits": {"elo": [ELO_MIN, ELO_MAX], "skill": [0, FULL_LEVEL],
                           "movetime": [MIN_MOVETIME, MAX_MOVETIME], "multipv": [1, MAX_MULTIPV]},
            }

    def pgn(self) -> str:
        with self.lock:
            game = chess.pgn.Game.from_board(self.board)
            you, brudno = "You", self.settings.label()
            game.headers["Event"] = "Brudno's page"
            game.headers["Site"] = "127.0.0.1"
            game.headers["Date"] = datetime.date.today().strftime("%Y.%m.%d")
            if self.mode == "analyse":
                game.headers["White"] = game.headers["Black"] = "Analysis"
            else:
                game.headers["White"] = you if self.human == chess.WHITE else brudno
                game.headers["Black"] = you if self.human == chess.BLACK else brudno
            game.headers["Result"] = self.board.result(claim_draw=True)
            return str(game) + "\n"

    # What the user does. Each checks its input first, then changes the game.
    def move(self, frm: str, to: str, promotion: str | None = None) -> None:
        with self.lock:
            move = self._find_move(frm, to, promotion)
            self._stop_search()
            self.board.push(move)
            self.message = ""
            self._after_change()

    def _find_move(self, frm: Any, to: Any, promotion: Any) -> chess.Move:
        board = self.board
        if board.is_game_over(claim_draw=True):
            raise InputError("the game is over: start a new game or take back")
        if self.mode == "play" and board.turn != self.human:
            raise InputError("it is Brudno's move: wait for it")
        try:
            from_square, to_square = chess.parse_square(str(frm)), chess.parse_square(str(to))
        except ValueError:
            raise InputError(f"not a square: {frm!r} or {to!r}") from None
        piece = None
        if promotion not in (None, ""):
            piece = {"q": chess.QUEEN, "r": chess.ROOK, "b": chess.BISHOP,
                     "n": chess.KNIGHT}.get(str(promotion).lower())
            if piece is None:
                raise InputError(f"promote to q, r, b or n, not {promotion!r}")
        moves = [m for m in board.legal_moves if m.from_square == from_square]
        # A plain move to the square first: in Chess960 a king may step to g1 without castling.
        exact = [m for m in moves if m.to_square == to_square]
        found = exact or [m for m in moves if to_square in _move_targets(board, m)]
        if not found:
            text = f"{frm}-{to}"
            raise InputError(f"illegal move {text}: "
                             + ("no piece of the side to move there" if not moves
                                else "that piece cannot go there"))
        if len(found) > 1:
            found = [m for m in found if m.promotion == piece]
            if not found:
                raise InputError("choose the piece to promote to (q, r, b or n)")
        return found[0]

    def new_game(self, side: Any = "white", chess960: Any = False,
                 position: Any = None) -> None:
        color = parse_color(side)
        if chess960:
            number = random.randrange(960) if position in (None, "") else \
                _int(position, "the Chess960 position number", 0, 959)
            board = chess.Board.from_chess960_pos(number)
        else:
            board = chess.Board()
        with self.lock:
            self._stop_search()
            self._reset(board, color)
            self._after_change()

    def set_fen(self, fen: Any, side: Any = None, chess960: Any = None) -> None:
        if not isinstance(fen, str) or not fen.strip():
            raise InputError("give a FEN")
        flag = bool(chess960) if chess960 is not None else self.board.chess960
        try:
            board = chess.Board(fen.strip(), chess960=flag)
        except ValueError as error:
            raise InputError(f"malformed FEN: {error}") from None
        status = board.status()
        if status != chess.STATUS_VALID:
            problems = [flag.name.lower().replace("_", " ") for flag in chess.Status
                        if flag and flag & status and flag.name]
            raise InputError("not a legal position: " + ", ".join(problems))
        color = parse_color(side) if side not in (None, "") else board.turn
        with self.lock:
            self._stop_search()
            self._reset(board, color)
            self._after_change()

    def take_back(self) -> None:
        with self.lock:
            if not self._can_take_back():
                raise InputError("nothing to take back")
            self._stop_search()
            if self.mode == "analyse" or self.board.turn != self.human:
                self.board.pop()  # analysing, or Brudno is still thinking about your move
            else:
                self.board.pop()
                self.board.pop()
            self.evals = {ply: cp for ply, cp in self.evals.items()
                          if ply <= len(self.board.move_stack)}
            self.lines = {}
            self.message = ""
            self._after_change()

    def _can_take_back(self) -> bool:
        stack = len(self.board.move_stack)
        if self.mode == "analyse" or self.board.turn != self.human:
            return stack >= 1
        return stack >= 2

    def set_settings(self, changes: dict[str, Any]) -> None:
        new = Settings(**asdict(self.settings))
        for key, value in changes.items():
            if key == "movetime":
                try:
                    seconds = float(value)
                except (TypeError, ValueError):
                    raise InputError(f"time per move must be a number of seconds, not {value!r}") \
                        from None
                if not MIN_MOVETIME <= seconds <= MAX_MOVETIME:
                    raise InputError(f"time per move must be {MIN_MOVETIME} to {MAX_MOVETIME} s")
                new.movetime = seconds
            elif key == "strength":
                if value not in ("full", "skill", "elo"):
                    raise InputError(f"strength must be full, skill or elo, not {value!r}")
                new.strength = value
            elif key == "skill":
                new.skill = _int(value, "Skill Level", 0, FULL_LEVEL)
            elif key == "elo":
                new.elo = _int(value, "UCI_Elo", ELO_MIN, ELO_MAX)
            elif key == "multipv":
                new.multipv = _int(value, "the number of lines", 1, MAX_MULTIPV)
            else:
                raise InputError(f"no such setting: {key!r}")
        with self.lock:
            multipv_changed = new.multipv != self.settings.multipv
            self.settings = new
            if self.mode == "analyse" and multipv_changed:
                self._stop_search()
                self._after_change()
            else:
                self.publish_state()

    def set_mode(self, mode: Any) -> None:
        if mode not in ("play", "analyse"):
            raise InputError(f"mode must be play or analyse, not {mode!r}")
        with self.lock:
            self._stop_search()
            self.mode = mode
            self._after_change()

    def flip(self) -> None:
        with self.lock:
            self.orientation = not self.orientation
            self.publish_state()

    def switch_sides(self) -> None:
        """You take the other side: Brudno plays the side you had (so it moves now)."""
        with self.lock:
            if self.mode != "play":
                raise InputError("switching sides is for play mode")
            self._stop_search()
            self.human = not self.human
            self.orientation = self.human
            self._after_change()

    def stop(self) -> None:
        """Stop the search: in play mode Brudno then plays the best move it has."""
        with self.lock:
            if self.search is not None:
                self.search.stop()

    # The searches.
    def _reset(self, board: chess.Board, human: chess.Color) -> None:
        if self.engine_state.startswith("error"):
            # A new game tries a new engine process (the old one is gone or unusable).
            engine, self.engine = self.engine, None
            if engine is not None:
                threading.Thread(target=engine.close, daemon=True).start()
            self.engine_state = "not started"
        self.board = board
        self.human = human
        self.orientation = human
        self.evals = {}
        self.lines = {}
        self.message = ""
        self.game_token = object()

    def _after_change(self) -> None:
        """Publish the new position and start the search it calls for (lock held). The lines
        of the last search stay on show until the next one starts."""
        over = self.board.is_game_over(claim_draw=True)
        if not over and not self.closed:
            if self.mode == "analyse":
                self._start_search("analyse")
            elif self.board.turn != self.human:
                self._start_search("play")
        self.publish_state()

    def _start_search(self, kind: str) -> None:
        self._stop_search()
        self.generation += 1
        self.thinking = kind
        self.lines = {}
        if kind == "play":
            limit = chess.engine.Limit(time=self.settings.movetime)
            options, multipv = self.settings.options(), None
        else:
            limit, options, multipv = chess.engine.Limit(), {}, self.settings.multipv
        thread = threading.Thread(
            target=self._search, name=f"search-{self.id}-{self.generation}", daemon=True,
            args=(self.generation, kind, self.board.copy(), limit, multipv, options))
        self.search_threads = [t for t in self.search_threads if t.is_alive()] + [thread]
        thread.start()

    def _stop_search(self) -> None:
        """Forget the running search and tell the engine to stop it (lock held). Its thread
        ends by itself: python-chess lets the next search wait for the engine's bestmove."""
        self.generation += 1
        self.thinking = None
        if self.search is not None:
            try:
                self.search.stop()
            except chess.engine.EngineError:
                pass
            self.search = None

    def _ensure_engine(self) -> chess.engine.SimpleEngine:
        with self.engine_lock:
            if self.engine is not None:
                return self.engine
            if self.closed:
                raise chess.engine.EngineTerminatedError("the session is closed")
            with self.lock:
                self.engine_state = "starting"
                self.publish_state()
            # setpgrp: Ctrl-C in the terminal reaches the server only, which then quits the
            # engine itself (a SIGINT to the engine would end it with a traceback).
            engine = chess.engine.SimpleEngine.popen_uci(
                self.command, timeout=ENGINE_TIMEOUT, setpgrp=True, env=_engine_env())
            self.starting_engine = engine  # so that close() can end it while it starts
            try:
                engine.configure({"UCI_ShowWDL": True})
                engine.ping()  # the first isready waits for the kernels
                if self.closed:
                    raise chess.engine.EngineTerminatedError("the session was closed")
            except Exception:
                engine.close()
                raise
            finally:
                self.starting_engine = None
            self.engine = engine
            with self.lock:
                self.engine_state = "ready"
            return engine

    def _search(self, generation: int, kind: str, board: chess.Board,
                limit: chess.engine.Limit, multipv: int | None, options: dict[str, Any]) -> None:
        try:
            engine = self._ensure_engine()
            with self.lock:
                if generation != self.generation:
                    return
            with engine.analysis(board, limit, multipv=multipv, game=self.game_token,
                                 options=options) as analysis:
                with self.lock:
                    if generation != self.generation:
                        return
                    self.search = analysis
                for info in analysis:
                    if generation != self.generation:
                        break
                    self._on_info(generation, kind, board, info)
                best = analysis.wait()
            self._finish(generation, kind, board, best)
        except (chess.engine.EngineError, chess.engine.EngineTerminatedError, OSError,
                TimeoutError, RuntimeError) as error:
            with self.lock:
                if not self.closed:
                    self.engine_state = f"error: {type(error).__name__}: {error}"
                    self.thinking = None
                    self.publish_state()

    def _on_info(self, generation: int, kind: str, board: chess.Board,
                 info: dict[str, Any]) -> None:
        if "score" not in info or "pv" not in info:
            return  # currmove, string and other lines without a line to show
        score = info["score"].white()
        line = {"multipv": info.get("multipv", 1), "depth": info.get("depth"),
                "seldepth": info.get("seldepth"), "score": score_text(score),
                "cp": score_cp(score), "bound": ("lower" if info.get("lowerbound") else
                                                  "upper" if info.get("upperbound") else None),
                "nodes": info.get("nodes"), "nps": info.get("nps"),
                "time": info.get("time"), "pv": [m.uci() for m in info["pv"]]}
        try:
            line["san"] = board.variation_san(info["pv"])
        except (ValueError, AssertionError):
            line["san"] = " ".join(line["pv"])
        if "wdl" in info:
            wdl = info["wdl"].white()
            line["wdl"] = [wdl.wins, wdl.draws, wdl.losses]
        with self.lock:
            if generation != self.generation:
                return
            self.lines[line["multipv"]] = line
            if kind == "analyse" and line["multipv"] == 1:
                self.evals[len(board.move_stack)] = line["cp"]
            now = time.monotonic()
            if now - self._last_publish >= PUBLISH_INTERVAL:
                self._last_publish = now
                self.publish("search", self._search_event(kind, board))

    def _search_event(self, kind: str, board: chess.Board) -> dict[str, Any]:
        return {"kind": kind, "fen": board.fen(),
                "lines": [self.lines[k] for k in sorted(self.lines)],
                "evals": sorted(self.evals.items())}

    def _finish(self, generation: int, kind: str, board: chess.Board,
                best: chess.engine.BestMove) -> None:
        with self.lock:
            if generation != self.generation:
                return
            self.search = None
            self.thinking = None
            self.publish("search", self._search_event(kind, board))
            if kind != "play":
                self.publish_state()
                return
            if best.move is None or best.move not in self.board.legal_moves:
                self.message = f"Brudno answered {best.move}, which is not legal here"
                self.publish_state()
                return
            if 1 in self.lines:
                self.evals[len(board.move_stack)] = self.lines[1]["cp"]
            self.board.push(best.move)
            self._after_change()

    # Trees of the pruning panel.
    def start_tree(self, depth: Any, drawn: Any, job_id: str) -> TreeJob:
        depth = _int(depth, "depth", 1, 99)
        with self.lock:
            if any(job.progress.state == "running" for job in self.tree_jobs.values()):
                raise InputError("a tree is being computed already: cancel it first")
            board = self.board.copy()
        try:
            check_request(board, depth, str(drawn))
        except TreeRequestError as error:
            raise InputError(str(error)) from None
        job = TreeJob(board.fen(), board.chess960, depth, str(drawn), id=job_id,
                      on_progress=lambda job: self.publish("tree", job.summary()))
        with self.lock:
            # Keep the last few jobs' drawings for the page to fetch, not every one.
            for old in list(self.tree_jobs)[:-3]:
                del self.tree_jobs[old]
            self.tree_jobs[job.id] = job
        job.start()
        return job

    def cancel_tree(self) -> bool:
        cancelled = False
        with self.lock:
            for job in self.tree_jobs.values():
                if job.progress.state == "running":
                    job.cancel()
                    cancelled = True
        return cancelled

    # The end.
    def close(self) -> None:
        """Stop the search and the trees, quit the engine, end the tab's streams."""
        with self.lock:
            self.closed = True
            self._stop_search()
            for job in self.tree_jobs.values():
                job.cancel()
            for q in self.subscribers:
                q.put(None)
            self.subscribers = []
        starting = self.starting_engine
        if starting is not None:
            starting.close()  # its ping then fails, and _ensure_engine gives up
        with self.engine_lock:
            engine, self.engine = self.engine, None
        if engine is not None:
            try:
                engine.quit()
            except Exception:
                pass
            finally:
                engine.close()  # kills the process should it not have quit
        for thread in self.search_threads:
            thread.join(timeout=5)
        for job in self.tree_jobs.values():
            if job.thread is not None:
                job.thread.join(timeout=5)

    def engine_pid(self) -> int | None:
        engine = self.engine
        if engine is None:
            return None
        transport = engine.transport
        return transport.get_pid()


def _move_targets(board: chess.Board, move: chess.Move) -> list[int]:
    """The squares a click may name for `move`: its own, and for castling both the king's
    destination and the rook's square (python-chess writes one or the other, by variant)."""
    if not board.is_castling(move):
        return [move.to_square]
    rank = chess.square_rank(move.from_square)
    king_to = chess.square(6 if board.is_kingside_castling(move) else 2, rank)
    if board.chess960:
        return [move.to_square, king_to]  # python-chess writes king-takes-rook
    rook_from = chess.square(7 if board.is_kingside_castling(move) else 0, rank)
    return [king_to, rook_from]


def _ply_offset(board: chess.Board) -> int:
    """The ply of the starting position (for move numbers of games set up from a FEN)."""
    return 2 * (board.fullmove_number - 1) + (board.turn == chess.BLACK)
