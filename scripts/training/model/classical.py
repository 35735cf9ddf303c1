"""The classical evaluation's training side: each position as its coefficient vector
(engine/evaluation/evaluate.py), the evaluation linear in the weights for each game phase, its loss and
gradient.

With a position's coefficient vector x and phase p (0..1), its score for White is
e = p * (x . W_mg) + (1 - p) * (x . W_eg), and the loss the mean squared error between
sigmoid(K * e / 400) and the target (scripts/training/labels.py): a logistic regression.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.evaluation import evaluate as ev
from scripts.training.data.text import cache_path, read_samples
from scripts.training.labels import sigmoid


@dataclass
class Dataset:
    """Coefficient rows with the phase share, the teacher's score and the result (White's view)."""

    coefs: np.ndarray  # float32, (n, N_FEATURES)
    phase: np.ndarray  # float32, (n,): midgame share 0..1
    score: np.ndarray  # float32, (n,): teacher centipawns
    result: np.ndarray  # float32, (n,): 1, 0.5, 0
    source: np.ndarray | None = None  # int, (n,): which file, in file order

    def __len__(self) -> int:
        return len(self.result)

    def take(self, index: np.ndarray | slice) -> "Dataset":
        source = None if self.source is None else self.source[index]
        return Dataset(self.coefs[index], self.phase[index], self.score[index], self.result[index], source)


def build_dataset(paths: list[Path], limit: int | None = None) -> Dataset:
    """Reads samples and computes each position's coefficient vector (cached beside the data).

    ``source`` numbers the file each position came from (see :func:`split`)."""
    cache = cache_path(paths, f"{limit}-{ev.FEATURE_BLOCKS}", "coefs.npz")
    if cache.exists():
        with np.load(cache) as data:
            return Dataset(data["coefs"], data["phase"], data["score"], data["result"], data["source"])
    per_file = None if limit is None else -(-limit // len(paths))
    samples, source = [], []
    for number, path in enumerate(paths):
        these = list(read_samples(path, per_file))
        samples += these
        source += [number] * len(these)
    n = len(samples)
    coefs = np.zeros((n, ev.N_FEATURES), dtype=np.float32)
    phase = np.zeros(n, dtype=np.float32)
    row = np.zeros(ev.N_FEATURES, dtype=np.float64)
    started = time.monotonic()
    for i, sample in enumerate(samples):
        row[:] = 0
        _, p = ev.feature_coefficients(sample.board(), out=row)
        coefs[i] = row
        phase[i] = p / ev.PHASE_MAX
        if i % 50000 == 0 and i:
            print(f"  coefficients: {i}/{n} ({time.monotonic() - started:.0f} s)", file=sys.stderr)
    data = Dataset(coefs, phase,
                   np.array([s.score for s in samples], dtype=np.float32),
                   np.array([s.result for s in samples], dtype=np.float32),
                   np.array(source, dtype=np.int32))
    np.savez(cache, coefs=data.coefs, phase=data.phase, score=data.score, result=data.result,
             source=data.source)
    return data


def white_scores(data: Dataset, weights: np.ndarray) -> np.ndarray:
    """The evaluation of every position, White's view, before rounding and clamping."""
    mg = data.coefs @ weights[:, 0]
    eg = data.coefs @ weights[:, 1]
    return data.phase * mg + (1 - data.phase) * eg


def loss(data: Dataset, target: np.ndarray, weights: np.ndarray, scale: float) -> float:
    return float(np.mean((sigmoid(scale * white_scores(data, weights) / 400) - target) ** 2))


def gradient(data: Dataset, target: np.ndarray, weights: np.ndarray, scale: float) -> np.ndarray:
    """The gradient of ``loss`` by the weights (float64, shaped like them) on a batch."""
    x, p = data.coefs, data.phase
    wf = weights.astype(np.float32)
    e = p * (x @ wf[:, 0]) + (1 - p) * (x @ wf[:, 1])
    s = sigmoid(scale * e / 400)
    # d(mean (s - t)^2)/de = 2 (s - t) s (1 - s) K / 400
    g = (2 * (s - target) * s * (1 - s) * scale / 400 / len(target)).astype(np.float32)
    return np.stack([x.T @ (g * p), x.T @ (g * (1 - p))], axis=1).astype(np.float64)
