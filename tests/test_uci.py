"""The engine as a UCI client sees it: the real process driven through python-chess's chess.engine."""

from __future__ import annotations

import os
import subprocess
import time

import chess
import chess.engine
import pytest

from engine.board.perft import KIWIPETE
from paths import DATA
from uci_client import ENGINE_COMMAND, RawUci



@pytest.fixture(scope="module")
def engine():
    client = chess.engine.SimpleEngine.popen_uci(ENGINE_COMMAND, timeout=60)
    yield client
    client.quit()


@pytest.fixture
def raw():
    client = RawUci()
    yield client
    if client.process.poll() is None:
        client.close()


def read_fens(name: str) -> list[str]:
    path = DATA / "mates" / name
    return [line.strip() for line in path.read_text().splitlines()
            if line.strip() and not line.startswith("#")]


# ---------------------------------------------------------------------- handshake and options

def test_handshake_names_brudno_and_declares_the_standard_options(engine):
    assert engine.id["name"].startswith("Brudno")
    for name in ("Hash", "Clear Hash", "MultiPV", "Move Overhead", "Ponder", "Threads"):
        assert name in engine.options
    assert engine.options["Threads"].max >= (os.cpu_count() or 1)
    assert engine.options["Hash"].type == "spin"


def test_options_can_be_set_and_the_engine_still_plays(engine):
    engine.configure({"Hash": 8, "Move Overhead": 50})
    result = engine.play(chess.Board(), chess.engine.Limit(depth=2))
    assert result.move in chess.Board().legal_moves


# ---------------------------------------------------------------------- limits

def test_go_depth_reports_exactly_that_depth(engine):
    info = engine.analyse(chess.Board(KIWIPETE), chess.engine.Limit(depth=3))
    assert info["depth"] == 3
    assert info["pv"][0] in chess.Board(KIWIPETE).legal_moves


def test_go_nodes_stops_at_the_node_limit(engine):
    with engine.analysis(chess.Board(KIWIPETE), chess.engine.Limit(nodes=3000)) as analysis:
        infos = list(analysis)
        best = analysis.wait()
    assert best.move in chess.Board(KIWIPETE).legal_moves
    assert all(info.get("nodes", 0) <= 3000 for info in infos)


def test_go_movetime_answers_within_the_time(engine):
    start = time.monotonic()
    result = engine.play(chess.Board(KIWIPETE), chess.engine.Limit(time=0.5))
    elapsed = time.monotonic() - start
    assert result.move in chess.Board(KIWIPETE).legal_moves
    assert elapsed < 0.5 + 0.4  # process and pipe latency; the engine itself keeps a margin


def movetime_search(raw: RawUci, movetime_ms: int) -> tuple[float, int]:
    """Seconds from `go movetime` to `bestmove`, and the deepest iteration completed."""
    raw.send(f"position fen {KIWIPETE}")
    raw.send("isready")
    raw.read_until("readyok", timeout=120)
    sent = time.monotonic()
    raw.send(f"go movetime {movetime_ms}")
    lines = raw.read_until("bestmove")
    elapsed = time.monotonic() - sent
    depths = [int(line.split()[2]) for line in lines if line.startswith("info depth")]
    return elapsed, max(depths, default=0)


def test_go_movetime_uses_the_whole_movetime_whatever_the_move_overhead(raw):
    """Move Overhead protects a clock; a fixed movetime is searched to its end, as in Stockfish.
    With 240 of 250 ms taken as overhead the search would stop at depth 1."""
    raw.send("uci")
    raw.read_until("uciok")
    raw.send("setoption name Move Overhead value 240")
    elapsed, depth = movetime_search(raw, 250)
    assert depth >= 3, f"go movetime 250 completed only depth {depth}"
    assert 0.24 <= elapsed < 0.25 + 0.1, f"go movetime 250 answered after {elapsed:.3f} s"


def test_go_infinite_waits_for_stop(raw):
    raw.send("uci")
    raw.read_until("uciok")
    raw.send("position startpos moves e2e4")
    raw.send("go infinite")
    time.sleep(1.0)
    raw.send("isready")
    answered = raw.read_until("readyok", timeout=10)
    assert not any(line.startswith("bestmove") for line in answered)
    sent = time.monotonic()
    raw.send("stop")
    lines = raw.read_until("bestmove", timeout=5)
    assert time.monotonic() - sent < 1.0
    move = lines[-1].split()[1]
    board = chess.Board()
    board.push_uci("e2e4")
    assert chess.Move.from_uci(move) in board.legal_moves
    assert any(" pv " in line for line in lines + answered)


def test_go_ponder_becomes_a_timed_search_on_ponderhit(raw):
    raw.send("uci")
    raw.read_until("uciok")
    raw.send("position startpos moves e2e4 e7e5")
    raw.send("go ponder wtime 2000 btime 2000")
    time.sleep(0.5)
    raw.send("isready")
    assert not any(l.startswith("bestmove") for l in raw.read_until("readyok", timeout=10))
    raw.send("ponderhit")
    lines = raw.read_until("bestmove", timeout=5)
    board = chess.Board()
    board.push_uci("e2e4")
    board.push_uci("e7e5")
    assert chess.Move.from_uci(lines[-1].split()[1]) in board.legal_moves


def test_stop_during_ponder_answers_with_a_legal_move(engine):
    board = chess.Board()
    result = engine.play(board, chess.engine.Limit(time=0.2), ponder=True)
    assert result.move in board.legal_moves
    # chess.engine sends `stop` to end pondering when the next command comes.
    result = engine.play(board, chess.engine.Limit(depth=1))
    assert result.move in board.legal_moves


def test_multipv_reports_distinct_lines(engine):
    infos = engine.analyse(chess.Board(KIWIPETE), chess.engine.Limit(depth=3), multipv=3)
    assert len(infos) == 3
    first_moves = {info["pv"][0] for info in infos}
    assert len(first_moves) == 3
    scores = [info["score"].relative.score(mate_score=100000) for info in infos]
    assert scores == sorted(scores, reverse=True)


def test_searchmoves_restricts_the_root(engine):
    board = chess.Board()
    only = [chess.Move.from_uci("a2a3"), chess.Move.from_uci("h2h3")]
    result = engine.play(board, chess.engine.Limit(depth=3), root_moves=only)
    assert result.move in only


# ---------------------------------------------------------------------- chess: mates and draws

def test_every_mate_in_one_is_found(engine):
    for fen in read_fens("mate1.fen"):
        board = chess.Board(fen)
        info = engine.analyse(board, chess.engine.Limit(depth=2))
        assert info["score"].relative == chess.engine.Mate(1), fen
        board.push(info["pv"][0])
        assert board.is_checkmate(), fen


def test_every_mate_in_two_is_found_with_its_distance(engine):
    for fen in read_fens("mate2.fen"):
        board = chess.Board(fen)
        info = engine.analyse(board, chess.engine.Limit(mate=2, depth=10))
        assert info["score"].relative == chess.engine.Mate(2), fen
        board.push(info["pv"][0])
        assert not board.is_game_over(), fen


def test_stalemated_side_answers_bestmove_none(raw):
    raw.send("uci")
    raw.read_until("uciok")
    for fen in read_fens("stalemate0.fen"):
        raw.send(f"position fen {fen}")
        raw.send("go depth 3")
        lines = raw.read_until("bestmove")
        assert lines[-1] == "bestmove (none)", fen
        assert "score cp 0" in lines[-2], fen


def test_losing_side_finds_the_stalemate_resource(engine):
    # Far behind in material, the side to move can force stalemate: the score is a draw.
    for fen in read_fens("stalemate1.fen"):
        info = engine.analyse(chess.Board(fen), chess.engine.Limit(depth=6))
        assert info["score"].relative == chess.engine.Cp(0), fen


@pytest.mark.parametrize("fen, expected", [
    ("7k/5QQ1/8/8/8/8/8/K7 b - - 0 1", "mate 0"),  # checkmated
    ("7k/8/6QK/8/8/8/8/8 b - - 0 1", "cp 0"),  # stalemated
])
def test_no_legal_move_gives_bestmove_none(raw, fen, expected):
    raw.send("uci")
    raw.read_until("uciok")
    raw.send(f"position fen {fen}")
    raw.send("go depth 5")
    lines = raw.read_until("bestmove")
    assert lines[-1] == "bestmove (none)"
    assert any(f"score {expected}" in line for line in lines[:-1])


def test_repetition_in_the_game_history_is_scored_as_a_draw(engine):
    # White, a rook and a queen down, has been checking; Qh5+ repeats a position of the game.
    # At depth 2 only the game history can show that it is a draw.
    board = chess.Board("7k/6p1/8/8/8/8/qr4PP/4Q1K1 w - - 0 1")
    for uci in ("e1e8", "h8h7", "e8h5", "h7g8", "h5e8", "g8h7"):
        board.push_uci(uci)
    info = engine.analyse(board, chess.engine.Limit(depth=2))
    assert info["pv"][0] == chess.Move.from_uci("e8h5")
    assert info["score"].relative == chess.engine.Cp(0)


def test_fifty_move_rule_draw_is_seen(engine):
    # A rook up, but the 50-move counter is at 99 and no capture/mate is possible in one.
    board = chess.Board("8/8/8/4k3/8/8/8/R3K3 w - - 99 150")
    info = engine.analyse(board, chess.engine.Limit(depth=4))
    assert info["score"].relative == chess.engine.Cp(0)


# ---------------------------------------------------------------------- extra commands

def test_d_and_eval_print_the_position_and_its_terms(raw):
    raw.send("uci")
    raw.read_until("uciok")
    raw.send("position startpos moves e2e4")
    raw.send("d")
    lines = raw.read_until("Checkers")
    assert any(line.startswith("Fen: rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq") for line in lines)
    assert any(line.startswith("Key: ") for line in lines)
    raw.send("eval")
    raw.send("isready")
    lines = raw.read_until("readyok")
    text = "\n".join(lines).lower()
    assert "material" in text and "mobility" in text


def test_go_perft_prints_stockfish_divide(raw):
    raw.send("position fen " + KIWIPETE)
    raw.send("go perft 2")
    lines = raw.read_until("Nodes searched")
    assert lines[-1] == "Nodes searched: 2039"
    assert len([line for line in lines if ": " in line and not line.startswith("Nodes")]) == 48


def test_quit_mid_search_exits_cleanly(raw):
    raw.send("position startpos")
    raw.send("go infinite")
    time.sleep(0.5)
    assert raw.close() == 0


def test_end_of_input_exits_cleanly():
    result = subprocess.run(ENGINE_COMMAND, input="uci\nisready\n", capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0
    assert "uciok" in result.stdout and "readyok" in result.stdout


# ---------------------------------------------------------------------- Chess960

# Castling f1g1 (king to g1, rook g1 to f1) is the only mate in one: the rook reaches the open
# f-file; the black rooks on e8 and g8 box their own king in.
CASTLING_MATES = "4rkr1/4p1p1/8/8/8/8/8/5KR1 w {} - 0 1"


def divide_moves(raw: RawUci, command: str) -> set[str]:
    raw.send(command)
    lines = raw.read_until("Nodes searched")
    return {line.split(":")[0] for line in lines if ": " in line and not line.startswith("Nodes")}


def test_chess960_castling_is_king_takes_rook_in_bestmove_pv_and_perft(raw):
    raw.send("uci")
    assert "option name UCI_Chess960 type check default false" in raw.read_until("uciok")
    raw.send("setoption name UCI_Chess960 value true")
    for rights in ("G", "K"):  # Shredder-FEN, X-FEN
        raw.send("position fen " + CASTLING_MATES.format(rights))
        assert "f1g1" in divide_moves(raw, "go perft 1")
        raw.send("go depth 3")
        lines = raw.read_until("bestmove")
        assert lines[-1] == "bestmove f1g1", lines[-3:]
        assert any("score mate 1" in line and " pv f1g1" in line for line in lines)


def test_castling_notation_follows_the_chess960_option(raw):
    position = "position fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    raw.send(position)
    standard = divide_moves(raw, "go perft 1")
    assert {"e1g1", "e1c1"} <= standard and not {"e1h1", "e1a1"} & standard
    raw.send("setoption name UCI_Chess960 value true")
    raw.send(position)
    chess960 = divide_moves(raw, "go perft 1")
    assert {"e1h1", "e1a1"} <= chess960 and not {"e1g1", "e1c1"} & chess960
    # A castling already played converts with the option: the game goes on from the same place.
    raw.send("position startpos moves e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 e1h1")
    raw.send("setoption name UCI_Chess960 value false")
    raw.send("d")
    assert any(line.startswith("Fen: r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1 b kq")
               for line in raw.read_until("Checkers"))


def test_go_perft_counts_a_chess960_position(raw):
    raw.send("setoption name UCI_Chess960 value true")
    raw.send("position fen bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 0 1")
    raw.send("go perft 3")
    assert raw.read_until("Nodes searched")[-1] == "Nodes searched: 12189"
