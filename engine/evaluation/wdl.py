"""Win, draw and loss chances (per mille) from a search score: the `wdl` of UCI_ShowWDL.

The model is Stockfish's kind: the chance that the side to move wins is a logistic function of
the score, 1 / (1 + exp((a - score) / b)), and the chance that it loses is the same function of
the negated score; a draw is what remains. The midpoint ``a`` and the spread ``b`` depend on the
material left (a pawn means more in an endgame). The constants are fitted by scripts/studies/fit_wdl.py
to Brudno's own games (the scores it printed and how the games ended) and live only here.
"""

from __future__ import annotations

import math

import chess

from engine.evaluation.score import MATE_BOUND

# --- fitted constants (scripts/studies/fit_wdl.py --write replaces this block) ---
# a(m) = A[0] + A[1] * m and b(m) = B[0] + B[1] * m, m = material / MATERIAL_SCALE (see material()).
A = (339.3, -273.4)
B = (204.9, 0.1)
FIT = '8817 positions of 96 games (samples W/D/L 3022/2756/3039), selfplay.pgn: Brudno 17aa126 self-play, 100 games at 1+0.01'
# --- end of fitted constants ---

PIECE_MATERIAL = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}
MATERIAL_SCALE = 78  # both sides' material at the start
MATERIAL_CLAMP = (10, 78)


def material(board: chess.Board) -> int:
    """Both sides' material in pawns (1/3/3/5/9), clamped: the model's measure of game phase."""
    total = sum(value * chess.popcount(board.pieces_mask(kind, chess.WHITE) | board.pieces_mask(kind, chess.BLACK))
                for kind, value in PIECE_MATERIAL.items())
    return min(max(total, MATERIAL_CLAMP[0]), MATERIAL_CLAMP[1])


def parameters(material_count: int, a: tuple[float, float] = A,
               b: tuple[float, float] = B) -> tuple[float, float]:
    """The model's midpoint and spread (centipawns) at this much material."""
    m = min(max(material_count, MATERIAL_CLAMP[0]), MATERIAL_CLAMP[1]) / MATERIAL_SCALE
    # A midpoint below zero would let win + loss exceed certainty.
    return max(1.0, a[0] + a[1] * m), max(1.0, b[0] + b[1] * m)


def win_chance(score: float, material_count: int, a: tuple[float, float] = A,
               b: tuple[float, float] = B) -> float:
    """The chance (0..1) that the side to move wins with this score (centipawns)."""
    mid, spread = parameters(material_count, a, b)
    x = (mid - score) / spread
    if x > 700:  # exp would overflow: no chance at all
        return 0.0
    return 1.0 / (1.0 + math.exp(x))


def wdl(score: int, material_count: int) -> tuple[int, int, int]:
    """(win, draw, loss) per mille for the side to move; they add up to 1000. A mate score is
    a certain result."""
    if score >= MATE_BOUND:
        return 1000, 0, 0
    if score <= -MATE_BOUND:
        return 0, 0, 1000
    win = round(1000 * win_chance(score, material_count))
    loss = round(1000 * win_chance(-score, material_count))
    return win, 1000 - win - loss, loss
