"""Legal moves over the bitboards, in numba: captures, quiet moves, promotions, castling, check
evasions, a legality test.

The search asks python-chess for no move list in its hot path: these kernels list the moves of a
position (the record of engine/board/position.py) from its bitboards, the same moves python-chess's
generators give, in python-chess's own
order or in MVV-LVA order (the order decides ties in move ordering, so the search's tree does not
change with the kernels). engine/search/movepick.py makes them into the search's staged move order.
"""

from __future__ import annotations

import chess
import numpy as np
from numba import boolean, int64, njit

from engine.board import movecode
from engine.board.bitboards import (BACK_RANK, BETWEEN, KING_ATTACKS, KNIGHT_ATTACKS, LINE,
                                    PAWN_ATTACKS, PIECE_VALUES, RANK_3, RANK_6, S8, SEVENTH_RANK,
                                    SQUARE_BB, U0, U1, attacked_by, bishop_attacks, compile_kernel,
                                    lsb, msb, pinned_pieces, rook_attacks, stack_buffer)
from engine.board.position import POSITION, all_men, own_men

PROMOTION_RANKS = np.uint64(chess.BB_RANK_1 | chess.BB_RANK_8)  # where a pawn promotes
_CORNERS = np.uint64(chess.BB_CORNERS)
_FIFTH_RANK = np.array([0x00000000FF000000, 0x000000FF00000000], dtype=np.uint64)  # by colour: Black, White
_PROMOTIONS = (5, 4, 3, 2)  # queen, rook, bishop, knight: python-chess's order
# Room for a position's captures, its promotions (8 pawns, 3 targets each, 4 pieces) and its quiet
# moves.
MAX_CAPTURES = 128
MAX_PROMOTIONS = 4 * 24
MAX_QUIETS = 256


@njit(cache=True, nogil=True)
def _attacks(square, bit, occupied, knights, bishops, rooks, queens):
    """The squares a knight, bishop, rook, queen or king on ``square`` attacks."""
    if bit & knights:
        return KNIGHT_ATTACKS[square]
    if bit & bishops:
        return bishop_attacks(square, occupied)
    if bit & rooks:
        return rook_attacks(square, occupied)
    if bit & queens:
        return bishop_attacks(square, occupied) | rook_attacks(square, occupied)
    return KING_ATTACKS[square]


@njit(cache=True, nogil=True)
def piece_kind(bit, pawns, knights, bishops, rooks, queens):
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
def _safe(origin, target, taken, position):
    """Whether the king of the side to move is not attacked once the man on ``origin`` goes to
    ``target``, taking the man on ``taken`` (the target, or the pawn taken en passant)."""
    occupied = all_men(position)
    ours = own_men(position)
    king_bb = position.kings & ours
    king = target if SQUARE_BB[origin] & king_bb else lsb(king_bb)
    after = (occupied & ~SQUARE_BB[origin] & ~taken) | SQUARE_BB[target]
    theirs = occupied & ~ours & ~taken
    # (The man taken is not among ``theirs``: it attacks nothing.)
    return not attacked_by(king, after, theirs, position)


@njit(cache=True, nogil=True)
def _evasion_kernel_impl(position, quiet):
    """The legal moves of the side to move, in check, as python-chess lists them.

    ``quiet``: those of ``generate_legal_moves`` that neither capture nor promote, in its order, as
    butterfly indices. Otherwise its captures and promotions (``generate_legal_captures``, then
    pushes that promote) as move codes, sorted by MVV-LVA with ties in that order.
    """
    out = np.empty(MAX_QUIETS, dtype=np.int64)
    return out[:evasions_into(out, position, quiet)]


@njit(cache=True, nogil=True)
def evasions_into(out, position, quiet):
    """`_evasion_kernel_impl`'s moves written into ``out`` (MAX_QUIETS long), and how many."""
    (pawns, knights, bishops, rooks, queens, kings, _, _, white_to_move, _, _, ep_square,
     _) = position
    n = 0
    occupied = all_men(position)
    ours = own_men(position)
    theirs = occupied & ~ours
    us = 1 if white_to_move else 0
    king = msb(kings & ours)
    checkers = ((KNIGHT_ATTACKS[king] & knights) | (PAWN_ATTACKS[us, king] & pawns)
                | (bishop_attacks(king, occupied) & (bishops | queens))
                | (rook_attacks(king, occupied) & (rooks | queens))) & theirs
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
        if not attacked_by(target, occupied, theirs, position):
            out[n] = (movecode.butterfly_index(king, target) if quiet else movecode.make(
                king, target, piece_kind(SQUARE_BB[target], pawns, knights, bishops, rooks, queens), 6,
                0))
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
                if _safe(origin, target, SQUARE_BB[target] & theirs, position):
                    out[n] = (movecode.butterfly_index(origin, target) if quiet else
                              movecode.make(origin, target,
                                            piece_kind(SQUARE_BB[target], pawns, knights, bishops,
                                                  rooks, queens),
                                            piece_kind(bit, pawns, knights, bishops, rooks, queens), 0))
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
                    if not _safe(origin, target, SQUARE_BB[target], position):
                        continue
                    victim = piece_kind(SQUARE_BB[target], pawns, knights, bishops, rooks, queens)
                    if SQUARE_BB[target] & PROMOTION_RANKS:
                        for promotion in _PROMOTIONS:
                            out[n] = movecode.make(origin, target, victim, 1, promotion)
                            n += 1
                    else:
                        out[n] = movecode.make(origin, target, victim, 1, 0)
                        n += 1
        # Pushes between the checker and the king (promotions come last, after en passant).
        block = BETWEEN[king, checker]
        if white_to_move:
            single = (our_pawns << S8) & ~occupied & block
            double = ((((our_pawns << S8) & ~occupied) & RANK_3) << S8) & ~occupied & block
            step = 8
        else:
            single = (our_pawns >> S8) & ~occupied & block
            double = ((((our_pawns >> S8) & ~occupied) & RANK_6) >> S8) & ~occupied & block
            step = -8
        if quiet:
            for distance in (step, 2 * step):
                pushes = single & ~PROMOTION_RANKS if distance == step else double
                while pushes:
                    target = msb(pushes)
                    pushes ^= SQUARE_BB[target]
                    origin = target - distance
                    if _safe(origin, target, U0, position):
                        out[n] = movecode.butterfly_index(origin, target)
                        n += 1
            return n
        promoting = single & PROMOTION_RANKS
    else:
        promoting = U0
        if quiet:
            return n

    # En passant (python-chess's generate_legal_ep), then the promotions by a push.
    if ep_square >= 0 and not SQUARE_BB[ep_square] & occupied:
        taken = SQUARE_BB[ep_square - 8 if white_to_move else ep_square + 8]
        capturers = pawns & ours & PAWN_ATTACKS[1 - us, ep_square] & _FIFTH_RANK[us]
        while capturers:
            origin = msb(capturers)
            capturers ^= SQUARE_BB[origin]
            if _safe(origin, ep_square, taken, position):
                out[n] = movecode.make(origin, ep_square, 1, 1, 0)
                n += 1
    while promoting:
        target = msb(promoting)
        promoting ^= SQUARE_BB[target]
        origin = target - 8 if white_to_move else target + 8
        if _safe(origin, target, U0, position):
            for promotion in _PROMOTIONS:
                out[n] = movecode.make(origin, target, 0, 1, promotion)
                n += 1

    # MVV-LVA (the victim's value times 8 less the mover's type; a queen promotion scores as if it
    # took a queen too, under-promotions go last), best first; a stable insertion sort keeps ties in list order.
    keys = stack_buffer(MAX_QUIETS)
    for i in range(n):
        code = out[i]
        promotion = movecode.promotion(code)
        key = PIECE_VALUES[movecode.victim(code)] * 8 - movecode.mover(code)
        if promotion == 5:
            key += PIECE_VALUES[5] * 8
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
    return n


_EVASION_SIGNATURE = int64[::1](POSITION, boolean)
evasion_kernel = compile_kernel(_evasion_kernel_impl, _EVASION_SIGNATURE)


# ---------------------------------------------------------------------- the capture kernel

RANK_2 = np.uint64(chess.BB_RANK_2)
RANK_7 = np.uint64(chess.BB_RANK_7)


@njit(cache=True, nogil=True)
def captures_into(out, position, victims, ep_square, not_attackers):
    """Legal captures of ``victims`` by the side to move, not in check, in MVV-LVA order, written
    into ``out`` (MAX_CAPTURES long); returns how many. Each is encoded as ``origin | target << 6
    | victim type << 12 | attacker type << 16`` (python-chess piece types); en passant on
    ``ep_square`` (-1: none, whatever the position's), and no capture by the pawns
    ``not_attackers``.

    Victims come from the queen down to pawns (en passant last among the pawns), each target
    square from h8 down to a1; within a victim type the cheapest attacker comes first.
    """
    (pawns, knights, bishops, rooks, queens, kings, _, _, white_to_move, _, _, _, _) = position
    n = 0
    occupied = all_men(position)
    ours = own_men(position)
    theirs = occupied & ~ours
    them = 0 if white_to_move else 1
    king = lsb(kings & ours)
    king_bb = SQUARE_BB[king]
    pinned = pinned_pieces(king, occupied, ours, theirs, bishops, rooks, queens)
    diagonal = (bishops | queens) & ours
    straight = (rooks | queens) & ours
    our_pawns = pawns & ours & ~not_attackers
    by_type = (pawns, knights, bishops, rooks, queens)
    for victim_type in range(5, 0, -1):
        targets = by_type[victim_type - 1] & victims
        first = n
        while targets:
            square = msb(targets)
            targets ^= SQUARE_BB[square]
            attackers = (((KNIGHT_ATTACKS[square] & knights) | (KING_ATTACKS[square] & kings)) & ours
                         | (bishop_attacks(square, occupied) & diagonal)
                         | (rook_attacks(square, occupied) & straight)
                         | (PAWN_ATTACKS[them, square] & our_pawns))
            while attackers:
                origin = msb(attackers)
                bit = SQUARE_BB[origin]
                attackers ^= bit
                if bit & pinned and not LINE[origin, square] & king_bb:
                    continue
                if bit & kings and attacked_by(square, occupied, theirs, position):
                    continue
                if bit & pawns:
                    attacker = 1
                elif bit & knights:
                    attacker = 2
                elif bit & bishops:
                    attacker = 3
                elif bit & rooks:
                    attacker = 4
                elif bit & queens:
                    attacker = 5
                else:
                    attacker = 6
                out[n] = movecode.make(origin, square, victim_type, attacker, 0)
                n += 1
        if victim_type == 1 and ep_square >= 0 and not SQUARE_BB[ep_square] & occupied:
            attackers = PAWN_ATTACKS[them, ep_square] & our_pawns
            taken = SQUARE_BB[ep_square + (-8 if white_to_move else 8)]
            while attackers:
                origin = msb(attackers)
                attackers ^= SQUARE_BB[origin]
                # Two pawns leave their squares: no slider of theirs may then see our king.
                after = (occupied ^ SQUARE_BB[origin] ^ taken) | SQUARE_BB[ep_square]
                if ((bishop_attacks(king, after) & (bishops | queens))
                        | (rook_attacks(king, after) & (rooks | queens))) & theirs:
                    continue
                out[n] = movecode.make(origin, ep_square, 1, 1, 0)
                n += 1
        # A stable insertion sort by attacker value: the lists are a handful of moves long.
        for i in range(first + 1, n):
            code = out[i]
            value = PIECE_VALUES[movecode.mover(code)]
            j = i - 1
            while j >= first and PIECE_VALUES[movecode.mover(out[j])] > value:
                out[j + 1] = out[j]
                j -= 1
            out[j + 1] = code
    return n


# ---------------------------------------------------------------------- the quiet-move kernel

@njit(cache=True, nogil=True)
def quiets_into(out, position):
    """Legal quiet moves, but castling, of the side to move, not in check, as butterfly indices,
    written into ``out`` (MAX_QUIETS long), in python-chess's order: piece moves by origin and
    target from h8 down, then single and double pawn pushes. Returns how many, and how many piece
    moves come first (castling follows them)."""
    (pawns, knights, bishops, rooks, queens, kings, _, _, white_to_move, _, _, _, _) = position
    n = 0
    occupied = all_men(position)
    empty = ~occupied
    ours = own_men(position)
    theirs = occupied & ~ours
    king = lsb(kings & ours)
    pinned = pinned_pieces(king, occupied, ours, theirs, bishops, rooks, queens)
    king_bb = SQUARE_BB[king]
    pieces = ours & ~pawns
    while pieces:
        origin = msb(pieces)
        bit = SQUARE_BB[origin]
        pieces ^= bit
        if bit & knights:
            targets = KNIGHT_ATTACKS[origin]
        elif bit & bishops:
            targets = bishop_attacks(origin, occupied)
        elif bit & rooks:
            targets = rook_attacks(origin, occupied)
        elif bit & queens:
            targets = (bishop_attacks(origin, occupied)
                       | rook_attacks(origin, occupied))
        else:
            targets = KING_ATTACKS[origin]
        targets &= empty
        while targets:
            target = msb(targets)
            targets ^= SQUARE_BB[target]
            if bit & kings:
                # Not in check, so no slider sees through the king's own square: the board as it
                # stands tells whether the target is attacked.
                if attacked_by(target, occupied, theirs, position):
                    continue
            elif bit & pinned and not LINE[origin, target] & king_bb:
                continue
            out[n] = movecode.butterfly_index(origin, target)
            n += 1
    piece_moves = n
    movers = pawns & ours & ~SEVENTH_RANK[1 if white_to_move else 0]
    if white_to_move:
        single = (movers << S8) & empty
        double = ((single & RANK_3) << S8) & empty
        step = 8
    else:
        single = (movers >> S8) & empty
        double = ((single & RANK_6) >> S8) & empty
        step = -8
    for distance in (step, 2 * step):
        pushes = single if distance == step else double
        while pushes:
            target = msb(pushes)
            pushes ^= SQUARE_BB[target]
            origin = target - distance
            if SQUARE_BB[origin] & pinned and not LINE[origin, target] & king_bb:
                continue
            out[n] = movecode.butterfly_index(origin, target)
            n += 1
    return n, piece_moves


@njit(cache=True, nogil=True)
def quiet_checks(position):
    """The legal quiet moves (not castling, not promotions) of the side to move, not in check,
    that give check, directly or by discovery, as move codes (origin | target << 6 | mover type
    << 16), in the order of `quiets_into`."""
    out = np.empty(MAX_QUIETS, dtype=np.int64)
    return out[:quiet_checks_into(out, position)]


@njit(cache=True, nogil=True)
def quiet_checks_into(out, position):
    """`quiet_checks` written into ``out`` (MAX_QUIETS long), and how many."""
    (pawns, knights, bishops, rooks, queens, kings, _, _, white_to_move, _, _, _, _) = position
    occupied = all_men(position)
    ours = own_men(position)
    theirs = occupied & ~ours
    their_king = lsb(kings & theirs)
    # The squares from which each kind of piece would attack their king, and our men that alone
    # stand between it and one of our sliders (moving off that line uncovers a check).
    pawn_checks = PAWN_ATTACKS[0 if white_to_move else 1, their_king]
    knight_checks = KNIGHT_ATTACKS[their_king]
    bishop_checks = bishop_attacks(their_king, occupied)
    rook_checks = rook_attacks(their_king, occupied)
    discoverers = pinned_pieces(their_king, occupied, ours, ours, bishops, rooks, queens)
    quiets = stack_buffer(MAX_QUIETS)
    n_quiets, _ = quiets_into(quiets, position)
    n = 0
    for code in quiets[:n_quiets]:
        origin = movecode.origin(code)
        target = movecode.target(code)
        from_bb = SQUARE_BB[origin]
        to_bb = SQUARE_BB[target]
        kind = piece_kind(from_bb, pawns, knights, bishops, rooks, queens)
        direct = ((kind == 1 and to_bb & pawn_checks) or (kind == 2 and to_bb & knight_checks)
                  or ((kind == 3 or kind == 5) and to_bb & bishop_checks)
                  or ((kind == 4 or kind == 5) and to_bb & rook_checks))
        uncovered = from_bb & discoverers and not LINE[origin, their_king] & to_bb
        if direct or uncovered:
            out[n] = movecode.make(origin, target, 0, kind, 0)
            n += 1
    return n


# ---------------------------------------------------------------------- promotions and castling

@njit(cache=True, nogil=True)
def promotion_kernel(position, promoting):
    """The legal promotions of the ``promoting`` pawns of the side to move, not in check, in the
    order of the search's move walk (engine/search/movepick.py): python-chess's (captures by origin and target from
    h8 down, then pushes, each as queen, rook, bishop, knight), stably sorted by falling victim
    value. Each is
    ``origin | target << 6 | victim type << 12 | 1 << 16 | promotion << 20`` (victim 0: a push)."""
    out = np.empty(MAX_PROMOTIONS, dtype=np.int64)
    return out[:promotions_into(out, position, promoting)]


@njit(cache=True, nogil=True)
def promotions_into(out, position, promoting):
    """`promotion_kernel`'s moves written into ``out`` (MAX_PROMOTIONS long), and how many."""
    if promoting == U0:
        return 0
    (pawns, knights, bishops, rooks, queens, kings, _, _, white_to_move, _, _, _, _) = position
    n = 0
    occupied = all_men(position)
    ours = own_men(position)
    theirs = occupied & ~ours
    king = lsb(kings & ours)
    king_bb = SQUARE_BB[king]
    pinned = pinned_pieces(king, occupied, ours, theirs, bishops, rooks, queens)
    us = 1 if white_to_move else 0
    for push in range(2):
        movers = promoting
        while movers:
            origin = msb(movers)
            movers ^= SQUARE_BB[origin]
            if push:
                targets = SQUARE_BB[origin + 8 if white_to_move else origin - 8] & ~occupied
            else:
                targets = PAWN_ATTACKS[us, origin] & theirs
            while targets:
                target = msb(targets)
                targets ^= SQUARE_BB[target]
                if SQUARE_BB[origin] & pinned and not LINE[origin, target] & king_bb:
                    continue
                victim = 0 if push else piece_kind(SQUARE_BB[target], pawns, knights, bishops, rooks,
                                              queens)
                for promotion in _PROMOTIONS:
                    out[n] = movecode.make(origin, target, victim, 1, promotion)
                    n += 1
    for i in range(1, n):
        code = out[i]
        value = PIECE_VALUES[movecode.victim(code)]
        j = i - 1
        while j >= 0 and PIECE_VALUES[movecode.victim(out[j])] < value:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = code
    return n


@njit(cache=True, nogil=True)
def castling_kernel(position, chess960):
    """The legal castling moves of the side to move, not in check, as butterfly indices, in
    python-chess's order (the h-side first): the target is the rook's square in Chess960 (king
    takes rook) and the king's two-square step in standard chess. The rights are cleaned as
    `chess.Board.clean_castling_rights` cleans them (in Chess960: the outermost rook on each side
    of a king on its back rank)."""
    out = np.empty(2, dtype=np.int64)
    return out[:castles_into(out, position, chess960)]


@njit(cache=True, nogil=True)
def castles_into(out, position, chess960):
    """`castling_kernel`'s moves written into ``out`` (2 long), and how many."""
    (pawns, knights, bishops, rooks, queens, kings, _, castling, white_to_move, _, _, _,
     _) = position
    n = 0
    occupied = all_men(position)
    ours = own_men(position)
    theirs = occupied & ~ours
    back_rank = BACK_RANK[1 if white_to_move else 0]
    king_bb = kings & ours & back_rank
    if not king_bb:
        return 0
    king = lsb(king_bb)
    rights = castling & rooks & ours & back_rank
    if chess960:
        candidates = U0
        if rights:
            if lsb(rights) < king:
                candidates |= SQUARE_BB[lsb(rights)]
            if msb(rights) > king:
                candidates |= SQUARE_BB[msb(rights)]
    else:
        if king != (4 if white_to_move else 60):
            return 0
        candidates = rights & _CORNERS
    base = king & 56
    while candidates:
        rook = msb(candidates)
        rook_bb = SQUARE_BB[rook]
        candidates ^= rook_bb
        king_to = base + (2 if rook < king else 6)
        rook_to = base + (3 if rook < king else 5)
        # Every square both cross and both targets empty (but for the king and the rook).
        if (occupied ^ king_bb ^ rook_bb) & (BETWEEN[king, king_to] | BETWEEN[rook, rook_to]
                                            | SQUARE_BB[king_to] | SQUARE_BB[rook_to]):
            continue
        # No square the king stands on or crosses attacked, nor the one it goes to.
        safe = True
        path = BETWEEN[king, king_to] | king_bb
        while path and safe:
            square = lsb(path)
            path &= path - U1
            if attacked_by(square, occupied ^ king_bb, theirs, position):
                safe = False
        if safe and not attacked_by(king_to, occupied ^ king_bb ^ rook_bb ^ SQUARE_BB[rook_to],
                                    theirs, position):
            out[n] = movecode.butterfly_index(king, rook if chess960 else king_to)
            n += 1
    return n


# ---------------------------------------------------------------------- the legality kernel

_LEGAL_SIGNATURE = boolean(POSITION, int64, int64)


@njit(cache=True, nogil=True)
def legal_kernel(position, origin, target):
    """Whether ``origin`` -> ``target`` is a legal move of the side to move that is neither
    castling, en passant nor a promotion (a pawn reaching the last rank without promoting is not
    legal)."""
    (pawns, knights, bishops, rooks, queens, kings, _, _, white_to_move, _, _, _, _) = position
    occupied = all_men(position)
    ours = own_men(position)
    theirs = occupied & ~ours
    from_bb = SQUARE_BB[origin]
    to_bb = SQUARE_BB[target]
    if not from_bb & ours or to_bb & ours:
        return False
    if from_bb & pawns:
        if to_bb & PROMOTION_RANKS:
            return False
        if to_bb & theirs:
            reach = PAWN_ATTACKS[1 if white_to_move else 0, origin] & to_bb
        else:
            step = 8 if white_to_move else -8
            start = RANK_2 if white_to_move else RANK_7
            reach = U0
            if target == origin + step:
                reach = to_bb & ~occupied
            elif (target == origin + 2 * step and from_bb & start
                  and not SQUARE_BB[origin + step] & occupied):
                reach = to_bb & ~occupied
    elif from_bb & knights:
        reach = KNIGHT_ATTACKS[origin] & to_bb
    elif from_bb & bishops:
        reach = bishop_attacks(origin, occupied) & to_bb
    elif from_bb & rooks:
        reach = rook_attacks(origin, occupied) & to_bb
    elif from_bb & queens:
        reach = (bishop_attacks(origin, occupied)
                 | rook_attacks(origin, occupied)) & to_bb
    else:
        reach = KING_ATTACKS[origin] & to_bb
    if not reach:
        return False
    # Legal if, the move made, no piece of theirs (but one taken) attacks our king.
    king = target if from_bb & kings else lsb(kings & ours)
    return not attacked_by(king, (occupied ^ from_bb) | to_bb, theirs & ~to_bb, position)


legal_kernel = compile_kernel(legal_kernel, _LEGAL_SIGNATURE)
