"""The binary chunk format of the training data: the one reader and writer of it.

scripts/training/data/generate.py writes chunks, scripts/training/train.py streams them, the tests
check the round trip. A chunk is one file holding whole games' positions (so that validation can hold out whole chunks):

    b"BRDNCHNK"                 8 bytes, the magic
    uint32 little-endian        version (1 or 2)
    uint32 little-endian        length L of the JSON header
    L bytes                     JSON header: {"count": n, "nodes": ..., ...}, n kept positions
    the body                    version 1: n RECORDs; version 2: game chains

Both versions read back as the same records (``read_chunk``: a RECORD array), so a folder may mix
them. A record is one position with its labels (little-endian, no padding):

    occupancy  uint64    bit i set when square i (a1 = 0 .. h8 = 63) holds a man
    pieces     16 bytes  one nibble a man, in ascending square order, low nibble first:
                         0..5 White pawn, knight, bishop, rook, queen, king; 6..11 Black's
    key        uint64    engine.board.zobrist's key of the position (deduplication)
    score      int16     the teacher's score in centipawns, White's point of view
    result     uint8     the game's result for White: 0 lost, 1 drawn, 2 won
    flags      uint8     bit 0 White to move; bits 1..4 castling rights K, Q, k, q; bit 5 Chess960
                         castling (then K, Q, k, q are the outermost rook on either side of
                         the king, as X-FEN has them)
    ep         uint8     en passant square when an en passant capture is legal, else 255
    halfmove   uint8     halfmove clock (capped at 255)
    fullmove   uint16    fullmove number (capped at 65535)

Version 1's body is the records themselves, 40 bytes a position ("record_size": 40 in the header).
Version 2's body is the games as chains ("chains": c, "entries": e in the header), 5.3 bytes a
position as the generator writes them (1.4 entries a kept position):

    c starts of 36 bytes        START: a position as a record has it, but castling rights as the
                                rook files (bits 0..7 rank 1, 8..15 rank 8, so any Chess960 right
                                is exact), the result, and the chain's length in positions
    e entries, uint16           one for each position of each chain, chain after chain: the move
                                played from it (origin | target << 6 | promotion << 12, 0..3
                                knight..queen, read when a pawn reaches the last rank; castling as
                                python-chess writes it) and bit 14 when the position is kept; the
                                last position's move is not played
    n scores, int16             the kept positions' scores, in chain order

A chain may start at any position, so any sequence of records has a version-2 form (a chain a
record at worst: 40 bytes); the generator writes a chain a game, and scripts/training/data/convert.py
chains version-1 records by finding the moves between them. Keys are not stored: the decoder
(scripts/training/data/codec.py) replays the moves and updates the key move by move.

Files are written to a temporary name and renamed, so a chunk is either whole or absent, whenever
the writer is stopped.

The data folder is ``$BRUDNO_DATA`` if set, else ``~/.local/share/brudno/data``: outside the
checkout, so it survives a fresh clone and grows across runs.
"""
from __future__ import annotations

import json
import os
import struct
import tempfile
from pathlib import Path
from typing import Iterator

import chess
import numpy as np

from scripts.training.data import codec

MAGIC = b"BRDNCHNK"
VERSION = 2  # what write_chains writes (write_chunk writes version 1)
VERSIONS = (1, 2)
SUFFIX = ".bdc"
RECORD = np.dtype([("occupancy", "<u8"), ("pieces", "u1", (16,)), ("key", "<u8"),
                   ("score", "<i2"), ("result", "u1"), ("flags", "u1"), ("ep", "u1"),
                   ("halfmove", "u1"), ("fullmove", "<u2")])
RECORD_SIZE = RECORD.itemsize  # 40
assert RECORD_SIZE == 40
NO_EP = 255
SCORE_LIMIT = 32000  # scores are clamped to int16's range (with room)

_HEAD = struct.Struct("<8sII")
# A position as bitboards (see raw), cheap to take one at a time and packed into records together.
RAW = np.dtype([("pawns", "<u8"), ("knights", "<u8"), ("bishops", "<u8"), ("rooks", "<u8"),
                ("queens", "<u8"), ("kings", "<u8"), ("white", "<u8"), ("key", "<u8"),
                ("score", "<i2"), ("flags", "u1"), ("ep", "u1"), ("halfmove", "u1"),
                ("fullmove", "<u2")])
_RAW = struct.Struct("<QQQQQQQQhBBBH")
assert _RAW.size == RAW.itemsize
# Version 2: a chain's start (see the module's docstring), its entries and the kept positions' scores.
START = np.dtype([("occupancy", "<u8"), ("pieces", "u1", (16,)), ("castling", "<u2"),
                  ("flags", "u1"), ("ep", "u1"), ("halfmove", "u1"), ("fullmove", "<u2"),
                  ("result", "u1"), ("length", "<u4")])
assert START.itemsize == 36

# Castling right bits as python-chess's castling_rights mask has them (standard chess).
_CASTLING = ((chess.BB_H1, 2), (chess.BB_A1, 4), (chess.BB_H8, 8), (chess.BB_A8, 16))
CHESS960 = 32
# In Chess960 the same bits name, for each colour, the rook beyond the king on the h side and on
# the a side.
_SIDES = ((chess.WHITE, True, 2), (chess.WHITE, False, 4), (chess.BLACK, True, 8),
          (chess.BLACK, False, 16))


def _outermost_rook(board: chess.Board, color: chess.Color, h_side: bool) -> int | None:
    """The square of ``color``'s rook on its back rank farthest from its king on one side."""
    king = board.king(color)
    rank = chess.BB_RANK_1 if color == chess.WHITE else chess.BB_RANK_8
    rooks = [sq for sq in chess.scan_forward(board.rooks & board.occupied_co[color] & rank)
             if king is not None and (sq > king) == h_side]
    if not rooks:
        return None
    return max(rooks) if h_side else min(rooks)


def data_folder() -> Path:
    """Where the data lives: ``$BRUDNO_DATA``, else ``~/.local/share/brudno/data``."""
    env = os.environ.get("BRUDNO_DATA")
    return Path(env).expanduser() if env else Path.home() / ".local" / "share" / "brudno" / "data"


def record_flags(board: chess.Board) -> int | None:
    """The flags byte of ``board``'s record; None for the rare Chess960 position whose castling
    right is not the outermost rook's (X-FEN would need its file: such positions are not kept)."""
    rights = board.clean_castling_rights()
    flags = int(board.turn == chess.WHITE)
    if board.chess960:
        flags |= CHESS960
        for color, h_side, bit in _SIDES:
            king = board.king(color)
            rook = [sq for sq in chess.scan_forward(rights & chess.BB_BACKRANKS)
                    if board.color_at(sq) == color and (sq > king) == h_side]
            if rook:
                if rook[0] != _outermost_rook(board, color, h_side):
                    return None
                flags |= bit
    else:
        for mask, bit in _CASTLING:
            if rights & mask:
                flags |= bit
    return flags


def legal_ep(board: chess.Board) -> int:
    """The record's en passant field: the square when an en passant capture is legal, else 255."""
    ep = board.ep_square
    return NO_EP if ep is None or not board.has_legal_en_passant() else ep


def raw(board: chess.Board, key: int, white_score: int) -> bytes:
    """A position as its bitboards, cheap to take: ``records_from_raw`` turns many into records
    at once (with their result). Empty for the rare Chess960 position whose castling right is not
    the outermost rook's."""
    flags = record_flags(board)
    if flags is None:
        return b""
    return _RAW.pack(board.pawns, board.knights, board.bishops, board.rooks, board.queens,
                     board.kings, board.occupied_co[chess.WHITE], key,
                     max(-SCORE_LIMIT, min(SCORE_LIMIT, int(white_score))), flags,
                     legal_ep(board), min(board.halfmove_clock, 255),
                     min(board.fullmove_number, 65535))


def records_from_raw(data: bytes, white_result: int) -> np.ndarray:
    """The records (a RECORD array) of positions given as ``raw`` bytes, all with the game's
    result for White (0 lost, 1 drawn, 2 won)."""
    rawa = np.frombuffer(data, dtype=RAW)
    n = len(rawa)
    records = np.zeros(n, dtype=RECORD)
    occupied = np.zeros(n, dtype=np.uint64)
    codes = np.zeros((n, 64), dtype=np.uint8)

    def squares_of(name: str) -> np.ndarray:  # (n, 64) 0/1 by square
        bitboards = np.ascontiguousarray(rawa[name])
        return np.unpackbits(bitboards.view(np.uint8).reshape(n, 8), axis=1, bitorder="little")

    white = squares_of("white")
    for kind, name in enumerate(("pawns", "knights", "bishops", "rooks", "queens", "kings")):
        occupied |= rawa[name]
        codes += squares_of(name) * np.uint8(kind + 1)
    codes += ((codes > 0) & (white == 0)) * np.uint8(6)  # Black's men: 7..12
    rows, squares = np.nonzero(codes)  # row by row, squares ascending
    counts = np.bincount(rows, minlength=n)
    if counts.max(initial=0) > 32:
        raise ValueError("more than 32 men")
    slot = np.arange(len(rows)) - np.repeat(np.cumsum(counts) - counts, counts)
    nibble = codes[rows, squares] - 1
    pieces = np.zeros((n, 16), dtype=np.uint8)
    low = slot % 2 == 0
    pieces[rows[low], slot[low] // 2] = nibble[low]
    pieces[rows[~low], slot[~low] // 2] |= nibble[~low] << 4
    records["occupancy"] = occupied
    records["pieces"] = pieces
    for name in ("key", "score", "flags", "ep", "halfmove", "fullmove"):
        records[name] = rawa[name]
    records["result"] = white_result
    return records


def pack(board: chess.Board, key: int, white_score: int, white_result: int) -> bytes:
    """One record: ``board`` (standard chess, at most 32 men), its Zobrist ``key``, the
    teacher's score (cp, White's view) and the game's result for White (0, 1, 2)."""
    return records_from_raw(raw(board, key, white_score), white_result).tobytes()


def piece_codes(records: np.ndarray) -> np.ndarray:
    """(n, 64) uint8: each square's man code + 1 (1..12), 0 for an empty square."""
    n = len(records)
    occ = np.ascontiguousarray(records["occupancy"]).view(np.uint8).reshape(n, 8)
    bits = np.unpackbits(occ, axis=1, bitorder="little").astype(bool)  # (n, 64), square order
    nibbles = np.empty((n, 32), dtype=np.uint8)
    nibbles[:, 0::2] = records["pieces"] & 15
    nibbles[:, 1::2] = records["pieces"] >> 4
    # The k-th set bit of a row takes the row's k-th nibble.
    slot = np.cumsum(bits, axis=1) - 1
    codes = np.zeros((n, 64), dtype=np.uint8)
    rows, squares = np.nonzero(bits)
    codes[rows, squares] = nibbles[rows, slot[rows, squares]] + 1
    return codes


def board_of(record: np.void | np.ndarray) -> chess.Board:
    """The position of one record (its FEN fields all restored)."""
    codes = piece_codes(np.asarray(record).reshape(1))[0]
    board = chess.Board(None)
    for square in np.flatnonzero(codes):
        code = int(codes[square]) - 1
        board.set_piece_at(int(square), chess.Piece(code % 6 + 1, code < 6))
    flags = int(record["flags"])
    board.turn = bool(flags & 1)
    rights = 0
    if flags & CHESS960:
        board.chess960 = True
        for color, h_side, bit in _SIDES:
            if flags & bit:
                rights |= chess.BB_SQUARES[_outermost_rook(board, color, h_side)]
    else:
        for mask, bit in _CASTLING:
            if flags & bit:
                rights |= mask
    board.castling_rights = rights
    ep = int(record["ep"])
    board.ep_square = None if ep == NO_EP else ep
    board.halfmove_clock = int(record["halfmove"])
    board.fullmove_number = int(record["fullmove"])
    return board


def start_of(board: chess.Board, result: int = 1) -> np.ndarray:
    """A chain's start at ``board`` (at most 32 men) in a game whose result for White is
    ``result``: a START array of one, its length 0 until ``Chains.add``."""
    start = np.zeros(1, dtype=START)
    nibbles = [piece.piece_type - 1 + (0 if piece.color else 6)
               for piece in map(board.piece_at, chess.scan_forward(board.occupied))]
    if len(nibbles) > 32:
        raise ValueError("more than 32 men")
    nibbles += [0] * (32 - len(nibbles))
    rights = board.clean_castling_rights()
    start["occupancy"] = board.occupied
    start["pieces"] = [nibbles[i] | nibbles[i + 1] << 4 for i in range(0, 32, 2)]
    start["castling"] = (rights & 0xFF) | (rights >> 56) << 8
    start["flags"] = int(board.turn == chess.WHITE) | (CHESS960 if board.chess960 else 0)
    start["ep"] = legal_ep(board)
    start["halfmove"] = min(board.halfmove_clock, 255)
    start["fullmove"] = min(board.fullmove_number, 65535)
    start["result"] = result
    return start


def board_of_start(start: np.void | np.ndarray) -> chess.Board:
    """The position a chain starts from (its castling rights exactly)."""
    start = np.asarray(start, dtype=START).reshape(1)
    record = np.zeros(1, dtype=RECORD)
    for name in ("occupancy", "pieces", "ep", "halfmove", "fullmove"):
        record[name] = start[name]
    record["flags"] = start["flags"] & (1 | CHESS960)
    board = board_of(record[0])
    castling = int(start["castling"][0])
    board.castling_rights = (castling & 0xFF) | (castling >> 8) << 56
    return board


class Chains:
    """Game chains collected for a version-2 chunk."""

    def __init__(self) -> None:
        self.starts: list[np.ndarray] = []
        self.entries: list[np.ndarray] = []
        self.scores: list[np.ndarray] = []
        self.count = 0  # kept positions

    def __len__(self) -> int:
        return len(self.starts)

    def add(self, start: np.ndarray | bytes, entries, scores) -> None:
        """A chain: its start (``start_of``, or its bytes), an entry for each of its positions
        (``codec.move_entry``) and the scores of the kept ones (cp, White's view)."""
        start = np.frombuffer(start, dtype=START) if isinstance(start, bytes) else start
        start = np.array(start, dtype=START).reshape(1)
        entries = np.asarray(entries, dtype="<u2")
        scores = np.clip(np.asarray(scores), -SCORE_LIMIT, SCORE_LIMIT).astype("<i2")
        if not len(entries) or np.count_nonzero(entries & codec.KEPT) != len(scores):
            raise ValueError("a chain needs a position, and a score for each kept one")
        start["length"] = len(entries)
        self.starts.append(start)
        self.entries.append(entries)
        self.scores.append(scores)
        self.count += len(scores)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(starts, entries, scores), each chain's after the one before."""
        return (np.concatenate(self.starts) if self.starts else np.zeros(0, dtype=START),
                np.concatenate(self.entries) if self.entries else np.zeros(0, dtype="<u2"),
                np.concatenate(self.scores) if self.scores else np.zeros(0, dtype="<i2"))


def _write(folder: Path, name: str, version: int, meta: dict, data: bytes) -> Path:
    """Writes a chunk atomically (temporary file, fsync, rename) as ``folder/name``."""
    meta = {k: v for k, v in meta.items() if k != "version"}  # (read_header's: the file says it)
    encoded = json.dumps(meta, sort_keys=True).encode()
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=SUFFIX)
    try:
        os.fchmod(fd, 0o644)  # mkstemp's 0600 would hide the data from other users' trainers
        with os.fdopen(fd, "wb") as f:
            f.write(_HEAD.pack(MAGIC, version, len(encoded)))
            f.write(encoded)
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        path = folder / name
        os.rename(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    # The rename is durable only once the folder itself is synced.
    dir_fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
    return path


def write_chunk(folder: Path, name: str, records: bytes | np.ndarray, header: dict) -> Path:
    """Writes a version-1 chunk of records atomically as ``folder/name``; returns its path.
    ``records`` is the packed records, as bytes or a RECORD array."""
    data = records.tobytes() if isinstance(records, np.ndarray) else bytes(records)
    if len(data) % RECORD_SIZE:
        raise ValueError("records are not a whole number of 40-byte records")
    meta = {**header, "count": len(data) // RECORD_SIZE, "record_size": RECORD_SIZE}
    return _write(folder, name, 1, meta, data)


def write_chains(folder: Path, name: str, chains: Chains, header: dict) -> Path:
    """Writes a version-2 chunk of game chains atomically as ``folder/name``; returns its path."""
    starts, entries, scores = chains.arrays()
    meta = {**header, "count": len(scores), "chains": len(starts), "entries": len(entries)}
    return _write(folder, name, 2, meta, starts.tobytes() + entries.tobytes() + scores.tobytes())


def _body_size(version: int, header: dict) -> int:
    if version == 1:
        return header["count"] * RECORD_SIZE
    return header["chains"] * START.itemsize + 2 * header["entries"] + 2 * header["count"]


def read_header(path: Path) -> tuple[dict, int]:
    """A chunk's JSON header (with its "version" added) and the byte offset of its body;
    ValueError if ``path`` is not a whole chunk."""
    with open(path, "rb") as f:
        head = f.read(_HEAD.size)
        if len(head) < _HEAD.size:
            raise ValueError(f"{path}: too short for a chunk")
        magic, version, length = _HEAD.unpack(head)
        if magic != MAGIC or version not in VERSIONS:
            raise ValueError(f"{path}: not a chunk of version {' or '.join(map(str, VERSIONS))}")
        header = json.loads(f.read(length))
    offset = _HEAD.size + length
    if path.stat().st_size != offset + _body_size(version, header):
        raise ValueError(f"{path}: size does not match its header")
    header["version"] = version
    return header, offset


def read_chains(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A version-2 chunk's (starts, entries, scores)."""
    header, offset = read_header(path)
    if header["version"] != 2:
        raise ValueError(f"{path}: not a version 2 chunk")
    data = path.read_bytes()
    chains, entries = header["chains"], header["entries"]
    starts = np.frombuffer(data, dtype=START, count=chains, offset=offset)
    offset += starts.nbytes
    # Copies: aligned, as the decoder's kernel wants them.
    moves = np.frombuffer(data, dtype="<u2", count=entries, offset=offset).copy()
    offset += moves.nbytes
    scores = np.frombuffer(data, dtype="<i2", count=header["count"], offset=offset).copy()
    return starts, moves, scores


def decode(starts: np.ndarray, entries: np.ndarray, scores: np.ndarray,
           keys_only: bool = False) -> np.ndarray:
    """The records (a RECORD array) of the kept positions of chains, or with ``keys_only``
    just their keys (uint64): the moves replayed (scripts/training/data/codec.py)."""

    n = len(scores)
    records = np.zeros(0 if keys_only else n, dtype=RECORD)
    keys = np.zeros(n, dtype=np.uint64)
    occupancy = np.zeros(len(records), dtype=np.uint64)
    pieces = np.zeros((len(records), 16), dtype=np.uint8)
    fields = {name: np.zeros(len(records), dtype=RECORD[name])
              for name in ("flags", "ep", "halfmove", "fullmove", "result")}
    lengths = starts["length"].astype(np.int64)
    if lengths.sum() != len(entries):
        raise ValueError("the chains' lengths do not match their entries")
    # Copies: contiguous and writable whatever the caller's arrays are (numba compiles the kernel
    # again for each kind of array it meets).
    found = codec.replay(*(starts[name].copy() for name in ("occupancy", "pieces", "castling", "flags", "ep",
                                                      "halfmove", "fullmove", "result")),
                   lengths, np.array(entries, dtype=np.uint16), bool(keys_only), occupancy, pieces,
                   keys, fields["flags"], fields["ep"], fields["halfmove"], fields["fullmove"],
                   fields["result"])
    if found < 0:
        raise ValueError(f"chain {-1 - found}: a move from a square without a man of the side to move")
    if found != n:
        raise ValueError(f"{found} kept positions for {n} scores")
    if keys_only:
        return keys
    records["occupancy"] = occupancy
    records["pieces"] = pieces
    records["key"] = keys
    records["score"] = scores
    for name, values in fields.items():
        records[name] = values
    return records


def read_chunk(path: Path) -> np.ndarray:
    """A chunk's records (a RECORD array), of either version."""
    header, offset = read_header(path)
    if header["version"] == 1:
        return np.fromfile(path, dtype=RECORD, count=header["count"], offset=offset)
    return decode(*read_chains(path))


def read_keys(path: Path) -> np.ndarray:
    """A chunk's Zobrist keys (uint64), without decoding the rest."""
    header, offset = read_header(path)
    if header["version"] == 1:
        return np.fromfile(path, dtype=RECORD, count=header["count"], offset=offset)["key"].copy()
    return decode(*read_chains(path), keys_only=True)


def chunk_paths(folder: Path) -> list[Path]:
    """The chunks in ``folder``, in name order (temporary files left by a stop are not chunks)."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.glob(f"*{SUFFIX}") if not p.name.startswith("."))


def iter_records(paths: list[Path]) -> Iterator[np.ndarray]:
    """Each chunk's records in turn."""
    for path in paths:
        yield read_chunk(path)


def _sorted_unique(keys: np.ndarray) -> np.ndarray:
    """``np.unique(keys)``: sorted, each key once. (NumPy 2.4's ``unique`` took 4.8 s for 4.7M
    keys where ``sort`` takes 0.12 s, and the generator's start-up merges every chunk's keys.)"""
    keys = np.sort(keys)
    return keys[np.concatenate(([True], keys[1:] != keys[:-1]))] if len(keys) else keys


class KeySet:
    """A set of 64-bit keys for tens of millions of positions: sorted numpy arrays (8 bytes a
    key, where a Python set takes about 70), merged like a binary counter so that adding stays
    cheap and a look-up searches a few arrays."""

    def __init__(self) -> None:
        self.levels: list[np.ndarray] = []

    def __len__(self) -> int:
        return sum(len(level) for level in self.levels)

    def add(self, keys: np.ndarray) -> None:
        self.levels.append(_sorted_unique(np.asarray(keys, dtype=np.uint64)))
        while len(self.levels) > 1 and len(self.levels[-2]) <= 2 * len(self.levels[-1]):
            top = self.levels.pop()
            self.levels[-1] = _sorted_unique(np.concatenate([self.levels[-1], top]))

    def contains(self, keys: np.ndarray) -> np.ndarray:
        """A bool array: which of ``keys`` are in the set."""
        keys = np.asarray(keys, dtype=np.uint64)
        found = np.zeros(len(keys), dtype=bool)
        for level in self.levels:
            at = np.searchsorted(level, keys)
            at[at == len(level)] = 0
            found |= level[at] == keys if len(level) else False
        return found
