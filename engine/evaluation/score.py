"""The scales every part of the engine shares: scores (centipawns, mate and tablebase scores) and
the score of a tablebase result. A module that imports nothing, so that any layer may use it.
(The piece values of exchanges are the board's: engine/board/piece_values.py.)"""

MATE = 32000
"""Checkmate, from the mated side's opponent's view; a mate found ``n`` plies from the root
scores ``MATE - n``."""

MAX_PLY = 128
"""The deepest ply any search line may reach."""

MATE_BOUND = MATE - 2 * MAX_PLY
"""Scores beyond this are mate scores."""

TB_WIN_SCORE = 20000
"""Score of a tablebase win: below the search's mate scores (MATE_BOUND), above any evaluation."""

TB_WIN_THRESHOLD = TB_WIN_SCORE - 1000
"""Root tablebase wins, and `wdl_to_score` wins below ply 1000, score at least this (losses at most
minus it). The evaluation is clamped far below (evaluate.EVAL_LIMIT), so beyond it, mate scores
included, every score is a distance from the root and is stored relative to the node."""

INFINITY = MATE + 1
"""Above every score: the bounds of the widest window."""


def wdl_to_score(wdl: int, ply: int = 0) -> int:
    """A search score for a WDL probe `ply` plies from the root: nearer wins score higher."""
    if wdl == 2:
        return TB_WIN_SCORE - ply
    if wdl == -2:
        return -TB_WIN_SCORE + ply
    return 0
