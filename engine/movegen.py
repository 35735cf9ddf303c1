"""Legal move lists over the bitboards, in numba, in python-chess's own order.

The search asks python-chess for no move list in its hot path: these kernels list the moves of a
position from its bitboards, the same moves python-chess's generators give and in the same order
(the order decides ties in move ordering, so the search's tree does not change with the kernel).
"""

from __future__ import annotations

import numpy as np
from numba import boolean, int64, njit, uint64

from engine.bitboards import (BETWEEN, BISHOP_DIRS, KING_ATTACKS, KNIGHT_ATTACKS, LINE, PAWN_ATTACKS,
                              RANK_3, RANK_6, ROOK_DIRS, S8, SQUARE_BB, U0, U1, attacked_by,
                              compile_kernel, lsb, msb, slider_attacks)
from engine.score import PIECE_VALUE

_VALUE = np.array(PIECE_VALUE, dtype=np.int64)
_LAST_RANKS = np.uint64(0xFF000000000000FF)
_FIFTH_RANK = np.array([0x00000000FF000000, 0x000000FF00000000], dtype=np.uint64)  # by colour: Black, White
_PROMOTIONS = (5, 4, 3, 2)  # queen, rook, bishop, knight: python-chess's order


@njit(cache=True, nogil=True)
def _attacks(square, bit, occupied, knights, bishops, rooks, queens):
    """The squares a knight, bishop, rook, queen or king on ``square`` attacks."""
    if bit & knights:
        return KNIGHT_ATTACKS[square]
    if bit & bishops:
        return slider_attacks(square, occupied, BISHOP_DIRS)
    if bit & rooks:
        return slider_attacks(square, occupied, ROOK_DIRS)
    if bit & queens:
        return slider_attacks(square, occupied, BISHOP_DIRS) | slider_attacks(square, occupied, ROOK_DIRS)
    return KING_ATTACKS[square]


@njit(cache=True, nogil=True)
def _kind(bit, pawns, knights, bishops, rooks, queens):
    """The type (1 pawn ... 6 king) of the piece on the square ``bit``."""
    if bit & pawns:
        return 1
    if bit & knights:
        return 2
    if bit & bishops:
        return 3
    if bit & rooks:
        return 4
    if bit & queens:
        return 5
    return 6


@njit(cache=True, nogil=True)
def _safe(origin, target, taken, pawns, knights, bishops, rooks, queens, kings, ours, white):
    """Whether our king is not attacked once the man on ``origin`` goes to ``target``, taking the
    man on ``taken`` (the target, or the pawn taken en passant)."""
    occupied = pawns | knights | bishops | rooks | queens | kings
    king_bb = kings & ours
    king = target if SQUARE_BB[origin] & king_bb else lsb(king_bb)
    after = (occupied & ~SQUARE_BB[origin] & ~taken) | SQUARE_BB[target]
    theirs = occupied & ~ours & ~taken
    return not attacked_by(king, after, pawns & ~taken, knights & ~taken, bishops & ~taken,
                           rooks & ~taken, queens & ~taken, kings, theirs, white)


@njit(cache=True, nogil=True)
def _evasion_kernel_impl(pawns, knights, bishops, rooks, queens, kings, ours, white, ep_square,
                         quiet):
    """The legal moves of a side in check, as python-chess lists them.

    ``quiet``: those of ``generate_legal_moves`` that neither capture nor promote, in its order, as
    ``origin << 6 | target``. Otherwise the captures and promotions of `movepick.captures_and_promotions`
    (``generate_legal_captures``, then pushes that promote, sorted by MVV-LVA with ties in that order),
    as ``origin | target << 6 | promotion << 12 | victim type << 16 | mover type << 20``.
    """
    out = np.empty(256, dtype=np.int64)
    n = 0
    occupied = pawns | knights | bishops | rooks | queens | kings
    theirs = occupied & ~ours
    us = 1 if white else 0
    king = msb(kings & ours)
    checkers = ((KNIGHT_ATTACKS[king] & knights) | (PAWN_ATTACKS[us, king] & pawns)
                | (slider_attacks(king, occupied, BISHOP_DIRS) & (bishops | queens))
                | (slider_attacks(king, occupied, ROOK_DIRS) & (rooks | queens))) & theirs
    to_mask = ~occupied if quiet else theirs

    # The king steps off every checking line (the line beyond the king too), to a square not attacked.
    beyond = U0
    sliders = checkers & (bishops | rooks | queens)
    while sliders:
        checker = msb(sliders)
        sliders ^= SQUARE_BB[checker]
        beyond |= LINE[king, checker] & ~SQUARE_BB[checker]
    targets = KING_ATTACKS[king] & ~ours & ~beyond & to_mask
    while targets:
        target = msb(targets)
        targets ^= SQUARE_BB[target]
        if not attacked_by(target, occupied, pawns, knights, bishops, rooks, queens, kings, theirs,
                           white):
            out[n] = king << 6 | target if quiet else king | target << 6 | 6 << 20 | _kind(
                SQUARE_BB[target], pawns, knights, bishops, rooks, queens) << 16
            n += 1

    checker = msb(checkers)
    if checkers == SQUARE_BB[checker]:
        # A single checker: take it or step between, with any man but the king.
        mask = (BETWEEN[king, checker] | checkers) & to_mask
        movers = ours & ~pawns & ~kings
        while movers:
            origin = msb(movers)
            bit = SQUARE_BB[origin]
            movers ^= bit
            targets = _attacks(origin, bit, occupied, knights, bishops, rooks, queens) & mask
            while targets:
                target = msb(targets)
                targets ^= SQUARE_BB[target]
                if _safe(origin, target, SQUARE_BB[target] & theirs, pawns, knights, bishops, rooks,
                         queens, kings, ours, white):
                    out[n] = origin << 6 | target if quiet else origin | target << 6 | _kind(
                        bit, pawns, knights, bishops, rooks, queens) << 20 | _kind(
                        SQUARE_BB[target], pawns, knights, bishops, rooks, queens) << 16
                    n += 1
        our_pawns = pawns & ours
        if not quiet:
            capturers = our_pawns
            while capturers:
                origin = msb(capturers)
                capturers ^= SQUARE_BB[origin]
                targets = PAWN_ATTACKS[us, origin] & mask
                while targets:
                    target = msb(targets)
                    targets ^= SQUARE_BB[target]
                    if not _safe(origin, target, SQUARE_BB[target], pawns, knights, bishops, rooks,
                                 queens, kings, ours, white):
                        continue
                    victim = _kind(SQUARE_BB[target], pawns, knights, bishops, rooks, queens)
                    if SQUARE_BB[target] & _LAST_RANKS:
                        for promotion in _PROMOTIONS:
                            out[n] = origin | target << 6 | promotion << 12 | victim << 16 | 1 << 20
                            n += 1
                    else:
                        out[n] = origin | target << 6 | victim << 16 | 1 << 20
                        n += 1
        # Pushes between the checker and the king (promotions come last, after en passant).
        block = BETWEEN[king, checker]
        if white:
            single = (our_pawns << S8) & ~occupied & block
            double = ((((our_pawns << S8) & ~occupied) & RANK_3) << S8) & ~occupied & block
            step = 8
        else:
            single = (our_pawns >> S8) & ~occupied & block
            double = ((((our_pawns >> S8) & ~occupied) & RANK_6) >> S8) & ~occupied & block
            step = -8
        if quiet:
            for distance in (step, 2 * step):
                pushes = single & ~_LAST_RANKS if distance == step else double
                while pushes:
                    target = msb(pushes)
                    pushes ^= SQUARE_BB[target]
                    origin = target - distance
                    if _safe(origin, target, U0, pawns, knights, bishops, rooks, queens, kings, ours,
                             white):
                        out[n] = origin << 6 | target
                        n += 1
            return out[:n]
        promoting = single & _LAST_RANKS
    else:
        promoting = U0
        if quiet:
            return out[:n]

    # En passant (python-chess's generate_legal_ep), then the promotions by a push.
    if ep_square >= 0 and not SQUARE_BB[ep_square] & occupied:
        taken = SQUARE_BB[ep_square - 8 if white else ep_square + 8]
        capturers = pawns & ours & PAWN_ATTACKS[1 - us, ep_square] & _FIFTH_RANK[us]
        while capturers:
            origin = msb(capturers)
            capturers ^= SQUARE_BB[origin]
            if _safe(origin, ep_square, taken, pawns, knights, bishops, rooks, queens, kings, ours,
                     white):
                out[n] = origin | ep_square << 6 | 1 << 16 | 1 << 20
                n += 1
    while promoting:
        target = msb(promoting)
        promoting ^= SQUARE_BB[target]
        origin = target - 8 if white else target + 8
        if _safe(origin, target, U0, pawns, knights, bishops, rooks, queens, kings, ours, white):
            for promotion in _PROMOTIONS:
                out[n] = origin | target << 6 | promotion << 12 | 1 << 20
                n += 1

    # MVV-LVA (movepick.mvv_lva), best first; a stable insertion sort keeps ties in list order.
    keys = np.empty(n, dtype=np.int64)
    for i in range(n):
        code = out[i]
        promotion = code >> 12 & 7
        key = _VALUE[code >> 16 & 7] * 8 - (code >> 20)
        if promotion == 5:
            key += _VALUE[5] * 8
        elif promotion:
            key -= 100000
        keys[i] = key
    for i in range(1, n):
        code = out[i]
        key = keys[i]
        j = i - 1
        while j >= 0 and keys[j] < key:
            out[j + 1] = out[j]
            keys[j + 1] = keys[j]
            j -= 1
        out[j + 1] = code
        keys[j + 1] = key
    return out[:n]


_EVASION_SIGNATURE = int64[::1](uint64, uint64, uint64, uint64, uint64, uint64, uint64, boolean,
                                int64, boolean)
evasion_kernel = compile_kernel(_evasion_kernel_impl, _EVASION_SIGNATURE)
