"""A position as the numba kernels pass it: one record of python-chess's bitboards and the state
that goes with them, declared once as (name, numba type) pairs.

The search kernel (engine/search/scout.py) hands it down the tree and the move walk
(engine/search/movepick.py) lists its moves; the root builds the first one from a python-chess
board (`from_board`).
"""

from __future__ import annotations

from collections import namedtuple

import chess
import numpy as np
from numba import boolean, int64, njit, uint64
from numba.types import NamedTuple

# python-chess's bitboards, White's men and castling rights, the side to move, the Zobrist key,
# whether it is check, the en passant square (-1 if no en passant capture is legal) and the
# fifty-move counter.
POSITION_INPUTS = (("pawns", uint64), ("knights", uint64), ("bishops", uint64),
                   ("rooks", uint64), ("queens", uint64), ("kings", uint64), ("white", uint64),
                   ("castling", uint64), ("white_to_move", boolean), ("key", uint64),
                   ("in_check", boolean), ("ep_square", int64), ("halfmove", int64))

Position = namedtuple("Position", [name for name, _ in POSITION_INPUTS])
POSITION = NamedTuple(tuple(numba_type for _, numba_type in POSITION_INPUTS), Position)
"""The record's numba type, for the signatures of the kernels that take it."""


# What the kernels derive from a position, inlined where they read it.
@njit(cache=True, nogil=True, inline="always")
def all_men(position):
    """Every man on the board."""
    return (position.pawns | position.knights | position.bishops | position.rooks
            | position.queens | position.kings)


@njit(cache=True, nogil=True, inline="always")
def own_men(position):
    """The men of the side to move."""
    return position.white if position.white_to_move else all_men(position) & ~position.white


@njit(cache=True, nogil=True, inline="always")
def their_men(position):
    """The men of the side not to move."""
    return all_men(position) & ~own_men(position)


def legal_ep_square(board: chess.Board) -> int:
    """The en passant square of ``board`` if an en passant capture may be legal there, else -1."""
    ep_square = board.ep_square
    if ep_square is None or chess.square_rank(ep_square) != (5 if board.turn else 2):
        return -1
    return ep_square


def from_board(board: chess.Board, key: int = 0, in_check: bool | None = None) -> Position:
    """The record of ``board`` (its Zobrist ``key`` where the caller has it)."""
    u = np.uint64
    return Position(u(board.pawns), u(board.knights), u(board.bishops), u(board.rooks),
                    u(board.queens), u(board.kings), u(board.occupied_co[chess.WHITE]),
                    u(board.castling_rights), board.turn, u(key),
                    board.is_check() if in_check is None else in_check, legal_ep_square(board),
                    board.halfmove_clock)
