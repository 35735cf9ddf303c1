"""Static exchange evaluation (SEE): what a capture wins once every recapture on its square is over.

Both sides recapture with their least valuable piece, each free to stop when going on would lose
more; sliders behind the pieces that leave the square join in (x-rays). Pins are ignored, as in
most engines. The search uses it to order losing captures late and to skip them where they only
add nodes. A numba kernel plays the exchange on the bitboards.
"""

from __future__ import annotations

import chess
import numpy as np
from numba import int64, njit

from engine.board.bitboards import (KING_ATTACKS, KNIGHT_ATTACKS, PAWN_ATTACKS, PIECE_VALUES, U0,
                                    U1, bishop_attacks, compile_kernel, rook_attacks, stack_buffer)
from engine.board.position import POSITION, all_men, from_board


@njit(cache=True, nogil=True, inline="always")
def _attackers_to(square, occupied, position):
    """Men of both colours of ``position`` still on ``occupied`` that attack ``square``."""
    p = position
    return (((KNIGHT_ATTACKS[square] & p.knights) | (KING_ATTACKS[square] & p.kings)
             | (PAWN_ATTACKS[0, square] & p.pawns & p.white)
             | (PAWN_ATTACKS[1, square] & p.pawns & ~p.white)
             | (bishop_attacks(square, occupied) & (p.bishops | p.queens))
             | (rook_attacks(square, occupied) & (p.rooks | p.queens))) & occupied)


@njit(cache=True, nogil=True)
def see_kernel(position, origin, target):
    """`see` of the move ``origin`` -> ``target`` of the side to move of ``position``."""
    (pawns, knights, bishops, rooks, queens, kings, white, _, white_moves, _, _, _, _) = position
    occupied = all_men(position)
    boards = (pawns, knights, bishops, rooks, queens, kings)
    target_bb = U1 << np.uint64(target)
    origin_bb = U1 << np.uint64(origin)
    victim = 0
    mover = 0
    for kind in range(6):
        if boards[kind] & target_bb:
            victim = kind + 1
        if boards[kind] & origin_bb:
            mover = kind + 1
    if victim == 0 and mover == 1 and (origin & 7) != (target & 7):
        # En passant: the pawn taken stands beside the origin, on the target's file.
        victim = 1
        occupied ^= U1 << np.uint64((origin & 56) | (target & 7))
    gain = stack_buffer(34)  # one entry per capture: at most 32 pieces
    gain[0] = PIECE_VALUES[victim]
    on_square = PIECE_VALUES[mover]  # the value of the piece now standing on the target
    occupied ^= origin_bb
    side_white = not white_moves
    depth = 0
    while True:
        attackers = _attackers_to(target, occupied, position)
        ours = attackers & (white if side_white else ~white)
        if ours == U0:
            break
        kind = 0
        while (boards[kind] & ours) == U0:
            kind += 1
        least = boards[kind] & ours
        least &= U0 - least
        if kind == 5:
            theirs = (_attackers_to(target, occupied ^ least, position)
                      & ~(white if side_white else ~white))
            if theirs:
                break  # the king may not take a defended piece
        depth += 1
        gain[depth] = on_square - gain[depth - 1]
        on_square = PIECE_VALUES[kind + 1]
        occupied ^= least
        side_white = not side_white
    while depth > 0:
        gain[depth - 1] = -max(-gain[depth - 1], gain[depth])
        depth -= 1
    return gain[0]


_kernel = compile_kernel(see_kernel, int64(POSITION, int64, int64))


def see(board: chess.Board, move: chess.Move) -> int:
    """Material won by ``move`` (centipawns, PIECE_VALUE) once the exchange on its square ends."""
    return _kernel(from_board(board), move.from_square, move.to_square)
