"""The network's training positions: their encoding as index lists, and reading them from chunks
(streamed, scripts/training/data/chunks.py) or from text files (read whole, cached).

scripts/training/train.py trains on them; the tests build them. Every position is seen from its
side to move: ``us`` lists the side to move's active inputs, ``them`` the other perspective's, and
the teacher's score and the game's result are the side to move's.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import chess
import numpy as np

from engine.evaluation import network as nn
from scripts.training.data import chunks
from scripts.training.data.text import cache_path, read_samples

CACHE_VERSION = 2
# The index lists are padded with this input, which has no weights in any layout: 768 rows, or
# with king buckets the 768 shared rows and N_BUCKETS * 768 bucket rows of the factorised layer.
PAD = nn.N_INPUTS * (1 + nn.N_BUCKETS)


@dataclass
class Positions:
    """Positions as the network sees them, everything from the side to move's point of view."""

    us: np.ndarray  # int16 (n, 32, or 64 with buckets): the side to move's active inputs, PAD-padded
    them: np.ndarray  # int16 (n, 32 or 64): ... of the other side's perspective
    score: np.ndarray  # float32 (n,): the teacher's centipawns
    result: np.ndarray  # float32 (n,): 1 won, 0.5 drawn, 0 lost
    source: np.ndarray  # int32 (n,): which file, in file order (see text.split)

    def __len__(self) -> int:
        return len(self.score)

    def take(self, index: np.ndarray | slice) -> "Positions":
        return Positions(self.us[index], self.them[index], self.score[index], self.result[index],
                         self.source[index])


# A FEN's board field with its digits spelt out as that many "1"s and no slashes has one character
# per square, a8 first; _PIECE_CODE turns the characters into 0 (empty) or 1 + piece index
# (White's pawn .. king, then Black's), 255 for anything else.
_SPELL_OUT = str.maketrans({**{str(d): "1" * d for d in range(1, 9)}, "/": None})
_PIECE_CODE = np.full(256, 255, dtype=np.uint8)
_PIECE_CODE[ord("1")] = 0
for _code, _symbol in enumerate("PNBRQKpnbrqk", start=1):
    _PIECE_CODE[ord(_symbol)] = _code


def encode(board_fields: list[str], white_to_move: np.ndarray,
           buckets: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """The (us, them) index lists of positions given by their FEN board fields (see
    index_lists)."""
    spelt = [field.translate(_SPELL_OUT) for field in board_fields]
    for field, squares in zip(board_fields, spelt):
        if len(squares) != 64:
            raise ValueError(f"not a FEN board: {field!r}")
    codes = _PIECE_CODE[np.frombuffer("".join(spelt).encode("ascii"), dtype=np.uint8)]
    if (codes == 255).any():
        raise ValueError("a FEN board holds an unknown piece letter")
    # The string runs a8..h1: reversing its ranks gives square order a1..h8.
    codes = codes.reshape(len(spelt), 8, 8)[:, ::-1, :].reshape(len(spelt), 64)
    return index_lists(codes, np.asarray(white_to_move, dtype=bool), buckets)


def index_lists(codes: np.ndarray, white_to_move: np.ndarray,
                buckets: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """The (us, them) index lists of positions given square by square (``codes`` (n, 64), a1
    first: 0 empty, 1..6 White's pawn..king, 7..12 Black's): int16, MAX_ACTIVE a row, PAD-padded.

    With king buckets (``buckets`` N_BUCKETS) the first layer trains factorised: each man is
    listed twice, as its shared input (0..767, seen in every bucket) in the first MAX_ACTIVE
    slots and as its input in its perspective's bucket (768 + bucket * 768 + input) in the next;
    `fold` adds the shared rows into every bucket's for the engine's layout. The shared rows let
    what a man is worth anywhere be learnt from every position, and a bucket learn only how its
    king's square changes that."""
    n = len(codes)
    rows, square = np.nonzero(codes)
    piece = codes[rows, square].astype(np.int64) - 1
    white_piece, kind = piece < 6, piece % 6
    white_view = nn.feature_index(kind, square, white_piece, True)
    black_view = nn.feature_index(kind, square, white_piece, False)
    counts = np.bincount(rows, minlength=n)
    if counts.max(initial=0) > nn.MAX_ACTIVE:
        raise ValueError(f"a position has more than {nn.MAX_ACTIVE} men")
    slot = np.arange(len(rows)) - (np.cumsum(counts) - counts)[rows]
    stm_white = white_to_move[rows]
    width = nn.MAX_ACTIVE if buckets == 1 else 2 * nn.MAX_ACTIVE
    us = np.full((n, width), PAD, dtype=np.int16)
    them = np.full((n, width), PAD, dtype=np.int16)
    us[rows, slot] = np.where(stm_white, white_view, black_view)
    them[rows, slot] = np.where(stm_white, black_view, white_view)
    if buckets > 1:
        # Each perspective's bucket, from its own king's square as it sees the board.
        white_king = np.argmax(codes == 6, axis=1)
        black_king = np.argmax(codes == 12, axis=1) ^ 56
        white_rows = (1 + nn.KING_BUCKET[white_king]) * nn.N_INPUTS
        black_rows = (1 + nn.KING_BUCKET[black_king]) * nn.N_INPUTS
        own = np.where(stm_white, white_rows[rows], black_rows[rows])
        other = np.where(stm_white, black_rows[rows], white_rows[rows])
        us[rows, nn.MAX_ACTIVE + slot] = us[rows, slot] + own
        them[rows, nn.MAX_ACTIVE + slot] = them[rows, slot] + other
    return us, them


def positions_from_records(records: np.ndarray, source: int = 0, buckets: int = 1) -> Positions:
    """Chunk records (scripts/training/data/chunks.py) as the network sees them (side to move's view)."""
    stm_white = (records["flags"] & 1).astype(bool)
    us, them = index_lists(chunks.piece_codes(records), stm_white, buckets)
    white_score = records["score"].astype(np.float32)
    white_result = records["result"].astype(np.float32) / 2
    return Positions(us, them, np.where(stm_white, white_score, -white_score),
                     np.where(stm_white, white_result, 1 - white_result),
                     np.full(len(records), source, dtype=np.int32))


class ChunkStream:
    """Chunk files as a stream of shuffled batches: ``buffer`` chunks are read at a time, their
    positions shuffled together and cut into batches (chunks are about 20,000 positions, so the
    default buffer mixes some 160,000 positions from 8 random chunks)."""

    def __init__(self, paths: list[Path], buffer: int = 8, buckets: int = 1) -> None:
        self.paths = list(paths)
        self.counts = [chunks.read_header(path)[0]["count"] for path in self.paths]
        self.buffer = buffer
        self.buckets = buckets

    def __len__(self) -> int:
        return sum(self.counts)

    def batches(self, batch: int, rng: np.random.Generator) -> Iterator[Positions]:
        order = rng.permutation(len(self.paths))
        carry: Positions | None = None
        for start in range(0, len(order), self.buffer):
            parts = [positions_from_records(chunks.read_chunk(self.paths[i]), int(i), self.buckets)
                     for i in order[start:start + self.buffer]]
            if carry is not None:
                parts.append(carry)
            data = concatenate(parts)
            data = data.take(rng.permutation(len(data)))
            whole = len(data) - len(data) % batch
            for at in range(0, whole, batch):
                yield data.take(slice(at, at + batch))
            carry = data.take(slice(whole, len(data))) if whole < len(data) else None
        if carry is not None:
            yield carry

    def load(self, limit: int | None = None) -> Positions:
        """The first ``limit`` positions (all of them without one), in memory."""
        parts, count = [], 0
        for i, path in enumerate(self.paths):
            if limit is not None and count >= limit:
                break
            part = positions_from_records(chunks.read_chunk(path), i, self.buckets)
            if limit is not None:
                part = part.take(slice(0, limit - count))
            parts.append(part)
            count += len(part)
        return concatenate(parts)


def mirror_files(inputs: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``inputs`` with the board of each of ``rows`` (bool, one per position) mirrored from the
    a-file to the h-file: a square's file is its index's low three bits."""
    flip = rows[:, None] & (inputs != PAD)
    return np.where(flip, inputs ^ 7, inputs)


def concatenate(parts: list[Positions]) -> Positions:
    return Positions(*(np.concatenate([getattr(part, name) for part in parts])
                       for name in ("us", "them", "score", "result", "source")))


def first_chunks(paths: list[Path], positions: int) -> list[Path]:
    """The leading chunks of ``paths`` that hold at least ``positions`` positions (all if fewer)."""
    kept, count = [], 0
    for path in paths:
        if count >= positions:
            break
        kept.append(path)
        count += chunks.read_header(path)[0]["count"]
    return kept


def chunk_split(paths: list[Path], share: float,
                valid_limit: int | None = None) -> tuple[list[Path], list[Path]]:
    """Training and validation chunks: every round(1 / share)-th chunk is held out (whole games,
    the same chunks in every run as long as the folder only grows), until the held-out chunks
    hold ``valid_limit`` positions; the chunks past that train (the validation set is the first
    ``valid_limit`` positions of the held-out chunks, so it does not move as the folder grows)."""
    paths = sorted(paths)
    if len(paths) < 2:
        raise ValueError(f"{len(paths)} chunk(s): at least 2 are needed to hold out validation games")
    every = max(2, round(1 / share)) if share > 0 else len(paths) + 1
    valid = [p for i, p in enumerate(paths) if i % every == every - 1] or paths[-1:]
    if valid_limit is not None:
        valid = first_chunks(valid, valid_limit)
    held_out = set(valid)
    return [p for p in paths if p not in held_out], valid


def build_positions(paths: list[Path], limit: int | None = None, chunk: int = 100_000,
                    buckets: int = 1) -> Positions:
    """Reads samples and encodes them (cached beside the first file, keyed by the files' sizes
    and times, the limit and the encoding's version)."""
    cache = cache_path(paths, f"{limit}-{CACHE_VERSION}-{nn.N_INPUTS}-{buckets}", "net.npz")
    if cache.exists():
        with np.load(cache) as data:
            return Positions(data["us"], data["them"], data["score"], data["result"], data["source"])
    per_file = None if limit is None else -(-limit // len(paths))
    parts: list[Positions] = []
    started = time.monotonic()
    count = 0

    def encode_part(fields: list[str], white: list[bool], score: list[int], result: list[float],
                    source: list[int]) -> None:
        stm_white = np.array(white, dtype=bool)
        us, them = encode(fields, stm_white, buckets)
        white_score = np.array(score, dtype=np.float32)
        white_result = np.array(result, dtype=np.float32)
        parts.append(Positions(us, them, np.where(stm_white, white_score, -white_score),
                               np.where(stm_white, white_result, 1 - white_result),
                               np.array(source, dtype=np.int32)))

    for number, path in enumerate(paths):
        fields, white, score, result = [], [], [], []
        for sample in read_samples(path, per_file):
            board_field, turn = sample.fen.split(" ", 2)[:2]
            fields.append(board_field)
            white.append(turn == "w")
            score.append(sample.score)
            result.append(sample.result)
            count += 1
            if len(fields) == chunk:
                encode_part(fields, white, score, result, [number] * len(fields))
                fields, white, score, result = [], [], [], []
                print(f"  encoded {count} positions ({time.monotonic() - started:.0f} s)",
                      file=sys.stderr)
        if fields:
            encode_part(fields, white, score, result, [number] * len(fields))
    if not parts:
        raise ValueError(f"no positions in {', '.join(map(str, paths))}")
    data = concatenate(parts)
    np.savez(cache, us=data.us, them=data.them, score=data.score, result=data.result,
             source=data.source)
    return data


def board_of(us: np.ndarray) -> chess.Board:
    """A board with White to move whose White perspective is the index list ``us``: the position
    as its side to move sees it, which the network scores exactly as the original."""
    board = chess.Board(None)
    # A factorised list names each man twice (shared and bucket input): the same square.
    board.set_piece_map({int(i) % 64: chess.Piece(int(i) // 64 % 6 + 1, int(i) % nn.N_INPUTS < 384)
                         for i in us if i != PAD})
    return board


def chunk_files(paths: list[Path]) -> list[Path] | None:
    """The chunk files that ``paths`` name (folders hold chunks), or None if they are text files."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += chunks.chunk_paths(path)
        elif path.suffix == chunks.SUFFIX:
            found.append(path)
        else:
            return None
    return found
