"""The search's memory of which quiet moves cut off: the killer moves of each ply and a butterfly
history table per colour, with their bonus and malus and the reads the move order makes of them.

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


class OrderingTables:
    """Killer moves per ply and a butterfly history table per colour, shared by one search."""

    def __init__(self, max_ply: int = 128) -> None:
        self.max_ply = max_ply
        self.clear()

    def clear(self) -> None:
        self.killers = np.full((self.max_ply + 2, 2), -1, dtype=np.int64)
        self.history = [np.zeros(4096, dtype=np.int64) for _ in chess.COLORS]

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
