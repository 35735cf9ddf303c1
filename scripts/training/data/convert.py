"""Converts version-1 chunks (40-byte records) into version 2 (game chains,
scripts/training/data/chunks.py).

    .venv/bin/python -m scripts.training.data.convert OUT      # the data folder's chunks into OUT
    .venv/bin/python -m scripts.training.data.convert OUT FOLDER_OR_CHUNK ...

A version-1 chunk holds whole games' kept positions in order, without the positions between them
that were not kept (checks, captures, promotions, mate scores, duplicates). Two consecutive
records of the same result are chained when the moves between them are found: their move numbers
give the number of plies, and a depth-first search tries the legal moves from squares where the
two positions differ (only quiet moves while the halfmove clock says no capture or pawn move came,
a few hundred nodes at most). A record that cannot be reached so starts a new chain, which any
record can (40 bytes, as in version 1). Each converted chunk is decoded again and compared with
the original, every field of every record, before it is written; a chain that does not give its
records back is replaced by one chain a record. Chunks go to OUT under their own names, never over
their originals; chunks already in OUT, and version-2 ones, are left alone.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import chess
import numpy as np

from scripts.training.data import chunks, codec

MAX_GAP = 8  # plies between two records that are worth a search
BUDGET = 400  # nodes a search may visit
_KINDS = ("pawns", "knights", "bishops", "rooks", "queens", "kings")


def _plies(records: np.ndarray) -> np.ndarray:
    """Each record's ply count from the game's start (as python-chess's ``Board.ply``)."""
    return 2 * (records["fullmove"].astype(np.int64) - 1) + 1 - (records["flags"] & 1)


def _targets(records: np.ndarray) -> list[tuple[int, ...]]:
    """Each record's six piece boards and White's men, as Python ints."""
    codes = chunks.piece_codes(records)
    n = len(records)

    def bitboards(mask: np.ndarray) -> np.ndarray:
        return np.packbits(mask, axis=1, bitorder="little").view("<u8").reshape(n)

    columns = [bitboards((codes == kind + 1) | (codes == kind + 7)) for kind in range(6)]
    columns.append(bitboards((codes >= 1) & (codes <= 6)))
    return list(zip(*(column.tolist() for column in columns)))


class _Bridge:
    """The moves from a board to the next record's position, found by a bounded search."""

    def __init__(self, board: chess.Board, target: tuple[int, ...], record: np.void) -> None:
        self.board = board
        self.target = target
        self.flags = int(record["flags"])
        self.ep = int(record["ep"])
        self.halfmove = int(record["halfmove"])
        self.fullmove = int(record["fullmove"])
        self.nodes = 0

    def _arrivals(self, color: chess.Color) -> int:
        """How many of ``color``'s men of the target stand on none of its squares yet: each of
        its moves brings one there (castling two)."""
        board, target = self.board, self.target
        ours = board.occupied_co[color]
        theirs = target[6] if color else ~target[6]
        return sum((wanted & theirs & ~(getattr(board, kind) & ours)).bit_count()
                   for kind, wanted in zip(_KINDS, target))

    def _lands(self, move: chess.Move) -> bool:
        """Whether ``move`` puts its man where the target has it."""
        kind = move.promotion or self.board.piece_type_at(move.from_square)
        square = chess.BB_SQUARES[move.to_square]
        color = self.target[6] if self.board.turn else ~self.target[6]
        return bool(self.target[kind - 1] & color & square)

    def _difference(self) -> int:
        board, target = self.board, self.target
        return ((board.pawns ^ target[0]) | (board.knights ^ target[1]) | (board.bishops ^ target[2])
                | (board.rooks ^ target[3]) | (board.queens ^ target[4]) | (board.kings ^ target[5])
                | (board.occupied_co[chess.WHITE] ^ target[6]))

    def _arrived(self) -> bool:
        board = self.board
        return (self._difference() == 0 and min(board.halfmove_clock, 255) == self.halfmove
                and min(board.fullmove_number, 65535) == self.fullmove
                and chunks.record_flags(board) == self.flags and chunks.legal_ep(board) == self.ep)

    def search(self, depth: int) -> list[chess.Move] | None:
        """The ``depth`` moves that reach the target (played on the board), or None (the board
        as it was)."""
        if depth == 0:
            return [] if self._arrived() else None
        self.nodes += 1
        board = self.board
        difference = self._difference()
        # A move changes at most 4 squares (castling), the men's count goes down one a capture,
        # and each side's moves bring one of its men to its square (castling two).
        if (difference.bit_count() > 4 * depth or self.nodes > BUDGET
                or not 0 <= board.occupied.bit_count() - sum(t.bit_count() for t in self.target[:6]) <= depth):
            return None
        for color, moves in ((board.turn, (depth + 1) // 2), (not board.turn, depth // 2)):
            castling = 1 if board.castling_rights & chess.BB_BACKRANKS & board.occupied_co[color] else 0
            if self._arrivals(color) > moves + castling:
                return None
        # The halfmove clock at the target says which of the moves to come capture or move a pawn:
        # none while it is at least ``depth``, this one when it is ``depth - 1``.
        zeroing = None  # either
        if self.halfmove < 255:
            if self.halfmove >= depth:
                if board.halfmove_clock + depth != self.halfmove:
                    return None
                zeroing = False
            elif self.halfmove == depth - 1:
                zeroing = True
        from_mask, to_mask = difference, chess.BB_ALL if depth > 1 else difference
        if zeroing is False:
            from_mask &= ~board.pawns
            to_mask &= ~board.occupied_co[not board.turn]
        moves = [move for move in board.generate_legal_moves(from_mask, to_mask)
                 if not zeroing or board.is_zeroing(move)]
        if board.castling_rights and not zeroing:
            # A Chess960 king may castle onto its own square, or its rook stay where it is: the
            # castling moves whatever changed.
            moves += [move for move in board.generate_castling_moves() if move not in moves]
        # Moves that bring a man to its square in the target first.
        moves.sort(key=self._lands, reverse=True)
        for move in moves:
            board.push(move)
            found = self.search(depth - 1)
            if found is not None:
                return [move] + found
            board.pop()
        return None


def chains_of(records: np.ndarray) -> list[tuple[np.ndarray, list[int], list[int], list[int]]]:
    """The records as chains: (start, entries, scores, the records' indices) each."""
    chains: list[tuple[np.ndarray, list[int], list[int], list[int]]] = []
    targets = _targets(records)
    plies = _plies(records)
    board: chess.Board | None = None
    for i, record in enumerate(records):
        score, result = int(record["score"]), int(record["result"])
        if board is not None and result == chains[-1][0]["result"][0]:
            gap = int(plies[i] - plies[i - 1])
            path = _Bridge(board, targets[i], record).search(gap) if 1 <= gap <= MAX_GAP else None
            if path is not None:
                _, entries, scores, indices = chains[-1]
                entries[-1] = codec.move_entry(path[0], True)
                entries.extend(codec.move_entry(move, False) for move in path[1:])
                entries.append(codec.KEPT)
                scores.append(score)
                indices.append(i)
                continue
        board = chunks.board_of(record)
        chains.append((chunks.start_of(board, result), [codec.KEPT], [score], [i]))
    return chains


def convert(records: np.ndarray) -> chunks.Chains:
    """Version-2 chains that decode to exactly ``records`` (checked: ValueError if they cannot)."""
    chains = chains_of(records)
    result = chunks.Chains()
    for start, entries, scores, _ in chains:
        result.add(start, entries, scores)
    if result.count:
        back = chunks.decode(*result.arrays())
        wrong = back.view(np.void(chunks.RECORD_SIZE)) != records.view(np.void(chunks.RECORD_SIZE))
    else:
        wrong = np.zeros(0, dtype=bool)
    if wrong.any():
        # A chain that does not give its records back becomes one chain a record.
        result = chunks.Chains()
        for start, entries, scores, indices in chains:
            if wrong[indices].any():
                for i in indices:
                    result.add(chunks.start_of(chunks.board_of(records[i]), int(records[i]["result"])),
                               [codec.KEPT], [int(records[i]["score"])])
            else:
                result.add(start, entries, scores)
        back = chunks.decode(*result.arrays())
        if back.tobytes() != records.tobytes():
            raise ValueError("records that no chain gives back (a key that is not engine.board.zobrist's?)")
    return result


def convert_chunk(path: Path, out: Path) -> tuple[int, int]:
    """Writes version-2 ``path`` into the folder ``out`` under its name; (bytes before, after)."""
    header, _ = chunks.read_header(path)
    if header["version"] != 1:
        raise ValueError(f"{path}: already version {header['version']}")
    if out.resolve() == path.parent.resolve():
        raise ValueError(f"{path}: the output folder is the chunk's own")
    chains = convert(chunks.read_chunk(path))
    kept = {k: v for k, v in header.items() if k not in ("count", "record_size", "version")}
    written = chunks.write_chains(out, path.name, chains, {**kept, "converted_from": 1})
    return path.stat().st_size, written.stat().st_size


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path, help="the folder the version-2 chunks go to")
    parser.add_argument("inputs", type=Path, nargs="*",
                        help="folders or chunk files (default: the data folder)")
    args = parser.parse_args(argv)
    paths: list[Path] = []
    for item in args.inputs or [chunks.data_folder()]:
        paths += chunks.chunk_paths(item) if item.is_dir() else [item]
    before = after = positions = 0
    started = time.monotonic()
    for path in paths:
        if (args.out / path.name).exists() or chunks.read_header(path)[0]["version"] != 1:
            continue
        size, written = convert_chunk(path, args.out)
        count = chunks.read_header(args.out / path.name)[0]["count"]
        before, after, positions = before + size, after + written, positions + count
        print(f"{path.name}: {count:,} positions, {size:,} -> {written:,} bytes "
              f"({written / max(count, 1):.2f} a position)", flush=True)
    print(f"{positions:,} positions converted: {before:,} -> {after:,} bytes "
          f"({after / max(positions, 1):.2f} a position), {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
