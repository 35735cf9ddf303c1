#!/usr/bin/env python3
"""Texel tuning: fits every weight of the classical evaluation to labelled positions.

    .venv/bin/python scripts/tune.py data/sf4k.txt --out engine/weights/classical.npz

The evaluation is linear in its weights for each game phase (engine/evaluate.py): with a
position's coefficient vector x and phase p (0..1), its score for White is
e = p * (x . W_mg) + (1 - p) * (x . W_eg). Tuning is a logistic regression in numpy:

1. the teacher's scale: K_t such that sigmoid(K_t * teacher score) best predicts the results;
   the target of a position is lambda * result + (1 - lambda) * sigmoid(K_t * teacher score);
2. the evaluation's scale K, fitted first, with the current weights;
3. every weight, by Adam on mini-batches of the mean squared error between sigmoid(K * e) and
   the target; train and validation loss (held-out whole games) are printed per epoch, and the
   epoch with the lowest validation loss is kept.

The weights are rounded to integers and written with their feature layout.
"""
from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from engine import evaluate as ev  # noqa: E402
from dataset import cache_path, read_samples  # noqa: E402


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


def split(data: Dataset, share: float, block: int = 1000, seed: int = 1) -> tuple[Dataset, Dataset]:
    """Training and validation sets. Positions of one game are alike and share its result, so the
    validation set is made of whole games: the positions come in blocks of ``block`` consecutive
    lines of a file (about 15 games), and a seeded ``share`` of the blocks is held out."""
    source = np.zeros(len(data), dtype=np.int64) if data.source is None else data.source.astype(np.int64)
    first = np.r_[0, np.flatnonzero(np.diff(source)) + 1]
    line = np.arange(len(data)) - np.repeat(first, np.diff(np.r_[first, len(data)]))
    blocks = source * (1 << 40) + line // block
    unique, inverse = np.unique(blocks, return_inverse=True)
    held_out = np.random.default_rng(seed).random(len(unique)) < share
    mask = held_out[inverse]
    return data.take(~mask), data.take(mask)


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def white_scores(data: Dataset, weights: np.ndarray) -> np.ndarray:
    """The evaluation of every position, White's view, before rounding and clamping."""
    mg = data.coefs @ weights[:, 0]
    eg = data.coefs @ weights[:, 1]
    return data.phase * mg + (1 - data.phase) * eg


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


def targets(data: Dataset, teacher_scale: float, result_share: float) -> np.ndarray:
    return (result_share * data.result
            + (1 - result_share) * sigmoid(teacher_scale * data.score / 400)).astype(np.float32)


def loss(data: Dataset, target: np.ndarray, weights: np.ndarray, scale: float) -> float:
    return float(np.mean((sigmoid(scale * white_scores(data, weights) / 400) - target) ** 2))


def fit_weights(data: Dataset, target: np.ndarray, weights: np.ndarray, scale: float, *,
                epochs: int = 20, batch: int = 16384, lr: float = 2.0,
                trainable: np.ndarray | None = None, valid: Dataset | None = None,
                valid_target: np.ndarray | None = None, seed: int = 1,
                log=print) -> np.ndarray:
    """Adam on mini-batches of the mean squared error; returns float weights (those of the epoch
    with the lowest validation loss, when a validation set is given).

    ``lr`` is in centipawns per step and falls linearly to a tenth of itself by the last epoch.
    ``trainable`` (bool, like ``weights``) freezes the weights that are False.
    """
    w = weights.astype(np.float64).copy()
    mask = np.ones_like(w) if trainable is None else trainable.astype(np.float64)
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    rng = np.random.default_rng(seed)
    step = 0
    best, best_loss = w.copy(), float("inf")
    n = len(data)
    steps_total = epochs * max(1, -(-n // batch))
    for epoch in range(epochs):
        order = rng.permutation(n)
        for start in range(0, n, batch):
            index = np.sort(order[start:start + batch])
            x = data.coefs[index]
            p = data.phase[index]
            wf = w.astype(np.float32)
            e = p * (x @ wf[:, 0]) + (1 - p) * (x @ wf[:, 1])
            s = sigmoid(scale * e / 400)
            # d(mean (s - t)^2)/de = 2 (s - t) s (1 - s) K / 400
            g = (2 * (s - target[index]) * s * (1 - s) * scale / 400 / len(index)).astype(np.float32)
            grad = np.stack([x.T @ (g * p), x.T @ (g * (1 - p))], axis=1).astype(np.float64) * mask
            step += 1
            m = beta1 * m + (1 - beta1) * grad
            v = beta2 * v + (1 - beta2) * grad * grad
            rate = lr * (1 - 0.9 * step / steps_total)
            w -= rate * (m / (1 - beta1 ** step)) / (np.sqrt(v / (1 - beta2 ** step)) + eps) * mask
        line = f"epoch {epoch + 1:3d}  train {loss(data, target, w, scale):.6f}"
        if valid is not None:
            valid_loss = loss(valid, valid_target, w, scale)
            line += f"  validation {valid_loss:.6f}"
            if valid_loss < best_loss:
                best, best_loss = w.copy(), valid_loss
        log(line)
    # With a validation set, the epoch that generalised best is kept (early stopping).
    return w if valid is None else best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", type=Path, nargs="+", help="files written by scripts/make_data.py")
    parser.add_argument("--out", type=Path, default=ev.WEIGHTS_FILE)
    parser.add_argument("--start", type=Path, default=ev.WEIGHTS_FILE, help="weights to start from")
    parser.add_argument("--limit", type=int, help="use only the first N positions (shared among the files)")
    parser.add_argument("--result-share", type=float, default=0.5,
                        help="lambda: the target's share of the game result (the rest: the teacher's score)")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch", type=int, default=16384)
    parser.add_argument("--lr", type=float, default=2.0)
    parser.add_argument("--validation", type=float, default=0.1,
                        help="share of positions held out, in blocks of whole games")
    args = parser.parse_args()

    started = time.monotonic()
    data = build_dataset(args.data, args.limit)
    train, valid = split(data, args.validation)
    print(f"{len(train)} training and {len(valid)} validation positions, {ev.N_FEATURES} features "
          f"x 2 phases ({time.monotonic() - started:.0f} s)")
    teacher_scale = fit_scale(train.score, train.result)
    train_target = targets(train, teacher_scale, args.result_share)
    valid_target = targets(valid, teacher_scale, args.result_share)
    start = ev.load_weights(args.start)
    scale = fit_scale(white_scores(train, start.astype(np.float32)), train_target)
    print(f"teacher scale K_t = {teacher_scale:.4f}; evaluation scale K = {scale:.4f}; "
          f"lambda = {args.result_share}")
    print(f"start     train {loss(train, train_target, start, scale):.6f}  "
          f"validation {loss(valid, valid_target, start, scale):.6f}")
    weights = fit_weights(train, train_target, start, scale, epochs=args.epochs, batch=args.batch,
                          lr=args.lr, valid=valid, valid_target=valid_target)
    rounded = np.rint(weights).astype(np.int64)
    print(f"rounded   train {loss(train, train_target, rounded, scale):.6f}  "
          f"validation {loss(valid, valid_target, rounded, scale):.6f}")
    ev.save_weights(rounded, args.out)
    print(f"wrote {args.out} ({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
