"""The opening book and the Syzygy tablebases as a user sees them: the real engine process over UCI.

Every test starts `python -m engine` and speaks to it either line by line (``RawUci``, to see
every `info string`) or through python-chess's chess.engine. The expected values come from
python-chess's own readers (chess.polyglot, chess.syzygy), never from the engine's modules.
"""

from __future__ import annotations

import os
import random
import shutil
import time
from pathlib import Path

import chess
import chess.engine
import chess.polyglot
import chess.syzygy
import pytest

from engine.board.perft import KIWIPETE
from paths import DATA
from uci_client import ENGINE_COMMAND, RawUci

BOOK = DATA / "books" / "performance.bin"
SYZYGY = DATA / "syzygy"

KQVK = "8/8/8/3k4/8/8/8/KQ6 w - - 0 1"  # DTZ 17
KRVK = "R7/8/8/4k3/8/8/8/7K w - - 0 1"  # DTZ 31, the longest KRvK win
KRVKR_DRAW = "8/8/3kr3/8/8/3KR3/8/8 w - - 0 1"
KQVKR = "8/8/2r5/4k3/8/8/8/KQ6 w - - 0 1"  # DTZ 55
# A KQvKR win whose root DTZ ranking takes python-chess about 0.35 s (21 moves, slow probes).
SLOW_PROBE = "8/2K3k1/1Q6/8/8/8/8/7r w - - 0 1"
TB_WIN = 19000  # the engine reports a tablebase win as 20000 - DTZ centipawns


# ---------------------------------------------------------------------- fixtures and helpers

@pytest.fixture(scope="module")
def book_path() -> str:
    assert BOOK.is_file(), f"the opening book {BOOK} is missing from the checkout"
    return str(BOOK)


@pytest.fixture(scope="module")
def book_reader(book_path: str):
    with chess.polyglot.open_reader(book_path) as reader:
        yield reader


@pytest.fixture(scope="module")
def syzygy_dir() -> str:
    assert (SYZYGY / "KRvK.rtbw").is_file(), f"the Syzygy tables are missing from {SYZYGY}"
    return str(SYZYGY)


@pytest.fixture(scope="module")
def tables(syzygy_dir: str):
    """python-chess's reader of the same tables, the reference for every expected result."""
    with chess.syzygy.open_tablebase(syzygy_dir) as reference:
        yield reference


@pytest.fixture
def raw():
    client = RawUci()
    client.start()
    yield client
    if client.process.poll() is None:
        assert client.close() == 0


def info_strings(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("info string")]


def search_infos(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("info depth")]


def bestmove(lines: list[str]) -> chess.Move:
    assert lines[-1].startswith("bestmove"), lines
    return chess.Move.from_uci(lines[-1].split()[1])


def cp_of(line: str) -> int:
    words = line.split()
    assert words[words.index("score") + 1] == "cp", line
    return int(words[words.index("score") + 2])


def tbhits_of(line: str) -> int:
    words = line.split()
    return int(words[words.index("tbhits") + 1])


def assert_plays_on(raw: RawUci, fen: str | None = None) -> chess.Move:
    """A later `go depth 2` still answers with a legal move after a search."""
    lines = raw.go(fen, "go depth 2")
    board = chess.Board() if fen is None else chess.Board(fen)
    move = bestmove(lines)
    assert move in board.legal_moves, lines
    assert search_infos(lines), lines
    return move


def book_moves(reader: chess.polyglot.MemoryMappedReader, board: chess.Board) -> set[chess.Move]:
    return {entry.move for entry in reader.find_all(board)}


def copy_tables(target: Path, names: list[str]) -> Path:
    target.mkdir()
    for stem in names:
        for ext in (".rtbw", ".rtbz"):
            shutil.copy(SYZYGY / (stem + ext), target / (stem + ext))
    return target


# ---------------------------------------------------------------------- 1. the book in play

def test_start_position_is_answered_at_once_from_the_book(raw, book_path, book_reader):
    assert info_strings(raw.setoption("OwnBook", "true")) == []
    assert info_strings(raw.setoption("BookFile", book_path)) == []
    started = time.monotonic()
    lines = raw.go(None, "go movetime 5000")
    elapsed = time.monotonic() - started
    move = bestmove(lines)
    # One `info string book move`, then the bestmove: no search, no waiting for the movetime.
    assert lines == [f"info string book move {move.uci()}", f"bestmove {move.uci()}"]
    assert elapsed < 1.0
    assert move in chess.Board().legal_moves
    assert move in book_moves(book_reader, chess.Board())


def test_a_book_move_does_not_wait_for_the_search_to_load(book_path, book_reader):
    client = RawUci()  # no `isready`: the kernels are still loading when `go` arrives
    try:
        client.send("uci")
        client.read_until("uciok")
        client.send("setoption name OwnBook value true", f"setoption name BookFile value {book_path}",
                    "position startpos")
        started = time.monotonic()
        client.send("go wtime 60000 btime 60000")
        move = bestmove(client.read_until("bestmove"))
        elapsed = time.monotonic() - started
        assert move in book_moves(book_reader, chess.Board())
        assert elapsed < 0.2
    finally:
        assert client.close() == 0


def test_random_book_choices_stay_in_the_book(raw, book_path, book_reader):
    raw.setoption("OwnBook", "true")
    raw.setoption("BookFile", book_path)
    board = chess.Board()
    board.push_san("e4")
    allowed = book_moves(book_reader, board)
    assert allowed, "1.e4 is expected in the book"
    played = set()
    for _ in range(12):
        lines = raw.go(board.fen(), "go depth 5")
        move = bestmove(lines)
        assert info_strings(lines) == [f"info string book move {move.uci()}"] and not search_infos(lines)
        played.add(move)
    assert played <= allowed


def test_book_best_move_is_the_top_weighted_entry_every_time(raw, book_path, book_reader):
    raw.setoption("OwnBook", "true")
    raw.setoption("BookFile", book_path)
    raw.setoption("BookBestMove", "true")
    board = chess.Board()
    for _ in range(6):  # along the book's main line
        top = book_reader.find(board)  # python-chess: the first entry of the highest weight
        answers = {bestmove(raw.go(board.fen(), "go depth 5")) for _ in range(4)}
        assert answers == {top.move}, board.fen()
        board.push(top.move)


def test_out_of_book_the_engine_searches(raw, book_path, book_reader):
    board = chess.Board(KIWIPETE)
    assert not book_moves(book_reader, board), "the middlegame test position must be out of book"
    raw.setoption("OwnBook", "true")
    raw.setoption("BookFile", book_path)
    lines = raw.go(KIWIPETE, "go depth 3")
    assert not any("book move" in line for line in lines)
    assert [line.split()[2] for line in search_infos(lines)] == ["1", "2", "3"]
    assert bestmove(lines) in board.legal_moves


def test_with_own_book_off_the_start_position_is_searched(raw, book_path):
    raw.setoption("BookFile", book_path)  # the file is open, but OwnBook stays at its default
    lines = raw.go(None, "go depth 2")
    assert not any("book move" in line for line in lines)
    assert search_infos(lines)
    raw.setoption("OwnBook", "true")
    assert info_strings(raw.go(None, "go depth 2"))[0].startswith("info string book move")
    raw.setoption("OwnBook", "false")
    assert not any("book move" in line for line in raw.go(None, "go depth 2"))


def test_a_self_play_game_follows_the_book_while_in_it(book_path, book_reader):
    """Engine against itself with OwnBook: every book position gets a book move, at once."""
    engine = chess.engine.SimpleEngine.popen_uci(ENGINE_COMMAND, timeout=120)
    try:
        engine.configure({"OwnBook": True, "BookFile": book_path})
        board = chess.Board()
        for _ in range(12):
            in_book = book_moves(book_reader, board)
            result = engine.play(board, chess.engine.Limit(depth=3), info=chess.engine.INFO_ALL)
            assert result.move in board.legal_moves
            if in_book:
                assert result.move in in_book, board.fen()
                assert result.info.get("string") == f"book move {result.move.uci()}"
                assert "depth" not in result.info
            else:
                assert "string" not in result.info and result.info.get("depth") == 3
            board.push(result.move)
    finally:
        engine.quit()


# ---------------------------------------------------------------------- 2. bad book files

@pytest.mark.parametrize("kind", ["missing", "garbage", "text", "directory"])
def test_a_bad_book_file_gives_one_error_and_the_engine_plays_on(raw, book_path, tmp_path, kind):
    if kind == "missing":
        path = tmp_path / "no-such-book.bin"
    elif kind == "garbage":  # a whole number of 16-byte entries, but not sorted by key
        path = tmp_path / "garbage.bin"
        path.write_bytes(random.Random(7).randbytes(16 * 1000))
    elif kind == "text":
        path = tmp_path / "book.txt"
        path.write_text("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6\n")
    else:
        path = tmp_path
    raw.setoption("OwnBook", "true")
    assert info_strings(raw.setoption("BookFile", book_path)) == []
    answer = raw.setoption("BookFile", str(path))
    assert len(answer) == 1 and answer[0].startswith("info string error:"), answer
    assert str(path) in answer[0] and "playing without a book" in answer[0]
    # The engine plays on, and without a book: the good book opened before is not silently kept.
    assert_plays_on(raw)
    lines = raw.go(None, "go depth 2")
    assert not any("book move" in line for line in lines)


def test_an_empty_book_file_value_closes_the_book_quietly(raw, book_path):
    raw.setoption("OwnBook", "true")
    raw.setoption("BookFile", book_path)
    assert info_strings(raw.setoption("BookFile", "<empty>")) == []
    assert not any("book move" in line for line in raw.go(None, "go depth 2"))


# ---------------------------------------------------------------------- 3. exact tablebase results

@pytest.fixture(scope="module")
def tb_engine(syzygy_dir):
    engine = chess.engine.SimpleEngine.popen_uci(ENGINE_COMMAND, timeout=120)
    engine.configure({"SyzygyPath": syzygy_dir})
    yield engine
    engine.quit()


@pytest.mark.parametrize("fen, wdl", [
    ("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", 2),  # the king in front of its pawn wins with the move
    ("8/8/1k6/8/8/8/4P3/4K3 w - - 0 1", 2),  # the black king is outside the square
    ("8/4k3/8/8/8/8/4P3/4K3 w - - 0 1", 0),  # black holds the opposition
    ("4k3/8/8/8/8/8/P7/K7 w - - 0 1", 0),  # a rook pawn: black reaches the corner
    ("8/8/8/4k3/8/8/3P4/4K3 w - - 0 1", 0),
])
def test_kpvk_gets_the_exact_result(tb_engine, tables, fen, wdl):
    board = chess.Board(fen)
    assert tables.probe_wdl(board) == wdl  # the reference agrees with the label
    with tb_engine.analysis(board, chess.engine.Limit(depth=4)) as analysis:
        infos = [info for info in analysis if "score" in info]
    score = infos[-1]["score"].relative
    if wdl == 2:
        assert not score.is_mate() and score.score() >= TB_WIN, (fen, score)
    else:
        assert score == chess.engine.Cp(0), (fen, score)
    assert all(info["tbhits"] > 0 for info in infos)
    assert infos[-1]["pv"][0] in board.legal_moves


def test_the_probe_depth_holds_back_the_tree_probes_of_the_most_pieces(tb_engine):
    # KPvKP has as many pieces as the test tables (and SyzygyProbeLimit: as in Stockfish, the
    # probe depth applies only where the limit is the tables' own), and its pawn moves reset the
    # clock (where the tree probes): with SyzygyProbeDepth above the search's depth only the
    # positions after a capture (3 pieces) are probed in the tree.
    board = chess.Board("8/5k2/8/2p5/8/8/5P2/4K3 w - - 0 1")
    hits = {}
    for probe_depth in (1, 100):
        tb_engine.configure({"SyzygyProbeLimit": 4, "SyzygyProbeDepth": probe_depth,
                             "Clear Hash": None})
        hits[probe_depth] = tb_engine.analyse(board, chess.engine.Limit(depth=5))["tbhits"]
    tb_engine.configure({"SyzygyProbeLimit": 7, "SyzygyProbeDepth": 1})
    assert hits[100] < hits[1]


def test_a_quiet_krvkr_is_scored_as_a_draw(tb_engine, tables):
    board = chess.Board(KRVKR_DRAW)
    assert tables.probe_wdl(board) == 0
    info = tb_engine.analyse(board, chess.engine.Limit(depth=5))
    assert info["score"].relative == chess.engine.Cp(0)
    assert info["tbhits"] > 0
    after = board.copy()
    after.push(info["pv"][0])
    assert tables.probe_wdl(after) == 0  # the move kept the draw


@pytest.mark.parametrize("fen", [KQVK, KRVK, KQVKR])
def test_the_best_move_of_a_won_position_keeps_the_win(raw, syzygy_dir, tables, fen):
    lines = raw.setoption("SyzygyPath", syzygy_dir)
    assert info_strings(lines) == ["info string found Syzygy tablebases for up to 4 pieces"]
    board = chess.Board(fen)
    assert tables.probe_wdl(board) == 2
    lines = raw.go(fen, "go depth 4")
    move = bestmove(lines)
    assert move in board.legal_moves
    board.push(move)
    assert tables.probe_wdl(board) == -2, lines  # a loss for the opponent
    assert any(line.startswith("info string tablebase position: wdl 2") for line in lines)
    assert all(cp_of(line) >= TB_WIN and tbhits_of(line) > 0 for line in search_infos(lines))


def test_the_losing_side_resists_as_long_as_the_tables_allow(raw, syzygy_dir, tables):
    fen = "8/8/8/8/8/2k5/8/K2R4 b - - 0 1"  # KRvK, the bare king to move
    raw.setoption("SyzygyPath", syzygy_dir)
    board = chess.Board(fen)
    assert tables.probe_wdl(board) == -2
    # DTZ from the loser's side is negative: the longest resistance is the most negative one.
    longest = min(-tables.probe_dtz(after) for after in _successors(board))
    lines = raw.go(fen, "go depth 4")
    board.push(bestmove(lines))
    assert -tables.probe_dtz(board) == longest
    assert all(cp_of(line) <= -TB_WIN and tbhits_of(line) > 0 for line in search_infos(lines))


def _successors(board: chess.Board) -> list[chess.Board]:
    boards = []
    for move in board.legal_moves:
        after = board.copy()
        after.push(move)
        boards.append(after)
    return boards


def test_the_root_probe_counts_against_movetime(raw, syzygy_dir, tables):
    """The DTZ ranking of the root moves takes a noticeable time in Python (about 0.35 s here):
    the engine must take it out of the time it was given, not add it."""
    raw.setoption("SyzygyPath", syzygy_dir)
    raw.setoption("Move Overhead", "100")
    board = chess.Board(SLOW_PROBE)
    raw.send(f"position fen {SLOW_PROBE}")
    raw.sync()
    started = time.monotonic()
    raw.send("go movetime 1000")
    lines = raw.read_until("bestmove", timeout=10)
    elapsed = time.monotonic() - started
    assert any(line.startswith("info string tablebase position") for line in lines), lines
    board.push(bestmove(lines))
    assert tables.probe_wdl(board) == -2
    # The answer comes at the movetime, not after it (pipe and scheduling latency aside).
    assert elapsed < 1.0 + 0.1, f"go movetime 1000 answered after {elapsed:.3f} s"


def test_a_ponderhit_during_the_root_probe_still_ends_the_search(raw, syzygy_dir, tables):
    """The `ponderhit` arrives while the root moves are being ranked (before the search starts):
    its deadlines must still apply, or the engine thinks until `stop` and loses on time."""
    raw.setoption("SyzygyPath", syzygy_dir)
    board = chess.Board(SLOW_PROBE)
    raw.send(f"position fen {SLOW_PROBE}")
    raw.sync()
    started = time.monotonic()
    # 10 s on the clock: a hard limit of about 1.3 s from the ponderhit.
    raw.send("go ponder wtime 10000 btime 10000", "ponderhit")
    lines = raw.read_until("bestmove", timeout=10)
    elapsed = time.monotonic() - started
    assert any(line.startswith("info string tablebase position") for line in lines), lines
    assert elapsed < 2.5, f"bestmove came {elapsed:.3f} s after the ponderhit"
    board.push(bestmove(lines))
    assert tables.probe_wdl(board) == -2


# ---------------------------------------------------------------------- 4. converting to mate

def play_out(engine: chess.engine.SimpleEngine, fen: str, limit: chess.engine.Limit,
             max_plies: int) -> tuple[chess.Board, int]:
    """The engine against itself from ``fen``; the board and the longest quiet stretch seen."""
    board = chess.Board(fen)
    longest = 0
    while not board.is_game_over() and len(board.move_stack) < max_plies:
        move = engine.play(board, limit).move
        assert move in board.legal_moves, board.fen()
        board.push(move)
        longest = max(longest, board.halfmove_clock)
    return board, longest


@pytest.mark.parametrize("fen", [KQVK, KRVK])
def test_tablebases_convert_to_mate_within_the_fifty_move_rule(tb_engine, tables, fen):
    dtz = tables.probe_dtz(chess.Board(fen))
    board, longest = play_out(tb_engine, fen, chess.engine.Limit(depth=3), max_plies=120)
    assert board.is_checkmate(), chess.Board(fen).variation_san(board.move_stack)
    assert board.turn == chess.BLACK  # white gave the mate
    assert longest < 100
    # Both sides follow the tables (the winner the shortest DTZ, the loser the longest), so the
    # game lasts the DTZ of the start position (python-chess may report it one ply short).
    assert len(board.move_stack) <= dtz + 1, chess.Board(fen).variation_san(board.move_stack)


@pytest.mark.slow
def test_krvk_is_mated_by_the_search_alone_without_tablebases(capsys):
    """The evaluation drives the bare king to the edge: the search mates without the tables too,
    within the fifty-move rule (the game is printed, for comparison with the conversion above)."""
    engine = chess.engine.SimpleEngine.popen_uci(ENGINE_COMMAND, timeout=120)
    try:
        board, longest = play_out(engine, KRVK, chess.engine.Limit(time=0.15), max_plies=200)
    finally:
        engine.quit()
    with capsys.disabled():
        print(f"\nKRvK without tablebases: {len(board.move_stack)} plies\n"
              f"{chess.Board(KRVK).variation_san(board.move_stack)}")
    assert board.is_checkmate() and board.turn == chess.BLACK, chess.Board(KRVK).variation_san(board.move_stack)
    assert longest < 100


# ---------------------------------------------------------------------- 5. a bad SyzygyPath

@pytest.mark.parametrize("kind", ["missing", "file", "no tables"])
def test_a_bad_syzygy_path_gives_one_error_and_the_engine_plays_on(raw, syzygy_dir, tmp_path, kind):
    if kind == "missing":
        path = tmp_path / "no-such-dir"
    elif kind == "file":
        path = tmp_path / "KQvK.rtbw"
        path.write_bytes(b"not a directory")
    else:
        path = tmp_path / "empty"
        path.mkdir()
    assert info_strings(raw.setoption("SyzygyPath", syzygy_dir))  # tables in use before
    answer = raw.setoption("SyzygyPath", str(path))
    assert len(answer) == 1 and answer[0].startswith("info string error:"), answer
    assert str(path) in answer[0] and "playing without tablebases" in answer[0]
    move = assert_plays_on(raw, KQVK)
    lines = raw.go(KQVK, "go depth 2")
    # The tables opened before are closed too: no probe, no tbhits.
    assert not any("tablebase position" in line for line in lines)
    assert all(tbhits_of(line) == 0 for line in search_infos(lines))
    assert move in chess.Board(KQVK).legal_moves


# ---------------------------------------------------------------------- 6. several directories
# Joined with os.pathsep, the separator Stockfish uses: ';' on Windows, where ':' is in drive letters.

def test_tables_split_over_two_directories_are_all_used(raw, syzygy_dir, tables, tmp_path):
    three = copy_tables(tmp_path / "three", ["KQvK", "KRvK", "KPvK"])
    four = copy_tables(tmp_path / "four", ["KRvKR", "KQvKR"])
    answer = raw.setoption("SyzygyPath", f"{three}{os.pathsep}{four}")
    assert answer == ["info string found Syzygy tablebases for up to 4 pieces"]
    for fen, directory in ((KQVK, "three"), (KRVKR_DRAW, "four"), (KQVKR, "four")):
        board = chess.Board(fen)
        lines = raw.go(fen, "go depth 3")
        probe = [line for line in lines if line.startswith("info string tablebase position")]
        assert probe == [f"info string tablebase position: wdl {tables.probe_wdl(board)}, "
                         f"dtz {tables.probe_dtz(board)}"], (directory, lines)
        assert all(tbhits_of(line) > 0 for line in search_infos(lines))
    # A table in neither directory (KBNvK) is not probed: the search alone answers.
    lines = raw.go("8/8/8/3k4/8/8/1BN5/K7 w - - 0 1", "go depth 2")
    assert not any("tablebase position" in line for line in lines)


def test_overlapping_directories_and_blank_parts_are_accepted(raw, syzygy_dir, tables, tmp_path):
    extra = copy_tables(tmp_path / "extra", ["KQvK"])  # the same table twice: the later one is used
    sep = os.pathsep
    answer = raw.setoption("SyzygyPath", f"{syzygy_dir}{sep}{sep}{extra}{sep}")
    assert answer == ["info string found Syzygy tablebases for up to 4 pieces"]
    lines = raw.go(KQVK, "go depth 3")
    assert cp_of(search_infos(lines)[-1]) == 20000 - tables.probe_dtz(chess.Board(KQVK))


def test_one_directory_without_tables_spoils_the_whole_path(raw, syzygy_dir, tmp_path):
    """engine/knowledge/tablebase.py refuses a SyzygyPath with a directory that holds no table (Stockfish
    would skip it): one error, no tables, and the engine plays on."""
    empty = tmp_path / "empty"
    empty.mkdir()
    answer = raw.setoption("SyzygyPath", f"{syzygy_dir}{os.pathsep}{empty}")
    assert len(answer) == 1 and "no Syzygy tables" in answer[0] and str(empty) in answer[0], answer
    lines = raw.go(KQVK, "go depth 2")
    assert not any("tablebase position" in line for line in lines)
    assert bestmove(lines) in chess.Board(KQVK).legal_moves
