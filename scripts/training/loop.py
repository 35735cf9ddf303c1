"""The training loops: the network's over batches of index lists, the classical evaluation's over
coefficient rows. Both run as a TrainConfig says (scripts/training/config.py), step by Adam with a
linearly falling step size (scripts/training/optim.py), log the training and validation loss of
every epoch and keep the epoch with the lowest validation loss (the last one without a validation
set).
"""
from __future__ import annotations

import time
from typing import Callable, Iterator

import numpy as np

from engine.evaluation import network as nn
from scripts.training.config import TrainConfig
from scripts.training.data.positions import ChunkStream, Positions, mirror_files
from scripts.training.labels import targets
from scripts.training.model import classical
from scripts.training.model import network as model
from scripts.training.optim import Adam, step_size

Batches = Callable[[np.random.Generator], Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]]
Log = Callable[[str], None]


def fit_network(data: Positions, target: np.ndarray, params: nn.Parameters, scale: float,
                config: TrainConfig, valid: tuple[Positions, np.ndarray] | None = None,
                log: Log = print) -> nn.Parameters:
    """The network trained on positions in memory (``valid``: held-out positions and their
    targets).

    With ``config.mirror``, each position of a batch is mirrored a-file to h-file with probability
    1/2: the network does not see castling rights, so a mirrored position is as good an example
    (its label nearly so), and the training set is in effect twice as large."""
    def batches(rng: np.random.Generator):
        order = rng.permutation(len(data))
        for start in range(0, len(data), config.batch):
            index = np.sort(order[start:start + config.batch])
            yield data.us[index], data.them[index], target[index]

    return _fit_batches(batches, len(data), params, scale, config, valid, log)


def fit_network_stream(stream: ChunkStream, params: nn.Parameters, scale: float,
                       result_share: float, config: TrainConfig,
                       valid: tuple[Positions, np.ndarray] | None = None,
                       log: Log = print) -> nn.Parameters:
    """``fit_network`` over chunks read as they are needed, targets made batch by batch."""
    def batches(rng: np.random.Generator):
        for part in stream.batches(config.batch, rng):
            yield part.us, part.them, targets(part, scale, result_share)

    return _fit_batches(batches, len(stream), params, scale, config, valid, log)


def _fit_batches(batches: Batches, n: int, params: nn.Parameters, scale: float,
                 config: TrainConfig, valid: tuple[Positions, np.ndarray] | None, log: Log,
                 progress_every: float = 60.0) -> nn.Parameters:
    """The network's loop: ``batches(rng)`` gives one epoch's (us, them, target) batches, ``n``
    positions in all; each parameter is clipped to what quantisation can represent."""
    weights = {"w1": params.w1.copy(), "b1": params.b1.copy(), "w2": params.w2.copy(),
               "b2": np.array(params.b2, dtype=np.float32)}  # (heads,)
    adam = Adam(weights)
    rng = np.random.default_rng(config.seed)

    def current() -> nn.Parameters:
        return nn.Parameters(weights["w1"].copy(), weights["b1"].copy(), weights["w2"].copy(),
                             weights["b2"].copy())

    total = max(1, config.epochs * n)
    seen = 0
    best, best_loss = current(), float("inf")
    for epoch in range(config.epochs):
        started = last = time.monotonic()
        train_loss, count = 0.0, 0
        for us, them, target in batches(rng):
            if config.mirror:
                rows = rng.random(len(us)) < 0.5
                us, them = mirror_files(us, rows), mirror_files(them, rows)
            batch_loss, grads = model.sparse_gradients(nn.Parameters(**weights), us, them, target,
                                                       scale)
            train_loss += batch_loss * len(us)
            count += len(us)
            seen += len(us)
            rate = np.float32(step_size(config.lr, config.final_lr, seen / total))
            for name, move in adam.directions(grads).items():
                weights[name] = np.clip(weights[name] - rate * move, -model.LIMITS[name],
                                        model.LIMITS[name]).astype(np.float32)
            now = time.monotonic()
            if now - last >= progress_every:
                log(f"  epoch {epoch + 1}: {count:,}/{n:,} positions, train {train_loss / count:.6f}, "
                    f"{count / (now - started):,.0f} positions/s")
                last = now
        # The training loss is the mean over the epoch's batches, as the weights were then.
        elapsed = time.monotonic() - started
        line = f"epoch {epoch + 1:3d}  train {train_loss / max(count, 1):.6f}"
        if valid is not None:
            valid_loss = model.loss(current(), valid[0], valid[1], scale)
            line += f"  validation {valid_loss:.6f}"
            if valid_loss < best_loss:
                best, best_loss = current(), valid_loss
        log(f"{line}  ({elapsed:.1f} s, {count / max(elapsed, 1e-9):,.0f} positions/s)")
    return current() if valid is None else best


def fit_classical(data: classical.Dataset, target: np.ndarray, weights: np.ndarray, scale: float,
                  config: TrainConfig, trainable: np.ndarray | None = None,
                  valid: tuple[classical.Dataset, np.ndarray] | None = None,
                  log: Log = print) -> np.ndarray:
    """The classical evaluation's float weights fitted to ``data`` (``config.lr`` in centipawns a
    step); ``trainable`` (bool, like ``weights``) freezes the weights that are False."""
    w = weights.astype(np.float64).copy()
    mask = np.ones_like(w) if trainable is None else trainable.astype(np.float64)
    adam = Adam({"w": w})
    rng = np.random.default_rng(config.seed)
    best, best_loss = w.copy(), float("inf")
    n = len(data)
    steps_total = config.epochs * max(1, -(-n // config.batch))
    for epoch in range(config.epochs):
        order = rng.permutation(n)
        for start in range(0, n, config.batch):
            index = np.sort(order[start:start + config.batch])
            grad = classical.gradient(data.take(index), target[index], w, scale) * mask
            move = adam.directions({"w": grad})["w"]
            w -= step_size(config.lr, config.final_lr, adam.steps / steps_total) * move * mask
        line = f"epoch {epoch + 1:3d}  train {classical.loss(data, target, w, scale):.6f}"
        if valid is not None:
            valid_loss = classical.loss(valid[0], valid[1], w, scale)
            line += f"  validation {valid_loss:.6f}"
            if valid_loss < best_loss:
                best, best_loss = w.copy(), valid_loss
        log(line)
    return w if valid is None else best
