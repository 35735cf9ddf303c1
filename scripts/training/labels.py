"""What both trainers fit to: the teacher's scale and the target of a position.

The teacher's scale K_t is the one for which sigmoid(K_t * teacher score / 400) best predicts the
games' results; a position's target is lambda * result + (1 - lambda) * sigmoid(K_t * teacher
score / 400), lambda being the result's share.
"""
from __future__ import annotations

from typing import Protocol

import numpy as np


class Labelled(Protocol):
    """Positions with the teacher's score (centipawns) and the game's result (1, 0.5, 0)."""

    score: np.ndarray
    result: np.ndarray


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def fit_scale(scores: np.ndarray, target: np.ndarray) -> float:
    """K minimising the mean squared error of sigmoid(K * score / 400) against the target
    (a golden-section search: the error is unimodal in K)."""
    def loss(k: float) -> float:
        return float(np.mean((sigmoid(k * scores / 400) - target) ** 2))

    lo, hi = 0.05, 5.0
    ratio = (5 ** 0.5 - 1) / 2
    for _ in range(60):
        a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
        if loss(a) < loss(b):
            hi = b
        else:
            lo = a
    return (lo + hi) / 2


def targets(data: Labelled, teacher_scale: float, result_share: float) -> np.ndarray:
    """Each position's target: ``result_share`` of its result, the rest its teacher's score."""
    return (result_share * data.result
            + (1 - result_share) * sigmoid(teacher_scale * data.score / 400)).astype(np.float32)
