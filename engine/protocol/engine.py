"""The engine as an object: the game, the options, the tables, and the search thread.

The UCI layer (engine/protocol/uci.py) calls the methods here and gets results back through the
``Listener`` it passes in; it never touches the search directly. The numba evaluation (and so the
search module) is imported in a background thread, so that `uci` is answered at once.
"""

from __future__ import annotations

import gc
import os
import random
import threading
import time
import traceback
from dataclasses import replace
from typing import TYPE_CHECKING, Callable, Protocol

import chess

from engine.protocol import options as uci_options
from engine.search import params
from engine.protocol import strength, tuning
from engine.evaluation import wdl
from engine.knowledge.book import BookError, OpeningBook
from engine.knowledge.tablebase import TablebaseError, Tablebases, tablebase_root_limits, with_tablebase_score
from engine.search.table_size import check_fits
from engine.search.timeman import Limits, TimeBudget, budget

if TYPE_CHECKING:
    from engine.search.results import Info
    from engine.search.root import Search
    from engine.search.smp import HelperPool
    from engine.search.tt import TranspositionTable


# The options that act on the search's objects (its table, evaluation, helper processes).
NEED_THE_SEARCH = ("Hash", "Threads", "Use NNUE", "EvalFile")


class Listener(Protocol):
    """Where the engine reports: the UCI layer formats these as `info` / `bestmove` lines."""

    def on_info(self, info: Info) -> None: ...

    def on_bestmove(self, move: chess.Move | None, ponder: chess.Move | None) -> None: ...

    def on_message(self, text: str) -> None: ...


def with_castling_notation(board: chess.Board, chess960: bool) -> chess.Board:
    """The same game on a board whose castling moves are king-takes-rook (``chess960``) or
    king-two-squares: python-chess keeps its moves, and so the search's, in its board's notation."""
    if board.chess960 == chess960:
        return board
    converted = chess.Board(board.root().fen(shredder=True), chess960=chess960)
    try:
        for move in board.move_stack:
            converted.push(converted.parse_uci(move.uci()))
    except ValueError:  # a Chess960 castling the standard rules cannot replay: keep the position
        converted = chess.Board(board.fen(shredder=True), chess960=chess960)
    return converted


class Engine:
    def __init__(self, listener: Listener) -> None:
        self.listener = listener
        self.debug = False  # `debug on`: extra `info string` lines
        self.board = chess.Board()
        self.options = uci_options.defaults()
        self.book = OpeningBook()
        self.tablebases = Tablebases()
        self.rng = random.Random()
        self._game_level: int | None = None  # the strength level of this game, once chosen
        self._search: Search | None = None
        # The engine owns the transposition table and the helper pool; its search is given them.
        self.tt: TranspositionTable | None = None
        self.helpers: HelperPool | None = None
        self._loaded = threading.Event()
        self._setup_lock = threading.Lock()  # the loader's set-up against options set meanwhile
        self._deferred: list[tuple[str, object]] = []  # evaluation options set during the load
        self._load_error: str | None = None
        self._thread: threading.Thread | None = None
        self._release = threading.Event()  # lets a finished infinite/ponder search print bestmove
        self._interim_stop = threading.Event()  # ends the interim search of a move (`stop`)
        self._pondering = False
        self._ponder_budget: TimeBudget | None = None
        self._searched_material = wdl.material(self.board)  # of the position being searched
        threading.Thread(target=self._load_search, name="brudno-load", daemon=True).start()

    # ------------------------------------------------------------------ start-up

    def _load_search(self) -> None:
        try:
            # Importing the search compiles its kernels (or loads them from numba's cache).
            from engine.search.root import Search
            from engine.search.tt import TranspositionTable

            # The options that need the search may have been set while it compiled: they were
            # only recorded (set_option), and are applied here, under the lock set_option takes.
            with self._setup_lock:
                try:
                    self.tt = TranspositionTable(self.options["Hash"])
                except MemoryError as error:  # (a Hash set while loading was checked, not allocated)
                    default = uci_options.find("Hash").default
                    self.listener.on_message(f"error: {error}; Hash is {default}")
                    self.options["Hash"] = default
                    self.tt = TranspositionTable(default)
                self._search = Search(self.tt)
                self._apply_deferred_options()
                self._loaded.set()
        except Exception as error:  # reported on `isready`/`go`; the engine still answers
            self._load_error = f"{type(error).__name__}: {error}"
        finally:
            self._loaded.set()

    def _apply_deferred_options(self) -> None:
        """Applies what was set during the load, in order, as set_option would have: an unusable
        network file is reported and the evaluation before it kept."""
        if self.options["Use NNUE"]:
            try:
                self._set_evaluation(True, self.options["EvalFile"])
            except uci_options.OptionError as error:  # a default from BRUDNO_EVALFILE
                self.listener.on_message(f"error: {error}; the shipped network is used")
                self.options["EvalFile"] = ""
                self._set_evaluation(True, "")
        for name, value in self._deferred:
            use_network = value if name == "Use NNUE" else self.options["Use NNUE"]
            path = value if name == "EvalFile" else self.options["EvalFile"]
            try:
                self._set_evaluation(use_network, path)
            except uci_options.OptionError as error:
                self.listener.on_message(f"error: {error}")
                continue
            self.options[name] = value
        self._deferred.clear()
        if self.options["Threads"] > 1:
            threads, self.options["Threads"] = self.options["Threads"], 1
            try:
                self._set_threads(threads)
                self.options["Threads"] = threads
            except uci_options.OptionError as error:
                self.listener.on_message(f"error: {error}")

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Waits until the evaluation is compiled and the search exists, and the helper processes
        of `Threads` have started; or for at most ``timeout`` seconds: whether it is ready."""
        deadline = None if timeout is None else time.monotonic() + timeout
        if not self._loaded.wait(timeout):
            return False
        if self._load_error:
            self.listener.on_message(f"error loading the search: {self._load_error}")
        if self.helpers is None:
            return True
        if deadline is None:
            self.helpers.wait_ready()
            return True
        # Helpers still starting join a later search (`go` never waits for them).
        return self.helpers.started(max(0.0, deadline - time.monotonic()))

    # ------------------------------------------------------------------ game state and options

    def set_position(self, board: chess.Board) -> None:
        self.stop()
        self.board = board

    def new_game(self) -> None:
        self.stop()
        self._game_level = None
        if not self._loaded.is_set():
            return  # the search is still being loaded: its tables will start empty anyway
        self.wait_ready()
        if self._search is not None:
            if self.helpers is not None:
                self.helpers.wait_idle()  # no helper writes into the table while it is cleared
            self.tt.clear()
            self._search.tables.clear()
            if self.helpers is not None:
                self.helpers.new_game()

    def set_option(self, name: str, raw_value: str | None) -> None:
        """Applies a `setoption`; raises OptionError (and changes nothing) when it is invalid."""
        option = uci_options.find(name)
        value = option.parse(raw_value)
        if option.name == "Hash":
            try:
                check_fits(value)
            except MemoryError as error:
                raise uci_options.OptionError(f"{error}; the table keeps its size") from None
        self.stop()
        if option.name in NEED_THE_SEARCH and not self._loaded.is_set():
            with self._setup_lock:
                if not self._loaded.is_set():
                    # Still compiling (a first start): the loader applies it, so that `setoption`
                    # and the `isready` after it are answered at once.
                    if option.name in ("Hash", "Threads"):
                        self.options[option.name] = value
                    else:  # a network file is checked when it is loaded
                        self._deferred.append((option.name, value))
                    return
        if option.name == "Clear Hash":
            self.new_game()
            return
        if option.name in tuning.slots():
            self._set_parameter(option.name, value)
            return
        if option.name == "Threads":
            self.wait_ready()
            self._set_threads(value)
        elif option.name == "Hash":
            self.wait_ready()
            if self._search is not None:
                try:
                    self.tt.resize(value)
                except (OSError, MemoryError) as error:
                    raise uci_options.OptionError(f"{error}; the table keeps its size") from None
                if self.helpers is not None:
                    self.helpers.attach(self.tt)
        elif option.name == "BookFile":
            self._open_book(value)
        elif option.name == "SyzygyPath":
            self._open_tablebases(value)
        elif option.name == "SyzygyProbeLimit":
            self.tablebases.probe_limit = value
        elif option.name == "SyzygyProbeDepth":
            self.tablebases.probe_depth = value
        elif option.name == "Syzygy50MoveRule":
            self.tablebases.rule50 = value
        elif option.name in ("Use NNUE", "EvalFile"):
            use_network = value if option.name == "Use NNUE" else self.options["Use NNUE"]
            path = value if option.name == "EvalFile" else self.options["EvalFile"]
            self.wait_ready()
            self._set_evaluation(use_network, path)
            self.new_game()  # the table's scores are the other evaluation's
        elif option.name == "UCI_Chess960":
            self.board = with_castling_notation(self.board, value)
        elif (option.name in ("UCI_LimitStrength", "UCI_Elo", "Skill Level")
              and value != self.options[option.name]):
            self._game_level = None  # (a GUI that sends the same value before each move keeps it)
        self.options[option.name] = value

    def _set_parameter(self, name: str, value: int) -> None:
        """A search parameter of the tuning build (engine/protocol/tuning.py): from the next search on,
        for the main search and its helpers (a loading search reads it when it is made)."""
        with self._setup_lock:
            try:
                tuning.set_value(name, value)
            except ValueError as error:
                raise uci_options.OptionError(str(error)) from None
            if self._search is not None:
                self._search.parameters = params.active()
            if self.helpers is not None:
                self.helpers.set_parameters(os.environ.get(params.OVERRIDES, ""))
        self.options[name] = value

    def _set_threads(self, threads: int) -> None:
        """Threads - 1 helper processes (engine/search/smp.py) and the main search share the table,
        which moves into shared memory (emptied, as a resize empties it)."""
        if self._search is None:
            return
        self._stop_helpers()
        try:
            self.tt.resize(self.options["Hash"], shared=threads > 1)
            if threads > 1:
                from engine.search.smp import HelperPool

                self.helpers = self._search.helpers = HelperPool(threads - 1, self.tt,
                                                                 self.listener.on_message)
                if self.options["Use NNUE"]:
                    self.helpers.set_evaluation(self._network_path(self.options["EvalFile"]))
        except OSError as error:
            self._stop_helpers()
            self.tt.resize(self.options["Hash"], shared=False)
            raise uci_options.OptionError(f"no helper processes: {error}; Threads stays 1") from None

    def _set_evaluation(self, use_network: bool, path: str) -> None:
        """The classical evaluation, or the network in ``path`` (the shipped one if empty), for
        the main search and its helpers; OptionError (and no change) if the file is unusable."""
        search = self._search
        if search is None:
            return
        network_path = None
        if use_network:
            from engine.evaluation import network

            network_path = self._network_path(path)
            try:
                search.evaluate = network.evaluator(network_path)
            except (OSError, ValueError) as error:
                raise uci_options.OptionError(
                    f"cannot use the network: {error}; the evaluation is unchanged") from None
        else:
            from engine.evaluation.evaluate import evaluate as classical_evaluate

            search.evaluate = classical_evaluate
        if self.helpers is not None:
            self.helpers.set_evaluation(network_path)

    @staticmethod
    def _network_path(eval_file: str) -> str:
        """The weight file EvalFile names; empty means the shipped network."""
        from engine.evaluation.network import NETWORK_FILE

        return eval_file or str(NETWORK_FILE)

    def evaluation(self) -> Callable[[chess.Board], int] | None:
        """The evaluation the search uses (None if the search could not be loaded)."""
        self.wait_ready()
        return None if self._search is None else self._search.evaluate

    def static_evaluation(self) -> int:
        """The current position's score by the evaluation the search uses (side to move's view)."""
        self.wait_ready()
        if self._search is None:
            from engine.evaluation.endgame import with_endgame_knowledge
            from engine.evaluation.evaluate import evaluate

            return with_endgame_knowledge(self.board, evaluate(self.board))
        return self._search.static_evaluation(self.board)

    def evaluation_report(self) -> list[str]:
        """The `eval` command's lines: each term of the classical evaluation, then the score the
        search uses where it is another (the network's, or an ending rule's)."""
        self.wait_ready()
        from engine.evaluation.endgame import bare_king_rule_applies, known_draw
        from engine.evaluation.evaluate import evaluation_report

        lines = evaluation_report(self.board).splitlines()
        score = self.static_evaluation()
        if bare_king_rule_applies(self.board):  # it overrides either evaluation
            lines.append(f"Bare-king ending rule (side to move): {score / 100:+.2f} ({score} cp), "
                         "the search's")
        elif known_draw(self.board):
            lines.append("Known draw against a bare king (men that cannot force mate, or rook pawns "
                         "whose corner the king holds): 0.00, the search's")
        elif self.options["Use NNUE"]:
            lines.append(f"NNUE evaluation (side to move): {score / 100:+.2f} ({score} cp), the search's")
        if self.options["Use NNUE"]:
            from engine.evaluation.network import network_provenance

            path = self._network_path(self.options["EvalFile"])
            lines.append(f"NNUE network {path}: {network_provenance(path) or 'no record of its training'}")
        return lines

    def _stop_helpers(self) -> None:
        if self.helpers is not None:
            self.helpers.close()
            self.helpers = self._search.helpers = None
            self.options["Threads"] = 1

    def _open_book(self, path: str) -> None:
        if not path:
            self.book.close()
            return
        try:
            self.book.open(path)
        except BookError as error:
            raise uci_options.OptionError(f"{error}; playing without a book") from None

    def _open_tablebases(self, path: str) -> None:
        if not path:
            self.tablebases.close()
            return
        try:
            self.tablebases.open(path)
        except TablebaseError as error:
            self.tablebases.close()
            raise uci_options.OptionError(f"{error}; playing without tablebases") from None
        self.tablebases.probe_limit = self.options["SyzygyProbeLimit"]
        self.listener.on_message(
            f"found Syzygy tablebases for up to {self.tablebases.max_pieces} pieces")

    # ------------------------------------------------------------------ searching

    def go(self, limits: Limits) -> None:
        """Starts a search of the current position in a worker thread and returns at once.

        The deadlines are set here, from the moment `go` arrived, and by `ponderhit`, both on
        this thread: the search thread only reads them, so no command can race its start.
        """
        self.stop()
        arrived = time.perf_counter()
        # A book move needs no kernel: it is answered before any wait for the search to load.
        book_move = None if limits.ponder else self._book_move(self.board, limits)
        if book_move is not None:
            self.listener.on_message(f"book move {book_move.uci()}")
            self.listener.on_bestmove(book_move, None)
            return
        # The budget is computed once, from the clock as `go` gave it: the wait for the kernels
        # below is bounded by it, and the search gets what is left of it.
        planned = budget(limits, self.board.turn, self.options["Move Overhead"])
        if not self._loaded.is_set() and not limits.ponder and planned.hard is not None:
            self._start_interim_search(limits, planned, arrived)
            return
        self._loaded.wait()
        # Helpers still starting (after `setoption Threads`) join the next search: never wait.
        if self._load_error:
            self.listener.on_message(f"error loading the search: {self._load_error}")
        if self._search is None:
            time_budget = None
        else:
            self._search.stop_event.clear()
            time_budget = self._time_budget(self.board, limits, planned,
                                            time.perf_counter() - arrived)
            # A ponder search has no deadline until `ponderhit` starts our clock.
            self._search.set_budget(None if limits.ponder else time_budget)
        self._pondering = limits.ponder
        self._ponder_budget = time_budget if limits.ponder else None
        self._searched_material = wdl.material(self.board)
        self._release.clear()
        self._thread = threading.Thread(target=self._think, args=(self.board.copy(), limits),
                                        name="brudno-search", daemon=True)
        self._thread.start()

    def _report(self, info: Info) -> None:
        """Passes a search report on, with its win/draw/loss chances when UCI_ShowWDL is on."""
        if self.options["UCI_ShowWDL"]:
            info = replace(info, wdl=wdl.wdl(info.score, self._searched_material))
        self.listener.on_info(info)

    def _start_interim_search(self, limits: Limits, planned: TimeBudget, arrived: float) -> None:
        """A clocked `go` before the kernels have loaded (they compile on a first start that finds
        none cached): the move is chosen by the plain Python search of engine/search/interim.py
        within its time, in the search thread, so that `stop` and `isready` are answered."""
        self.listener.on_message("the search is still loading (numba is compiling its kernels): "
                                 "a plain Python search plays this move")
        time_budget = self._time_budget(self.board, limits, planned,
                                        time.perf_counter() - arrived)
        self._interim_stop.clear()
        self._thread = threading.Thread(target=self._think_interim,
                                        args=(self.board.copy(), time_budget),
                                        name="brudno-interim-search", daemon=True)
        self._thread.start()

    def _think_interim(self, board: chess.Board, time_budget: TimeBudget) -> None:
        from engine.search.interim import InterimSearch

        best = None
        try:
            search = InterimSearch(board, time_budget.soft or time_budget.hard, time_budget.hard,
                                   self._interim_stop.is_set)
            best = search.run(self.listener.on_info)
        except Exception as error:
            self.listener.on_message(f"search error: {type(error).__name__}: {error}")
            traceback.print_exc()
        if best is None or not board.is_legal(best):
            best = next(iter(board.legal_moves), None)
        self.listener.on_bestmove(best, None)

    def _time_budget(self, board: chess.Board, limits: Limits, planned: TimeBudget,
                     spent: float) -> TimeBudget:
        """The ``planned`` budget of ``limits``, less the ``spent`` seconds since `go` arrived."""
        time_budget = planned
        if spent > 0.001 and time_budget.hard is not None:
            time_budget = replace(time_budget, soft=max(0.001, time_budget.soft - spent),
                                  hard=max(0.002, time_budget.hard - spent))
        if limits.has_clock() and board.legal_moves.count() == 1:
            # One legal move: answer fast, but search a little for a ponder move and a score.
            time_budget = TimeBudget(min(time_budget.soft or 0.05, 0.05), time_budget.hard)
        if self.debug:
            self.listener.on_message(f"time budget: soft {time_budget.soft} s, hard {time_budget.hard} s")
        return time_budget

    def stop(self) -> None:
        """Ends the current search (it prints its bestmove) and waits for it."""
        thread = self._thread
        if thread is None:
            return
        if self._search is not None:
            self._search.stop_event.set()
            if self.helpers is not None:
                self.helpers.halt()
        self._interim_stop.set()
        self._pondering = False
        self._release.set()
        thread.join()
        self._thread = None

    def ponderhit(self) -> None:
        """The opponent played the expected move: the ponder search goes on as a timed search."""
        if not self._pondering or self._search is None:
            return
        self._search.set_budget(self._ponder_budget)
        self._pondering = False
        self._release.set()

    def _think(self, board: chess.Board, limits: Limits) -> None:
        best: chess.Move | None = None
        ponder: chess.Move | None = None
        # A full garbage collection walks every object alive, the table's entries included: tens
        # of ms at a moment of its own choosing, enough to overrun a movetime. Objects that
        # outlived the last search are set aside (freed as usual when unreferenced: the search
        # makes no reference cycles), so collections during this one see only its own objects.
        gc.freeze()
        try:
            best, ponder = self._choose_move(board, limits)
        except Exception as error:
            self.listener.on_message(f"search error: {type(error).__name__}: {error}")
            traceback.print_exc()  # stderr: for the developer, never on the UCI stream
        if best is None or not board.is_legal(best):
            best = next(iter(board.legal_moves), None)
            ponder = None
        # `go infinite` and `go ponder` must not answer before `stop` (or `ponderhit`).
        if limits.infinite or self._pondering:
            self._release.wait()
        if ponder is not None:
            after = board.copy(stack=False)
            after.push(best)
            if not after.is_legal(ponder):
                ponder = None
        self.listener.on_bestmove(best, ponder)

    def _choose_move(self, board: chess.Board, limits: Limits) -> tuple[chess.Move | None, chess.Move | None]:
        search = self._search
        if search is None:
            raise RuntimeError(self._load_error or "the search is not available")

        book_move = self._book_move(board, limits)
        if book_move is not None:
            self.listener.on_message(f"book move {book_move.uci()}")
            return book_move, None

        search.tablebases = self.tablebases if self.tablebases.is_open else None
        report = self._report
        if search.tablebases is not None:
            # Always DTZ, whatever the budget: among equally winning moves only DTZ tells which
            # one makes progress (a WDL-only choice can shuffle into a repetition), and its cost,
            # bounded to a few tens of ms for 4 pieces, counts against the deadlines set in `go`.
            probe = self.tablebases.probe_root(board)
            if probe is not None and probe.moves:
                self.listener.on_message(f"tablebase position: wdl {probe.wdl}, dtz {probe.dtz}")
                limits = tablebase_root_limits(probe, limits)
                report = with_tablebase_score(probe, self._report)
        if self._game_level is None:
            self._game_level = strength.level_for_game(self.options, self.rng)
            if self.options["UCI_LimitStrength"]:
                self.listener.on_message(f"UCI_Elo {self.options['UCI_Elo']}: this game is played "
                                         f"at Skill Level {self._game_level}")
        plan = strength.plan_for_level(self._game_level)
        if plan.full:
            result = search.run(board, limits, self.options["MultiPV"], report=report)
            return result.best_move, result.ponder_move
        return strength.weakened_move(search, board, limits, plan, self.options["MultiPV"], self.rng,
                                      report)

    def _book_move(self, board: chess.Board, limits: Limits) -> chess.Move | None:
        if not self.options["OwnBook"] or not self.book.is_open or limits.infinite or limits.searchmoves:
            return None
        return self.book.pick(board, best_only=self.options["BookBestMove"], rng=self.rng)

    # ------------------------------------------------------------------ shutdown

    def quit(self) -> None:
        self.stop()
        self._stop_helpers()
