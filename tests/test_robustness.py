"""Bad input, fuzzing, tiny clocks and a whole game: the engine never crashes, hangs or moves illegally."""

from __future__ import annotations

import random
import subprocess
import time

import chess
import chess.engine
import pytest

from engine.board.perft import KIWIPETE
from engine.protocol.uci import UciError, parse_go, parse_position
from uci_client import ENGINE_COMMAND, RawUci


@pytest.fixture
def raw():
    client = RawUci()
    # As GUIs do, `isready` before the first command, until the search has loaded: its
    # still-loading notice is not one of the info strings the tests count.
    client.start()
    yield client
    if client.process.poll() is None:
        client.close()


def info_strings_after(raw: RawUci, command: str) -> list[str]:
    raw.send(command)
    raw.send("isready")
    lines = raw.read_until("readyok")
    return [line for line in lines if line.startswith("info string")]


@pytest.mark.parametrize("command", [
    "xyzzy",
    "position fen not/a/fen w - - 0 1",
    "position fen 8/8/8/8/8/8/8/8 w - - 0 1",  # no kings
    "position startpos moves e2e5",
    "position startpos moves e2e4 e2e4",
    "position fen",
    "position sideways",
    "setoption name NoSuchOption value 3",
    "setoption name Hash value 0",
    "setoption name Hash value lots",
    "setoption name Ponder value maybe",
    "setoption name UCI_Elo value 99999",
    "setoption name Skill Level value 21",
    "setoption name UCI_LimitStrength value 1",
    "setoption value 3",
    "debug sideways",
])
def test_malformed_command_gets_one_info_string_and_changes_nothing(raw, command):
    raw.send("position startpos moves e2e4")
    errors = info_strings_after(raw, command)
    assert len(errors) == 1, errors
    raw.send("d")
    lines = raw.read_until("Checkers")
    assert any(line.startswith("Fen: rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b") for line in lines)


@pytest.mark.parametrize("fen, kept, warning", [
    # White's king is on f1: its castling rights are the ones no position can have.
    ("r3k2r/8/8/8/8/8/8/R4K1R w KQkq - 0 1", "r3k2r/8/8/8/8/8/8/R4K1R w kq - 0 1", "castling"),
    ("4k3/8/8/8/8/8/8/R3K3 w - e6 0 1", "4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "en passant"),
])
def test_a_fen_with_rights_its_position_cannot_have_is_taken_without_them(raw, fen, kept, warning):
    # As Stockfish takes it: refused, the engine would search the position before and answer
    # with a move the GUI's position does not have.
    errors = info_strings_after(raw, f"position fen {fen}")
    assert len(errors) == 1 and "warning" in errors[0] and warning in errors[0], errors
    raw.send("d")
    assert any(line == f"Fen: {kept}" for line in raw.read_until("Checkers"))


def test_a_promotion_written_in_capitals_is_read():
    board = parse_position("startpos moves e2e4 d7d5 e4d5 g8f6 d5d6 f6e4 d6c7 e4f6 c7b8Q".split())
    assert board.peek() == chess.Move.from_uci("c7b8q")


def test_a_null_move_that_leaves_a_king_in_check_is_refused():
    with pytest.raises(UciError):
        parse_position("fen 4k3/4R3/8/8/8/8/8/4K3 b - - 0 1 moves 0000".split())
    # Out of check a null move is a move python-chess's clients send: it stays.
    assert parse_position("startpos moves 0000".split()).turn == chess.BLACK


def test_go_numbers_too_large_to_use_are_cut_to_limits_that_still_work():
    limits, problems = parse_go(["wtime", "9" * 330, "nodes", "9" * 20, "movetime", "9" * 30],
                                chess.Board())
    assert not problems
    assert limits.wtime == limits.movetime == 2 ** 31 - 1 and limits.nodes == 2 ** 62


@pytest.mark.parametrize("command, problems, only", [
    ("go depth 2 sideways", 1, None),
    ("go depth abc depth 2", 1, None),
    ("go nodes -5 depth 2", 1, None),
    ("go mate 0 depth 2", 1, None),
    ("go depth 2 searchmoves e2e4 d7d5 x9", 2, "d7d5"),  # e2e4 is White's move: illegal here
    ("go depth 2 wtime", 1, None),
])
def test_malformed_go_is_reported_and_still_answered_from_the_rest(raw, command, problems, only):
    # A GUI waits for the bestmove of every go: Stockfish leaves out what it cannot read.
    raw.send("position startpos moves e2e4")
    raw.send(command)
    lines = raw.read_until("bestmove")
    errors = [line for line in lines if line.startswith("info string")]
    assert len(errors) == problems and all("error" in line for line in errors), errors
    move = chess.Move.from_uci(lines[-1].split()[1])
    board = chess.Board()
    board.push_uci("e2e4")
    assert move in board.legal_moves
    assert only is None or move.uci() == only


def test_go_left_without_a_limit_searches_until_stop(raw):
    raw.send("position startpos")
    raw.send("go searchmoves e7e5")
    raw.send("isready")
    lines = raw.read_until("readyok")
    assert not any(line.startswith("bestmove") for line in lines)
    raw.send("stop")
    assert chess.Move.from_uci(raw.read_until("bestmove")[-1].split()[1]) in chess.Board().legal_moves


def test_rejected_option_value_keeps_the_old_value(raw):
    assert info_strings_after(raw, "setoption name MultiPV value 2") == []
    assert len(info_strings_after(raw, "setoption name MultiPV value 999")) == 1
    raw.send("position startpos")
    raw.send("go depth 2")
    lines = raw.read_until("bestmove")
    assert any(" multipv 2 " in line for line in lines)


def test_tiny_clock_still_gets_a_legal_move_in_time(raw):
    board = chess.Board(KIWIPETE)
    raw.send(f"position fen {board.fen()}")
    sent = time.monotonic()
    raw.send("go wtime 30 btime 30")
    lines = raw.read_until("bestmove", timeout=5)
    elapsed = time.monotonic() - sent
    assert chess.Move.from_uci(lines[-1].split()[1]) in board.legal_moves
    assert elapsed < 0.5, elapsed  # 30 ms on the clock: anything near it is a loss on time


def fuzz_lines(rng: random.Random, count: int) -> list[str]:
    """Random and mutated command lines, with valid ones mixed in."""
    valid = ["uci", "isready", "ucinewgame", "position startpos", "position startpos moves e2e4 e7e5",
             f"position fen {KIWIPETE}",
             "go depth 1", "go nodes 50", "go movetime 10", "stop", "setoption name Hash value 4",
             "setoption name MultiPV value 2", "setoption name Clear Hash", "d", "eval",
             "go infinite", "ponderhit", "go ponder wtime 100 btime 100", "debug on", "go perft 1"]
    alphabet = "abcdefgh12345678 /-KQRBNPkqrbnpwx0\t"
    lines = []
    for _ in range(count):
        roll = rng.random()
        if roll < 0.3:
            line = rng.choice(valid)
        elif roll < 0.8:
            words = rng.choice(valid).split()
            for _ in range(rng.randint(1, 3)):
                action = rng.randrange(3)
                position = rng.randrange(len(words) + 1)
                if action == 0 and words:
                    words.pop(min(position, len(words) - 1))
                elif action == 1:
                    words.insert(position, "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 8))))
                else:
                    words.insert(position, rng.choice(["-1", "999999999999", "0", "nan", "moves", "fen",
                                                       "value", "name", "searchmoves", "e2e4"]))
            line = " ".join(words)
        else:
            line = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        if line.split()[:1] in (["quit"], ["go"]) and "infinite" in line:
            line += ""  # infinite searches are stopped by the next go/position/stop
        lines.append(line)
    return lines


def test_fuzzed_input_never_kills_the_engine_nor_yields_an_illegal_bestmove():
    rng = random.Random(20261122)
    lines = fuzz_lines(rng, 3000)
    script = fuzz_script(lines)
    result = subprocess.run(ENGINE_COMMAND, input=script, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "readyok" in result.stdout
    check_no_exception_escaped(result.stdout, result.stderr)
    # Replay the positions the engine accepted and check every bestmove against them.
    check_bestmoves_are_legal(lines, result.stdout)


def fuzz_script(lines: list[str]) -> str:
    """The engine's input: an `isready` after each line, so that the `readyok`s split the output
    line by line and each bestmove can be checked against the searches that could have printed it
    (`check_bestmoves_are_legal`)."""
    return "".join(f"{line}\nisready\n" for line in lines) + "stop\nisready\nquit\n"


def check_no_exception_escaped(output: str, errors: str) -> None:
    """The engine survives a bug by reporting it (engine/protocol/uci.py's `internal error`, the search
    thread's `search error`, a traceback on stderr): malformed input must not reach one."""
    assert "Traceback" not in output
    assert "Traceback" not in errors, errors[-2000:]
    bugs = [line for line in output.splitlines() if "internal error" in line or "search error" in line]
    assert not bugs, bugs[:10]


def check_bestmoves_are_legal(lines: list[str], output: str) -> None:
    """Every `bestmove` must be legal in the position of a `go` sent since the line after which
    the previous `bestmove` came (the engine's position being the last one it accepted)."""
    segments = iter(output.split("readyok\n"))
    current = chess.Board().fen()
    candidates: set[str] = set()
    bestmoves = 0
    for line in lines:
        tokens = line.split()
        # What was printed up to our `isready` after this line (and the line's own, if it is one).
        segment = "".join(next(segments) for _ in range(1 + (tokens[:1] == ["isready"])))
        if tokens[:1] == ["position"]:
            try:
                current = parse_position(tokens[1:]).fen()
            except (UciError, ValueError):
                pass  # refused: the engine keeps its position
        elif tokens[:1] == ["go"]:
            candidates.add(current)
        for printed in segment.splitlines():
            if printed.startswith("bestmove"):
                bestmoves += 1
                move = printed.split()[1]
                assert move == "(none)" or any(
                    chess.Move.from_uci(move) in chess.Board(fen).legal_moves for fen in candidates
                ), (line, move, candidates)
                # A search started by this very line may still be running.
                candidates = {current} if tokens[:1] == ["go"] else set()
    assert bestmoves, "the fuzz run should have searched at least once"


def test_self_play_game_at_a_fast_time_control_ends_by_the_rules():
    board = chess.Board()
    clocks = {chess.WHITE: 2.0, chess.BLACK: 2.0}
    increment = 0.02
    with chess.engine.SimpleEngine.popen_uci(ENGINE_COMMAND, timeout=60) as white, \
            chess.engine.SimpleEngine.popen_uci(ENGINE_COMMAND, timeout=60) as black:
        players = {chess.WHITE: white, chess.BLACK: black}
        # A match runner starts the clocks after `readyok`, which waits for the kernels to load.
        white.ping()
        black.ping()
        while not board.is_game_over(claim_draw=True) and board.fullmove_number <= 120:
            limit = chess.engine.Limit(white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK],
                                       white_inc=increment, black_inc=increment)
            start = time.monotonic()
            result = players[board.turn].play(board, limit)
            clocks[board.turn] -= time.monotonic() - start
            assert clocks[board.turn] > 0, f"{'white' if board.turn else 'black'} lost on time"
            clocks[board.turn] += increment
            assert result.move in board.legal_moves
            board.push(result.move)
    assert board.is_game_over(claim_draw=True) or board.fullmove_number > 120
