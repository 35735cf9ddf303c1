"""The optimiser of both trainers (the network's and the classical evaluation's): Adam, its step
size falling linearly over the run."""
from __future__ import annotations

import numpy as np


def step_size(lr: float, final_lr: float, progress: float) -> float:
    """The step size after ``progress`` (0 to 1) of the training: linear from ``lr`` down to
    ``final_lr * lr``."""
    return lr * (1 - (1 - final_lr) * min(1.0, progress))


class Adam:
    """Adam's moment estimates for named parameters; ``directions`` turns a step's gradients into
    the bias-corrected moves, which the trainer scales by the step size and applies (each clips
    or masks its parameters its own way)."""

    def __init__(self, params: dict[str, np.ndarray], beta1: float = 0.9, beta2: float = 0.999,
                 eps: float = 1e-8) -> None:
        self.beta1, self.beta2, self.eps = beta1, beta2, eps
        self.m = {name: np.zeros_like(value) for name, value in params.items()}
        self.v = {name: np.zeros_like(value) for name, value in params.items()}
        self.steps = 0

    def directions(self, grads: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """One step: the moment estimates updated with ``grads``, and m_hat / (sqrt(v_hat) + eps)
        for each parameter (to be subtracted, times the step size)."""
        self.steps += 1
        beta1, beta2, step = self.beta1, self.beta2, self.steps
        moves = {}
        for name, grad in grads.items():
            self.m[name] = beta1 * self.m[name] + (1 - beta1) * grad
            self.v[name] = beta2 * self.v[name] + (1 - beta2) * grad * grad
            moves[name] = ((self.m[name] / (1 - beta1 ** step))
                           / (np.sqrt(self.v[name] / (1 - beta2 ** step)) + self.eps))
        return moves
