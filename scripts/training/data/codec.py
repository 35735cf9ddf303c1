"""The codec of version-2 chunks (scripts/training/data/chunks.py): a position's 16-bit entry
in a game chain, and the replay of chains into the fields of records.

An entry names the move played from its position (origin | target << 6 | promotion << 12,
promotion 0..3 knight..queen, read only when a pawn reaches the last rank; castling as
python-chess writes it) and whether the position is kept (``KEPT``). ``move_entry`` writes one
from a python-chess move; ``entry_move`` reads it back as the engine's move code
(engine/board/movecode.py) in its position, and ``replay`` plays the moves with the search's own
make-move (engine/board/bitmove.py: bitboards, castling rights, the key updated from the parent's, the
en passant square when a capture there is legal), writing the fields of the kept positions'
records. python-chess's ``push`` would take about 20 µs a ply; this takes well under one.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

import chess
import numpy as np
from numba import njit

from engine import kernel_cache

from engine.board import movecode
from engine.board.bitboards import BACK_RANK, U0, U1, lsb
from engine.board.bitmove import child
from engine.board.position import Position
from engine.board.movegen import PROMOTION_RANKS, piece_kind
from engine.board.zobrist import key_kernel

_HERE = Path(__file__).resolve()


def clear_stale_cache(cache: Path = _HERE.parent / "__pycache__") -> bool:
    """Removes numba's cache of ``replay`` from ``cache`` unless it was compiled from the current
    source of this file and of the engine (a stamp says which), then stamps it; whether it
    removed it. The engine's make-move is compiled into ``replay``, and numba checks only this
    file: a cache compiled against an older engine decoded garbage. engine/kernel_cache.py does
    the same for the engine's own kernels."""
    digest = kernel_cache.source_digest() + hashlib.sha1(_HERE.read_bytes()).hexdigest()[:16]
    return kernel_cache.clear_stale_cache(cache, digest, "codec.digest", f"{_HERE.stem}.*")


clear_stale_cache()  # before numba looks for ``replay`` in its cache

KEPT = 1 << 14  # an entry's bit: the position is kept (a record)
_FIRST_PROMOTION = chess.KNIGHT  # promotion codes 0..3 are knight, bishop, rook, queen
NO_EP = 255
CHESS960 = 32


def move_entry(move: chess.Move | None, kept: bool) -> int:
    """A chain's entry for a position: the move played from it (None for a chain's last
    position) and whether the position is kept."""
    entry = KEPT if kept else 0
    if move is not None:
        entry |= move.from_square | move.to_square << 6
        if move.promotion:
            entry |= (move.promotion - _FIRST_PROMOTION) << 12
    return entry


@njit(cache=True, nogil=True, inline="always")
def entry_move(entry, pawns, knights, bishops, rooks, queens, ours, theirs, ep_square):
    """The engine's move code of the move that ``entry`` names in the position given (its
    bitboards, the side to move's men ``ours`` and the other side's ``theirs``, the en passant
    square or -1), or -1 when its origin holds no man of the side to move. (A king is never
    taken in a game, so a victim is a pawn .. queen.)"""
    origin = np.int64(entry & 63)
    target = np.int64((entry >> 6) & 63)
    from_bb = U1 << np.uint64(origin)
    to_bb = U1 << np.uint64(target)
    if not from_bb & ours:
        return np.int64(-1)
    mover = piece_kind(from_bb, pawns, knights, bishops, rooks, queens)
    victim = 0
    if to_bb & theirs:
        victim = piece_kind(to_bb, pawns, knights, bishops, rooks, queens)
    elif mover == 1 and target == ep_square:
        victim = 1
    promotion = 0
    if mover == 1 and to_bb & PROMOTION_RANKS:
        promotion = _FIRST_PROMOTION + ((entry >> 12) & 3)
    return movecode.make(origin, target, np.int64(victim), np.int64(mover), np.int64(promotion))


@njit(cache=True, nogil=True, inline="always")
def _castling_flags(castling, kings, white, black):
    """Bits 1..4 of a record's flags (K, Q, k, q): a right on the h side or the a side of each
    colour's king (in standard chess the h1/a1/h8/a8 rooks, the king being on e1/e8)."""
    flags = 0
    for colour in range(2):  # 0 White, 1 Black
        rank = BACK_RANK[1 - colour]
        rights = castling & rank
        king = kings & (white if colour == 0 else black) & rank
        if rights and king:
            if rights > king:
                flags |= 2 << (2 * colour)
            if rights & (king - U1):
                flags |= 4 << (2 * colour)
    return flags


@njit(cache=True, nogil=True)
def replay(occupancy, pieces, castling, flags, ep, halfmove, fullmove, result, length, entries,
           keys_only, out_occupancy, out_pieces, out_key, out_flags, out_ep, out_halfmove,
           out_fullmove, out_result):
    """Fills the ``out_`` arrays (``out_pieces`` zeroed) with the kept positions of the chains
    given by their starts' fields (``castling``: the rights' rook files, rank 1 in the low byte,
    rank 8 in the high one) and their ``entries``; with ``keys_only`` just ``out_key``. Returns
    the number of kept positions, or -1 - c when chain c holds a move from an empty square."""
    row = 0
    at = 0
    for c in range(length.shape[0]):
        # The start: the men from the occupancy and its nibbles, in square order.
        boards = np.zeros(6, dtype=np.uint64)
        white = U0
        rest = occupancy[c]
        slot = 0
        while rest:
            square = lsb(rest)
            rest &= rest - U1
            code = (pieces[c, slot >> 1] >> (4 * (slot & 1))) & 15
            bit = U1 << np.uint64(square)
            boards[code % 6] |= bit
            if code < 6:
                white |= bit
            slot += 1
        p, n, b, r, q, k = boards[0], boards[1], boards[2], boards[3], boards[4], boards[5]
        rights = np.uint64(castling[c] & 255) | (np.uint64(castling[c] >> 8) << np.uint64(56))
        white_to_move = (flags[c] & 1) != 0
        chess960 = flags[c] & CHESS960
        ep_square = np.int64(-1) if ep[c] == NO_EP else np.int64(ep[c])
        half = np.int64(halfmove[c])
        position = Position(p, n, b, r, q, k, white, rights, white_to_move, U0, False, ep_square,
                            half)
        key = key_kernel(position)[0]
        position = Position(p, n, b, r, q, k, white, rights, white_to_move, key, False, ep_square,
                            half)
        full = np.int64(fullmove[c])
        for i in range(length[c]):
            entry = entries[at + i]
            if entry & KEPT:
                out_key[row] = key
                if not keys_only:
                    occupied = p | n | b | r | q | k
                    out_occupancy[row] = occupied
                    rest = occupied
                    slot = 0
                    while rest:
                        bit = rest & (~rest + U1)
                        rest ^= bit
                        kind = piece_kind(bit, p, n, b, r, q) - 1  # a nibble: 0..5 White's
                        if not white & bit:
                            kind += 6
                        out_pieces[row, slot >> 1] |= kind << (4 * (slot & 1))
                        slot += 1
                    out_flags[row] = ((1 if white_to_move else 0) | chess960
                                      | _castling_flags(rights, k, white, occupied & ~white))
                    out_ep[row] = NO_EP if ep_square < 0 else ep_square
                    out_halfmove[row] = min(half, 255)
                    out_fullmove[row] = min(full, 65535)
                    out_result[row] = result[c]
                row += 1
            if i == length[c] - 1:
                break
            occupied = p | n | b | r | q | k
            ours = white if white_to_move else occupied & ~white
            move = entry_move(entry, p, n, b, r, q, ours, occupied & ~ours, ep_square)
            if move < 0:
                return -1 - c
            position = child(move, position)
            (p, n, b, r, q, k, white, rights, white_to_move, key, _, ep_square, half) = position
            if white_to_move:
                full += 1
        at += length[c]
    return row
