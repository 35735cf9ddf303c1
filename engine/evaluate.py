"""Static evaluation for Brudno.

`evaluate(board)` scores a position in centipawns from the side to move's
point of view with one call into a numba kernel that computes every term.
`evaluation_report(board)` prints the same terms as a table for the UCI `eval`
command, and `warm_up()` compiles (or loads from cache) the kernels.

Every term is computed for White and for Black by the same code: Black's
bitboards are flipped vertically first, so Black is evaluated "as if it were
White". Together with integer arithmetic and a sign-symmetric taper this makes
`evaluate(b) == evaluate(b.mirror())` hold exactly.

The weights are module-level constants so that a tuner can change them, but
note that numba freezes globals (ints and arrays alike) into the compiled and
cached code: changes made at run time are only seen by `.py_func` or by a
fresh compile (edit the file, or set NUMBA_CACHE_DIR to an empty directory).
"""

from __future__ import annotations

import chess
import numpy as np
from numba import boolean, int64, njit, uint64
from numba.types import UniTuple

from engine.bitboards import (BISHOP_DIRS, FILE_BB, KING_ATTACKS, KNIGHT_ATTACKS, NOT_FILE_A,
                              NOT_FILE_H, ROOK_DIRS, S7, S9, SQUARE_BB, U0, U1, bitboard_of,
                              compile_kernel, flip, lsb, popcount, slider_attacks)

# ---------------------------------------------------------------------------
# Weights. Piece indices: 0 pawn, 1 knight, 2 bishop, 3 rook, 4 queen, 5 king.
# Squares: a1 = 0 ... h8 = 63, always seen from the side being evaluated.
# ---------------------------------------------------------------------------

PIECE_VALUE_MG = np.array([82, 330, 360, 480, 1000, 0], dtype=np.int64)
PIECE_VALUE_EG = np.array([100, 290, 305, 520, 950, 0], dtype=np.int64)

# Game phase: 24 with all minor and major pieces on the board, 0 with none.
PHASE_WEIGHT = np.array([0, 1, 1, 2, 4, 0], dtype=np.int64)
PHASE_MAX = 24

TEMPO_MG = 15
TEMPO_EG = 5

# Piece-square tables are typed as diagrams (rank 8 on top, as White sees the
# board) and converted to a1 = 0 indexing below.
_PAWN_MG = [
      0,   0,   0,   0,   0,   0,   0,   0,
     50,  55,  55,  60,  60,  55,  55,  50,
     15,  20,  25,  35,  35,  25,  20,  15,
      0,   5,  10,  25,  25,  10,   5,   0,
     -5,   0,   5,  20,  20,   5,   0,  -5,
     -5,  -2,  -5,   2,   2,  -5,  -2,  -5,
     -8,  -2,  -6, -18, -18,   8,   8,  -8,
      0,   0,   0,   0,   0,   0,   0,   0,
]
_PAWN_EG = [
      0,   0,   0,   0,   0,   0,   0,   0,
     75,  70,  65,  60,  60,  65,  70,  75,
     42,  40,  35,  30,  30,  35,  40,  42,
     22,  20,  15,  12,  12,  15,  20,  22,
     10,   8,   5,   2,   2,   5,   8,  10,
      2,   2,   0,   0,   0,   0,   2,   2,
      0,   0,   0,   0,   0,   0,   0,   0,
      0,   0,   0,   0,   0,   0,   0,   0,
]
_KNIGHT_MG = [
    -60, -30, -20, -15, -15, -20, -30, -60,
    -30, -15,   5,   5,   5,   5, -15, -30,
    -20,   5,  15,  20,  20,  15,   5, -20,
    -15,  10,  20,  30,  30,  20,  10, -15,
    -15,   5,  18,  25,  25,  18,   5, -15,
    -20,   0,  12,  15,  15,  12,   0, -20,
    -30, -15,   0,   5,   5,   0, -15, -30,
    -50, -25, -20, -15, -15, -20, -25, -50,
]
_KNIGHT_EG = [
    -50, -35, -25, -20, -20, -25, -35, -50,
    -35, -20,  -5,   0,   0,  -5, -20, -35,
    -25,  -5,  10,  15,  15,  10,  -5, -25,
    -20,   0,  15,  22,  22,  15,   0, -20,
    -20,   0,  15,  22,  22,  15,   0, -20,
    -25,  -5,  10,  15,  15,  10,  -5, -25,
    -35, -20,  -5,   0,   0,  -5, -20, -35,
    -50, -35, -25, -20, -20, -25, -35, -50,
]
_BISHOP_MG = [
    -20, -10, -10, -10, -10, -10, -10, -20,
    -10,   0,   0,   0,   0,   0,   0, -10,
    -10,   0,   5,  10,  10,   5,   0, -10,
    -10,   5,   5,  10,  10,   5,   5, -10,
    -10,   0,  10,  10,  10,  10,   0, -10,
    -10,  10,  10,  10,  10,  10,  10, -10,
    -10,  15,   0,   5,   5,   0,  15, -10,
    -20, -10, -12, -10, -10, -12, -10, -20,
]
_BISHOP_EG = [
    -15, -10,  -8,  -5,  -5,  -8, -10, -15,
    -10,  -3,   0,   2,   2,   0,  -3, -10,
     -8,   0,   5,   6,   6,   5,   0,  -8,
     -5,   2,   6,  10,  10,   6,   2,  -5,
     -5,   2,   6,  10,  10,   6,   2,  -5,
     -8,   0,   5,   6,   6,   5,   0,  -8,
    -10,  -3,   0,   2,   2,   0,  -3, -10,
    -15, -10,  -8,  -5,  -5,  -8, -10, -15,
]
_ROOK_MG = [
      5,  10,  10,  10,  10,  10,  10,   5,
     15,  20,  20,  20,  20,  20,  20,  15,
     -5,   0,   0,   0,   0,   0,   0,  -5,
     -5,   0,   0,   0,   0,   0,   0,  -5,
     -5,   0,   0,   0,   0,   0,   0,  -5,
     -5,   0,   0,   0,   0,   0,   0,  -5,
    -10,  -5,   0,   0,   0,   0,  -5, -10,
     -5,   0,   5,  10,  10,   5,   0,  -5,
]
_ROOK_EG = [
      5,   5,   5,   5,   5,   5,   5,   5,
     12,  12,  12,  12,  12,  12,  12,  12,
      0,   0,   0,   0,   0,   0,   0,   0,
      0,   0,   0,   0,   0,   0,   0,   0,
      0,   0,   0,   0,   0,   0,   0,   0,
      0,   0,   0,   0,   0,   0,   0,   0,
     -3,  -3,  -3,  -3,  -3,  -3,  -3,  -3,
     -5,  -3,   0,   2,   2,   0,  -3,  -5,
]
_QUEEN_MG = [
    -20, -10, -10,  -5,  -5, -10, -10, -20,
    -10,   0,   0,   0,   0,   0,   0, -10,
    -10,   0,   5,   5,   5,   5,   0, -10,
     -5,   0,   5,   5,   5,   5,   0,  -5,
     -5,   0,   5,   5,   5,   5,   0,  -5,
    -10,   5,   5,   5,   5,   5,   0, -10,
    -10,   0,   5,   0,   0,   0,   0, -10,
    -20, -10, -10,  -5,  -5, -10, -10, -20,
]
_QUEEN_EG = [
    -25, -15, -10,  -5,  -5, -10, -15, -25,
    -15,  -5,   0,   5,   5,   0,  -5, -15,
    -10,   0,  10,  15,  15,  10,   0, -10,
     -5,   5,  15,  20,  20,  15,   5,  -5,
     -5,   5,  15,  20,  20,  15,   5,  -5,
    -10,   0,  10,  15,  15,  10,   0, -10,
    -15,  -5,   0,   5,   5,   0,  -5, -15,
    -25, -15, -10,  -5,  -5, -10, -15, -25,
]
_KING_MG = [
    -60, -70, -70, -80, -80, -70, -70, -60,
    -60, -70, -70, -80, -80, -70, -70, -60,
    -50, -60, -60, -70, -70, -60, -60, -50,
    -40, -50, -50, -60, -60, -50, -50, -40,
    -30, -40, -40, -50, -50, -40, -40, -30,
    -20, -30, -30, -40, -40, -30, -30, -20,
     10,  10,  -5, -20, -20, -10,  15,  15,
     15,  30,  10, -10,   0, -10,  35,  20,
]
_KING_EG = [
    -50, -35, -25, -20, -20, -25, -35, -50,
    -30, -15,  -5,   0,   0,  -5, -15, -30,
    -25,  -5,  15,  20,  20,  15,  -5, -25,
    -25,  -5,  20,  30,  30,  20,  -5, -25,
    -25,  -5,  20,  30,  30,  20,  -5, -25,
    -25,  -5,  10,  20,  20,  10,  -5, -25,
    -30, -20,  -5,   0,   0,  -5, -20, -30,
    -50, -35, -30, -25, -25, -30, -35, -50,
]


def _pst(diagrams: list[list[int]]) -> np.ndarray:
    """Stack diagrams (a8 first) into a [piece, square] array with a1 = 0."""
    table = np.zeros((len(diagrams), 64), dtype=np.int64)
    for piece, diagram in enumerate(diagrams):
        assert len(diagram) == 64
        for sq in range(64):
            table[piece, sq] = diagram[sq ^ 56]
    return table


PST_MG = _pst([_PAWN_MG, _KNIGHT_MG, _BISHOP_MG, _ROOK_MG, _QUEEN_MG, _KING_MG])
PST_EG = _pst([_PAWN_EG, _KNIGHT_EG, _BISHOP_EG, _ROOK_EG, _QUEEN_EG, _KING_EG])

# Mobility: bonus per attacked square of the mobility area (not occupied by
# own pieces, not attacked by enemy pawns), relative to a typical count so
# that the term is centred around zero and does not inflate piece values.
MOBILITY_MG = np.array([0, 4, 5, 3, 1, 0], dtype=np.int64)
MOBILITY_EG = np.array([0, 4, 5, 4, 2, 0], dtype=np.int64)
MOBILITY_CENTER = np.array([0, 3, 5, 4, 9, 0], dtype=np.int64)

# Pawn structure.
DOUBLED_MG = 10
DOUBLED_EG = 20
ISOLATED_MG = 10
ISOLATED_EG = 12
SUPPORTED_MG = 6  # pawn defended by another pawn
SUPPORTED_EG = 4

# Passed pawns, indexed by rank (0 = first rank, from the pawn's own side).
PASSED_MG = np.array([0, 5, 8, 12, 25, 45, 70, 0], dtype=np.int64)
PASSED_EG = np.array([0, 8, 12, 20, 40, 65, 100, 0], dtype=np.int64)
# Endgame: the enemy king far from / our king close to the square in front of
# the passer is worth (THEIR * their distance - OUR * our distance) * rank weight.
PASSED_KING_RANK_WEIGHT = np.array([0, 0, 0, 1, 2, 3, 4, 0], dtype=np.int64)
PASSED_THEIR_KING = 4
PASSED_OUR_KING = 2

# King safety: pawn shield in front of a king on its first two ranks ...
SHIELD_CLOSE_MG = 12  # own pawn directly in front (one rank ahead)
SHIELD_FAR_MG = 6  # own pawn two ranks ahead
KING_OPEN_FILE_MG = 15  # no own pawn at all on a file next to / under the king
# ... and attacks on the king zone (king square + its neighbours), in "units"
# per attacked zone square by piece type; quadratic in the units, applied when
# at least KING_DANGER_MIN_ATTACKERS pieces take part, halved without a queen.
KING_ATTACK_WEIGHT = np.array([0, 2, 2, 3, 5, 0], dtype=np.int64)
KING_DANGER_MIN_ATTACKERS = 2
KING_DANGER_DIV = 3
KING_DANGER_MAX = 500
KING_DANGER_EG = 1  # endgame penalty per unit

BISHOP_PAIR_MG = 30
BISHOP_PAIR_EG = 50

ROOK_OPEN_FILE_MG = 25
ROOK_OPEN_FILE_EG = 10
ROOK_SEMIOPEN_FILE_MG = 12
ROOK_SEMIOPEN_FILE_EG = 6

# ---------------------------------------------------------------------------
# Term bookkeeping: the kernel fills terms[term, colour, stage]
# (colour 0 White, 1 Black; stage 0 midgame, 1 endgame).
# ---------------------------------------------------------------------------

T_MATERIAL = 0
T_PST = 1
T_MOBILITY = 2
T_PAWNS = 3
T_PASSED = 4
T_KING = 5
T_BISHOP_PAIR = 6
T_ROOKS = 7
T_TEMPO = 8
N_TERMS = 9
TERM_NAMES = ("Material", "Piece-square", "Mobility", "Pawn structure",
              "Passed pawns", "King safety", "Bishop pair", "Rooks", "Tempo")

EVAL_LIMIT = 10000

# ---------------------------------------------------------------------------
# Evaluation-specific bitboard tables (the shared ones are in engine.bitboards).
# ---------------------------------------------------------------------------

ADJACENT_FILES_BB = np.array(
    [(int(FILE_BB[f - 1]) if f > 0 else 0) | (int(FILE_BB[f + 1]) if f < 7 else 0)
     for f in range(8)], dtype=np.uint64)
# Squares strictly ahead of a pawn on its own file / on its own and the
# adjacent files (seen from the side playing up the board).
FRONT_SPAN = np.array([bitboard_of(rr * 8 + sq % 8 for rr in range(sq // 8 + 1, 8))
                       for sq in range(64)], dtype=np.uint64)
PASSED_SPAN = np.array([
    bitboard_of(rr * 8 + ff for rr in range(sq // 8 + 1, 8)
                for ff in (sq % 8 - 1, sq % 8, sq % 8 + 1) if 0 <= ff < 8)
    for sq in range(64)], dtype=np.uint64)

@njit(cache=True, nogil=True)
def _distance(a, b):
    df = abs((a & 7) - (b & 7))
    dr = abs((a >> 3) - (b >> 3))
    return df if df > dr else dr


# ---------------------------------------------------------------------------
# The terms.
# ---------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _side_terms(c, us, them, terms):
    """Accumulate the terms of side c into terms[:, c, :] (and the danger it
    poses to the enemy king into terms[T_KING, 1 - c, :]).

    `us` and `them` hold bitboards by piece index, already flipped so that
    side c plays up the board like White.
    """
    p, n, b, r, q, k = us
    tp, tn, tb, tr, tq, tk = them
    occ_us = p | n | b | r | q | k
    occ = occ_us | tp | tn | tb | tr | tq | tk

    # Material and piece-square tables.
    mat_mg = 0
    mat_eg = 0
    pst_mg = 0
    pst_eg = 0
    for pt in range(6):
        bb = us[pt]
        while bb:
            sq = lsb(bb)
            bb &= bb - U1
            mat_mg += PIECE_VALUE_MG[pt]
            mat_eg += PIECE_VALUE_EG[pt]
            pst_mg += PST_MG[pt, sq]
            pst_eg += PST_EG[pt, sq]
    terms[T_MATERIAL, c, 0] += mat_mg
    terms[T_MATERIAL, c, 1] += mat_eg
    terms[T_PST, c, 0] += pst_mg
    terms[T_PST, c, 1] += pst_eg

    our_pawn_attacks = ((p << S9) & NOT_FILE_A) | ((p << S7) & NOT_FILE_H)
    their_pawn_attacks = ((tp >> S7) & NOT_FILE_A) | ((tp >> S9) & NOT_FILE_H)
    king_sq = lsb(k) if k else -1
    their_king_sq = lsb(tk) if tk else -1

    # Mobility, collecting attacks on the enemy king zone on the way.
    mobility_area = ~occ_us & ~their_pawn_attacks
    zone = U0
    if their_king_sq >= 0:
        zone = KING_ATTACKS[their_king_sq] | SQUARE_BB[their_king_sq]
    attack_units = 0
    attackers = 0
    mob_mg = 0
    mob_eg = 0
    for pt in range(1, 5):
        bb = us[pt]
        while bb:
            sq = lsb(bb)
            bb &= bb - U1
            if pt == 1:
                att = KNIGHT_ATTACKS[sq]
            elif pt == 2:
                att = slider_attacks(sq, occ, BISHOP_DIRS)
            elif pt == 3:
                att = slider_attacks(sq, occ, ROOK_DIRS)
            else:
                att = (slider_attacks(sq, occ, BISHOP_DIRS)
                       | slider_attacks(sq, occ, ROOK_DIRS))
            cnt = popcount(att & mobility_area) - MOBILITY_CENTER[pt]
            mob_mg += MOBILITY_MG[pt] * cnt
            mob_eg += MOBILITY_EG[pt] * cnt
            hits = att & zone
            if hits:
                attackers += 1
                attack_units += KING_ATTACK_WEIGHT[pt] * popcount(hits)
    terms[T_MOBILITY, c, 0] += mob_mg
    terms[T_MOBILITY, c, 1] += mob_eg

    # Our attack on their king is booked as a penalty on their king safety,
    # so the report reads "how safe is each king".
    if attackers >= KING_DANGER_MIN_ATTACKERS:
        danger = attack_units * attack_units // KING_DANGER_DIV
        if danger > KING_DANGER_MAX:
            danger = KING_DANGER_MAX
        if not q:
            danger //= 2
        terms[T_KING, 1 - c, 0] -= danger
        terms[T_KING, 1 - c, 1] -= attack_units * KING_DANGER_EG

    # Pawn shield for a king still on its first two ranks.
    if king_sq >= 0 and king_sq < 16:
        kf = king_sq & 7
        shield = 0
        for f in range(max(kf - 1, 0), min(kf + 1, 7) + 1):
            one_ahead = king_sq + 8 + f - kf
            if p & SQUARE_BB[one_ahead]:
                shield += SHIELD_CLOSE_MG
            elif p & SQUARE_BB[one_ahead + 8]:
                shield += SHIELD_FAR_MG
            elif not (p & FILE_BB[f]):
                shield -= KING_OPEN_FILE_MG
        terms[T_KING, c, 0] += shield

    # Pawn structure: doubled and isolated by file, supported pawns.
    ps_mg = 0
    ps_eg = 0
    for f in range(8):
        on_file = p & FILE_BB[f]
        if on_file:
            cnt = popcount(on_file)
            if cnt > 1:
                ps_mg -= DOUBLED_MG * (cnt - 1)
                ps_eg -= DOUBLED_EG * (cnt - 1)
            if not (p & ADJACENT_FILES_BB[f]):
                ps_mg -= ISOLATED_MG * cnt
                ps_eg -= ISOLATED_EG * cnt
    supported = popcount(p & our_pawn_attacks)
    ps_mg += SUPPORTED_MG * supported
    ps_eg += SUPPORTED_EG * supported
    terms[T_PAWNS, c, 0] += ps_mg
    terms[T_PAWNS, c, 1] += ps_eg

    # Passed pawns (only the front pawn of a doubled pair counts).
    pp_mg = 0
    pp_eg = 0
    bb = p
    while bb:
        sq = lsb(bb)
        bb &= bb - U1
        if (tp & PASSED_SPAN[sq]) or (p & FRONT_SPAN[sq]):
            continue
        rank = sq >> 3
        pp_mg += PASSED_MG[rank]
        pp_eg += PASSED_EG[rank]
        if king_sq >= 0 and their_king_sq >= 0:
            stop = sq + 8
            pp_eg += PASSED_KING_RANK_WEIGHT[rank] * (
                PASSED_THEIR_KING * _distance(their_king_sq, stop)
                - PASSED_OUR_KING * _distance(king_sq, stop))
    terms[T_PASSED, c, 0] += pp_mg
    terms[T_PASSED, c, 1] += pp_eg

    if b and (b & (b - U1)):
        terms[T_BISHOP_PAIR, c, 0] += BISHOP_PAIR_MG
        terms[T_BISHOP_PAIR, c, 1] += BISHOP_PAIR_EG

    # Rooks on open (no pawns) and semi-open (no own pawns) files.
    rk_mg = 0
    rk_eg = 0
    bb = r
    while bb:
        sq = lsb(bb)
        bb &= bb - U1
        file_bb = FILE_BB[sq & 7]
        if not (p & file_bb):
            if tp & file_bb:
                rk_mg += ROOK_SEMIOPEN_FILE_MG
                rk_eg += ROOK_SEMIOPEN_FILE_EG
            else:
                rk_mg += ROOK_OPEN_FILE_MG
                rk_eg += ROOK_OPEN_FILE_EG
    terms[T_ROOKS, c, 0] += rk_mg
    terms[T_ROOKS, c, 1] += rk_eg


@njit(cache=True, nogil=True)
def _flip_all(pieces):
    return (flip(pieces[0]), flip(pieces[1]), flip(pieces[2]),
            flip(pieces[3]), flip(pieces[4]), flip(pieces[5]))


@njit(cache=True, nogil=True)
def _fill_terms(pawns, knights, bishops, rooks, queens, kings, white, black,
                white_to_move, terms):
    """Fill terms[term, colour, stage] and return the game phase."""
    w = (pawns & white, knights & white, bishops & white, rooks & white,
         queens & white, kings & white)
    bl = (pawns & black, knights & black, bishops & black, rooks & black,
          queens & black, kings & black)
    # Black is evaluated on the flipped board, so it sees itself as White.
    _side_terms(0, w, bl, terms)
    _side_terms(1, _flip_all(bl), _flip_all(w), terms)

    phase = 0
    for pt in range(1, 5):
        phase += popcount(w[pt] | bl[pt]) * PHASE_WEIGHT[pt]

    stm = 0 if white_to_move else 1
    terms[T_TEMPO, stm, 0] += TEMPO_MG
    terms[T_TEMPO, stm, 1] += TEMPO_EG
    return min(phase, PHASE_MAX)


@njit(cache=True, nogil=True)
def _taper(mg, eg, phase):
    """Blend midgame and endgame scores; rounds toward zero so that
    _taper(-mg, -eg) == -_taper(mg, eg) exactly."""
    t = mg * phase + eg * (PHASE_MAX - phase)
    if t >= 0:
        return t // PHASE_MAX
    return -((-t) // PHASE_MAX)


@njit(cache=True, nogil=True)
def _combine(terms, phase, white_to_move):
    """Final score from the side to move's view, clamped to +-EVAL_LIMIT."""
    mg = 0
    eg = 0
    for t in range(N_TERMS):
        mg += terms[t, 0, 0] - terms[t, 1, 0]
        eg += terms[t, 0, 1] - terms[t, 1, 1]
    score = _taper(mg, eg, phase)
    if score > EVAL_LIMIT:
        score = EVAL_LIMIT
    elif score < -EVAL_LIMIT:
        score = -EVAL_LIMIT
    return score if white_to_move else -score


# Explicit signatures: python-chess bitboards are Python ints that may exceed
# 2**63; typing them as uint64 up front lets us pass the ints straight in
# (measured ~1.6 us per call of dispatch overhead this way against ~6.6 us when
# each int is first wrapped in numpy.uint64), and with compilation disabled
# afterwards numba can never build a second specialisation.
_BB_ARGS = (uint64, uint64, uint64, uint64, uint64, uint64, uint64, uint64, boolean)
_EVALUATE_SIGNATURE = int64(*_BB_ARGS)
_REPORT_SIGNATURE = UniTuple(int64, 2)(*_BB_ARGS, int64[:, :, ::1])


@njit(cache=True, nogil=True)
def _evaluate_kernel(pawns, knights, bishops, rooks, queens, kings, white, black,
                     white_to_move):
    terms = np.zeros((N_TERMS, 2, 2), dtype=np.int64)
    phase = _fill_terms(pawns, knights, bishops, rooks, queens, kings, white,
                        black, white_to_move, terms)
    return _combine(terms, phase, white_to_move)


@njit(cache=True, nogil=True)
def _report_kernel(pawns, knights, bishops, rooks, queens, kings, white, black,
                   white_to_move, terms):
    phase = _fill_terms(pawns, knights, bishops, rooks, queens, kings, white,
                        black, white_to_move, terms)
    return phase, _combine(terms, phase, white_to_move)


# The kernels are compiled (or loaded from numba's cache) on first use rather
# than at import, so that warm_up() can do the work in a background thread.
def _compile_evaluate_kernel() -> None:
    global _kernel
    compile_kernel(_evaluate_kernel, _EVALUATE_SIGNATURE)
    _kernel = _evaluate_kernel


def _compile_report_kernel() -> None:
    compile_kernel(_report_kernel, _REPORT_SIGNATURE)


def _compile_then_evaluate(*args) -> int:
    _compile_evaluate_kernel()
    return _evaluate_kernel(*args)


# evaluate() looks this name up on every call; after compilation it is the
# dispatcher itself, so the lazy compilation costs nothing per call.
_kernel = _compile_then_evaluate


# ---------------------------------------------------------------------------
# Public API.
# ---------------------------------------------------------------------------


def evaluate(board: chess.Board) -> int:
    """Static evaluation in centipawns from the side to move's point of view."""
    occ = board.occupied_co
    return _kernel(board.pawns, board.knights, board.bishops, board.rooks,
                   board.queens, board.kings, occ[chess.WHITE], occ[chess.BLACK],
                   board.turn)


def board_arguments(board: chess.Board) -> tuple:
    """The kernel arguments for `board`, as numpy scalars (for `.py_func`)."""
    occ = board.occupied_co
    return (np.uint64(board.pawns), np.uint64(board.knights), np.uint64(board.bishops),
            np.uint64(board.rooks), np.uint64(board.queens), np.uint64(board.kings),
            np.uint64(occ[chess.WHITE]), np.uint64(occ[chess.BLACK]), bool(board.turn))


def evaluation_terms(board: chess.Board) -> tuple[np.ndarray, int, int]:
    """Return (terms[term, colour, stage], phase, score from the side to move)."""
    _compile_report_kernel()
    terms = np.zeros((N_TERMS, 2, 2), dtype=np.int64)
    occ = board.occupied_co
    phase, score = _report_kernel(board.pawns, board.knights, board.bishops,
                                  board.rooks, board.queens, board.kings,
                                  occ[chess.WHITE], occ[chess.BLACK], board.turn, terms)
    return terms, int(phase), int(score)


def _cell(value: int) -> str:
    return f"{value / 100:+.2f}"


def evaluation_report(board: chess.Board) -> str:
    """Human-readable table of every evaluation term (for the UCI `eval` command)."""
    terms, phase, score = evaluation_terms(board)
    white_score = score if board.turn == chess.WHITE else -score

    def row(name: str, cells: list[str]) -> str:
        groups = [f"{cells[i]:>7} {cells[i + 1]:>7}" for i in range(0, len(cells), 2)]
        return f"{name:>15} | " + " | ".join(groups)

    rule = "-" * 16 + "+" + ("-" * 17 + "+") * 2 + "-" * 16
    lines = [
        f"{'Term':>15} | {'White':^15} | {'Black':^15} | {'Total':^15}",
        row("", ["MG", "EG"] * 3),
        rule,
    ]
    mg_total = eg_total = 0
    for t, name in enumerate(TERM_NAMES):
        w_mg, w_eg = int(terms[t, 0, 0]), int(terms[t, 0, 1])
        b_mg, b_eg = int(terms[t, 1, 0]), int(terms[t, 1, 1])
        mg_total += w_mg - b_mg
        eg_total += w_eg - b_eg
        lines.append(row(name, [_cell(v) for v in
                                (w_mg, w_eg, b_mg, b_eg, w_mg - b_mg, w_eg - b_eg)]))
    lines.append(rule)
    lines.append(row("Total", ["", "", "", "", _cell(mg_total), _cell(eg_total)]))
    lines.append("")
    lines.append(f"Game phase: {phase}/{PHASE_MAX} (midgame weight {phase}/{PHASE_MAX},"
                 f" endgame weight {PHASE_MAX - phase}/{PHASE_MAX})")
    lines.append(f"Tapered total (White's view, before clamping to +-{EVAL_LIMIT}):"
                 f" {_cell(_taper.py_func(mg_total, eg_total, phase))}")
    lines.append(f"Final evaluation (White's view): {_cell(white_score)} ({white_score} cp)")
    side = "White" if board.turn == chess.WHITE else "Black"
    lines.append(f"Final evaluation (side to move, {side}): {_cell(score)} ({score} cp)")
    return "\n".join(line.rstrip() for line in lines)


def warm_up() -> None:
    """Compile or load from cache every numba kernel (call once at start-up).

    The search kernel comes first so that a search started meanwhile waits
    only for it; the `eval` report kernel follows."""
    _compile_evaluate_kernel()
    evaluate(chess.Board())
    _compile_report_kernel()
