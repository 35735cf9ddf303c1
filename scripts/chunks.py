"""The binary chunk format of the training data: the one reader and writer of it.

scripts/gen_data.py writes chunks, scripts/train.py streams them, the tests check the round trip.
A chunk is one file holding whole games' positions (so that validation can hold out whole chunks):

    b"BRDNCHNK"                 8 bytes, the magic
    uint32 little-endian        version (1)
    uint32 little-endian        length L of the JSON header
    L bytes                     JSON header: {"count": n, "record_size": 40, "nodes": ..., ...}
    n records of 40 bytes       RECORD below

A record is one position with its labels (little-endian, no padding):

    occupancy  uint64    bit i set when square i (a1 = 0 .. h8 = 63) holds a man
    pieces     16 bytes  one nibble a man, in ascending square order, low nibble first:
                         0..5 White pawn, knight, bishop, rook, queen, king; 6..11 Black's
    key        uint64    engine.zobrist's key of the position (deduplication)
    score      int16     the teacher's score in centipawns, White's point of view
    result     uint8     the game's result for White: 0 lost, 1 drawn, 2 won
    flags      uint8     bit 0 White to move; bits 1..4 castling rights K, Q, k, q; bit 5 Chess960
                         castling (then K, Q, k, q are the outermost rook on either side of
                         the king, as X-FEN has them)
    ep         uint8     en passant square when an en passant capture is legal, else 255
    halfmove   uint8     halfmove clock (capped at 255)
    fullmove   uint16    fullmove number (capped at 65535)

40 bytes a position, 25 million positions a gigabyte. Files are written to a temporary name and
renamed, so a chunk is either whole or absent, whenever the writer is stopped.

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

MAGIC = b"BRDNCHNK"
VERSION = 1
SUFFIX = ".bdc"
RECORD = np.dtype([("occupancy", "<u8"), ("pieces", "u1", (16,)), ("key", "<u8"),
                   ("score", "<i2"), ("result", "u1"), ("flags", "u1"), ("ep", "u1"),
                   ("halfmove", "u1"), ("fullmove", "<u2")])
RECORD_SIZE = RECORD.itemsize  # 40
assert RECORD_SIZE == 40
NO_EP = 255
SCORE_LIMIT = 32000  # scores are clamped to int16's range (with room)

_HEAD = struct.Struct("<8sII")
# The generator's per-position form (see raw): the bitboards as they are, packed at the game's end.
RAW = np.dtype([("pawns", "<u8"), ("knights", "<u8"), ("bishops", "<u8"), ("rooks", "<u8"),
                ("queens", "<u8"), ("kings", "<u8"), ("white", "<u8"), ("key", "<u8"),
                ("score", "<i2"), ("flags", "u1"), ("ep", "u1"), ("halfmove", "u1"),
                ("fullmove", "<u2")])
_RAW = struct.Struct("<QQQQQQQQhBBBH")
assert _RAW.size == RAW.itemsize

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


def raw(board: chess.Board, key: int, white_score: int) -> bytes:
    """A position as the generator collects it during a game (its bitboards, cheap to take):
    ``records_from_raw`` turns a game's worth into records once the result is known. Empty for
    the rare Chess960 position whose castling right is not the outermost rook's."""
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
                    return b""  # an inner rook's right: rare, and X-FEN would need its file
                flags |= bit
    else:
        for mask, bit in _CASTLING:
            if rights & mask:
                flags |= bit
    ep = board.ep_square
    if ep is not None and not board.has_legal_en_passant():
        ep = None
    return _RAW.pack(board.pawns, board.knights, board.bishops, board.rooks, board.queens,
                     board.kings, board.occupied_co[chess.WHITE], key,
                     max(-SCORE_LIMIT, min(SCORE_LIMIT, int(white_score))), flags,
                     NO_EP if ep is None else ep, min(board.halfmove_clock, 255),
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


def write_chunk(folder: Path, name: str, records: bytes | np.ndarray, header: dict) -> Path:
    """Writes a chunk atomically (temporary file, fsync, rename) as ``folder/name``; returns its
    path. ``records`` is the packed records, as bytes or a RECORD array."""
    data = records.tobytes() if isinstance(records, np.ndarray) else bytes(records)
    if len(data) % RECORD_SIZE:
        raise ValueError("records are not a whole number of 40-byte records")
    meta = json.dumps({**header, "count": len(data) // RECORD_SIZE, "record_size": RECORD_SIZE},
                      sort_keys=True).encode()
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=SUFFIX)
    try:
        os.fchmod(fd, 0o644)  # mkstemp's 0600 would hide the data from other users' trainers
        with os.fdopen(fd, "wb") as f:
            f.write(_HEAD.pack(MAGIC, VERSION, len(meta)))
            f.write(meta)
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


def read_header(path: Path) -> tuple[dict, int]:
    """A chunk's JSON header and the byte offset of its first record; ValueError if ``path``
    is not a whole chunk."""
    with open(path, "rb") as f:
        head = f.read(_HEAD.size)
        if len(head) < _HEAD.size:
            raise ValueError(f"{path}: too short for a chunk")
        magic, version, length = _HEAD.unpack(head)
        if magic != MAGIC or version != VERSION:
            raise ValueError(f"{path}: not a version {VERSION} chunk")
        header = json.loads(f.read(length))
    offset = _HEAD.size + length
    if path.stat().st_size != offset + header["count"] * RECORD_SIZE:
        raise ValueError(f"{path}: size does not match its {header['count']} records")
    return header, offset


def read_chunk(path: Path) -> np.ndarray:
    """A chunk's records (a RECORD array)."""
    header, offset = read_header(path)
    return np.fromfile(path, dtype=RECORD, count=header["count"], offset=offset)


def read_keys(path: Path) -> np.ndarray:
    """A chunk's Zobrist keys (uint64), without decoding the rest."""
    return read_chunk(path)["key"].copy()


def chunk_paths(folder: Path) -> list[Path]:
    """The chunks in ``folder``, in name order (temporary files left by a stop are not chunks)."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.glob(f"*{SUFFIX}") if not p.name.startswith("."))


def iter_records(paths: list[Path]) -> Iterator[np.ndarray]:
    """Each chunk's records in turn."""
    for path in paths:
        yield read_chunk(path)


class KeySet:
    """A set of 64-bit keys for tens of millions of positions: sorted numpy arrays (8 bytes a
    key, where a Python set takes about 70), merged like a binary counter so that adding stays
    cheap and a look-up searches a few arrays."""

    def __init__(self) -> None:
        self.levels: list[np.ndarray] = []

    def __len__(self) -> int:
        return sum(len(level) for level in self.levels)

    def add(self, keys: np.ndarray) -> None:
        keys = np.unique(np.asarray(keys, dtype=np.uint64))
        self.levels.append(keys)
        while len(self.levels) > 1 and len(self.levels[-2]) <= 2 * len(self.levels[-1]):
            top = self.levels.pop()
            self.levels[-1] = np.union1d(self.levels[-1], top)

    def contains(self, keys: np.ndarray) -> np.ndarray:
        """A bool array: which of ``keys`` are in the set."""
        keys = np.asarray(keys, dtype=np.uint64)
        found = np.zeros(len(keys), dtype=bool)
        for level in self.levels:
            at = np.searchsorted(level, keys)
            at[at == len(level)] = 0
            found |= level[at] == keys if len(level) else False
        return found
