"""The search's memory of which quiet moves cut off: the killer moves of each ply and a butterfly
history table per colour, with their bonus and malus and the reads the move order makes of them;
and of how far its searches found the static score off (correction history), by pawn structure and
by each side's other men, which corrects the static score at every later use.

The tables are numpy arrays that one search shares between the Python root and the scout kernel
(engine/search/scout.py): the kernel records its own cut-offs here (`record_cutoff`) and the move
walk (engine/search/movepick.py) lists the quiet moves by their score (`by_history_into`). Killers
are move codes as in the transposition table (-1 for none), by ply; the history is indexed by
butterfly index (engine/board/movecode.py), one table for each side.
"""

from __future__ import annotations

import chess
import numpy as np
from numba import njit

from engine.board import movecode
from engine.search.tt_kernels import encode_move

HISTORY_MAX = 1 << 14
# Correction history: per side to move, a table of CORRECTION_SLOTS entries for the pawns and one
# for each side's other men (CORRECTION_ROWS rows: side to move x those three), each entry within
# +-CORRECTION_LIMIT; an entry of CORRECTION_LIMIT moves the score by CORRECTION_LIMIT /
# CORRECTION_GRAIN centipawns at a weight of 100.
CORRECTION_BITS = 14
CORRECTION_SLOTS = 1 << CORRECTION_BITS
CORRECTION_ROWS = 6
CORRECTION_LIMIT = 1024
CORRECTION_GRAIN = 16


class OrderingTables:
    """Killer moves per ply and a butterfly history table per colour, shared by one search."""

    def __init__(self, max_ply: int = 128) -> None:
        self.max_ply = max_ply
        self.clear()

    def clear(self) -> None:
        self.killers = np.full((self.max_ply + 2, 2), -1, dtype=np.int64)
        self.history = [np.zeros(4096, dtype=np.int64) for _ in chess.COLORS]
        self.correction = np.zeros((CORRECTION_ROWS, CORRECTION_SLOTS), dtype=np.int64)

    def age(self) -> None:
        """Halves history between searches so that old successes fade but still count."""
        for table in self.history:
            table >>= 1
        self.killers.fill(-1)

    def record_killer(self, move: chess.Move, ply: int) -> None:
        code = encode_move(move)
        killers = self.killers[ply]
        if killers[0] != code:
            killers[1] = killers[0]
            killers[0] = code


@njit(cache=True, nogil=True)
def by_history_into(out, indices, history, skip_a, skip_b, skip_c):
    """``indices`` (butterfly indices) without the three skipped ones, by falling history score,
    written into ``out``; moves of equal score keep their order (a stable insertion sort: the
    lists are short). Returns how many."""
    n = 0
    for index in indices:
        if index == skip_a or index == skip_b or index == skip_c:
            continue
        value = history[index]
        j = n - 1
        while j >= 0 and history[out[j]] < value:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = index
        n += 1
    return n


@njit(cache=True, nogil=True)
def _reward(history, index, depth, tried):
    """A quiet move ``index`` cut off at ``depth``: raise its history and lower that of the quiet
    moves ``tried`` before it. The gravity formula keeps values within +-HISTORY_MAX without
    periodic rescaling."""
    bonus = min(depth * depth, 400)
    history[index] += bonus - history[index] * bonus // HISTORY_MAX
    for other in tried:
        history[other] -= bonus + history[other] * bonus // HISTORY_MAX


@njit(cache=True, nogil=True)
def record_cutoff(move, ply, depth, history, tried, killers):
    """A quiet ``move`` (a table code) cut off: it becomes the ply's first killer, its history
    rises and that of the quiet moves ``tried`` before it falls."""
    _reward(history, movecode.butterfly(move), depth, tried)
    if killers[ply, 0] != move:
        killers[ply, 1] = killers[ply, 0]
        killers[ply, 0] = move


# Odd multipliers that spread a bitboard's bits over a slot's index (Fibonacci hashing).
_SPREAD = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F), np.uint64(0x165667B19E3779F9),
           np.uint64(0xD6E8FEB86659FD93), np.uint64(0xFF51AFD7ED558CCD), np.uint64(0xC4CEB9FE1A85EC53))


@njit(cache=True, nogil=True, inline="always")
def _slot(a, b, c, d, e):
    """A slot of a correction table for these five bitboards."""
    h = (a * _SPREAD[0]) ^ (b * _SPREAD[1]) ^ (c * _SPREAD[2]) ^ (d * _SPREAD[3]) ^ (e * _SPREAD[4])
    h ^= h >> np.uint64(31)
    return np.int64((h * _SPREAD[5]) >> np.uint64(64 - CORRECTION_BITS))


@njit(cache=True, nogil=True, inline="always")
def correction_slots(pawns, knights, bishops, rooks, queens, kings, white, white_to_move):
    """The position's three slots in the correction tables (each in its row): its pawns, White's
    other men, Black's other men."""
    black = ~white
    z = np.uint64(0)
    row = 0 if white_to_move else 3
    return (row, _slot(pawns & white, pawns & black, z, z, z),
            row + 1, _slot(knights & white, bishops & white, rooks & white, queens & white,
                           kings & white),
            row + 2, _slot(knights & black, bishops & black, rooks & black, queens & black,
                           kings & black))


@njit(cache=True, nogil=True, inline="always")
def corrected(raw, correction, slots, pawn_weight, other_weight):
    """The static score ``raw`` moved by the corrections of its ``slots`` (weights in hundredths)."""
    r0, s0, r1, s1, r2, s2 = slots
    return raw + (pawn_weight * correction[r0, s0]
                  + other_weight * (correction[r1, s1] + correction[r2, s2])
                  ) // (100 * CORRECTION_GRAIN)


@njit(cache=True, nogil=True)
def record_correction(correction, slots, depth, error):
    """A node searched to ``depth`` found its score ``error`` centipawns off its corrected static
    score: each of its entries moves towards that, more for a deeper search (with gravity, so that
    they stay within +-CORRECTION_LIMIT)."""
    bonus = min(max(error * depth // 8, -CORRECTION_LIMIT // 4), CORRECTION_LIMIT // 4)
    r0, s0, r1, s1, r2, s2 = slots
    for row, slot in ((r0, s0), (r1, s1), (r2, s2)):
        entry = correction[row, slot]
        correction[row, slot] = entry + bonus - entry * abs(bonus) // CORRECTION_LIMIT
