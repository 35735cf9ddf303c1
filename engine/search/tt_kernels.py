"""The packed entry of the transposition table and the numba kernels that probe and store it.

The table is a flat uint64 array, two words per entry: ``key ^ data`` and ``data`` (Hyatt's
lockless hashing). Several processes read and write it with no lock; a reader that meets an entry
half-written by another process (one word new, one old) finds that the two words no longer XOR to
its key and takes the entry as a miss. The data word:

    bits  0-15  move: from square | to square << 6 | promotion piece type << 12 (0: no move)
    bits 16-31  score + 32768
    bits 32-39  depth + DEPTH_OFFSET (so quiescence depth 0 and a few negative depths fit;
                it is never 0, so a used entry's data is never 0 and an empty slot is a miss)
    bits 40-41  bound (tt.EXACT, tt.LOWER, tt.UPPER)
    bits 42-49  generation (the search that wrote it, modulo 256)
    bits 50-63  the position's static score + EVAL_OFFSET, 0 for none (in check, or past +-EVAL_RANGE):
                a node that finds it need not evaluate the position again

An entry's slot is the key's high 32 bits scaled to the table's length (a multiply and a shift,
as in Stockfish), so that the table can have any length and use the whole Hash budget.
"""

from __future__ import annotations

import chess
import numpy as np
from numba import njit
from numba.core.types import Tuple, UniTuple, int64, uint64, void

from engine.board import movecode
from engine.board.bitboards import compile_kernel, prefetch

DEPTH_OFFSET = 16
MIN_DEPTH = 1 - DEPTH_OFFSET  # the depth field is then at least 1
MAX_STORED_DEPTH = 255 - DEPTH_OFFSET
MISS = -1000  # the depth a probe returns when the key is not in the table
NO_EVAL = -(1 << 20)  # the static score of an entry without one (below any score)
EVAL_OFFSET = 1 << 13
EVAL_RANGE = EVAL_OFFSET - 1  # static scores of at most this magnitude are stored
_EXACT = 0  # tt.EXACT (not imported: tt imports this module)

_U16 = np.uint64(16)
_U32 = np.uint64(32)
_U40 = np.uint64(40)
GENERATION_SHIFT = 42
_U42 = np.uint64(GENERATION_SHIFT)
_U50 = np.uint64(50)
_MASK16 = np.uint64(0xFFFF)
_MASK8 = np.uint64(0xFF)
_MASK2 = np.uint64(3)
_MASK14 = np.uint64(0x3FFF)


@njit(cache=True, nogil=True, inline="always")
def _slot(key, entries):
    # (high 32 bits of the key) * entries / 2^32: an index below `entries`, for any `entries`
    # below 2^32, spread as evenly as the keys are.
    return ((key >> _U32) * entries) >> _U32


@njit(cache=True, nogil=True, inline="always")
def prefetch_entry(table, key, entries):
    """Starts loading ``key``'s entry into the cache, for a probe soon after."""
    prefetch(table, (_slot(key, entries) << np.uint64(1)) + np.uint64(1))


@njit(cache=True, nogil=True)
def probe_entry(table, key, entries):
    """(depth, bound, score, move code, static score or NO_EVAL) of ``key``'s entry, or depth
    MISS."""
    index = _slot(key, entries) << np.uint64(1)
    data = table[index + np.uint64(1)]
    if data == 0 or table[index] ^ data != key:
        return MISS, 0, 0, 0, NO_EVAL
    stored_eval = int64(data >> _U50 & _MASK14)
    return (int64(data >> _U32 & _MASK8) - DEPTH_OFFSET, int64(data >> _U40 & _MASK2),
            int64(data >> _U16 & _MASK16) - 32768, int64(data & _MASK16),
            stored_eval - EVAL_OFFSET if stored_eval else NO_EVAL)


@njit(cache=True, nogil=True)
def store_entry(table, key, entries, entry, generation):
    """Writes ``entry``, (depth, bound, score, move code, static score or NO_EVAL) as
    `probe_entry` reads it back, for the search of ``generation``, unless the slot holds
    something more valuable (see tt.TranspositionTable.store)."""
    depth, bound, score, move, static_eval = entry
    index = _slot(key, entries) << np.uint64(1)
    old = table[index + np.uint64(1)]
    stored_eval = uint64(static_eval + EVAL_OFFSET) if abs(static_eval) <= EVAL_RANGE else uint64(0)
    if old != 0:
        old_depth = int64(old >> _U32 & _MASK8) - DEPTH_OFFSET
        current = int64(old >> _U42 & _MASK8) == generation
        if table[index] ^ old == key:
            if move == 0:
                move = int64(old & _MASK16)
            if stored_eval == 0:
                stored_eval = old >> _U50 & _MASK14
            if bound != _EXACT and depth < old_depth - 2 and current:
                return
        elif current and old_depth > depth:
            return
    depth = min(max(depth, MIN_DEPTH), MAX_STORED_DEPTH)
    score = min(max(score, -32767), 32767)
    data = (uint64(move) & _MASK16 | uint64(score + 32768) << _U16
            | uint64(depth + DEPTH_OFFSET) << _U32 | uint64(bound) << _U40
            | uint64(generation & 255) << _U42 | stored_eval << _U50)
    # Two separate writes: a reader in between sees key ^ data disagree with data, a miss.
    table[index] = key ^ data
    table[index + np.uint64(1)] = data


_PROBE_SIGNATURE = Tuple((int64, int64, int64, int64, int64))(uint64[::1], uint64, uint64)
_STORE_SIGNATURE = void(uint64[::1], uint64, uint64, UniTuple(int64, 5), int64)


probe_kernel = compile_kernel(probe_entry, _PROBE_SIGNATURE)
store_kernel = compile_kernel(store_entry, _STORE_SIGNATURE)


def encode_move(move: chess.Move | None) -> int:
    """The 16-bit code of ``move`` in an entry; 0 for no move."""
    if move is None:
        return 0
    return movecode.table.py_func(move.from_square, move.to_square, move.promotion or 0)


def _decoding_table() -> list[chess.Move | None]:
    """Move objects by code, made once, so that a probe's move costs one list index. Only moves
    some piece could make (queen and knight lines, promotions from the seventh rank) get an
    object; any other code, from a torn or foreign entry, decodes to no move."""
    moves: list[chess.Move | None] = [None] * (1 << 15)
    for origin in chess.SQUARES:
        for target in chess.SQUARES:
            if origin == target:
                continue
            # BB_RAYS is the line through two squares on one rank, file or diagonal, else empty.
            if chess.BB_RAYS[origin][target] or chess.BB_SQUARES[target] & chess.BB_KNIGHT_ATTACKS[origin]:
                moves[movecode.table.py_func(origin, target, 0)] = chess.Move(origin, target)
        rank = chess.square_rank(origin)
        if rank in (1, 6):
            for target in chess.SQUARES:
                if (abs(chess.square_file(target) - chess.square_file(origin)) <= 1
                        and chess.square_rank(target) == (0 if rank == 1 else 7)):
                    for piece in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN):
                        moves[movecode.table.py_func(origin, target, piece)] = chess.Move(
                            origin, target, piece)
    return moves


MOVES = _decoding_table()
