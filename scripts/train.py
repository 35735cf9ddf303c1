#!/usr/bin/env python3
"""Trains the neural-network evaluation (engine/network.py) on labelled positions, in numpy.

    .venv/bin/python scripts/train.py                      # every chunk of the data folder
    .venv/bin/python scripts/train.py ~/.local/share/brudno/data --epochs 4 --out /tmp/net.npz
    .venv/bin/python scripts/train.py data/sf4k.txt data/sf2k-s3.txt   # text files (dataset.py)

Two sources, one training loop (the positions and their reading: scripts/training_data.py):

- **Chunks** (scripts/chunks.py, written by scripts/gen_data.py; a folder or chunk files, by
  default the data folder): streamed a few chunks at a time, shuffled within that buffer, decoded
  to index lists batch by batch, so memory does not grow with the data. Whole chunks (whole games)
  are held out for validation: every 10th (``--validation 0.1``) until they hold
  ``--valid-limit`` positions, and the first that many validate; held-out chunks past that train.
- **Text files** (scripts/dataset.py, from scripts/make_data.py): read whole and encoded once,
  cached beside the first file (``*.net.npz``); whole games are held out in blocks.

The teacher's scale K_t is fitted as in scripts/tune.py (over chunks, on the first million
training positions): the target of a position is lambda * result + (1 - lambda) * sigmoid(K_t *
teacher score / 400), and the network's prediction sigmoid(K_t * out / 400), so that its output
is on the teacher's centipawn scale. Adam on mini-batches of the mean squared error, with
hand-written gradients. The first layer is sparse:
an accumulator is the sum of the weight rows of its position's men (a numba kernel, both cores),
and its gradient is added back into just those rows, so a batch costs ~30 men x H, not 768 x H.
The learning rate falls linearly to a tenth of itself (``--final-lr``) by the last position of
the last epoch; train and validation loss are printed per epoch and the epoch with the lowest
validation loss is kept. With output buckets (``--output-buckets N``) each position's number of
men chooses the output layer it goes through (engine/network.py `output_head`), and only that
layer learns from it.

The kept parameters are quantised and written to ``--out``, after a check of the integer kernel's
loss on a sample of validation positions, which shows what quantisation costs.
"""
from __future__ import annotations

import argparse
import functools
import sys
import time
from pathlib import Path
from typing import Callable, Iterator

import numpy as np
import numba
from numba import njit, prange

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from engine import network as nn  # noqa: E402
import chunks  # noqa: E402
from training_data import (PAD, ChunkStream, Positions, board_of, build_positions,  # noqa: E402
                           chunk_files, chunk_split, first_chunks)
from tune import fit_scale, sigmoid, split, targets  # noqa: E402

QUANTISED_SAMPLE = 5000
SCALE_SAMPLE = 1_000_000  # training positions K_t is fitted on

# Limits that keep every parameter representable once quantised.
LIMITS = {"w1": np.iinfo(np.int16).max / nn.QA, "b1": np.iinfo(np.int16).max / nn.QA,
          "w2": np.iinfo(np.int16).max / nn.QB, "b2": np.iinfo(np.int32).max / (nn.QA * nn.QB)}


# ---------------------------------------------------------------------------
# The network in float32, batch by batch.
# ---------------------------------------------------------------------------


def initialise(hidden: int, seed: int, buckets: int = 1, heads: int = 1) -> nn.Parameters:
    """Kaiming-like random weights (for the 768 inputs, then the 2H activations), zero biases;
    with king buckets, the factorised first layer's bucket rows start at zero (see training_data.index_lists).
    Every output head starts as the same layer, so that a network of several heads starts as the
    one-head network of the same seed and each head moves away from it on its own positions."""
    rng = np.random.default_rng(seed)
    shared = rng.normal(0, np.sqrt(2 / nn.N_INPUTS), (nn.N_INPUTS, hidden)).astype(np.float32)
    w1 = shared if buckets == 1 else np.concatenate(
        [shared, np.zeros((buckets * nn.N_INPUTS, hidden), dtype=np.float32)])
    w2 = rng.normal(0, np.sqrt(1 / (2 * hidden)), 2 * hidden).astype(np.float32)
    return nn.Parameters(w1, np.zeros(hidden, dtype=np.float32), np.tile(w2, (heads, 1)),
                         np.zeros(heads, dtype=np.float32))


def warm_start(network: nn.Network, buckets: int = 1, heads: int = 1, hidden: int | None = None,
               seed: int = 1) -> nn.Parameters:
    """A trained network's float parameters as the start of another run: its one output layer
    copied into every head, with king buckets its first layer as the factorised shared rows (the
    bucket rows at zero), and with a larger ``hidden`` its accumulator widened by new neurons of
    random first-layer weights and zero output weights, so that the new layout starts as exactly
    the old network (the output weights' gradients start the new neurons)."""
    start = network.dequantised()
    hidden = hidden or start.hidden
    if start.buckets != 1 or start.heads not in (1, heads) or hidden < start.hidden:
        raise ValueError(f"a network of {start.buckets} king bucket(s), {start.heads} head(s) and "
                         f"H = {start.hidden} cannot start one of {buckets}, {heads} and H = {hidden}")
    new = hidden - start.hidden
    w1 = np.concatenate([start.w1, initialise(new, seed).w1], axis=1) if new else start.w1
    if buckets != 1:
        w1 = np.concatenate([w1, np.zeros((buckets * nn.N_INPUTS, hidden), dtype=np.float32)])
    b1 = np.concatenate([start.b1, np.zeros(new, dtype=np.float32)])
    zeros = np.zeros((start.heads, new), dtype=np.float32)
    w2 = np.concatenate([start.w2[:, :start.hidden], zeros, start.w2[:, start.hidden:], zeros], axis=1)
    return nn.Parameters(np.ascontiguousarray(w1, dtype=np.float32), b1,
                         np.tile(w2, (heads // start.heads, 1)),
                         np.tile(start.b2, heads // start.heads).astype(np.float32))


def fold(params: nn.Parameters) -> nn.Parameters:
    """The engine's layout of trained parameters: a factorised first layer (shared rows, then
    each bucket's) becomes each bucket's rows plus the shared ones; other layouts are unchanged."""
    rows = params.w1.shape[0]
    if rows == nn.N_INPUTS:
        return params
    shared, buckets = params.w1[:nn.N_INPUTS], params.w1[nn.N_INPUTS:]
    w1 = (buckets.reshape(-1, nn.N_INPUTS, params.hidden) + shared).reshape(-1, params.hidden)
    return nn.Parameters(np.ascontiguousarray(w1, dtype=np.float32), params.b1, params.w2, params.b2)


class DenseInputs:
    """A dense 0/1 input matrix of ``inputs`` columns (the first layer's rows) reused batch after
    batch: rows [0, b) hold the batch's `us` perspectives, rows [b, 2b) its `them` ones. Column PAD
    absorbs the padding and is left out of the products. The reference the sparse kernels are
    tested against; training does not use it."""

    def __init__(self, batch: int, inputs: int = nn.N_INPUTS) -> None:
        self.x = np.zeros((2 * batch, PAD + 1), dtype=np.float32)
        self.inputs = inputs
        self.ones = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))

    def fill(self, us: np.ndarray, them: np.ndarray) -> np.ndarray:
        self.x[self.ones] = 0
        self.ones = (np.arange(2 * len(us))[:, None], np.concatenate([us, them]))
        self.x[self.ones] = 1
        return self.x[:2 * len(us), :self.inputs]


@njit(cache=True)
def _heads_of(men, heads):  # pragma: no cover - compiled
    head = np.empty(men.shape[0], dtype=np.int64)
    for i in range(men.shape[0]):
        head[i] = nn.output_head(men[i], heads)
    return head


def output_heads(us: np.ndarray, heads: int) -> np.ndarray:
    """The output head of each position of the index lists ``us`` (its men are the entries of
    the first MAX_ACTIVE slots that are not PAD, factorised or not), by engine/network.py's rule."""
    return _heads_of((us[:, :nn.MAX_ACTIVE] != PAD).sum(axis=1).astype(np.int64), heads)


# The sparse first layer: numba kernels over the index lists, parallel over both cores. A batch's
# index list has its `us` perspectives in rows [0, b) and its `them` ones in rows [b, 2b); head[i]
# is position i's output head (the row of w2 and b2 it uses).

@njit(parallel=True, cache=True)
def _forward_kernel(w1, b1, w2, b2, head, index, acc, out):  # pragma: no cover - compiled
    """acc[r] = b1 + the sum of w1's rows listed in index[r] (PAD skipped); out[i] = the
    network's output for position i from its two accumulators, through its head."""
    b, hidden = out.shape[0], b1.shape[0]
    for i in prange(b):
        h = head[i]
        total = b2[h]
        for side in range(2):
            r = i + side * b
            for j in range(hidden):
                acc[r, j] = b1[j]
            for s in range(index.shape[1]):
                row = index[r, s]
                if row < w1.shape[0]:
                    for j in range(hidden):
                        acc[r, j] += w1[row, j]
            for j in range(hidden):
                x = min(max(acc[r, j], 0.0), 1.0)
                total += x * x * w2[h, side * hidden + j]
        out[i] = total


@njit(parallel=True, cache=True)
def _backward_kernel(w2, head, index, acc, d_out, g_w1, g_b1, g_w2):  # pragma: no cover - compiled
    """The gradients of w1, b1 and w2 given the loss's by the outputs (d_out): positions are
    split among the g_*.shape[0] threads, each adding into its own buffers (the caller sums
    them); w1's gradient goes only to the rows of the inputs that were active, w2's only to each
    position's head."""
    b, hidden = d_out.shape[0], g_b1.shape[1]
    parts = g_w1.shape[0]
    for t in prange(parts):
        d = np.empty(hidden, dtype=acc.dtype)
        for i in range(t * b // parts, (t + 1) * b // parts):
            h = head[i]
            for side in range(2):
                r = i + side * b
                for j in range(hidden):
                    x = acc[r, j]
                    k = side * hidden + j
                    # SCReLU: x^2 on (0, 1), its derivative 2x; 1 (flat) above, 0 below.
                    if 0.0 < x < 1.0:
                        d[j] = d_out[i] * w2[h, k] * 2 * x
                        g_w2[t, h, k] += d_out[i] * x * x
                    else:
                        d[j] = 0.0
                        if x >= 1.0:
                            g_w2[t, h, k] += d_out[i]
                    g_b1[t, j] += d[j]
                for s in range(index.shape[1]):
                    row = index[r, s]
                    if row < g_w1.shape[1]:
                        for j in range(hidden):
                            g_w1[t, row, j] += d[j]


def _sparse_forward(params: nn.Parameters, us: np.ndarray, them: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(index lists, output heads (b,), accumulators (2b, H), outputs (b,) in units of
    OUTPUT_SCALE centipawns)."""
    index = np.ascontiguousarray(np.concatenate([us, them]))
    head = output_heads(us, params.heads)
    w1 = np.ascontiguousarray(params.w1)
    dtype = w1.dtype
    acc = np.empty((len(index), params.hidden), dtype=dtype)
    out = np.empty(len(us), dtype=dtype)
    _forward_kernel(w1, np.ascontiguousarray(params.b1, dtype=dtype),
                    np.ascontiguousarray(params.w2, dtype=dtype),
                    np.ascontiguousarray(params.b2, dtype=dtype), head, index, acc, out)
    return index, head, acc, out


def _forward(params: nn.Parameters, acc: np.ndarray,
             head: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(The dense reference's.) The activations of the accumulators (2b, H) and the outputs (b,)
    in units of OUTPUT_SCALE centipawns, position i through head[i]."""
    active = nn.screlu(acc)
    b, hidden = len(acc) // 2, params.hidden
    w2 = params.w2[head]
    out = ((active[:b] * w2[:, :hidden]).sum(axis=1) + (active[b:] * w2[:, hidden:]).sum(axis=1)
           + params.b2[head])
    return active, out


def outputs(params: nn.Parameters, data: Positions, batch: int = 8192) -> np.ndarray:
    """The float network's output of every position, in units of OUTPUT_SCALE centipawns."""
    out = np.empty(len(data), dtype=np.float32)
    for start in range(0, len(data), batch):
        end = start + batch
        out[start:end] = _sparse_forward(params, data.us[start:end], data.them[start:end])[3]
    return out


def loss(params: nn.Parameters, data: Positions, target: np.ndarray, scale: float) -> float:
    """Mean squared error of sigmoid(K_t * out / 400) against the targets."""
    prediction = sigmoid(scale * nn.OUTPUT_SCALE / 400 * outputs(params, data))
    return float(np.mean((prediction - target) ** 2))


def _head_sums(values: np.ndarray, head: np.ndarray, heads: int) -> np.ndarray:
    """The sum of ``values`` (by position, first axis) over each head's positions: (heads, ...)."""
    return np.stack([values[head == h].sum(axis=0) for h in range(heads)])


def _backward(params: nn.Parameters, acc: np.ndarray, head: np.ndarray, target: np.ndarray,
              scale: float) -> tuple[float, np.ndarray, dict[str, np.ndarray]]:
    """The batch's loss, the gradient by the accumulators (2b, H), and those of b1, w2, b2."""
    active, out = _forward(params, acc, head)
    b, hidden = len(target), params.hidden
    k = scale * nn.OUTPUT_SCALE / 400
    p = sigmoid(k * out)
    error = p - target
    # The loss is mean((p - t)^2) with p = sigmoid(k * out).
    d_out = (2 / b) * error * p * (1 - p) * k
    w2 = params.w2[head]
    d_active = np.concatenate([d_out[:, None] * w2[:, :hidden], d_out[:, None] * w2[:, hidden:]])
    # SCReLU's derivative: 2x on (0, 1), 0 elsewhere.
    d_acc = d_active * (2 * acc) * ((acc > 0) & (acc < 1))
    both = np.concatenate([active[:b], active[b:]], axis=1)  # position i's 2H activations
    return float(np.mean(error ** 2)), d_acc, {
        "b1": d_acc.sum(axis=0), "w2": _head_sums(both * d_out[:, None], head, params.heads),
        "b2": _head_sums(d_out, head, params.heads)}


def gradients(params: nn.Parameters, x: np.ndarray, target: np.ndarray,
              scale: float) -> tuple[float, dict[str, np.ndarray]]:
    """The mean squared error of a batch and its gradient by parameter name; ``x`` holds the
    batch's dense inputs, its `us` rows then its `them` rows (the dense reference). A position's
    men are its `us` row's shared inputs (the first 768)."""
    men = np.rint(x[:len(target), :nn.N_INPUTS].sum(axis=1)).astype(np.int64)
    head = _heads_of(men, params.heads)
    batch_loss, d_acc, grads = _backward(params, x @ params.w1 + params.b1, head, target, scale)
    return batch_loss, {"w1": x.T @ d_acc, **grads}


def sparse_gradients(params: nn.Parameters, us: np.ndarray, them: np.ndarray, target: np.ndarray,
                     scale: float) -> tuple[float, dict[str, np.ndarray]]:
    """``gradients`` from the index lists: the first layer as sums of rows, and its gradient
    added into the rows of the inputs that were active (two numba kernels; no dense inputs)."""
    index, head, acc, out = _sparse_forward(params, us, them)
    b = len(target)
    k = scale * nn.OUTPUT_SCALE / 400
    p = sigmoid(k * out)
    error = p - target
    d_out = ((2 / b) * error * p * (1 - p) * k).astype(acc.dtype)
    threads = numba.get_num_threads()
    g_w1 = np.zeros((threads, params.w1.shape[0], params.hidden), dtype=acc.dtype)
    g_b1 = np.zeros((threads, params.hidden), dtype=acc.dtype)
    g_w2 = np.zeros((threads, params.heads, 2 * params.hidden), dtype=acc.dtype)
    _backward_kernel(np.ascontiguousarray(params.w2, dtype=acc.dtype), head, index, acc, d_out,
                     g_w1, g_b1, g_w2)
    return float(np.mean(error ** 2)), {"w1": g_w1.sum(axis=0), "b1": g_b1.sum(axis=0),
                                        "w2": g_w2.sum(axis=0),
                                        "b2": _head_sums(d_out, head, params.heads)}


def mirror_files(inputs: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``inputs`` with the board of each of ``rows`` (bool, one per position) mirrored from the
    a-file to the h-file: a square's file is its index's low three bits."""
    flip = rows[:, None] & (inputs != PAD)
    return np.where(flip, inputs ^ 7, inputs)


Batches = Callable[[np.random.Generator], Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]]


def fit(data: Positions, target: np.ndarray, params: nn.Parameters, scale: float, *,
        epochs: int = 10, batch: int = 4096, lr: float = 3e-3, final_lr: float = 0.1,
        valid: Positions | None = None, valid_target: np.ndarray | None = None,
        mirror: bool = False, seed: int = 1, log: Callable[[str], None] = print) -> nn.Parameters:
    """Adam on mini-batches of the positions in memory; returns the parameters of the epoch with
    the lowest validation loss (of the last epoch without a validation set).

    With ``mirror``, each position of a batch is mirrored a-file to h-file with probability 1/2:
    the network does not see castling rights, so a mirrored position is as good an example (its
    label nearly so), and the training set is in effect twice as large."""
    def batches(rng: np.random.Generator):
        order = rng.permutation(len(data))
        for start in range(0, len(data), batch):
            index = np.sort(order[start:start + batch])
            yield data.us[index], data.them[index], target[index]

    return _train(batches, len(data), params, scale, epochs=epochs, lr=lr, final_lr=final_lr,
                  valid=valid, valid_target=valid_target, mirror=mirror, seed=seed, log=log)


def fit_stream(stream: ChunkStream, params: nn.Parameters, scale: float, result_share: float, *,
               epochs: int = 4, batch: int = 8192, lr: float = 3e-3, final_lr: float = 0.1,
               valid: Positions | None = None, valid_target: np.ndarray | None = None,
               mirror: bool = True, seed: int = 1,
               log: Callable[[str], None] = print) -> nn.Parameters:
    """``fit`` over chunks read as they are needed (ChunkStream), targets made batch by batch."""
    def batches(rng: np.random.Generator):
        for part in stream.batches(batch, rng):
            yield part.us, part.them, targets(part, scale, result_share)

    return _train(batches, len(stream), params, scale, epochs=epochs, lr=lr, final_lr=final_lr,
                  valid=valid, valid_target=valid_target, mirror=mirror, seed=seed, log=log)


def step_size(lr: float, final_lr: float, progress: float) -> float:
    """Adam's step size after ``progress`` (0 to 1) of the training: linear from ``lr`` down to
    ``final_lr * lr``."""
    return lr * (1 - (1 - final_lr) * min(1.0, progress))


def _train(batches: Batches, n: int, params: nn.Parameters, scale: float, *, epochs: int,
           lr: float, final_lr: float, valid: Positions | None,
           valid_target: np.ndarray | None, mirror: bool,
           seed: int, log: Callable[[str], None], progress_every: float = 60.0) -> nn.Parameters:
    """The training loop of fit and fit_stream: ``batches(rng)`` gives one epoch's (us, them,
    target) batches, ``n`` positions in all."""
    weights = {"w1": params.w1.copy(), "b1": params.b1.copy(), "w2": params.w2.copy(),
               "b2": np.array(params.b2, dtype=np.float32)}  # (heads,)
    m = {name: np.zeros_like(value) for name, value in weights.items()}
    v = {name: np.zeros_like(value) for name, value in weights.items()}
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    rng = np.random.default_rng(seed)

    def current() -> nn.Parameters:
        return nn.Parameters(weights["w1"].copy(), weights["b1"].copy(), weights["w2"].copy(),
                             weights["b2"].copy())

    total = max(1, epochs * n)
    seen, step = 0, 0
    best, best_loss = current(), float("inf")
    for epoch in range(epochs):
        started = last = time.monotonic()
        train_loss, count = 0.0, 0
        for us, them, target in batches(rng):
            if mirror:
                rows = rng.random(len(us)) < 0.5
                us, them = mirror_files(us, rows), mirror_files(them, rows)
            batch_loss, grads = sparse_gradients(nn.Parameters(**weights), us, them, target, scale)
            train_loss += batch_loss * len(us)
            count += len(us)
            seen += len(us)
            step += 1
            rate = np.float32(step_size(lr, final_lr, seen / total))
            for name, grad in grads.items():
                m[name] = beta1 * m[name] + (1 - beta1) * grad
                v[name] = beta2 * v[name] + (1 - beta2) * grad * grad
                update = (m[name] / (1 - beta1 ** step)) / (np.sqrt(v[name] / (1 - beta2 ** step)) + eps)
                weights[name] = np.clip(weights[name] - rate * update,
                                        -LIMITS[name], LIMITS[name]).astype(np.float32)
            now = time.monotonic()
            if now - last >= progress_every:
                log(f"  epoch {epoch + 1}: {count:,}/{n:,} positions, train {train_loss / count:.6f}, "
                    f"{count / (now - started):,.0f} positions/s")
                last = now
        # The training loss is the mean over the epoch's batches, as the weights were then.
        elapsed = time.monotonic() - started
        line = f"epoch {epoch + 1:3d}  train {train_loss / max(count, 1):.6f}"
        if valid is not None:
            valid_loss = loss(current(), valid, valid_target, scale)
            line += f"  validation {valid_loss:.6f}"
            if valid_loss < best_loss:
                best, best_loss = current(), valid_loss
        log(f"{line}  ({elapsed:.1f} s, {count / max(elapsed, 1e-9):,.0f} positions/s)")
    return current() if valid is None else best


def quantised_losses(params: nn.Parameters, network: nn.Network, data: Positions,
                     target: np.ndarray, scale: float) -> tuple[float, float]:
    """The float network's loss and the integer kernel's on the same positions."""
    scores = np.array([nn.network_evaluate(board_of(us), network) for us in data.us], dtype=np.float64)
    kernel_loss = float(np.mean((sigmoid(scale * scores / 400) - target) ** 2))
    return loss(params, data, target, scale), kernel_loss


def provenance(positions: int, paths: list[Path], args: argparse.Namespace, buckets: int,
               epochs: int) -> str:
    """What a weight file records of its training: the positions, the generator settings of the
    chunks (from their headers), the network's shape and the trainer's settings."""
    settings: dict[str, int] = {}
    for path in paths:
        if path.suffix == chunks.SUFFIX:
            header = chunks.read_header(path)[0]
            key = (f"{header.get('teacher', '?')} at {header.get('nodes', '?')} nodes, "
                   f"{header.get('min_random_plies', '?')}-{header.get('random_plies', '?')} random "
                   f"plies, {header.get('play_out', '?')} played out, "
                   f"{header.get('chess960', 0)} Chess960")
            settings[key] = settings.get(key, 0) + header["count"]
    generators = "; ".join(f"{count:,} by {key}" for key, count in settings.items()) or "text files"
    falling = f" falling to {args.final_lr:g} of it" if args.final_lr != 0.1 else ""
    return (f"{positions:,} training positions ({generators}); H = {args.hidden}, "
            f"{buckets} king bucket(s), {args.output_buckets} output bucket(s) by men, {epochs} "
            f"epochs, step size {args.lr}{falling}, lambda {args.result_share}; scripts/train.py, "
            f"{time.strftime('%Y-%m-%d')}"
            + (f"; continued from {args.init.name} ({nn.network_provenance(args.init)})"
               if args.init is not None else ""))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", type=Path, nargs="*",
                        help="chunk folders or files (default: the data folder, see scripts/chunks.py), "
                             "or text files written by scripts/make_data.py")
    parser.add_argument("--out", type=Path, default=nn.NETWORK_FILE)
    parser.add_argument("--hidden", type=int, help=f"H, the accumulator's size (default {nn.HIDDEN}, "
                        "or the --init network's; larger than its: widened)")
    parser.add_argument("--epochs", type=int, default=None, help="passes over the data (default "
                                                                  "4 over chunks, 10 over text files)")
    parser.add_argument("--batch", type=int, default=None, help="positions a batch (default 8192 "
                                                                "over chunks, 4096 over text files)")
    parser.add_argument("--lr", type=float, default=3e-3, help="Adam's step size at the start")
    parser.add_argument("--final-lr", type=float, default=0.1, metavar="SHARE",
                        help="the step size at the end, as a share of --lr (default 0.1)")
    parser.add_argument("--limit", type=int, help="use only the first N positions (text files: "
                                                  "shared among the files; chunks: whole training "
                                                  "chunks, the validation set unchanged)")
    parser.add_argument("--validation", type=float, default=0.1,
                        help="share of positions held out, in whole games")
    parser.add_argument("--valid-limit", type=int, default=200_000,
                        help="chunks: at most this many validation positions")
    parser.add_argument("--result-share", type=float, default=0.0,
                        help="lambda: the target's share of the game result; the rest is the "
                             "teacher's score (default 0: learn the teacher's scores only)")
    parser.add_argument("--king-buckets", action="store_true",
                        help=f"a first layer for each of the {nn.N_BUCKETS} king buckets of "
                             "engine/network.py (trained factorised)")
    parser.add_argument("--output-buckets", type=int, default=1, metavar="N",
                        help="N output layers, chosen by the number of men on the board "
                             "(engine/network.py output_head; 8: one for each 4 men)")
    parser.add_argument("--init", type=Path, metavar="NPZ",
                        help="start from this weight file (e.g. the shipped network: its training "
                             "continues on the data given) instead of random weights; H from it")
    parser.add_argument("--teacher-scale", type=float, metavar="K",
                        help="K_t as given instead of fitted (e.g. the --init network's: a K_t "
                             "fitted on other data moves the output's scale)")
    parser.add_argument("--no-mirror", dest="mirror", action="store_false",
                        help="do not mirror half of each batch a-file to h-file")
    parser.add_argument("--seed", type=int, default=1, help="seeds the initial weights and the batches")
    args = parser.parse_args(argv)
    buckets = nn.N_BUCKETS if args.king_buckets else 1
    if not 1 <= args.output_buckets <= nn.MAX_HEADS:
        parser.error(f"--output-buckets must be 1 to {nn.MAX_HEADS}")

    start = None
    if args.init is not None:
        start = nn.load_network(args.init)
        args.hidden = args.hidden or start.hidden
        if args.hidden < start.hidden:
            parser.error(f"--hidden {args.hidden}: --init's network has H = {start.hidden}")
    args.hidden = args.hidden or nn.HIDDEN
    started = time.monotonic()
    # Flushed line by line, so that a run logging to a file can be followed.
    log = functools.partial(print, flush=True)
    paths = args.data or [chunks.data_folder()]
    files = chunk_files(paths)
    if files is not None:
        try:
            train_paths, valid_paths = chunk_split(files, args.validation, args.valid_limit)
        except ValueError as error:
            parser.error(f"{', '.join(map(str, paths))}: {error}")
        # K_t from the first training chunks before the limit: one scale in every run while
        # the folder only grows, whatever the limit (a sample spread over the folder moved with
        # it, from 2.75 to 2.85, and the validation loss moves with K_t).
        sample = ChunkStream(first_chunks(train_paths, SCALE_SAMPLE)).load(SCALE_SAMPLE)
        teacher_scale = args.teacher_scale or fit_scale(sample.score, sample.result)
        if args.limit is not None:
            # After the split, so that the validation set is the same whatever the limit.
            train_paths = first_chunks(train_paths, args.limit)
        stream = ChunkStream(train_paths, buckets=buckets)
        valid = ChunkStream(valid_paths, buckets=buckets).load(args.valid_limit)
        log(f"{len(stream):,} training positions in {len(train_paths)} chunks, {len(valid):,} "
            f"validation positions from {len(valid_paths)} ({time.monotonic() - started:.0f} s)")
    else:
        data = build_positions(paths, args.limit, buckets=buckets)
        train, valid = split(data, args.validation)
        if not len(train) or not len(valid):
            parser.error(f"{len(data)} positions are too few to hold out whole games for validation")
        log(f"{len(train)} training and {len(valid)} validation positions "
            f"({time.monotonic() - started:.0f} s)")
        teacher_scale = args.teacher_scale or fit_scale(train.score, train.result)
    valid_target = targets(valid, teacher_scale, args.result_share)
    log(f"teacher scale K_t = {teacher_scale:.4f}; lambda = {args.result_share}; "
        f"H = {args.hidden}; king buckets: {buckets}; output buckets: {args.output_buckets}; "
        f"mirrored batches: {args.mirror}")
    if start is None:
        params = initialise(args.hidden, args.seed, buckets, args.output_buckets)
    else:
        params = warm_start(start, buckets, args.output_buckets, args.hidden, args.seed)
        log(f"started from {args.init}: {nn.network_provenance(args.init)}")
    log(f"start      validation {loss(params, valid, valid_target, teacher_scale):.6f}")
    if files is not None:
        params = fit_stream(stream, params, teacher_scale, args.result_share,
                            epochs=args.epochs or 4, batch=args.batch or 8192, lr=args.lr,
                            final_lr=args.final_lr,
                            valid=valid, valid_target=valid_target, mirror=args.mirror,
                            seed=args.seed, log=log)
    else:
        train_target = targets(train, teacher_scale, args.result_share)
        params = fit(train, train_target, params, teacher_scale, epochs=args.epochs or 10,
                     batch=args.batch or 4096, lr=args.lr, final_lr=args.final_lr, valid=valid,
                     valid_target=valid_target,
                     mirror=args.mirror, seed=args.seed, log=log)
    network = nn.save_network(fold(params), args.out, provenance(
        len(stream) if files is not None else len(train),
        train_paths if files is not None else paths, args, buckets,
        args.epochs or (4 if files is not None else 10)))
    sample = np.sort(np.random.default_rng(args.seed).permutation(len(valid))[:QUANTISED_SAMPLE])
    float_loss, kernel_loss = quantised_losses(params, network, valid.take(sample),
                                               valid_target[sample], teacher_scale)
    log(f"quantised  on {len(sample)} validation positions: float {float_loss:.6f}, "
        f"integer kernel {kernel_loss:.6f}")
    log(f"wrote {args.out} ({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
