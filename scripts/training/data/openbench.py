"""Turns the games of an OpenBench DATAGEN run into training chunks (scripts/training/data/chunks.py).

    .venv/bin/python -m scripts.training.data.openbench 123.pgn.tar --out ~/.local/share/brudno/data
    .venv/bin/python -m scripts.training.train ~/.local/share/brudno/data ...

OpenBench hands back a run's games as `<test>.pgn.tar` (a .pgn.bz2 a workload); plain .pgn and
.pgn.bz2 files are read too. fastchess wrote each move's comment as `{+0.35/12 0.123s ...}`:
the score of the engine that moved, in pawns from its side's point of view (`+M5`: a mate in
plies), and its depth; `book` marks an opening move. OpenBench keeps the score and depth.

The labels are therefore Brudno's own search scores at the workload's limits, with the games'
results: not Stockfish's, as scripts/training/data/generate.py's are. Each game becomes one chain of a
version-2 chunk, its positions kept as the generator keeps them: not in check, the move played (the
search's best) neither a capture nor a promotion, a score that is no mate; book moves and moves
without a score are replayed, not kept. A kept position whose Zobrist key is in a chunk of the
output folder already, or earlier in this conversion, is not kept again. Games without a result
(`*`) are skipped.
"""

from __future__ import annotations

import argparse
import bz2
import io
import re
import sys
import tarfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator, TextIO

import chess
import chess.pgn
import numpy as np

from engine.board.zobrist import position_key
from scripts.training.data import chunks, codec

SCORE = re.compile(r"([+-]?)(M?)(\d+(?:\.\d+)?)/(\d+)")
RESULTS = {"1-0": 2, "1/2-1/2": 1, "0-1": 0}
CHUNK_SIZE = 100_000  # kept positions a chunk


def comment_score(comment: str) -> int | None:
    """The centipawn score (side to move's view) of a fastchess move comment; None for a book
    move, a comment without a score, or a mate score."""
    match = SCORE.search(comment)
    if match is None or comment.strip() == "book":
        return None
    sign, mate, number, _depth = match.groups()
    if mate:
        return None
    value = round(float(number) * 100)
    return -value if sign == "-" else value


def pgn_texts(path: Path) -> Iterator[tuple[str, TextIO]]:
    """(name, text stream) of each PGN in ``path``: a .pgn, a .pgn.bz2 or a tar of them."""
    name = path.name.lower()
    if name.endswith(".tar"):
        with tarfile.open(path) as archive:
            for member in archive:
                if not member.isfile():
                    continue
                data = archive.extractfile(member).read()
                if member.name.lower().endswith(".bz2"):
                    data = bz2.decompress(data)
                yield member.name, io.StringIO(data.decode("utf-8", errors="replace"))
    elif name.endswith(".bz2"):
        with bz2.open(path, "rt", encoding="utf-8", errors="replace") as handle:
            yield path.name, handle
    else:
        with open(path, encoding="utf-8", errors="replace") as handle:
            yield path.name, handle


def game_chain(game: chess.pgn.Game, seen: set[int], known: chunks.KeySet | None
               ) -> tuple[np.ndarray, list[int], list[int]] | None:
    """The chain of ``game`` (start, entries, White's scores of the kept positions); None when
    it has no result or cannot be replayed. Adds the kept positions' keys to ``seen``."""
    result = RESULTS.get(game.headers.get("Result", "*"))
    if result is None or game.errors:
        return None
    try:
        board = game.board()
    except ValueError:
        return None
    board.castling_rights = board.clean_castling_rights()
    start = chunks.start_of(board, result)
    moves: list[chess.Move] = []
    candidates: list[tuple[int, int, int]] = []  # (ply, key, White's score) of the quiet ones
    for node in game.mainline():
        move = node.move
        if not board.is_legal(move):
            return None
        score = comment_score(node.comment)
        if (score is not None and not board.is_check() and not board.is_capture(move)
                and move.promotion is None
                and not (board.chess960 and board.castling_rights
                         and chunks.record_flags(board) is None)):
            candidates.append((len(moves), position_key(board),
                               score if board.turn == chess.WHITE else -score))
        moves.append(move)
        board.push(move)
    keys = np.array([key for _, key, _ in candidates], dtype=np.uint64)
    in_chunks = known.contains(keys) if known is not None and len(keys) else np.zeros(len(keys), bool)
    kept: dict[int, int] = {}
    for (ply, key, score), old in zip(candidates, in_chunks):
        if not old and key not in seen:
            seen.add(key)
            kept[ply] = score
    entries = [codec.move_entry(move, ply in kept) for ply, move in enumerate(moves)]
    entries.append(codec.move_entry(None, False))  # the last position: no move played from it
    return start, entries, list(kept.values())


def known_keys(folder: Path) -> chunks.KeySet:
    keys = chunks.KeySet()
    for path in chunks.chunk_paths(folder):
        keys.add(chunks.read_keys(path))
    return keys


def convert(inputs: list[Path], out: Path, chunk_size: int = CHUNK_SIZE,
            prefix: str = "openbench") -> tuple[int, int, list[Path]]:
    """Writes the games of ``inputs`` as chunks ``<prefix>-NNNNNN.bdc`` in ``out`` (after the
    ones there); returns (games converted, positions kept, the chunks written)."""
    known = known_keys(out) if out.exists() else None
    seen: set[int] = set()
    taken = {path.name for path in chunks.chunk_paths(out)} if out.exists() else set()
    number = 0
    written: list[Path] = []
    pending, games, total = chunks.Chains(), 0, 0
    time_controls: set[str] = set()

    def flush() -> None:
        nonlocal pending, number, games
        if not pending.count:
            return
        while f"{prefix}-{number:06d}{chunks.SUFFIX}" in taken:
            number += 1
        name = f"{prefix}-{number:06d}{chunks.SUFFIX}"
        header = {"teacher": "Brudno (its own search, OpenBench DATAGEN)",
                  "generator": "scripts/training/data/openbench.py", "games": games,
                  "time_control": ", ".join(sorted(time_controls)) or "?",
                  "sources": sorted({str(p.name) for p in inputs}),
                  "created": datetime.now(timezone.utc).isoformat(timespec="seconds")}
        written.append(chunks.write_chains(out, name, pending, header))
        taken.add(name)
        pending, games = chunks.Chains(), 0

    for path in inputs:
        for _name, stream in pgn_texts(path):
            while (game := chess.pgn.read_game(stream)) is not None:
                chain = game_chain(game, seen, known)
                if chain is None or not chain[2]:
                    continue
                start, entries, scores = chain
                pending.add(start, entries, scores)
                games += 1
                total += len(scores)
                time_controls.add(game.headers.get("TimeControl", "?"))
                if pending.count >= chunk_size:
                    flush()
    converted = total
    flush()
    return sum(chunks.read_header(p)[0]["games"] for p in written), converted, written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("inputs", nargs="+", type=Path, help=".pgn, .pgn.bz2 or .pgn.tar files")
    parser.add_argument("--out", type=Path, default=None,
                        help="the chunk folder (default: the data folder, scripts/training/data/chunks.py)")
    parser.add_argument("--chunk-size", type=int, default=CHUNK_SIZE,
                        help="kept positions a chunk")
    parser.add_argument("--prefix", default="openbench", help="the chunks' file names' start")
    args = parser.parse_args(argv)
    out = args.out or chunks.data_folder()
    games, positions, written = convert(args.inputs, out, args.chunk_size, args.prefix)
    print(f"{games} games, {positions} positions kept, {len(written)} chunk(s) in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
