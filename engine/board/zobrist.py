"""Zobrist keys of positions, for the transposition table and repetition detection.

The key XORs one 64-bit random number per (piece, square), castling right, en passant file and
side to move: Polyglot's 781 numbers (python-chess's ``POLYGLOT_RANDOM_ARRAY``), so keys are the
same in every run and agree with ``chess.polyglot.zobrist_hash`` except in one case: the en passant
file counts only when an en passant capture is *legal* (as FIDE's repetition rule says), where
Polyglot counts any pawn beside the pawn that moved. A numba kernel computes it over the bitboards
and, in the same call, whether the side to move is in check: the search needs both after every
move, and one kernel call costs less than the key plus python-chess's ``is_check``.
"""

from __future__ import annotations

import chess
import chess.polyglot
import numpy as np
from numba import njit
from numba.core.types import Tuple, boolean, uint64

from engine.board.bitboards import BACK_RANK, U0, U1, attacked_by, compile_kernel, lsb
from engine.board.position import POSITION, all_men, from_board, own_men, their_men

RANDOM = np.array(chess.polyglot.POLYGLOT_RANDOM_ARRAY, dtype=np.uint64)
_CASTLING = 768  # + 0..3: White kingside, White queenside, Black kingside, Black queenside
EN_PASSANT_KEYS = 772  # + file
_WHITE_TO_MOVE = 780


@njit(cache=True, nogil=True, inline="always")
def _xor_pieces(key, pieces, colour_index):
    # Polyglot's piece index: (piece type - 1) * 2 + (1 for White, 0 for Black).
    while pieces:
        key ^= RANDOM[64 * colour_index + lsb(pieces)]
        pieces &= pieces - U1
    return key


@njit(cache=True, nogil=True, inline="always")
def _pieces_key(pawns, knights, bishops, rooks, queens, kings, white):
    """The pieces' part of the key."""
    key = U0
    black = (pawns | knights | bishops | rooks | queens | kings) & ~white
    boards = (pawns, knights, bishops, rooks, queens, kings)
    for kind in range(6):
        key = _xor_pieces(key, boards[kind] & black, 2 * kind)
        key = _xor_pieces(key, boards[kind] & white, 2 * kind + 1)
    return key


@njit(cache=True, nogil=True)
def _castling_key(kings, white, black, castling):
    """The castling rights' part of the key. A right is kingside when its rook stands on the
    king's right, as in python-chess (this also covers Chess960 starting squares); no king on
    the back rank, no rights."""
    key = U0
    for colour in range(2):
        rank = BACK_RANK[1 - colour]
        own = white if colour == 0 else black
        king = kings & own & rank
        rights = castling & rank
        if king and rights:
            if rights > king:
                key ^= RANDOM[_CASTLING + 2 * colour]
            if rights & (king - U1):
                key ^= RANDOM[_CASTLING + 2 * colour + 1]
    return key


@njit(cache=True, nogil=True, inline="always")
def is_in_check(position):
    """Whether the side to move of ``position`` is in check (its own ``in_check`` not read)."""
    king = position.kings & own_men(position)
    return king != U0 and attacked_by(lsb(king), all_men(position), their_men(position),
                                      position)


@njit(cache=True, nogil=True)
def key_kernel(position):
    """(key, whether the side to move is in check) of ``position``, from its men, castling rights,
    en passant square (set only where a capture there is legal) and side to move; its own key
    field is not read."""
    p = position
    black = all_men(p) & ~p.white
    key = (_pieces_key(p.pawns, p.knights, p.bishops, p.rooks, p.queens, p.kings, p.white)
           ^ _castling_key(p.kings, p.white, black, p.castling))
    if p.ep_square >= 0:
        key ^= RANDOM[EN_PASSANT_KEYS + (p.ep_square & 7)]
    if p.white_to_move:
        key ^= RANDOM[_WHITE_TO_MOVE]
    return key, is_in_check(p)


@njit(cache=True, nogil=True, inline="always")
def key_after_null(position):
    """The key after the side to move passes: the other side to move, the en passant file gone."""
    key = position.key ^ RANDOM[_WHITE_TO_MOVE]
    if position.ep_square >= 0:
        key ^= RANDOM[EN_PASSANT_KEYS + (position.ep_square & 7)]
    return key


@njit(cache=True, nogil=True)
def key_after_move(key, ep_file, before, white, castling, after, child_white, child_castling):
    """The key of the position after a move (without its en passant file) from the key before
    it (``key``, with ``ep_file``, -1 for none): the changed squares of each of the twelve
    piece boards (``before`` and ``after``: the six boards), the castling rights if they
    changed, and the side to move. A few XORs where `key_kernel` visits every man."""
    if ep_file >= 0:
        key ^= RANDOM[EN_PASSANT_KEYS + ep_file]
    key ^= RANDOM[_WHITE_TO_MOVE]
    occupied_before = before[0] | before[1] | before[2] | before[3] | before[4] | before[5]
    occupied_after = after[0] | after[1] | after[2] | after[3] | after[4] | after[5]
    black = occupied_before & ~white
    child_black = occupied_after & ~child_white
    for kind in range(6):
        key = _xor_pieces(key, (before[kind] & black) ^ (after[kind] & child_black), 2 * kind)
        key = _xor_pieces(key, (before[kind] & white) ^ (after[kind] & child_white), 2 * kind + 1)
    if child_castling != castling:
        key ^= (_castling_key(before[5], white, black, castling)
                ^ _castling_key(after[5], child_white, child_black, child_castling))
    return key


_KEY_SIGNATURE = Tuple((uint64, boolean))(POSITION)


_kernel = compile_kernel(key_kernel, _KEY_SIGNATURE)


def key_and_check(board: chess.Board) -> tuple[int, bool]:
    """The 64-bit Zobrist key of ``board`` (pieces, castling rights, legal en passant, side to
    move) and whether the side to move is in check."""
    ep_square = board.ep_square if board.has_legal_en_passant() else -1
    return _kernel(from_board(board, in_check=False)._replace(ep_square=ep_square))


def position_key(board: chess.Board) -> int:
    """The 64-bit Zobrist key of ``board``."""
    return key_and_check(board)[0]
