"""The text format of training data (scripts/training/data/make_text.py writes it; the classical
tuner reads only this, the network trainer this or chunks), and its split into training and
validation sets.

One position a line, plain text so that any tool can read it:

    <FEN> | <score> | <result>

``score`` is the teacher's search score in centipawns and ``result`` the game's result
(1.0, 0.5, 0.0), both from White's point of view. Lines starting with ``#`` are comments.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, TextIO, TypeVar

import chess
import numpy as np


# Positions read from text files in file order: the classical tuner's coefficient rows or the
# network's index lists, each with its ``source`` (the file's number) and ``take``.
Split = TypeVar("Split")


@dataclass(frozen=True)
class Sample:
    fen: str
    score: int  # centipawns, White's view
    result: float  # 1.0 White won, 0.5 draw, 0.0 Black won

    def line(self) -> str:
        return f"{self.fen} | {self.score} | {self.result:.1f}"

    def board(self) -> chess.Board:
        return chess.Board(self.fen)


def parse_line(line: str) -> Sample | None:
    """The sample on ``line``; None for blank and comment lines; ValueError when malformed."""
    line = line.strip()
    if not line or line.startswith("#"):
        return None
    fields = [field.strip() for field in line.split("|")]
    if len(fields) != 3:
        raise ValueError(f"expected 'FEN | score | result', got {line!r}")
    result = float(fields[2])
    if result not in (0.0, 0.5, 1.0):
        raise ValueError(f"result must be 1.0, 0.5 or 0.0, got {fields[2]!r}")
    return Sample(fields[0], int(fields[1]), result)


def read_samples(path: str | Path, limit: int | None = None) -> Iterator[Sample]:
    """The samples of the file at ``path``, in order (at most ``limit`` of them)."""
    count = 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            sample = parse_line(line)
            if sample is None:
                continue
            yield sample
            count += 1
            if limit is not None and count >= limit:
                return


def write_samples(out: TextIO, samples: Iterable[Sample]) -> int:
    count = 0
    for sample in samples:
        out.write(sample.line() + "\n")
        count += 1
    return count


def position_id(board: chess.Board) -> str:
    """What makes two samples duplicates: the position, not the move counters."""
    return board.epd()


def cache_path(paths: list[Path], key: str, suffix: str) -> Path:
    """Where a trainer caches what it computed from ``paths``: beside the first file, named by a
    hash of the files' names, sizes and times and of ``key`` (what else the cache depends on), so
    that a file that grew or a changed encoding gets a new cache."""
    stats = [(str(p), p.stat().st_size, p.stat().st_mtime_ns) for p in paths]
    tag = hashlib.sha1(f"{stats}-{key}".encode()).hexdigest()[:12]
    return paths[0].with_name(f"{paths[0].name}.{tag}.{suffix}")


def split(data: Split, share: float, block: int = 1000, seed: int = 1) -> tuple[Split, Split]:
    """Training and validation sets. Positions of one game are alike and share its result, so the
    validation set is made of whole games: the positions come in blocks of ``block`` consecutive
    lines of a file (about 15 games), and a seeded ``share`` of the blocks is held out."""
    source = np.zeros(len(data), dtype=np.int64) if data.source is None else data.source.astype(np.int64)
    first = np.r_[0, np.flatnonzero(np.diff(source)) + 1]
    line = np.arange(len(data)) - np.repeat(first, np.diff(np.r_[first, len(data)]))
    blocks = source * (1 << 40) + line // block
    unique, inverse = np.unique(blocks, return_inverse=True)
    held_out = np.random.default_rng(seed).random(len(unique)) < share
    mask = held_out[inverse]
    return data.take(~mask), data.take(mask)
