"""The engine's side of OpenBench (docs/openbench.md): the build, the bench's output, the tuning
build's options and SPSA inputs, genfens and the converter of DATAGEN's games into chunks."""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import chess
import numpy as np
import pytest

from engine.protocol import genfens, options, tuning

from engine.search import params
from engine.protocol.bench import POSITIONS, run_bench
from engine.search.timeman import Limits
from engine.protocol.uci import UciProtocol

from scripts import openbench_build
from scripts.training.data import chunks, openbench
from scripts.training.data import positions as training_positions
from test_bench import BENCH_SIGNATURE

ROOT = Path(__file__).resolve().parents[1]



def openbench_bench_numbers(output: str) -> tuple[int | None, int | None]:
    """(nodes, nps) as OpenBench's Client/bench.py reads them: the last lines first, every
    character other than a letter, digit or space made a space, the first match of each kept."""
    nodes = nps = None
    for line in reversed(output.strip().split("\n")):
        line = re.sub(r"[^a-zA-Z0-9 ]+", " ", line)
        found_nps = re.search(r"(\d+\s+nps)|(nps\s+\d+)|(nodes second\s+\d+)", line, re.I)
        found_nodes = re.search(r"(\d+\s+nodes)|(nodes\s+\d+)|(nodes searched\s+\d+)", line, re.I)
        nps = nps or (found_nps and found_nps.group())
        nodes = nodes or (found_nodes and found_nodes.group())
    return (int(re.search(r"\d+", nodes).group()) if nodes else None,
            int(re.search(r"\d+", nps).group()) if nps else None)


# ---------------------------------------------------------------------------------------- bench

def test_openbench_reads_the_bench_totals() -> None:
    lines: list[str] = []
    nodes, seconds = run_bench(depth=2, out=lines.append, positions=POSITIONS[:3])
    found_nodes, found_nps = openbench_bench_numbers("\n".join(lines))
    assert found_nodes == nodes > 0
    assert found_nps == int(nodes / seconds)


# ------------------------------------------------------------------------------ tuning build

@pytest.fixture
def tuning_build(monkeypatch: pytest.MonkeyPatch):
    """TUNE on, the declared parameters active; BRUDNO_PARAMS and the cache restored after."""
    monkeypatch.setattr(tuning, "TUNE", True)
    monkeypatch.setenv(params.OVERRIDES, "")
    params.active.cache_clear()
    yield
    monkeypatch.setenv(params.OVERRIDES, "")
    params.active.cache_clear()


def protocol_lines(protocol: UciProtocol, *commands: str) -> list[str]:
    output = protocol.output
    start = len(output.getvalue())
    for command in commands:
        protocol.handle(command)
    return output.getvalue()[start:].splitlines()


def test_tuning_options_are_hidden_unless_tune_is_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tuning, "TUNE", False)
    assert not any(o.name == "RAZOR_1" for o in options.available())
    with pytest.raises(options.OptionError):
        options.find("RAZOR_1")
    assert re.search(r"^TUNE = False$", (ROOT / "engine" / "protocol" / "tuning.py").read_text(), re.M)


def test_each_tuned_parameter_slot_is_an_option(tuning_build) -> None:
    names = [o.name for o in options.available() if o.type == "spin"]
    for parameter in params.PARAMETERS:
        expected = ([f"{parameter.name}_{i}" for i in range(1, len(parameter.values) + 1)]
                    if isinstance(parameter.value, tuple) else [parameter.name])
        assert all((name in names) == (parameter.step > 0) for name in expected)
    razor = options.find("RAZOR_2")
    assert (razor.default, razor.min, razor.max) == (550, 150, 800)


def test_setoption_changes_what_the_search_uses(tuning_build) -> None:
    protocol = UciProtocol(io.StringIO())
    try:
        announced = protocol_lines(protocol, "uci")
        assert "option name RAZOR_1 type spin default 300 min 150 max 800" in announced
        protocol_lines(protocol, "setoption name RAZOR_2 value 610",
                       "setoption name SEE value 120", "isready")
        assert protocol.engine.wait_ready(timeout=120)
        slot = params.SLOTS["RAZOR"]
        for values in (params.active(), protocol.engine._search.parameters):
            assert list(values[slot:slot + 2]) == [300, 610] and values[params.SEE] == 120
        assert os.environ[params.OVERRIDES].split() == ["RAZOR=300,610", "SEE=120"]
        # Out of its range: refused, and nothing changes.
        answer = protocol_lines(protocol, "setoption name SEE value 5000")
        assert any("error" in line for line in answer)
        assert params.active()[params.SEE] == 120
        # The search prepared for the next `go` reads them.
        search = protocol.engine._search
        search.prepare(chess.Board(), Limits(depth=1))
        assert search.kernel_params[slot + 1] == 610
    finally:
        protocol.engine.quit()


class RecordingHelpers:
    """Stands in for engine/search/smp.py's HelperPool: what the engine sends its helpers."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    def set_parameters(self, overrides: str) -> None:
        self.sent.append(overrides)


def test_setoption_sends_the_parameters_to_the_helpers(tuning_build) -> None:
    protocol = UciProtocol(io.StringIO())
    try:
        assert protocol.engine.wait_ready(timeout=120)
        helpers = protocol.engine.helpers = RecordingHelpers()
        protocol_lines(protocol, "setoption name LATE_MOVES_3 value 20")
        assert helpers.sent == ["LATE_MOVES=6,10,20,24,34,46"]
        assert params.with_overrides(helpers.sent[0])[params.SLOTS["LATE_MOVES"] + 2] == 20
    finally:
        protocol.engine.helpers = None
        protocol.engine.quit()


def test_spsa_inputs_are_openbench_lines(tuning_build) -> None:
    lines = tuning.spsa_inputs()
    tuned = [p for p in params.PARAMETERS if p.step > 0]
    assert len(lines) == sum(len(p.values) for p in tuned)
    names = {o.name for o in options.available()}
    for line in lines:
        # As OpenBench's create_spsa_run splits them.
        name, dtype, value, low, high, c_end, r_end = map(str.strip, line.split(","))
        assert name in names and dtype == "int"
        assert float(low) <= float(value) <= float(high)
        assert float(c_end) >= 1 and float(r_end) == 0.002
    assert "RAZOR_1, int, 300, 150, 800, 25.0, 0.002" in lines
    printed = subprocess.run([sys.executable, "-m", "engine", "spsa-inputs"], cwd=ROOT,
                             capture_output=True, text=True, timeout=60,
                             env={**os.environ, params.OVERRIDES: ""})
    assert printed.returncode == 0 and printed.stdout.splitlines() == lines


# ------------------------------------------------------------------------------------ genfens

def test_genfens_request_parsing() -> None:
    request = genfens.parse_request("16 seed 42 book None".split())
    assert (request.count, request.seed, request.book, request.plies) == (16, 42, None, None)
    request = genfens.parse_request("4 seed 1 book Books/x.epd plies 3 margin 100".split())
    assert (request.book, request.plies, request.margin) == ("Books/x.epd", 3, 100)
    for bad in ("4 seed x book None", "4 book None seed 1", "4 seed 1 book None plies",
                "4 seed 1 book None colour 1"):
        with pytest.raises(ValueError):
            genfens.parse_request(bad.split())


def material(board: chess.Board) -> int:
    values = {chess.PAWN: 100, chess.KNIGHT: 300, chess.BISHOP: 300, chess.ROOK: 500,
              chess.QUEEN: 900}
    total = sum(v * (len(board.pieces(t, board.turn)) - len(board.pieces(t, not board.turn)))
                for t, v in values.items())
    return total


def test_genfens_positions_are_legal_distinct_and_fixed_by_the_seed() -> None:
    request = genfens.parse_request("40 seed 7 book None margin 150".split())
    first = [b.fen() for b in genfens.openings(request, material)]
    again = [b.fen() for b in genfens.openings(request, material)]
    other = [b.fen() for b in genfens.openings(genfens.parse_request(
        "40 seed 8 book None margin 150".split()), material)]
    assert first == again and len(first) == 40 and first != other
    assert len({" ".join(f.split()[:4]) for f in first}) == 40
    for fen in first:
        board = chess.Board(fen)
        assert board.is_valid() and not board.is_game_over()
        assert abs(material(board)) <= 150
        assert board.ply() in (8, 9)  # 8 or 9 random plies from the start
    # A shorter request gives the first positions of a longer one.
    assert [b.fen() for b in genfens.openings(genfens.parse_request(
        "10 seed 7 book None margin 150".split()), material)] == first[:10]


def test_genfens_starts_from_book_lines(tmp_path: Path) -> None:
    starts = ["rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - hmvc 0; fmvn 1;",
              "rnbqkb1r/pppppppp/5n2/8/3P4/8/PPP1PPPP/RNBQKBNR w KQkq -"]
    epd = tmp_path / "book.epd"
    epd.write_text("\n".join(starts) + "\n\n")
    pgn = tmp_path / "book.pgn"
    pgn.write_text('[Event "a"]\n[Result "*"]\n\n1. e4 e5 2. Nf3 *\n\n'
                   '[Event "b"]\n[Result "*"]\n\n1. d4 d5 *\n')
    lines = [chess.Board(s.split(" hmvc")[0] + " 0 1") for s in starts]
    for path, roots in ((epd, lines), (pgn, None)):
        request = genfens.parse_request(f"6 seed 3 book {path} plies 1 margin 10000".split())
        found = list(genfens.openings(request, lambda board: 0))
        assert len(found) == 6
        for board in found:
            assert board.is_valid()
            if roots is not None:  # one or two random plies from one of the lines
                assert board.ply() - 1 in (1, 2) or board.fullmove_number <= 3
    assert len(genfens.Book(epd)) == 2 and len(genfens.Book(pgn)) == 2


def run_genfens(command: list[str], seed: int, count: int = 4) -> tuple[list[str], float]:
    started = time.monotonic()
    result = subprocess.run([*command, f"genfens {count} seed {seed} book None ", "quit"],
                            cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    # As OpenBench's Client/genfens.py reads them.
    fens = [line.split("genfens ")[1].rstrip() for line in result.stdout.splitlines()
            if line.startswith("info string genfens ")]
    return fens, time.monotonic() - started


def test_genfens_as_command_line_arguments() -> None:
    fens, seconds = run_genfens([sys.executable, "-m", "engine"], seed=11)
    again, _ = run_genfens([sys.executable, "-m", "engine"], seed=11)
    assert fens == again and len(set(fens)) == 4
    for fen in fens:
        assert len(fen.split()) == 6 and chess.Board(fen).is_valid()
    assert seconds < 15  # OpenBench gives up after 15 s without a new position


def test_command_line_words_are_uci_commands() -> None:
    result = subprocess.run([sys.executable, "-m", "engine", "uci", "isready", "quit"], cwd=ROOT,
                            capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert result.returncode == 0
    assert result.stdout.splitlines()[-2:] == ["uciok", "readyok"]


# ----------------------------------------------------------------------------------- converter

# As OpenBench returns DATAGEN games (Client/pgn_util.py, verbose form): moves without numbers,
# each with fastchess's score/depth, or `book`.
GAMES = """[Event "Datagen"]
[White "Brudno-dev"]
[Black "Brudno-dev"]
[Result "0-1"]
[FEN "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"]
[SetUp "1"]

e4 {book} e5 {book} Nf3 {+0.35/7 0.101s, n=1200, sd=9} Nc6 {-0.20/7 0.090s, n=1100, sd=8} \
Bc4 {+0.41/7 0.1s, n=1, sd=8} Nd4 {+0.10/6 0.1s, n=1, sd=7} Nxe5 {+1.50/8 0.1s, n=1, sd=9} \
Qg5 {-1.20/7 0.1s, n=1, sd=8} Nxf7 {+2.00/8 0.1s, n=1, sd=9} Qxg2 {-2.50/7 0.1s, n=1, sd=8} \
Rf1 {+3.00/8 0.1s, n=1, sd=9} Qxe4+ {-M4/9 0.1s, n=1, sd=9} Be2 {unknown} \
Nf3# {+M1/3 0.1s, n=1, sd=3} 0-1

[Event "Datagen"]
[Result "*"]

d4 {+0.20/5 0.1s, n=1, sd=5} d5 {-0.10/5 0.1s, n=1, sd=5} *

[Event "Datagen"]
[Result "1/2-1/2"]
[FEN "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"]
[SetUp "1"]

Kd2 {+1.00/10 0.1s, n=1, sd=12} Kd7 {-0.95/10 0.1s, n=1, sd=12} Kd3 {+0.90/10 0.1s} 1/2-1/2
"""


def test_comment_scores() -> None:
    assert openbench.comment_score("+0.35/12 0.123s") == 35
    assert openbench.comment_score("-1.20/7 0.1s, n=5, sd=9") == -120
    assert openbench.comment_score("0.00/1 0.001s") == 0
    for unscored in ("book", "unknown", "+M5/20 0.1s", "-M4/9"):
        assert openbench.comment_score(unscored) is None


def expected_kept() -> list[tuple[str, int, int]]:
    """(FEN, White's score, result) of the positions the converter must keep from GAMES."""
    import chess.pgn

    stream = io.StringIO(GAMES)
    kept = []
    while (game := chess.pgn.read_game(stream)) is not None:
        result = {"1-0": 2, "1/2-1/2": 1, "0-1": 0}.get(game.headers["Result"])
        board = game.board()
        for node in game.mainline():
            score = openbench.comment_score(node.comment)
            quiet = (not board.is_check() and not board.is_capture(node.move)
                     and node.move.promotion is None)
            if result is not None and score is not None and quiet:
                kept.append((board.fen(), score if board.turn else -score, result))
            board.push(node.move)
    return kept


def test_converter_writes_chunks_the_trainer_reads(tmp_path: Path) -> None:
    import bz2
    import tarfile

    plain = tmp_path / "games.pgn"
    plain.write_text(GAMES)
    (tmp_path / "1.2.3.pgn.bz2").write_bytes(bz2.compress(GAMES.encode()))
    archive = tmp_path / "7.pgn.tar"
    with tarfile.open(archive, "w") as tar:
        tar.add(tmp_path / "1.2.3.pgn.bz2", arcname="1.2.3.pgn.bz2")
    out = tmp_path / "data"
    games, positions, written = openbench.convert([plain], out)
    expected = expected_kept()
    # The first game keeps Nf3 Nc6 Bc4 Nd4 Qg5 Rf1 (not the book moves, the captures, the mate
    # scores nor the move out of check); the second has no result; the third keeps all three.
    assert len(expected) == 9 and (games, positions, len(written)) == (2, 9, 1)
    header, _ = chunks.read_header(written[0])
    assert header["version"] == 2 and header["generator"] == "scripts/training/data/openbench.py"
    records = chunks.read_chunk(written[0])
    got = [(chunks.board_of(r).fen(), int(r["score"]), int(r["result"])) for r in records]
    assert got == expected
    # The same games again, from the archive: every position is in the folder already.
    assert openbench.convert([archive], out)[1] == 0
    # The trainer's reader takes the folder.
    files = training_positions.chunk_files([out])
    loaded = training_positions.ChunkStream(files).load(100)
    assert len(loaded.score) == 9


# --------------------------------------------------------------------------------------- build

def test_make_builds_a_self_contained_executable(tmp_path: Path) -> None:
    # The source as OpenBench unpacks it: the repository's files, nothing built (so the build
    # compiles every kernel: about two minutes here).
    pristine, source = tmp_path / "unpacked", tmp_path / "Brudno-src"
    shutil.copytree(ROOT, pristine, ignore=shutil.ignore_patterns(
        ".venv*", ".git", "__pycache__", "*.pyc", ".pytest_cache", ".hypothesis", "out"))
    shutil.copytree(pristine, source)
    env = {**os.environ, "BRUDNO_HOME": str(tmp_path / "home")}
    name = "Brudno-0123ABCD"
    build = subprocess.run(["make", "-j", f"EXE={name}", "CC=gcc"], cwd=source, env=env,
                           capture_output=True, text=True, timeout=1800)
    assert build.returncode == 0, build.stdout + build.stderr
    engines = tmp_path / "Engines"
    engines.mkdir()
    shutil.move(source / name, engines / name)
    shutil.rmtree(source)  # OpenBench keeps only the executable
    # Benches at once, each from a cold start, as OpenBench runs one a thread.
    results: list[tuple[str, float]] = []

    def bench() -> None:
        started = time.monotonic()
        done = subprocess.run([f"./{name}", "bench"], cwd=engines, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              timeout=120)
        results.append((done.stdout, time.monotonic() - started))

    threads = [threading.Thread(target=bench) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for output, seconds in results:
        assert openbench_bench_numbers(output)[0] == BENCH_SIGNATURE, output
        assert openbench_bench_numbers(output)[1] > 0
        assert seconds < 60
    # A user's own numba cache is not where the build's kernels are: the launcher ignores it.
    numba_cache = tmp_path / "numba-cache"
    numba_cache.mkdir()
    started = time.monotonic()
    done = subprocess.run([f"./{name}", "bench"], cwd=engines, capture_output=True, text=True,
                          env={**env, "NUMBA_CACHE_DIR": str(numba_cache)}, timeout=120)
    assert openbench_bench_numbers(done.stdout)[0] == BENCH_SIGNATURE
    assert time.monotonic() - started < 60 and not any(numba_cache.iterdir())
    # OpenBench ends engines with `pkill -f <name>`: the name is in the command line.
    engine = subprocess.Popen([f"./{name}"], cwd=engines, env=env, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        found = subprocess.run(["pgrep", "-f", name], capture_output=True, text=True)
        assert str(engine.pid) in found.stdout.split()
        engine.stdin.write("uci\nquit\n")
        engine.stdin.flush()
        assert "uciok" in engine.stdout.read()
    finally:
        engine.kill()
        engine.wait()
    fens, seconds = run_genfens([str(engines / name)], seed=5)
    assert len(fens) == 4 and seconds < 15
    # The same source with a network (EVALFILE): the build is reused, the launcher plays the
    # network, which EvalFile's default and `eval` name.
    shutil.copytree(pristine, source)
    network = constant_network(tmp_path / "Networks" / "0123abcd", 1500)
    with_network = "Brudno-0123ABCD-net"
    build = subprocess.run(["make", "-j", f"EXE={with_network}", "CC=gcc", f"EVALFILE={network}"],
                           cwd=source, env=env, capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stdout + build.stderr
    assert "reusing" in build.stdout
    shutil.move(source / with_network, engines / with_network)
    shutil.rmtree(source)
    done = subprocess.run([f"./{with_network}", "uci", "eval", "quit"], cwd=engines, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    (announced,) = [line for line in done.stdout.splitlines() if line.startswith("option name EvalFile")]
    stored = Path(announced.split(" default ", 1)[1])
    assert stored.parent == tmp_path / "home" / "networks" and stored.read_bytes() == network.read_bytes()
    assert f"NNUE network {stored}: " in done.stdout
    assert "(1500 cp)" in done.stdout
    done = subprocess.run([f"./{with_network}", "bench"], cwd=engines, env=env,
                          capture_output=True, text=True, timeout=120)
    assert openbench_bench_numbers(done.stdout)[0] not in (None, BENCH_SIGNATURE)


def constant_network(path: Path, bias_cp: int) -> Path:
    """A network at ``path`` (any name: OpenBench names them by a hash, without a suffix) that
    ignores the pieces and gives the side to move ``bias_cp``."""
    from engine.evaluation import network as nn

    hidden = 32
    path.parent.mkdir(parents=True, exist_ok=True)
    written = path.with_name(path.name + ".npz")  # (numpy adds the suffix to a name without it)
    nn.save_network(nn.Parameters(np.zeros((nn.N_INPUTS, hidden), np.float32),
                                  np.zeros(hidden, np.float32), np.zeros(2 * hidden, np.float32),
                                  bias_cp / nn.OUTPUT_SCALE), written)
    written.rename(path)
    return path


def test_make_passes_evalfile_to_the_build() -> None:
    def recipe(*variables: str) -> str:
        done = subprocess.run(["make", "-n", "EXE=Brudno-x", *variables], cwd=ROOT,
                              capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    assert recipe("EVALFILE=../Networks/abc.npz").endswith(
        'scripts/openbench_build.py "Brudno-x" --evalfile "../Networks/abc.npz"')
    assert "--evalfile" not in recipe() and "--evalfile" not in recipe("CC=gcc")


def test_the_launcher_names_the_stored_network(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BRUDNO_HOME", str(tmp_path / "home"))
    given = constant_network(tmp_path / "net.npz", 100)
    stored = openbench_build.store_network(given)
    assert stored.parent == tmp_path / "home" / "networks"
    assert stored.read_bytes() == given.read_bytes()
    assert openbench_build.store_network(given) == stored  # the same bytes, the same file
    text = openbench_build.launcher(tmp_path / "build", Path(sys.executable), stored)
    assert f'BRUDNO_EVALFILE="{stored}"; export BRUDNO_EVALFILE\n' in text
    assert "unset BRUDNO_EVALFILE\n" in openbench_build.launcher(tmp_path / "build",
                                                                  Path(sys.executable))
    env = openbench_build.engine_environment(stored)
    assert env["BRUDNO_EVALFILE"] == str(stored) and "NUMBA_CACHE_DIR" not in env
    monkeypatch.setenv("BRUDNO_EVALFILE", "/elsewhere.npz")
    assert "BRUDNO_EVALFILE" not in openbench_build.engine_environment()


def test_a_checkout_lends_kernels_compiled_from_its_own_source(tmp_path: Path) -> None:
    source, copy = tmp_path / "source", tmp_path / "copy"
    shutil.copytree(ROOT / "engine", source / "engine", ignore=shutil.ignore_patterns("__pycache__"))
    cache = source / "engine" / "__pycache__"
    cache.mkdir()
    (cache / "search.kernel-1.py311.nbi").write_text("index")
    (cache / "search.kernel-1.py311.1.nbc").write_text("code")
    (cache / "kernels.digest").write_text("not this source")
    (copy / "engine").mkdir(parents=True)
    assert openbench_build.seed_kernels(source, copy) == 0
    assert not (copy / "engine" / "__pycache__").exists()
    from engine.kernel_cache import source_digest

    (cache / "kernels.digest").write_text(source_digest(source / "engine"))
    assert openbench_build.seed_kernels(source, copy) == 3
    assert (copy / "engine" / "__pycache__" / "search.kernel-1.py311.1.nbc").read_text() == "code"


def test_build_key_follows_the_source(tmp_path: Path) -> None:
    source = tmp_path / "src"
    (source / "engine").mkdir(parents=True)
    shutil.copy2(ROOT / "pyproject.toml", source / "pyproject.toml")
    (source / "engine" / "a.py").write_text("A = 1\n")
    (source / "engine" / "__pycache__").mkdir()
    (source / "engine" / "__pycache__" / "a.nbi").write_text("cache")
    first = openbench_build.build_key(source)
    (source / "engine" / "__pycache__" / "a.nbi").write_text("other cache")
    assert openbench_build.build_key(source) == first  # built files are not the source
    (source / "engine" / "a.py").write_text("A = 2\n")
    assert openbench_build.build_key(source) != first
    assert openbench_build.dependencies(ROOT)[0].startswith("chess")
    assert openbench_build.source_files(source) == [Path("engine/a.py"), Path("pyproject.toml")]
