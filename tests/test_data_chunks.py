"""The training data at scale: the chunk format (scripts/training/data/chunks.py), the generator
(scripts/training/data/generate.py: resume without duplicates) and the streaming trainer
(scripts/training/train.py)."""

from __future__ import annotations

import argparse
import functools
import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import chess
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.evaluation import network as nn
from engine.evaluation.evaluate import evaluate
from engine.board.zobrist import key_and_check, position_key
from paths import STOCKFISH, needs_stockfish
from scripts.studies import data_scaling
from scripts.training import labels, loop, train
from scripts.training.config import TrainConfig
from scripts.training.data import chunks, codec, convert, generate
from scripts.training.data import positions as training_data
from scripts.training.model import network as model
from test_evaluate import random_game

ROOT = Path(__file__).resolve().parents[1]

# Positions the random games rarely give: legal and illegal en passant, partial castling rights,
# Black to move, a full board, a bare ending.
SPECIAL = ["rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
           "rnbqkbnr/pppp1ppp/8/8/3Pp3/4P3/PPP2PPP/RNBQKBNR b Kq d3 0 3",
           "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",  # e3 not capturable
           "r3k2r/8/8/8/8/8/8/R3K2R b Qk - 17 40",
           "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
           "8/8/4k3/8/8/3K4/8/8 b - - 99 300",
           chess.STARTING_FEN]


@functools.lru_cache(maxsize=None)
def _game_positions() -> tuple[chess.Board, ...]:
    return tuple(board for seed in range(40) for board in random_game(seed, 160))


def sample_boards(count: int = 300, seed: int = 7) -> list[chess.Board]:
    """The SPECIAL positions and random ones of 40 random games (any ply of up to 160)."""
    rng = random.Random(seed)
    return [chess.Board(fen) for fen in SPECIAL] + rng.sample(_game_positions(), count - len(SPECIAL))


def test_a_record_gives_back_its_board_key_score_and_result():
    boards = sample_boards()
    assert {b.turn for b in boards} == {chess.WHITE, chess.BLACK}
    assert any(b.castling_rights for b in boards) and any(b.has_legal_en_passant() for b in boards)
    rng = random.Random(1)
    for board in boards:
        key = position_key(board)
        score, result = rng.randint(-32000, 32000), rng.randint(0, 2)
        data = chunks.pack(board, key, score, result)
        assert len(data) == chunks.RECORD_SIZE == 40
        record = np.frombuffer(data, dtype=chunks.RECORD)[0]
        again = chunks.board_of(record)
        # FEN fields all equal (python-chess writes the en passant square only when legal).
        assert again.fen() == board.fen()
        assert again.clean_castling_rights() == board.clean_castling_rights()
        assert int(record["key"]) == key == position_key(again)
        assert int(record["score"]) == score and int(record["result"]) == result


def test_a_games_worth_of_raw_positions_packs_as_each_alone():
    boards = sample_boards(100, seed=3)
    raws = b"".join(chunks.raw(b, position_key(b), i) for i, b in enumerate(boards))
    together = chunks.records_from_raw(raws, 2)
    alone = np.frombuffer(b"".join(chunks.pack(b, position_key(b), i, 2) for i, b in enumerate(boards)),
                          dtype=chunks.RECORD)
    assert together.tobytes() == alone.tobytes()


def test_chunks_round_trip_through_files_and_a_torn_file_is_refused(tmp_path):
    boards = sample_boards(200, seed=5)
    records = np.frombuffer(b"".join(chunks.pack(b, position_key(b), 10 * i, i % 3)
                                     for i, b in enumerate(boards)), dtype=chunks.RECORD)
    path = chunks.write_chunk(tmp_path, "chunk-000001.bdc", records, {"nodes": 123})
    header, _ = chunks.read_header(path)
    assert header["count"] == len(boards) and header["nodes"] == 123
    back = chunks.read_chunk(path)
    assert back.tobytes() == records.tobytes()
    assert [chunks.board_of(r).fen() for r in back[:50]] == [b.fen() for b in boards[:50]]
    assert (chunks.read_keys(path) == [position_key(b) for b in boards]).all()
    # A temporary file (a writer killed mid-chunk) is not a chunk; a torn chunk is refused.
    (tmp_path / ".tmp-abc.bdc").write_bytes(path.read_bytes()[:100])
    assert chunks.chunk_paths(tmp_path) == [path]
    torn = tmp_path / "chunk-000002.bdc"
    torn.write_bytes(path.read_bytes()[:-1])
    with pytest.raises(ValueError):
        chunks.read_header(torn)


def test_the_key_set_finds_what_was_added_and_nothing_else():
    rng = np.random.default_rng(1)
    keys = chunks.KeySet()
    added = [rng.integers(0, 2**63, size=n, dtype=np.uint64) for n in (5000, 10, 300, 1, 2000, 7)]
    for part in added:
        keys.add(part)
    everything = np.concatenate(added)
    assert keys.contains(everything).all()
    assert len(keys) == len(np.unique(everything))
    assert len(keys.levels) <= 4  # merged as it grew
    assert not keys.contains(rng.integers(0, 2**63, size=5000, dtype=np.uint64)).any()
    assert not chunks.KeySet().contains(everything[:3]).any()


def test_the_trainers_decoding_of_records_gives_each_perspectives_features():
    boards = sample_boards(150, seed=9)
    records = np.frombuffer(b"".join(chunks.pack(b, position_key(b), 50, 2) for b in boards),
                            dtype=chunks.RECORD)
    data = training_data.positions_from_records(records)
    for board, us, them, score, result in zip(boards, data.us, data.them, data.score, data.result):
        assert sorted(us[us != training_data.PAD]) == list(nn.features(board, board.turn))
        assert sorted(them[them != training_data.PAD]) == list(nn.features(board, not board.turn))
        # Labels turned to the side to move's view.
        assert score == (50 if board.turn else -50) and result == (1.0 if board.turn else 0.0)


# ---------------------------------------------------------------------- version 2: game chains

def entry_move(board: chess.Board, entry: int) -> chess.Move:
    """The move of a chain's entry, as python-chess reads it."""
    origin, target = entry & 63, entry >> 6 & 63
    promotion = None
    if board.pawns & chess.BB_SQUARES[origin] and chess.square_rank(target) in (0, 7):
        promotion = (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)[entry >> 12 & 3]
    return chess.Move(origin, target, promotion)


def python_chess_records(chains: chunks.Chains) -> tuple[np.ndarray, dict[str, int]]:
    """The records of the chains' kept positions as python-chess replays them (the decoder's
    reference), and how many moves of each special kind the chains play."""
    starts, entries, scores = chains.arrays()
    packed, kinds = [], dict.fromkeys(["castling", "chess960 castling", "en passant", "promotion",
                                       "underpromotion", "rights lost"], 0)
    at = kept = 0
    for start in starts:
        board = chunks.board_of_start(start)
        length = int(start["length"])
        for i in range(length):
            entry = int(entries[at + i])
            if entry & codec.KEPT:
                packed.append(chunks.pack(board, position_key(board), int(scores[kept]),
                                          int(start["result"])))
                kept += 1
            if i < length - 1:
                move = entry_move(board, entry)
                assert board.is_legal(move), (board.fen(), move)
                kinds["chess960 castling" if board.chess960 else "castling"] += board.is_castling(move)
                kinds["en passant"] += board.is_en_passant(move)
                kinds["promotion"] += move.promotion is not None
                kinds["underpromotion"] += move.promotion not in (None, chess.QUEEN)
                rights = board.clean_castling_rights()
                board.push(move)
                kinds["rights lost"] += board.clean_castling_rights() != rights
        at += length
    return np.frombuffer(b"".join(packed), dtype=chunks.RECORD), kinds


def game_records(game: tuple[bytes, ...]) -> np.ndarray:
    """The records of a generator worker's game (its chain decoded); its keys must be the ones
    the worker sent (the parent deduplicates by them)."""
    chains = chunks.Chains()
    start, entries, keys, scores = game
    chains.add(start, np.frombuffer(entries, dtype="<u2"), np.frombuffer(scores, dtype="<i2"))
    records = chunks.decode(*chains.arrays())
    assert records["key"].tobytes() == keys
    return records


# Openings for the fake teacher's games where castling or an en passant capture (one of three
# moves) comes at once: its games, random-like, rarely reach them otherwise.
OPENINGS = [chess.STARTING_FEN, "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",
            "7k/8/8/3pP3/8/8/1r6/K7 w - d6 0 1", "k7/1R6/8/8/3Pp3/8/8/7K b - d3 0 1"]


def fake_teacher_chains(seeds: range, chess960: float) -> chunks.Chains:
    """Games of the fake teacher played out (every kind of move comes up), as the generator's
    workers make them."""
    teacher = generate.RawTeacher([sys.executable, str(ROOT / "tests" / "fake_teacher.py")], {})
    args = argparse.Namespace(chess960=chess960, min_random_plies=0, random_plies=0, nodes=1,
                              play_out=1.0, win_cp=1000, max_plies=400)
    chains = chunks.Chains()
    try:
        for seed in seeds:
            game, _, _ = generate.play_game(teacher, random.Random(seed), OPENINGS, args,
                                            key_and_check)
            if game is not None:
                game_records(game)  # (checks the worker's keys)
                start, entries, _, scores = game
                chains.add(start, np.frombuffer(entries, dtype="<u2"), np.frombuffer(scores, dtype="<i2"))
    finally:
        teacher.close()
    return chains


@functools.lru_cache(maxsize=None)
def _fake_teacher_chains() -> chunks.Chains:
    return fake_teacher_chains(range(24), 0.3)


def test_the_generators_game_chains_decode_to_what_python_chess_replays():
    chains = _fake_teacher_chains()
    expected, kinds = python_chess_records(chains)
    assert all(kinds.values()), kinds  # castling of both kinds, en passant, underpromotions...
    records = chunks.decode(*chains.arrays())
    assert len(records) == chains.count > 1000
    assert records.tobytes() == expected.tobytes()
    assert (chunks.decode(*chains.arrays(), keys_only=True) == expected["key"]).all()
    assert {0, chunks.CHESS960} == set(np.unique(records["flags"] & chunks.CHESS960))


def random_chains(seed: int, count: int) -> chunks.Chains:
    """Chains of random games from standard and Chess960 starts, each from a position some
    random plies in, with random positions kept; castling, promotions and en passant are
    played when they can be, so that they come up."""
    rng = random.Random(seed)
    chains = chunks.Chains()
    for _ in range(count):
        board = (chess.Board.from_chess960_pos(rng.randrange(960)) if rng.random() < 0.5
                 else chess.Board())
        for _ in range(rng.randrange(0, 12)):
            moves = list(board.legal_moves)
            if moves:
                board.push(rng.choice(moves))
        start, entries, scores = chunks.start_of(board, rng.randrange(3)), [], []
        for _ in range(rng.randrange(1, 120)):
            moves = list(board.legal_moves)
            kept = rng.random() < 0.7 and chunks.record_flags(board) is not None
            scores += [rng.randint(-5000, 5000)] if kept else []
            special = [m for m in moves if board.is_castling(m) or m.promotion or board.is_en_passant(m)]
            move = rng.choice(special if special and rng.random() < 0.5 else moves) if moves else None
            entries.append(codec.move_entry(move, kept))
            if move is None:
                break
            board.push(move)
        chains.add(start, entries, scores)
    return chains


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(1, 6))
def test_the_decoder_gives_the_records_python_chess_gives_on_random_games(seed, count):
    chains = random_chains(seed, count)
    expected, _ = python_chess_records(chains)
    assert chunks.decode(*chains.arrays()).tobytes() == expected.tobytes()


def test_version_2_chunks_round_trip_through_files_and_a_torn_one_is_refused(tmp_path):
    chains = random_chains(3, 20)
    path = chunks.write_chains(tmp_path, "chunk-000001.bdc", chains, {"nodes": 7})
    header, _ = chunks.read_header(path)
    assert header["version"] == 2 and header["count"] == chains.count and header["nodes"] == 7
    assert chunks.read_chunk(path).tobytes() == chunks.decode(*chains.arrays()).tobytes()
    assert (chunks.read_keys(path) == chunks.read_chunk(path)["key"]).all()
    torn = tmp_path / "chunk-000002.bdc"
    torn.write_bytes(path.read_bytes()[:-1])
    with pytest.raises(ValueError):
        chunks.read_header(torn)
    # A move from an empty square is refused, not decoded into nonsense.
    broken = chunks.Chains()
    broken.add(chunks.start_of(chess.Board()), [codec.move_entry(chess.Move.from_uci("e4e5"), False),
                                                codec.move_entry(None, True)], [0])
    with pytest.raises(ValueError):
        chunks.decode(*broken.arrays())


def test_the_decoders_compiled_cache_goes_when_the_engine_it_was_compiled_from_changes(tmp_path):
    from scripts.training.data import codec

    cache = tmp_path / "__pycache__"
    cache.mkdir()
    compiled = [cache / "codec.replay-40.py311.nbi", cache / "codec.replay-40.py311.1.nbc"]
    other = cache / "chunks.cpython-311.pyc"
    for path in [*compiled, other]:
        path.write_bytes(b"x")
    (cache / "codec.digest").write_text("an older engine")
    assert codec.clear_stale_cache(cache)
    assert not any(path.exists() for path in compiled) and other.exists()
    for path in compiled:
        path.write_bytes(b"x")  # compiled again from this source: kept from now on
    assert not codec.clear_stale_cache(cache)
    assert all(path.exists() for path in compiled)


def version_1_sample(folder: Path) -> list[Path]:
    """Version-1 chunks as the old generator wrote them (whole games of kept positions in order,
    the positions between them missing, a position written once), and one with its records
    shuffled."""
    records = chunks.decode(*_fake_teacher_chains().arrays())
    records = records[np.sort(np.unique(records["key"], return_index=True)[1])]
    half = len(records) // 2
    return [chunks.write_chunk(folder, "chunk-000001.bdc", records[:half], {"games": 7}),
            chunks.write_chunk(folder, "chunk-000002.bdc", records[half:], {"games": 7}),
            chunks.write_chunk(folder, "chunk-000003.bdc",
                               records[np.random.default_rng(1).permutation(300)], {})]


def test_version_1_chunks_convert_to_version_2_that_reads_back_the_same_records(tmp_path):
    paths = version_1_sample(tmp_path / "v1")
    convert.main([str(tmp_path / "v2"), str(tmp_path / "v1")])
    for path in paths:
        converted = tmp_path / "v2" / path.name
        header, _ = chunks.read_header(converted)
        assert header["version"] == 2 and header["converted_from"] == 1
        assert header.get("games") == chunks.read_header(path)[0].get("games")
        assert chunks.read_chunk(converted).tobytes() == chunks.read_chunk(path).tobytes()
        assert (chunks.read_keys(converted) == chunks.read_keys(path)).all()
    # Whole games chain (a chain a game, or nearly): a few bytes a position, not 40.
    for path in paths[:2]:
        header, _ = chunks.read_header(tmp_path / "v2" / path.name)
        assert header["chains"] < 0.05 * header["count"], header
        assert (tmp_path / "v2" / path.name).stat().st_size < 8 * header["count"] + 1000
    with pytest.raises(ValueError):
        convert.convert_chunk(paths[0], tmp_path / "v1")  # never over the original


def test_a_folder_may_mix_both_versions(tmp_path):
    v1 = version_1_sample(tmp_path / "v1")[:2]
    convert.convert_chunk(v1[1], tmp_path / "v2")
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "chunk-000001.bdc").write_bytes(v1[0].read_bytes())
    (folder / "chunk-000002.bdc").write_bytes((tmp_path / "v2" / v1[1].name).read_bytes())
    records = np.concatenate([chunks.read_chunk(path) for path in v1])
    paths = chunks.chunk_paths(folder)
    assert [chunks.read_header(p)[0]["version"] for p in paths] == [1, 2]
    assert np.concatenate(list(chunks.iter_records(paths))).tobytes() == records.tobytes()
    assert (np.concatenate([chunks.read_keys(p) for p in paths]) == records["key"]).all()
    status = generate.status(folder, detail=True)
    assert f"positions   {len(records):,}" in status and "games       14" in status
    assert "duplicates  0 " in status
    assert len(training_data.ChunkStream(paths)) == len(records)


# ---------------------------------------------------------------------- the generator

@needs_stockfish
def test_the_raw_teacher_reads_scores_mates_and_the_end_of_the_game():
    teacher = generate.RawTeacher([STOCKFISH], {"Threads": "1", "Hash": "16"})
    try:
        assert "Stockfish" in teacher.name
        go = b"\ngo nodes 2000\n"
        best, score, mate = teacher.search(b"position startpos moves e2e4", go)
        assert len(best) == 4 and abs(score) < 200 and not mate
        # Mate in one for White (Qh5xf7 is not it; the back rank is).
        best, score, mate = teacher.search(b"position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", go)
        assert best == b"a1a8" and mate and score > 0
        best, _, _ = teacher.search(b"position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", go)  # stalemate
        assert best == b"(none)"
    finally:
        teacher.close()


@pytest.mark.parametrize("command", [
    pytest.param([sys.executable, str(ROOT / "tests" / "fake_teacher.py")], id="fake-teacher"),
    pytest.param([STOCKFISH], id="stockfish", marks=needs_stockfish)])
def test_chess960_games_start_from_chess960_positions_and_their_records_round_trip(command):
    teacher = generate.RawTeacher(command, {"Threads": "1", "Hash": "16"})
    args = argparse.Namespace(
        chess960=1.0, min_random_plies=0, random_plies=0, nodes=200, play_out=1.0, win_cp=1000,
        max_plies=80)
    standard = chess.Board()
    back_ranks = 0
    try:
        for seed in range(3):
            game, searches, plies = generate.play_game(teacher, random.Random(seed), [], args,
                                                       key_and_check)
            assert searches > 0 and game
            records = game_records(game)
            assert (records["flags"] & chunks.CHESS960).all()
            first = chunks.board_of(records[0])
            back_ranks += first.pieces_mask(chess.ROOK, chess.WHITE) != standard.pieces_mask(chess.ROOK, chess.WHITE)
            for record in records:
                board = chunks.board_of(record)
                key, check = key_and_check(board)
                assert board.is_valid() and not check and key == int(record["key"])
    finally:
        teacher.close()
    assert back_ranks >= 2  # (one of the 960 is the standard position)


def run_generator(folder: Path, teacher: str, *extra: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "scripts.training.data.generate", "--data", str(folder),
                             "--teacher", teacher, "--nodes", "200", "--chunk-size", "60", "--max-plies", "150",
                             "--log-every", "1", "--workers", "1", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT)


FAKE_TEACHER = f"{sys.executable} {ROOT / 'tests' / 'fake_teacher.py'}"
TEACHERS = [pytest.param(FAKE_TEACHER, id="fake-teacher"),
            pytest.param(STOCKFISH, id="stockfish", marks=needs_stockfish)]


@pytest.mark.parametrize("teacher", TEACHERS)
def test_the_generator_resumes_after_kill_9_without_repeating_a_position(tmp_path, teacher):
    folder = tmp_path / "data"
    first = run_generator(folder, teacher, "--seed", "1")
    deadline = time.monotonic() + 60
    while len(chunks.chunk_paths(folder)) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    first.send_signal(signal.SIGKILL)
    first.communicate(timeout=10)
    # An older folder: its first chunk as version 1 (the generator reads the keys of both).
    oldest = chunks.chunk_paths(folder)[0]
    old_header, _ = chunks.read_header(oldest)
    assert old_header["version"] == 2
    chunks.write_chunk(folder, oldest.name, chunks.read_chunk(oldest),
                       {k: v for k, v in old_header.items() if k not in ("chains", "entries")})
    before = {p.name: p.read_bytes() for p in chunks.chunk_paths(folder)}
    assert len(before) >= 2
    count = sum(len(chunks.read_chunk(folder / name)) for name in before)
    # Started again (the same seed: it must not replay the same games), to 120 more positions.
    second = run_generator(folder, teacher, "--seed", "1", "--positions", str(count + 120))
    out, _ = second.communicate(timeout=60)
    assert second.returncode == 0, out
    assert f"{count:,} positions in {len(before)} chunks" in out
    paths = chunks.chunk_paths(folder)
    assert len(paths) > len(before)
    for path in paths:
        if path.name in before:
            assert path.read_bytes() == before[path.name]  # never rewritten
    records = np.concatenate([chunks.read_chunk(p) for p in paths])
    assert len(records) >= count + 120
    assert len(np.unique(records["key"])) == len(records)  # no position twice
    assert not list(folder.glob(".tmp-*"))
    for record in records[::7]:
        board = chunks.board_of(record)
        key, check = key_and_check(board)
        assert key == int(record["key"]) and not check and board.is_valid()
        assert abs(int(record["score"])) < generate.MATE and int(record["result"]) in (0, 1, 2)
    assert "positions   " + f"{len(records):,}" in generate.status(folder)
    assert "duplicates  0 " in generate.status(folder, detail=True)


# ---------------------------------------------------------------------- the trainer

def labelled_chunks(folder: Path, seeds: range, per_chunk: int = 600) -> int:
    """Positions of random games labelled by the classical evaluation (White's view), with a
    result that follows the score, written as chunks; returns their number."""
    boards = [b for seed in seeds for b in random_game(seed, 80)[2::2]]
    raws = []
    for board in boards:
        score = evaluate(board) if board.turn == chess.WHITE else -evaluate(board)
        raws.append((chunks.raw(board, position_key(board), score), score))
    for number, start in enumerate(range(0, len(raws), per_chunk)):
        part = raws[start:start + per_chunk]
        records = np.concatenate([chunks.records_from_raw(r, 2 if s > 200 else 0 if s < -200 else 1)
                                  for r, s in part])
        chunks.write_chunk(folder, f"chunk-{number + 1:06d}.bdc", records, {})
    return len(raws)


def test_the_sparse_gradients_equal_the_dense_ones():
    boards = sample_boards(40, seed=11)
    us, them = training_data.encode([b.board_fen() for b in boards], np.array([b.turn for b in boards]))
    rng = np.random.default_rng(2)
    params = nn.Parameters(rng.normal(0, 0.09, (nn.N_INPUTS, 12)), rng.normal(0.1, 0.07, 12),
                           rng.normal(0, 0.16, 24), 0.01)
    target = rng.random(len(boards))
    # The dense reference in float64; the kernels in float32, as training runs them.
    x = model.DenseInputs(len(boards)).fill(us, them).astype(np.float64)
    dense_loss, dense = model.gradients(params, x, target, 1.5)
    single = nn.Parameters(*(np.asarray(getattr(params, name), dtype=np.float32)
                             for name in ("w1", "b1", "w2")), 0.01)
    sparse_loss, sparse = model.sparse_gradients(single, us, them, target.astype(np.float32), 1.5)
    assert sparse_loss == pytest.approx(dense_loss, rel=1e-5)
    for name in ("w1", "b1", "w2", "b2"):
        scale = np.abs(dense[name]).max()
        assert scale > 0 and np.abs(sparse[name] - dense[name]).max() < 1e-4 * scale, name
    # Only the rows of inputs that some position has get a gradient.
    used = np.zeros(nn.N_INPUTS, dtype=bool)
    used[np.concatenate([us, them]).ravel()[np.concatenate([us, them]).ravel() != training_data.PAD]] = True
    assert (sparse["w1"][~used] == 0).all() and (np.abs(sparse["w1"][used]).sum(axis=1) > 0).any()


def test_held_out_chunks_past_the_validation_limit_train(tmp_path):
    labelled_chunks(tmp_path, range(160), per_chunk=400)
    paths = sorted(chunks.chunk_paths(tmp_path))
    assert len(paths) >= 12
    every_fourth = training_data.chunk_split(paths, 0.25)[1]
    first = chunks.read_header(every_fourth[0])[0]["count"]
    train_paths, valid_paths = training_data.chunk_split(paths, 0.25, valid_limit=first + 1)
    # Enough chunks to hold the limit, the first of the held-out ones; every other chunk trains.
    assert valid_paths == every_fourth[:2]
    assert sorted(train_paths + valid_paths) == paths
    assert training_data.chunk_split(paths, 0.25, valid_limit=first)[1] == every_fourth[:1]
    assert training_data.chunk_split(paths, 0.25, valid_limit=None)[1] == every_fourth


def test_streaming_training_on_chunks_lowers_the_validation_loss(tmp_path):
    count = labelled_chunks(tmp_path, range(160), per_chunk=400)
    assert count > 6000
    paths = chunks.chunk_paths(tmp_path)
    train_paths, valid_paths = training_data.chunk_split(paths, 0.25)
    assert valid_paths and not set(train_paths) & set(valid_paths)
    stream, valid = training_data.ChunkStream(train_paths, buffer=2), training_data.ChunkStream(valid_paths).load()
    seen = [part for part in stream.batches(256, np.random.default_rng(1))]
    assert sum(len(p) for p in seen) == len(stream)  # every position once an epoch
    sample = training_data.ChunkStream(train_paths).load()
    scale = labels.fit_scale(sample.score, sample.result)
    valid_target = labels.targets(valid, scale, 0.0)
    start = model.initialise(16, seed=1)
    before = model.loss(start, valid, valid_target, scale)
    # Batches of 256, not smaller: each batch is two parallel kernel calls, and on a loaded
    # machine every call waits for both threads (batches of 64 took 27 s under a load of 7).
    fitted = loop.fit_network_stream(stream, start, scale, 0.0,
                                     TrainConfig(epochs=6, batch=256, lr=1e-2, mirror=True),
                                     (valid, valid_target), log=lambda line: None)
    after = model.loss(fitted, valid, valid_target, scale)
    # Measured: 0.58 of the start (0.44 to 0.73 with other sizes, rates and epochs; mirrored
    # batches matter on so few games: without them 0.82 to 0.97).
    assert after < 0.7 * before, (before, after)


def test_the_training_script_reads_a_chunk_folder_and_writes_a_network(tmp_path, capsys):
    labelled_chunks(tmp_path / "data", range(40))
    out = tmp_path / "network.npz"
    train.main([str(tmp_path / "data"), "--hidden", "32", "--epochs", "1", "--batch", "512",
                "--validation", "0.3", "--out", str(out)])
    assert nn.load_network(out).hidden == 32
    printed = capsys.readouterr().out
    assert "training positions in" in printed and "integer kernel" in printed
    # The weight file records what it was trained on, from the chunks' headers.
    trained = int(printed.split(" training positions in")[0].split()[-1].replace(",", ""))
    record = nn.network_provenance(out)
    assert record.startswith(f"{trained:,} training positions") and "H = 32" in record, record


def test_a_training_limit_shrinks_the_training_chunks_and_keeps_validation_and_scale(tmp_path, capsys):
    labelled_chunks(tmp_path / "data", range(160), per_chunk=400)

    def run(*extra: str) -> tuple[int, str, str]:
        train.main([str(tmp_path / "data"), "--hidden", "32", "--epochs", "1", "--batch", "512",
                    "--validation", "0.25", "--out", str(tmp_path / "network.npz"), *extra])
        printed = capsys.readouterr().out
        trained = int(printed.split(" training positions in")[0].split()[-1].replace(",", ""))
        valid = printed.split("validation positions")[0].split(",")[-1]
        scale = printed.split("teacher scale K_t = ")[1].split(";")[0]
        return trained, valid, scale

    everything, limited = run(), run("--limit", "1000")
    assert 1000 <= limited[0] < everything[0] / 3
    assert limited[1:] == everything[1:]
    # A network continued on other data keeps its own K_t when told it (its output's scale).
    assert run("--teacher-scale", "2.7566")[2] == "2.7566" != everything[2]


def test_the_scaling_script_trains_each_size_once_on_the_same_validation_set(tmp_path, monkeypatch):
    labelled_chunks(tmp_path / "data", range(160), per_chunk=400)
    monkeypatch.setenv("BRUDNO_DATA", str(tmp_path / "data"))
    results = tmp_path / "results.jsonl"
    args = ["--sizes", "1000", "0", "--epochs", "1", "--hidden", "32", "--results", str(results)]
    data_scaling.main(args)
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    assert [row["size"] for row in rows] == [1000, None]
    assert rows[0]["positions"] < rows[1]["positions"] / 3
    assert all(0 < row["validation"] < 0.25 for row in rows)
    data_scaling.main(args)  # both measured: nothing runs again
    assert len(results.read_text().splitlines()) == 2
