"""The transposition table: a fixed-size, preallocated store of search results keyed by position.

The entries are packed into a numpy uint64 array, two words each (the layout and the numba kernels
that probe and store it are in engine/search/tt_kernels.py). The array lives in shared memory when helper
processes search beside the main one (Threads > 1), in a private array otherwise: one code path,
the same kernels. It is lockless: a torn entry, written by two processes at once, reads as a miss,
and a move read from the table is always checked for legality before it is played. Its length is
derived from the ``Hash`` option, for all processes together; it never grows.

Mate and tablebase scores are stored relative to the node ("mate in 3 from here", "a tablebase
win 5 plies from here") and turned back into distance-from-root on probe, so that a result found
through a transposition reports the right distance.
"""

from __future__ import annotations

import chess

from engine.search import tt_kernels
from engine.evaluation.score import TB_WIN_THRESHOLD
from engine.search.table_size import BYTES_PER_ENTRY, check_fits, entries_for

# Bound types.
EXACT = 0
LOWER = 1  # a fail-high: the true score is >= the stored score
UPPER = 2  # a fail-low: the true score is <= the stored score

# A probe's result: (depth, bound, score, move or None).
Entry = tuple[int, int, int, "chess.Move | None"]


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
    """A direct-mapped table with depth-preferred replacement, aged by search generation.

    ``shared=True`` puts the array in a `multiprocessing.shared_memory` block that helper
    processes attach by name (`attach`); the creating process owns the block and frees it
    (`close`, or a `resize`).
    """

    def __init__(self, megabytes: int = 16, shared: bool = False) -> None:
        self._load_kernels()
        self.resize(megabytes, shared)

    @classmethod
    def attach(cls, name: str, entries: int) -> TranspositionTable:
        """The shared table ``name`` of ``entries`` entries, made by another process."""
        tt = cls.__new__(cls)
        tt._load_kernels()
        tt._attach(name, entries)
        return tt

    def _load_kernels(self) -> None:
        self._probe_kernel = tt_kernels.probe_kernel
        self._store_kernel = tt_kernels.store_kernel
        self._moves = tt_kernels.MOVES
        self._miss = tt_kernels.MISS
        self._memory = None  # the SharedMemory block of a shared table
        self._owner = False  # whether this process made the block (and must unlink it)
        self.table = None
        self.generation = 0

    # ------------------------------------------------------------------ storage

    def resize(self, megabytes: int, shared: bool | None = None) -> None:
        """Reallocates the table for a budget of ``megabytes`` (and clears it); ``shared``
        None keeps the kind of storage it had. The old table is kept when the new one cannot be
        had: OSError for shared memory, MemoryError for a table larger than the machine's memory
        or one that cannot be allocated."""
        import numpy as np

        shared = self.is_shared if shared is None and self.table is not None else bool(shared)
        check_fits(megabytes)
        entries = entries_for(megabytes)
        if shared:
            from engine.search import shm

            # A new block is zero-filled, as np.zeros is: both are empty tables.
            memory = shm.create(entries * BYTES_PER_ENTRY, "tt")
            self.close()
            self._memory = memory
            self._owner = True
            self.table = np.ndarray((2 * entries,), dtype=np.uint64, buffer=memory.buf)
        else:
            try:
                table = np.zeros(2 * entries, dtype=np.uint64)
            except MemoryError:
                raise MemoryError(f"cannot allocate a table of {entries * BYTES_PER_ENTRY // (1024 * 1024)} "
                                  "MB") from None
            self.close()
            self.table = table
        self.megabytes = megabytes
        self.entries = entries
        self.generation = 0

    def _attach(self, name: str, entries: int) -> None:
        import numpy as np

        from engine.search import shm

        self._memory = shm.attach(name)
        self._owner = False
        self.entries = entries
        self.megabytes = entries * BYTES_PER_ENTRY // (1024 * 1024)
        self.table = np.ndarray((2 * entries,), dtype=np.uint64, buffer=self._memory.buf)

    @property
    def is_shared(self) -> bool:
        return self._memory is not None

    @property
    def shared_name(self) -> str | None:
        """The name other processes `attach` the table by (None for a private table)."""
        return None if self._memory is None else self._memory.name

    @property
    def shared_descriptor(self) -> int | None:
        """The descriptor a child process can `attach` the table by once its name is gone
        (engine/search/shm.py's `descriptor`), or None."""
        if self._memory is None:
            return None
        from engine.search import shm

        return shm.descriptor(self._memory)

    def unlink(self) -> None:
        """Removes the shared block's name once every process has attached it: the memory stays
        until the last one lets go, and nothing is left behind should this process be killed."""
        if self._memory is not None and self._owner:
            from engine.search import shm

            self._owner = False
            shm.unlink(self._memory)

    def close(self) -> None:
        """Lets go of the storage (unlinking a shared block this process made)."""
        self.table = None  # the array views the block's buffer: drop it before closing
        if self._memory is not None:
            self.unlink()
            try:
                self._memory.close()
            except BufferError:
                pass  # another view of the buffer is still alive: the block goes with it
            self._memory = None

    def clear(self) -> None:
        """Empties the table, for every process sharing it."""
        self.table.fill(0)
        self.generation = 0

    def new_search(self) -> None:
        """Marks entries written from now on as younger than everything stored before."""
        self.generation = (self.generation + 1) & 0xFF

    # ------------------------------------------------------------------ entries

    def probe(self, key: int) -> Entry | None:
        """(depth, bound, score, move) stored for ``key``, or None. The move may be illegal in
        the position (another position with the same key, or a torn write that passed the key
        check by chance): check it before playing it."""
        depth, bound, score, move, _ = self._probe_kernel(self.table, key, self.entries)
        if depth == self._miss:
            return None
        return depth, bound, score, self._moves[move]

    def store(self, key: int, depth: int, bound: int, score: int, move: chess.Move | None) -> None:
        """Stores a result. Keeps a deeper result of the current search for a different position;
        always replaces stale entries and entries for the same position (but keeps their move
        when ``move`` is None), except that a bound does not replace a much deeper result of
        the current search for the same position."""
        code = tt_kernels.encode_move(move)
        self._store_kernel(self.table, key, self.entries,
                           (depth, bound, score, code, tt_kernels.NO_EVAL), self.generation)

    def hashfull(self) -> int:
        """Per mille of the first 1000 entries used by the current search, as UCI's ``hashfull``."""
        import numpy as np

        sample = self.table[1:2 * min(1000, self.entries):2]
        generations = (sample >> np.uint64(tt_kernels.GENERATION_SHIFT)) & np.uint64(0xFF)
        used = np.count_nonzero((sample != 0) & (generations == self.generation))
        return int(used) * 1000 // len(sample)
