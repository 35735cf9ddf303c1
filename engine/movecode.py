"""The kernels' move: one integer code, its constructor and its accessors (numba, inlined).

    origin | target << 6 | victim type << 12 | mover type << 16 | promotion type << 20

Squares a1 = 0 .. h8 = 63; piece types as python-chess numbers them (1 pawn .. 6 king), 0 for no
victim (a quiet move) or no promotion. Castling is the king's move: its two-square step, or in
Chess960 the king taking its own rook. Two shorter forms index tables: the transposition table's
16-bit move (origin | target << 6 | promotion << 12, engine/tt_kernels.py) and the history's
butterfly index (origin << 6 | target, as the quiet move lists give it).
"""

from __future__ import annotations

from numba import njit


@njit(cache=True, nogil=True, inline="always")
def make(origin, target, victim, mover, promotion):
    return origin | target << 6 | victim << 12 | mover << 16 | promotion << 20


@njit(cache=True, nogil=True, inline="always")
def origin(code):
    return code & 63


@njit(cache=True, nogil=True, inline="always")
def target(code):
    return code >> 6 & 63


@njit(cache=True, nogil=True, inline="always")
def victim(code):
    return code >> 12 & 15


@njit(cache=True, nogil=True, inline="always")
def mover(code):
    return code >> 16 & 15


@njit(cache=True, nogil=True, inline="always")
def promotion(code):
    return code >> 20


@njit(cache=True, nogil=True, inline="always")
def table_move(code):
    """The transposition table's form of a move code (also the killers')."""
    return code & 4095 | (code >> 20) << 12


@njit(cache=True, nogil=True, inline="always")
def table_promotion(move):
    """The promotion type of a table move."""
    return move >> 12


@njit(cache=True, nogil=True, inline="always")
def butterfly(code):
    """The history's index of a move code (or of a table move)."""
    return (code & 63) << 6 | code >> 6 & 63


@njit(cache=True, nogil=True, inline="always")
def butterfly_index(origin, target):
    """The history's index of the move ``origin`` -> ``target``."""
    return origin << 6 | target


@njit(cache=True, nogil=True, inline="always")
def from_butterfly(index, mover):
    """The move code of a quiet move given by its butterfly index and the type of its man."""
    return (index >> 6) | (index & 63) << 6 | mover << 16


@njit(cache=True, nogil=True, inline="always")
def from_evasion(code):
    """The move code of an evasion list's entry (promotion << 12 | victim << 16 | mover << 20:
    the layout its sort key reads)."""
    return code & 4095 | (code >> 16 & 7) << 12 | (code >> 20) << 16 | (code >> 12 & 7) << 20


@njit(cache=True, nogil=True, inline="always")
def butterfly_origin(index):
    """The origin square of a butterfly index."""
    return index >> 6


@njit(cache=True, nogil=True, inline="always")
def butterfly_target(index):
    """The target square of a butterfly index."""
    return index & 63


@njit(cache=True, nogil=True, inline="always")
def table(origin, target, promotion):
    """A transposition-table move (and a killer)."""
    return origin | target << 6 | promotion << 12


# The evasion list's own layout: origin | target << 6 | promotion << 12 | victim << 16 |
# mover << 20, so that its MVV-LVA sort key reads the victim and the mover (engine/movegen.py);
# `from_evasion` turns an entry into a move code.

@njit(cache=True, nogil=True, inline="always")
def evasion(origin, target, promotion, victim, mover):
    return origin | target << 6 | promotion << 12 | victim << 16 | mover << 20


@njit(cache=True, nogil=True, inline="always")
def evasion_promotion(code):
    return code >> 12 & 7


@njit(cache=True, nogil=True, inline="always")
def evasion_victim(code):
    return code >> 16 & 7


@njit(cache=True, nogil=True, inline="always")
def evasion_mover(code):
    return code >> 20
