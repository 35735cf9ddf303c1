"""Static evaluation for Brudno: a numba kernel, linear in its weights for each game phase.

`evaluate(board)` scores a position in centipawns from the side to move's point of view with one
call into a numba kernel that computes every term. `evaluation_report(board)` prints the terms as
a table for the UCI `eval` command. Both kernels are compiled (or loaded from numba's cache) at
import.

The evaluation counts *features* (a knight on f3, a rook on an open file, a bishop that reaches 7
squares, ...) for each side, and each feature has a midgame and an endgame weight: the midgame and
endgame scores are sums of count x weight, blended by the game phase. The weights are one int64
array of shape (N_FEATURES, 2), a kernel argument loaded from `engine/evaluation/weights/classical.npz`, so a
tuner can change them without recompiling; `feature_coefficients(board)` returns how much each
feature counts in a position (White's count minus Black's), the vector a tuner fits against
(scripts/training/tune.py). The blocks of the feature vector are listed in FEATURE_BLOCKS.

Every term is computed for White and for Black by the same code: Black's bitboards are flipped
vertically first, so Black is evaluated "as if it were White". Together with integer arithmetic
and a sign-symmetric taper this makes `evaluate(b) == evaluate(b.mirror())` hold exactly.
"""

from __future__ import annotations

from pathlib import Path

import chess
import numpy as np
from numba import float64, int64, njit
from numba.types import UniTuple

from engine.board.bitboards import (FILE_BB, KING_ATTACKS, KNIGHT_ATTACKS, NOT_FILE_A, NOT_FILE_H,
                                    S7, S9, SQUARE_BB, U0, U1, bishop_attacks, bitboard_of,
                                    compile_kernel, flip, lsb, popcount, rook_attacks)
from engine.board.position import POSITION, all_men, from_board

# ---------------------------------------------------------------------------
# Features. Piece indices: 0 pawn, 1 knight, 2 bishop, 3 rook, 4 queen, 5 king.
# Squares: a1 = 0 ... h8 = 63, always seen from the side being evaluated.
# ---------------------------------------------------------------------------

# Game phase: 24 with all minor and major pieces on the board, 0 with none.
PHASE_WEIGHT = np.array([0, 1, 1, 2, 4, 0], dtype=np.int64)
PHASE_MAX = 24

# Mobility is scored by a table per piece type over the number of squares reached.
MOBILITY_SIZE = (0, 9, 14, 15, 28, 0)
# King danger is scored by a table over "attack units" (attacked king-zone squares weighted by
# the attacking piece), one row with the attacker's queen on the board and one without; it counts
# once at least KING_DANGER_MIN_ATTACKERS pieces take part. The units define the table index: they
# shape the feature rather than weigh it, so they are set here and not fitted.
KING_ATTACK_WEIGHT = np.array([0, 2, 2, 3, 5, 0], dtype=np.int64)
KING_DANGER_MIN_ATTACKERS = 2
KING_DANGER_SIZE = 40  # units beyond the last entry use the last entry

# The feature vector, block by block: (name, length). The weight file records this list and is
# refused if it does not match.
FEATURE_BLOCKS = (
    ("material", 5),  # pawn .. queen
    ("psqt", 6 * 64),  # piece * 64 + square
    ("mobility", sum(MOBILITY_SIZE)),  # knight 0..8, bishop 0..13, rook 0..14, queen 0..27
    ("doubled pawn", 1),  # per pawn beyond the first on a file
    ("isolated pawn", 1),
    ("supported pawn", 1),  # defended by a pawn
    ("pawn phalanx", 1),  # a pawn with an own pawn beside it on the same rank (counted once a pair)
    ("passed pawn", 8),  # by rank (0 = own first rank)
    ("passer: their king distance", 8),  # by rank, times the king's distance to the stop square
    ("passer: our king distance", 8),
    ("passer blocked", 8),  # by rank: a piece stands on the square in front
    ("attacked by a pawn", 4),  # knight .. queen attacked by an enemy pawn
    ("king shield close", 1),  # own pawn one rank ahead of the king, on its or a next file
    ("king shield far", 1),  # ... two ranks ahead
    ("king open file", 1),  # no own pawn on a file next to or under the king
    ("king danger", 2 * KING_DANGER_SIZE),  # [attacker has a queen, attack units], booked on the attacked king
    ("king attack units", 1),  # per unit, booked on the attacked king
    ("bishop pair", 1),
    ("rook open file", 1),
    ("rook semi-open file", 1),
    ("tempo", 1),  # side to move
)


def _offsets() -> dict[str, int]:
    offsets, at = {}, 0
    for name, length in FEATURE_BLOCKS:
        offsets[name] = at
        at += length
    return offsets


_OFFSET = _offsets()
N_FEATURES = sum(length for _, length in FEATURE_BLOCKS)
F_MATERIAL = _OFFSET["material"]
F_PSQT = _OFFSET["psqt"]
F_MOBILITY = _OFFSET["mobility"]
MOBILITY_START = np.array([F_MOBILITY + sum(MOBILITY_SIZE[:pt]) for pt in range(6)], dtype=np.int64)
MOBILITY_LAST = np.array([max(0, size - 1) for size in MOBILITY_SIZE], dtype=np.int64)
F_DOUBLED = _OFFSET["doubled pawn"]
F_ISOLATED = _OFFSET["isolated pawn"]
F_SUPPORTED = _OFFSET["supported pawn"]
F_PASSED = _OFFSET["passed pawn"]
F_PASSED_THEIR_KING = _OFFSET["passer: their king distance"]
F_PASSED_OUR_KING = _OFFSET["passer: our king distance"]
F_PASSED_BLOCKED = _OFFSET["passer blocked"]
F_PAWN_THREAT = _OFFSET["attacked by a pawn"]
F_PHALANX = _OFFSET["pawn phalanx"]
F_SHIELD_CLOSE = _OFFSET["king shield close"]
F_SHIELD_FAR = _OFFSET["king shield far"]
F_KING_OPEN_FILE = _OFFSET["king open file"]
F_KING_DANGER = _OFFSET["king danger"]
F_KING_ATTACK_UNITS = _OFFSET["king attack units"]
F_BISHOP_PAIR = _OFFSET["bishop pair"]
F_ROOK_OPEN = _OFFSET["rook open file"]
F_ROOK_SEMIOPEN = _OFFSET["rook semi-open file"]
F_TEMPO = _OFFSET["tempo"]

WEIGHTS_FILE = Path(__file__).resolve().parent / "weights" / "classical.npz"


def load_weights(path: str | Path = WEIGHTS_FILE) -> np.ndarray:
    """The (N_FEATURES, 2) int64 weights stored at ``path``; ValueError if its layout differs."""
    with np.load(path) as data:
        blocks = [(str(name), int(length)) for name, length in zip(data["block_names"], data["block_lengths"])]
        weights = np.ascontiguousarray(data["weights"], dtype=np.int64)
    if blocks != list(FEATURE_BLOCKS) or weights.shape != (N_FEATURES, 2):
        raise ValueError(f"{path}: its feature layout is not this evaluation's")
    return weights


def save_weights(weights: np.ndarray, path: str | Path = WEIGHTS_FILE) -> None:
    """Writes integer weights with the feature layout they belong to (see load_weights)."""
    weights = np.asarray(weights)
    if weights.shape != (N_FEATURES, 2):
        raise ValueError(f"weights must have shape ({N_FEATURES}, 2), not {weights.shape}")
    np.savez_compressed(path, weights=np.rint(weights).astype(np.int64),
                        block_names=np.array([name for name, _ in FEATURE_BLOCKS]),
                        block_lengths=np.array([length for _, length in FEATURE_BLOCKS]))


WEIGHTS = load_weights()

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
# Evaluation-specific bitboard tables (the shared ones are in engine.board.bitboards).
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


@njit(cache=True, nogil=True, inline="always")
def _add(feature, count, c, term, weights, terms, coefs):
    """Books ``count`` times ``feature`` for side c under ``term`` (and into the coefficient
    vector, White's counts minus Black's, when one is being built)."""
    terms[term, c, 0] += count * weights[feature, 0]
    terms[term, c, 1] += count * weights[feature, 1]
    if coefs.shape[0]:
        coefs[feature] += count if c == 0 else -count


@njit(cache=True, nogil=True)
def _side_terms(c, us, them, weights, terms, coefs):
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
    for pt in range(6):
        bb = us[pt]
        while bb:
            sq = lsb(bb)
            bb &= bb - U1
            if pt < 5:
                _add(F_MATERIAL + pt, 1, c, T_MATERIAL, weights, terms, coefs)
            _add(F_PSQT + pt * 64 + sq, 1, c, T_PST, weights, terms, coefs)

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
    for pt in range(1, 5):
        bb = us[pt]
        while bb:
            sq = lsb(bb)
            bb &= bb - U1
            if pt == 1:
                att = KNIGHT_ATTACKS[sq]
            elif pt == 2:
                att = bishop_attacks(sq, occ)
            elif pt == 3:
                att = rook_attacks(sq, occ)
            else:
                att = (bishop_attacks(sq, occ)
                       | rook_attacks(sq, occ))
            reach = min(popcount(att & mobility_area), MOBILITY_LAST[pt])
            _add(MOBILITY_START[pt] + reach, 1, c, T_MOBILITY, weights, terms, coefs)
            hits = att & zone
            if hits:
                attackers += 1
                attack_units += KING_ATTACK_WEIGHT[pt] * popcount(hits)

    # Our attack on their king is booked as a penalty on their king safety,
    # so the report reads "how safe is each king".
    if attackers >= KING_DANGER_MIN_ATTACKERS:
        row = KING_DANGER_SIZE if q else 0
        index = min(attack_units, KING_DANGER_SIZE - 1)
        _add(F_KING_DANGER + row + index, -1, 1 - c, T_KING, weights, terms, coefs)
        _add(F_KING_ATTACK_UNITS, -attack_units, 1 - c, T_KING, weights, terms, coefs)

    # Pawn shield for a king still on its first two ranks.
    if king_sq >= 0 and king_sq < 16:
        kf = king_sq & 7
        for f in range(max(kf - 1, 0), min(kf + 1, 7) + 1):
            one_ahead = king_sq + 8 + f - kf
            if p & SQUARE_BB[one_ahead]:
                _add(F_SHIELD_CLOSE, 1, c, T_KING, weights, terms, coefs)
            elif p & SQUARE_BB[one_ahead + 8]:
                _add(F_SHIELD_FAR, 1, c, T_KING, weights, terms, coefs)
            elif not (p & FILE_BB[f]):
                _add(F_KING_OPEN_FILE, 1, c, T_KING, weights, terms, coefs)

    # Pawn structure: doubled and isolated by file, supported pawns.
    for f in range(8):
        on_file = p & FILE_BB[f]
        if on_file:
            cnt = popcount(on_file)
            if cnt > 1:
                _add(F_DOUBLED, cnt - 1, c, T_PAWNS, weights, terms, coefs)
            if not (p & ADJACENT_FILES_BB[f]):
                _add(F_ISOLATED, cnt, c, T_PAWNS, weights, terms, coefs)
    supported = popcount(p & our_pawn_attacks)
    if supported:
        _add(F_SUPPORTED, supported, c, T_PAWNS, weights, terms, coefs)
    phalanx = popcount(p & ((p << U1) & NOT_FILE_A))
    if phalanx:
        _add(F_PHALANX, phalanx, c, T_PAWNS, weights, terms, coefs)
    # Pieces a pawn attacks must move or be lost (booked as a pawn-structure matter).
    for pt in range(1, 5):
        threatened = popcount(us[pt] & their_pawn_attacks)
        if threatened:
            _add(F_PAWN_THREAT + pt - 1, threatened, c, T_PAWNS, weights, terms, coefs)

    # Passed pawns (only the front pawn of a doubled pair counts).
    bb = p
    while bb:
        sq = lsb(bb)
        bb &= bb - U1
        if (tp & PASSED_SPAN[sq]) or (p & FRONT_SPAN[sq]):
            continue
        rank = sq >> 3
        _add(F_PASSED + rank, 1, c, T_PASSED, weights, terms, coefs)
        if rank < 7 and occ & SQUARE_BB[sq + 8]:
            _add(F_PASSED_BLOCKED + rank, 1, c, T_PASSED, weights, terms, coefs)
        if king_sq >= 0 and their_king_sq >= 0:
            stop = sq + 8
            _add(F_PASSED_THEIR_KING + rank, _distance(their_king_sq, stop), c, T_PASSED,
                 weights, terms, coefs)
            _add(F_PASSED_OUR_KING + rank, _distance(king_sq, stop), c, T_PASSED,
                 weights, terms, coefs)

    if b and (b & (b - U1)):
        _add(F_BISHOP_PAIR, 1, c, T_BISHOP_PAIR, weights, terms, coefs)

    # Rooks on open (no pawns) and semi-open (no own pawns) files.
    bb = r
    while bb:
        sq = lsb(bb)
        bb &= bb - U1
        file_bb = FILE_BB[sq & 7]
        if not (p & file_bb):
            if tp & file_bb:
                _add(F_ROOK_SEMIOPEN, 1, c, T_ROOKS, weights, terms, coefs)
            else:
                _add(F_ROOK_OPEN, 1, c, T_ROOKS, weights, terms, coefs)


@njit(cache=True, nogil=True)
def _flip_all(pieces):
    return (flip(pieces[0]), flip(pieces[1]), flip(pieces[2]),
            flip(pieces[3]), flip(pieces[4]), flip(pieces[5]))


@njit(cache=True, nogil=True)
def _fill_terms(position, weights, terms, coefs):
    """Fill terms[term, colour, stage] (and coefs, if not empty) and return the game phase."""
    p = position
    white = p.white
    black = all_men(p) & ~white
    w = (p.pawns & white, p.knights & white, p.bishops & white, p.rooks & white,
         p.queens & white, p.kings & white)
    bl = (p.pawns & black, p.knights & black, p.bishops & black, p.rooks & black,
          p.queens & black, p.kings & black)
    # Black is evaluated on the flipped board, so it sees itself as White.
    _side_terms(0, w, bl, weights, terms, coefs)
    _side_terms(1, _flip_all(bl), _flip_all(w), weights, terms, coefs)

    phase = 0
    for pt in range(1, 5):
        phase += popcount(w[pt] | bl[pt]) * PHASE_WEIGHT[pt]

    _add(F_TEMPO, 1, 0 if p.white_to_move else 1, T_TEMPO, weights, terms, coefs)
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


# Explicit signatures, so that with compilation disabled afterwards numba can never build a second
# specialisation. The position record (engine/board/position.py) is the search's; the key, the
# check and the en passant square in it are not read.
_WEIGHTS_ARG = int64[:, ::1]
_EVALUATE_SIGNATURE = int64(POSITION, _WEIGHTS_ARG)
_REPORT_SIGNATURE = UniTuple(int64, 2)(POSITION, _WEIGHTS_ARG, int64[:, :, ::1])
_COEFFICIENTS_SIGNATURE = int64(POSITION, _WEIGHTS_ARG, float64[::1])


@njit(cache=True, nogil=True)
def evaluate_kernel(position, weights):
    terms = np.zeros((N_TERMS, 2, 2), dtype=np.int64)
    no_coefs = np.zeros(0, dtype=np.float64)
    phase = _fill_terms(position, weights, terms, no_coefs)
    return _combine(terms, phase, position.white_to_move)


@njit(cache=True, nogil=True)
def _report_kernel(position, weights, terms):
    no_coefs = np.zeros(0, dtype=np.float64)
    phase = _fill_terms(position, weights, terms, no_coefs)
    return phase, _combine(terms, phase, position.white_to_move)


@njit(cache=True, nogil=True)
def _coefficients_kernel(position, weights, coefs):
    terms = np.zeros((N_TERMS, 2, 2), dtype=np.int64)
    return _fill_terms(position, weights, terms, coefs)


_kernel = compile_kernel(evaluate_kernel, _EVALUATE_SIGNATURE)
compile_kernel(_report_kernel, _REPORT_SIGNATURE)


# ---------------------------------------------------------------------------
# Public API.
# ---------------------------------------------------------------------------


def evaluate(board: chess.Board) -> int:
    """Static evaluation in centipawns from the side to move's point of view."""
    return _kernel(from_board(board, in_check=False), WEIGHTS)


def board_arguments(board: chess.Board) -> tuple:
    """The kernel arguments for `board` (weights included), as numpy scalars (for `.py_func`)."""
    return from_board(board, in_check=False), WEIGHTS


def feature_coefficients(board: chess.Board, out: np.ndarray | None = None) -> tuple[np.ndarray, int]:
    """How much each feature counts in ``board`` (White's count minus Black's; the tempo counts
    for the side to move) and the game phase. With weights W, the midgame score (White's view)
    is ``coefs @ W[:, 0]``, the endgame score ``coefs @ W[:, 1]``; `evaluate` tapers them by the
    phase. ``out`` (float64, length N_FEATURES, zeroed by the caller) is filled if given."""
    compile_kernel(_coefficients_kernel, _COEFFICIENTS_SIGNATURE)
    coefs = np.zeros(N_FEATURES, dtype=np.float64) if out is None else out
    phase = _coefficients_kernel(from_board(board, in_check=False), WEIGHTS, coefs)
    return coefs, int(phase)


def taper(mg: int, eg: int, phase: int) -> int:
    """The tapered score of midgame and endgame sums, rounded exactly as `evaluate` rounds."""
    return int(_taper.py_func(int(mg), int(eg), int(phase)))


def evaluation_terms(board: chess.Board) -> tuple[np.ndarray, int, int]:
    """Return (terms[term, colour, stage], phase, score from the side to move)."""
    terms = np.zeros((N_TERMS, 2, 2), dtype=np.int64)
    phase, score = _report_kernel(from_board(board, in_check=False), WEIGHTS, terms)
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
