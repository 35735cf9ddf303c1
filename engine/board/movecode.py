"""The kernels' move: one integer code, its constructor and its accessors (numba, inlined).

    origin | target << 6 | victim type << 12 | mover type << 16 | promotion type << 20

Squares a1 = 0 .. h8 = 63; piece types as python-chess numbers them (1 pawn .. 6 king), 0 for no
victim (a quiet move) or no promotion. Castling is the king's move: its two-square step, or in
Chess960 the king taking its own rook. Two shorter forms are the code's low bits: the
transposition table's 16-bit move (origin | target << 6 | promotion << 12, engine/search/tt_kernels.py)
and the history's butterfly index (origin | target << 6, as the quiet move lists give it), so that
`origin` and `target` read all three.
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
    """The history's index of a move code (or of a table move): its two squares."""
    return code & 4095


@njit(cache=True, nogil=True, inline="always")
def butterfly_index(origin, target):
    """The history's index of the move ``origin`` -> ``target`` (a quiet move list's entry)."""
    return origin | target << 6


@njit(cache=True, nogil=True, inline="always")
def from_butterfly(index, mover):
    """The move code of a quiet move given by its butterfly index and the type of its man."""
    return index | mover << 16


@njit(cache=True, nogil=True, inline="always")
def table(origin, target, promotion):
    """A transposition-table move (and a killer)."""
    return origin | target << 6 | promotion << 12
