"""The network's training side: its float32 parameters from scratch or from a trained network,
the forward pass and the hand-written backward pass over batches of index lists
(scripts/training/data/positions.py), and the fold into the engine's layout.

The first layer is sparse: an accumulator is the sum of the weight rows of its position's men (a
numba kernel, both cores), and its gradient is added back into just those rows, so a batch costs
~30 men x H, not 768 x H. A dense version of the same passes (``DenseInputs``, ``gradients``) is the
reference the kernels are tested against. The loss is the mean squared error of sigmoid(K_t * out
/ 400) against the targets (scripts/training/labels.py).
"""
from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

from engine.evaluation import network as nn
from scripts.training.data.positions import PAD, Positions, board_of
from scripts.training.labels import sigmoid

# Limits that keep every parameter representable once quantised.
LIMITS = {"w1": np.iinfo(np.int16).max / nn.QA, "b1": np.iinfo(np.int16).max / nn.QA,
          "w2": np.iinfo(np.int16).max / nn.QB, "b2": np.iinfo(np.int32).max / (nn.QA * nn.QB)}


def initialise(hidden: int, seed: int, buckets: int = 1, heads: int = 1) -> nn.Parameters:
    """Kaiming-like random weights (for the 768 inputs, then the 2H activations), zero biases;
    with king buckets, the factorised first layer's bucket rows start at zero (see
    scripts/training/data/positions.py index_lists).
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
    the first MAX_ACTIVE slots that are not PAD, factorised or not), by engine/evaluation/network.py's rule."""
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


def quantised_losses(params: nn.Parameters, network: nn.Network, data: Positions,
                     target: np.ndarray, scale: float) -> tuple[float, float]:
    """The float network's loss and the integer kernel's on the same positions."""
    scores = np.array([nn.network_evaluate(board_of(us), network) for us in data.us], dtype=np.float64)
    kernel_loss = float(np.mean((sigmoid(scale * scores / 400) - target) ** 2))
    return loss(params, data, target, scale), kernel_loss
