"""The transposition table: a fixed-size, preallocated store of search results keyed by position.

Each slot holds one tuple ``(key, depth, bound, score, move, generation)``. The table is a Python
list of fixed length rather than numpy arrays: reading one numpy element from Python costs about
0.2 us (a scalar object is made), a list slot and a tuple unpack about 0.08 us, and the search
probes the table at every node. The number of slots is derived from the ``Hash`` option with a
conservative per-entry byte cost, so the table never holds more than its budget, and it never grows.

Mate and tablebase scores are stored relative to the node ("mate in 3 from here", "a tablebase
win 5 plies from here") and turned back into distance-from-root on probe, so that a result found
through a transposition reports the right distance.
"""

from __future__ import annotations

import chess

# Bound types.
EXACT = 0
LOWER = 1  # a fail-high: the true score is >= the stored score
UPPER = 2  # a fail-low: the true score is <= the stored score

MATE = 32000
MAX_PLY = 128
MATE_BOUND = MATE - 2 * MAX_PLY  # scores beyond this are mate scores

# Tablebase scores live here, not in engine.tablebase, so that this module imports nothing heavy.
TB_WIN_SCORE = 20000
"""Score of a tablebase win: below the search's mate scores (MATE_BOUND), above any evaluation."""

TB_WIN_THRESHOLD = TB_WIN_SCORE - 1000
"""Root tablebase wins, and `wdl_to_score` wins below ply 1000, score at least this (losses at most
minus it). The evaluation is clamped far below (evaluate.EVAL_LIMIT), so beyond it, mate scores
included, every score is a distance from the root and is stored relative to the node."""

# Measured with tracemalloc on a full table (tests/test_search_parts.py checks it): the list slot
# (8 bytes), the 6-tuple (96), the key (36), the move object (56) and slack.
BYTES_PER_ENTRY = 200


# An entry is a plain tuple (a NamedTuple costs several times more to build in the hot path):
# (key, depth, bound, score, move, generation).
Entry = tuple[int, int, int, int, "chess.Move | None", int]


def score_to_tt(score: int, ply: int) -> int:
    """Converts a score from distance-to-root to distance-to-this-node for storage.

    Mate and tablebase scores (beyond TB_WIN_THRESHOLD) carry the distance; the rest is kept.
    """
    if score >= TB_WIN_THRESHOLD:
        return score + ply
    if score <= -TB_WIN_THRESHOLD:
        return score - ply
    return score


def score_from_tt(score: int, ply: int) -> int:
    """Inverse of :func:`score_to_tt`, for the node `ply` plies from the current root."""
    if score >= TB_WIN_THRESHOLD:
        return score - ply
    if score <= -TB_WIN_THRESHOLD:
        return score + ply
    return score


class TranspositionTable:
    """A direct-mapped table with depth-preferred replacement, aged by search generation."""

    def __init__(self, megabytes: int = 16) -> None:
        self.resize(megabytes)

    def resize(self, megabytes: int) -> None:
        """Reallocates the table for a budget of ``megabytes`` (and clears it)."""
        entries = max(1, megabytes * 1024 * 1024 // BYTES_PER_ENTRY)
        # A power of two, so that the slot is the key masked.
        self.size = 1 << (entries.bit_length() - 1)
        self.mask = self.size - 1
        self.megabytes = megabytes
        self.clear()

    def clear(self) -> None:
        self.slots: list[Entry | None] = [None] * self.size
        self.generation = 0

    def new_search(self) -> None:
        """Marks entries written from now on as younger than everything stored before."""
        self.generation = (self.generation + 1) & 0xFF

    def probe(self, key: int) -> Entry | None:
        entry = self.slots[key & self.mask]
        if entry is not None and entry[0] == key:
            return entry
        return None

    def store(self, key: int, depth: int, bound: int, score: int, move: chess.Move | None) -> None:
        index = key & self.mask
        old = self.slots[index]
        if old is not None:
            # Keep a deeper result of the current search for a different position; always replace
            # stale entries and entries for the same position (but keep their move if we have none).
            if old[0] == key:
                if move is None:
                    move = old[4]
                if bound != EXACT and depth < old[1] - 2 and old[5] == self.generation:
                    return
            elif old[5] == self.generation and old[1] > depth:
                return
        self.slots[index] = (key, depth, bound, score, move, self.generation)

    def hashfull(self) -> int:
        """Per mille of the first 1000 slots used by the current search, as UCI's ``hashfull``."""
        sample = self.slots[:1000]
        used = sum(1 for e in sample if e is not None and e[5] == self.generation)
        return used * 1000 // len(sample)
