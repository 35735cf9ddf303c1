"""The UCI protocol: read a line, dispatch it to a handler, format `info` and `bestmove` lines.

Stockfish's behaviour is the reference. Every malformed line is answered with one
`info string ...` and changes nothing, except that a `go` always searches (its malformed parts
left out); no exception ever reaches the output stream.
"""

from __future__ import annotations

import sys
import threading
from typing import Callable, TextIO

import chess
import chess.polyglot

from engine import ENGINE_AUTHOR, ENGINE_NAME, __version__
from engine.protocol.engine import Engine
from engine.protocol.options import OptionError, available
from engine.evaluation.score import MATE, MATE_BOUND
from engine.search.timeman import Limits

READY_WAIT = 1.5  # seconds `isready` waits for the search to load before it answers anyway
GO_INTEGER_PARAMETERS = ("wtime", "btime", "winc", "binc", "movestogo", "movetime",
                         "depth", "nodes", "mate", "perft")
GO_TIME_PARAMETERS = ("wtime", "btime", "winc", "binc", "movetime")
# The largest value of a `go` parameter that is used as given: larger ones mean "no limit" in
# practice (a clock of 24 days, a budget of 4.6e18 nodes) and are cut to it, where Python's
# floats and the kernel's int64 still hold them.
GO_LARGEST = {"nodes": 1 << 62}
GO_LARGEST_DEFAULT = (1 << 31) - 1
GO_WORDS = GO_INTEGER_PARAMETERS + ("infinite", "ponder", "searchmoves")


class UciError(ValueError):
    """A command line that cannot be carried out; its message goes out as `info string`."""


def format_score(score: int) -> str:
    """`cp N` or `mate N` (moves, negative when the side to move is being mated)."""
    if score >= MATE_BOUND:
        return f"mate {(MATE - score + 1) // 2}"
    if score <= -MATE_BOUND:
        return f"mate {-((MATE + score) // 2)}"
    return f"cp {score}"


def parse_position(tokens: list[str], chess960: bool = False,
                   repairs: list[str] | None = None) -> chess.Board:
    """The board of `position startpos|fen <fen> [moves ...]` (tokens after `position`).

    With ``chess960`` (UCI_Chess960) the FEN's castling rights may name the rooks' files
    (Shredder-FEN `HAha`) or use X-FEN's `KQkq`, and the board's castling moves are king-takes-rook.
    A FEN's castling right without its king and rook and an en passant square no pawn can take on
    are dropped, as Stockfish drops them, each noted in ``repairs``: the GUI plays on from that
    position, and refusing it would leave the engine searching the one before.
    """
    repairs = [] if repairs is None else repairs
    if not tokens:
        raise UciError("position needs 'startpos' or 'fen <fen>'")
    if "moves" in tokens:
        split = tokens.index("moves")
        setup, moves = tokens[:split], tokens[split + 1:]
    else:
        setup, moves = tokens, []
    if not setup:
        raise UciError("position needs 'startpos' or 'fen <fen>' before 'moves'")
    if setup[0] == "startpos":
        if len(setup) != 1:
            raise UciError(f"unexpected words after startpos: {' '.join(setup[1:])}")
        board = chess.Board(chess960=chess960)
    elif setup[0] == "fen":
        fen = " ".join(setup[1:])
        if not fen:
            raise UciError("position fen needs a FEN")
        try:
            board = chess.Board(fen, chess960=chess960)
        except ValueError as error:
            raise UciError(f"invalid FEN '{fen}': {error}") from None
        status = board.status()
        if status & chess.STATUS_BAD_CASTLING_RIGHTS:
            board.castling_rights = board.clean_castling_rights()
            kept = board.fen(shredder=chess960).split()[2]
            repairs.append(f"castling rights without their king and rook dropped (kept: {kept})")
        if status & chess.STATUS_INVALID_EP_SQUARE:
            board.ep_square = None
            repairs.append("an en passant square no pawn can take on dropped")
        status = board.status()
        if status != chess.STATUS_VALID:
            problems = [flag.name.lower() for flag in chess.Status if flag and flag in status]
            raise UciError(f"impossible position '{fen}': {', '.join(problems)}")
    else:
        raise UciError(f"position needs 'startpos' or 'fen', not '{setup[0]}'")
    for text in moves:
        text = text.lower()  # a promotion some GUIs write `a7a8Q`
        try:
            move = chess.Move.from_uci(text)
        except ValueError:
            raise UciError(f"invalid move '{text}' in position") from None
        if not move or not board.is_legal(move):
            # Accept the king-takes-rook castling some GUIs send, as python-chess understands it.
            try:
                move = board.parse_uci(text)
            except ValueError:
                raise UciError(f"illegal move '{text}' in position {board.fen()}") from None
        if not move and board.is_check():
            raise UciError(f"a null move ({text}) while in check in position {board.fen()}")
        board.push(move)
    return board


def parse_go(tokens: list[str], board: chess.Board) -> tuple[Limits, list[str]]:
    """The limits of `go ...` (tokens after `go`) and what was wrong with them.

    A `go` is always answered, as Stockfish answers it: a GUI waits for the `bestmove`, so a
    malformed parameter is reported and left out and the search runs on the rest.
    """
    limits = Limits()
    problems: list[str] = []
    i = 0
    while i < len(tokens):
        word = tokens[i]
        if word in GO_INTEGER_PARAMETERS:
            i += 1
            if i >= len(tokens):
                problems.append(f"go {word} needs a number")
                continue
            try:
                value = int(tokens[i])
            except ValueError:
                problems.append(f"go {word} needs an integer, not '{tokens[i]}'")
                if tokens[i] not in GO_WORDS:  # the bad value, not the next parameter
                    i += 1
                continue
            i += 1
            if word in GO_TIME_PARAMETERS:
                value = max(0, value)  # some GUIs send a negative clock after a slow move
            elif value < 1 and word != "perft":
                problems.append(f"go {word} must be at least 1, not {value}")
                continue
            elif word == "perft" and value < 0:
                problems.append(f"go perft must not be negative, not {value}")
                continue
            setattr(limits, word, min(value, GO_LARGEST.get(word, GO_LARGEST_DEFAULT)))
        elif word in ("infinite", "ponder"):
            setattr(limits, word, True)
            i += 1
        elif word == "searchmoves":
            i += 1
            while i < len(tokens) and tokens[i] not in GO_WORDS:
                try:
                    move = chess.Move.from_uci(tokens[i])
                except ValueError:
                    move = None
                if move is None or not board.is_legal(move):
                    problems.append(f"{'illegal' if move else 'invalid'} move '{tokens[i]}' "
                                    "in searchmoves")
                else:
                    limits.searchmoves.append(move)
                i += 1
        else:
            problems.append(f"unknown go parameter '{word}'")
            i += 1
    return limits, problems


class UciProtocol:
    """Reads commands from ``input`` and writes the engine's answers to ``output``."""

    def __init__(self, output: TextIO = sys.stdout) -> None:
        self.output = output
        self._write_lock = threading.Lock()
        self.engine = Engine(self)
        self.handlers: dict[str, Callable[[list[str]], bool | None]] = {
            "uci": self.cmd_uci,
            "isready": self.cmd_isready,
            "setoption": self.cmd_setoption,
            "ucinewgame": self.cmd_ucinewgame,
            "position": self.cmd_position,
            "go": self.cmd_go,
            "stop": self.cmd_stop,
            "ponderhit": self.cmd_ponderhit,
            "quit": self.cmd_quit,
            "debug": self.cmd_debug,
            "register": self.cmd_register,
            "d": self.cmd_d,
            "eval": self.cmd_eval,
            "bench": self.cmd_bench,
            "genfens": self.cmd_genfens,
        }

    # ------------------------------------------------------------------ output

    def send(self, line: str) -> None:
        with self._write_lock:
            try:
                self.output.write(line + "\n")
                self.output.flush()
            except (BrokenPipeError, ValueError, OSError):
                pass  # the GUI went away; nothing left to tell it

    def on_message(self, text: str) -> None:
        for line in text.splitlines() or [""]:
            self.send(f"info string {line}")

    def on_info(self, info) -> None:
        ms = max(1, int(info.time * 1000))
        parts = [f"info depth {info.depth} seldepth {max(info.seldepth, info.depth)}",
                 f"multipv {info.multipv} score {format_score(info.score)}"]
        if info.bound:
            parts.append(info.bound)
        if info.wdl is not None:
            parts.append("wdl {} {} {}".format(*info.wdl))
        parts.append(f"nodes {info.nodes} nps {info.nodes * 1000 // ms} hashfull {info.hashfull}"
                     f" tbhits {info.tbhits} time {ms}")
        if info.pv:
            parts.append("pv " + " ".join(move.uci() for move in info.pv))
        self.send(" ".join(parts))

    def on_bestmove(self, move: chess.Move | None, ponder: chess.Move | None) -> None:
        if move is None:
            self.send("bestmove (none)")
        elif ponder is not None:
            self.send(f"bestmove {move.uci()} ponder {ponder.uci()}")
        else:
            self.send(f"bestmove {move.uci()}")

    # ------------------------------------------------------------------ the loop

    def loop(self, lines: TextIO = sys.stdin) -> int:
        """Handles lines until `quit` or end of input; returns the exit status."""
        while True:
            line = lines.readline()
            if not line:
                break
            if self.handle(line) is False:
                break
        self.engine.quit()
        return 0

    def handle(self, line: str) -> bool:
        """Handles one command line; False means quit."""
        tokens = line.split()
        if not tokens:
            return True
        command, arguments = tokens[0], tokens[1:]
        handler = self.handlers.get(command)
        if handler is None:
            self.on_message(f"unknown command: '{line.strip()[:200]}'")
            return True
        try:
            return handler(arguments) is not False
        except (UciError, OptionError) as error:
            self.on_message(f"error: {error}")
        except Exception as error:  # a bug: report it, keep the engine alive
            self.on_message(f"internal error in '{command}': {type(error).__name__}: {error}")
        return True

    # ------------------------------------------------------------------ commands

    def cmd_uci(self, args: list[str]) -> None:
        self.send(f"id name {ENGINE_NAME} {__version__}")
        self.send(f"id author {ENGINE_AUTHOR}")
        for option in available():
            self.send(option.uci_line())
        self.send("uciok")

    def cmd_isready(self, args: list[str]) -> None:
        # Loaded from numba's cache the search is ready in about a second; compiled into an empty
        # one it takes half a minute or more, longer than GUIs wait for `readyok` (Cute Chess:
        # 15 s). The answer never waits that long: a `go` meanwhile is searched by the plain
        # Python search of engine/search/interim.py.
        if not self.engine.wait_ready(timeout=READY_WAIT):
            self.on_message("the search is still loading (its kernels are compiled on a first "
                            "start with an empty cache, or helper processes of Threads start); "
                            "a move asked for before the kernels load is chosen by a plain "
                            "Python search within its clock")
        self.send("readyok")

    def cmd_debug(self, args: list[str]) -> None:
        if args not in (["on"], ["off"]):
            raise UciError("debug takes 'on' or 'off'")
        self.engine.debug = args[0] == "on"

    def cmd_register(self, args: list[str]) -> None:
        pass  # Brudno needs no registration

    def cmd_setoption(self, args: list[str]) -> None:
        if not args or args[0] != "name":
            raise UciError("setoption needs 'name <id> [value <x>]'")
        if "value" in args:
            split = args.index("value")
            name, value = " ".join(args[1:split]), " ".join(args[split + 1:])
        else:
            name, value = " ".join(args[1:]), None
        if not name:
            raise UciError("setoption needs an option name")
        self.engine.set_option(name, value)

    def cmd_ucinewgame(self, args: list[str]) -> None:
        self.engine.new_game()

    def cmd_position(self, args: list[str]) -> None:
        repairs: list[str] = []
        board = parse_position(args, self.engine.options["UCI_Chess960"], repairs)
        for repair in repairs:
            self.on_message(f"warning: {repair}")
        self.engine.set_position(board)

    def cmd_go(self, args: list[str]) -> None:
        limits, problems = parse_go(args, self.engine.board)
        for problem in problems:
            self.on_message(f"error: {problem}; ignored")
        if limits.perft is not None:
            self.engine.stop()
            from engine.board.perft import perft_report
            for line in perft_report(self.engine.board.copy(), limits.perft).splitlines():
                self.send(line)
            return
        self.engine.go(limits)

    def cmd_stop(self, args: list[str]) -> None:
        self.engine.stop()

    def cmd_ponderhit(self, args: list[str]) -> None:
        self.engine.ponderhit()

    def cmd_quit(self, args: list[str]) -> bool:
        return False

    def cmd_d(self, args: list[str]) -> None:
        board = self.engine.board
        self.send("")
        for row in str(board).splitlines():
            self.send(" " + row)
        self.send("")
        self.send(f"Fen: {board.fen()}")
        self.send(f"Key: {chess.polyglot.zobrist_hash(board):016X}")
        checkers = " ".join(chess.square_name(sq) for sq in board.checkers())
        self.send(f"Checkers: {checkers}")

    def cmd_eval(self, args: list[str]) -> None:
        for line in self.engine.evaluation_report():
            self.send(line)

    def cmd_bench(self, args: list[str]) -> None:
        self.engine.stop()
        self.engine.wait_ready()
        from engine.protocol.bench import run_bench
        depth = int(args[0]) if args and args[0].isdigit() else None
        run_bench(depth=depth, out=self.send, evaluate=self.engine.evaluation())


    def cmd_genfens(self, args: list[str]) -> None:
        # Answered before the next command is read: OpenBench sends `quit` right after it.
        from engine.protocol import genfens

        try:
            request = genfens.parse_request(args)
            book = genfens.Book(request.book) if request.book is not None else None
        except (ValueError, OSError) as error:
            raise UciError(str(error)) from None
        self.engine.stop()
        evaluate = self.engine.evaluation()
        if evaluate is None:
            raise UciError("genfens needs the search, which could not be loaded")
        score = genfens.search_score(evaluate, request.depth)
        for board in genfens.openings(request, score, book):
            self.send(f"info string genfens {board.fen()}")


def main(input_stream: TextIO | None = None, commands: list[str] | None = None) -> int:
    """Runs ``commands`` (the command line's, each a UCI line), then the UCI loop on
    stdin/stdout (unless one of them was `quit`)."""
    stdin = input_stream or sys.stdin
    if hasattr(stdin, "reconfigure"):
        stdin.reconfigure(errors="replace")  # a stray byte must not kill the engine
    protocol = UciProtocol(sys.stdout)
    for command in commands or []:
        if protocol.handle(command) is False:
            protocol.engine.quit()
            return 0
    return protocol.loop(stdin)
