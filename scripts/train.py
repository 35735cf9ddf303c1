#!/usr/bin/env python3
"""Trains the neural-network evaluation (engine/network.py) on labelled positions, in numpy.

    .venv/bin/python scripts/train.py data/sf4k.txt data/sf2k-s3.txt --out engine/weights/network.npz

1. Every position becomes the active inputs of its two perspectives (side to move, other side),
   with the teacher's score and the result turned to the side to move's view; these arrays are
   cached beside the first data file (``*.net.npz``), so later runs start at once.
2. Whole games are held out for validation, and the teacher's scale K_t is fitted as in
   scripts/tune.py: the target of a position is lambda * result + (1 - lambda) *
   sigmoid(K_t * teacher score / 400), and the network's prediction sigmoid(K_t * out / 400), so
   that its output is on the teacher's centipawn scale.
3. Adam on mini-batches of the mean squared error, with hand-written gradients (each batch's
   inputs are a dense 0/1 matrix, so the layers are matrix products); the learning rate falls
   linearly to a tenth of itself by the last epoch. Train and validation loss are printed per
   epoch and the epoch with the lowest validation loss is kept.

The kept parameters are quantised and written to ``--out``, after a check of the integer kernel's
loss on a sample of validation positions, which shows what quantisation costs.
"""
from __future__ import annotations

import argparse
import functools
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import chess
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from engine import network as nn  # noqa: E402
from dataset import cache_path, read_samples  # noqa: E402
from tune import fit_scale, sigmoid, split, targets  # noqa: E402

CACHE_VERSION = 1
PAD = nn.N_INPUTS  # the index lists are padded with this input, which has no weights
QUANTISED_SAMPLE = 5000

# Limits that keep every parameter representable once quantised.
LIMITS = {"w1": np.iinfo(np.int16).max / nn.QA, "b1": np.iinfo(np.int16).max / nn.QA,
          "w2": np.iinfo(np.int16).max / nn.QB, "b2": np.iinfo(np.int32).max / (nn.QA * nn.QB)}


@dataclass
class Positions:
    """Positions as the network sees them, everything from the side to move's point of view."""

    us: np.ndarray  # int16 (n, 32): active inputs of the side to move's perspective, PAD-padded
    them: np.ndarray  # int16 (n, 32): ... of the other side's perspective
    score: np.ndarray  # float32 (n,): the teacher's centipawns
    result: np.ndarray  # float32 (n,): 1 won, 0.5 drawn, 0 lost
    source: np.ndarray  # int32 (n,): which file, in file order (see tune.split)

    def __len__(self) -> int:
        return len(self.score)

    def take(self, index: np.ndarray | slice) -> "Positions":
        return Positions(self.us[index], self.them[index], self.score[index], self.result[index],
                         self.source[index])


# A FEN's board field with its digits spelt out as that many "1"s and no slashes has one character
# per square, a8 first; _PIECE_CODE turns the characters into 0 (empty) or 1 + piece index
# (White's pawn .. king, then Black's), 255 for anything else.
_SPELL_OUT = str.maketrans({**{str(d): "1" * d for d in range(1, 9)}, "/": None})
_PIECE_CODE = np.full(256, 255, dtype=np.uint8)
_PIECE_CODE[ord("1")] = 0
for _code, _symbol in enumerate("PNBRQKpnbrqk", start=1):
    _PIECE_CODE[ord(_symbol)] = _code


def encode(board_fields: list[str], white_to_move: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The (us, them) index lists of positions given by their FEN board fields: int16, one row of
    MAX_ACTIVE a position, padded with PAD."""
    spelt = [field.translate(_SPELL_OUT) for field in board_fields]
    for field, squares in zip(board_fields, spelt):
        if len(squares) != 64:
            raise ValueError(f"not a FEN board: {field!r}")
    codes = _PIECE_CODE[np.frombuffer("".join(spelt).encode("ascii"), dtype=np.uint8)]
    if (codes == 255).any():
        raise ValueError("a FEN board holds an unknown piece letter")
    codes = codes.reshape(len(spelt), 64)
    rows, at = np.nonzero(codes)
    piece = codes[rows, at].astype(np.int64) - 1
    colour, kind = piece // 6, piece % 6  # colour 0 White
    # The string runs a8..h1, so position `at` is square at ^ 56 (White's view); Black's
    # perspective flips it back and swaps the colours.
    white_view = colour * 384 + kind * 64 + (at ^ 56)
    black_view = (1 - colour) * 384 + kind * 64 + at
    counts = np.bincount(rows, minlength=len(spelt))
    if counts.max(initial=0) > nn.MAX_ACTIVE:
        raise ValueError(f"a position has more than {nn.MAX_ACTIVE} men")
    slot = np.arange(len(rows)) - (np.cumsum(counts) - counts)[rows]
    stm_white = white_to_move[rows]
    us = np.full((len(spelt), nn.MAX_ACTIVE), PAD, dtype=np.int16)
    them = np.full((len(spelt), nn.MAX_ACTIVE), PAD, dtype=np.int16)
    us[rows, slot] = np.where(stm_white, white_view, black_view)
    them[rows, slot] = np.where(stm_white, black_view, white_view)
    return us, them


def build_positions(paths: list[Path], limit: int | None = None, chunk: int = 100_000) -> Positions:
    """Reads samples and encodes them (cached beside the first file, keyed by the files' sizes
    and times, the limit and the encoding's version)."""
    cache = cache_path(paths, f"{limit}-{CACHE_VERSION}-{nn.N_INPUTS}", "net.npz")
    if cache.exists():
        with np.load(cache) as data:
            return Positions(data["us"], data["them"], data["score"], data["result"], data["source"])
    per_file = None if limit is None else -(-limit // len(paths))
    parts: list[Positions] = []
    started = time.monotonic()
    count = 0

    def encode_part(fields: list[str], white: list[bool], score: list[int], result: list[float],
                    source: list[int]) -> None:
        stm_white = np.array(white, dtype=bool)
        us, them = encode(fields, stm_white)
        white_score = np.array(score, dtype=np.float32)
        white_result = np.array(result, dtype=np.float32)
        parts.append(Positions(us, them, np.where(stm_white, white_score, -white_score),
                               np.where(stm_white, white_result, 1 - white_result),
                               np.array(source, dtype=np.int32)))

    for number, path in enumerate(paths):
        fields, white, score, result = [], [], [], []
        for sample in read_samples(path, per_file):
            board_field, turn = sample.fen.split(" ", 2)[:2]
            fields.append(board_field)
            white.append(turn == "w")
            score.append(sample.score)
            result.append(sample.result)
            count += 1
            if len(fields) == chunk:
                encode_part(fields, white, score, result, [number] * len(fields))
                fields, white, score, result = [], [], [], []
                print(f"  encoded {count} positions ({time.monotonic() - started:.0f} s)",
                      file=sys.stderr)
        if fields:
            encode_part(fields, white, score, result, [number] * len(fields))
    if not parts:
        raise ValueError(f"no positions in {', '.join(map(str, paths))}")
    data = Positions(*(np.concatenate([getattr(part, name) for part in parts])
                       for name in ("us", "them", "score", "result", "source")))
    np.savez(cache, us=data.us, them=data.them, score=data.score, result=data.result,
             source=data.source)
    return data


def board_of(us: np.ndarray) -> chess.Board:
    """A board with White to move whose White perspective is the index list ``us``: the position
    as its side to move sees it, which the network scores exactly as the original."""
    board = chess.Board(None)
    board.set_piece_map({int(i) % 64: chess.Piece(int(i) // 64 % 6 + 1, int(i) < 384)
                         for i in us if i != PAD})
    return board


# ---------------------------------------------------------------------------
# The network in float32, batch by batch.
# ---------------------------------------------------------------------------


def initialise(hidden: int, seed: int) -> nn.Parameters:
    """Kaiming-like random weights (for the 768 inputs, then the 2H activations), zero biases."""
    rng = np.random.default_rng(seed)
    return nn.Parameters(rng.normal(0, np.sqrt(2 / nn.N_INPUTS), (nn.N_INPUTS, hidden)).astype(np.float32),
                         np.zeros(hidden, dtype=np.float32),
                         rng.normal(0, np.sqrt(1 / (2 * hidden)), 2 * hidden).astype(np.float32),
                         0.0)


class DenseInputs:
    """A dense 0/1 input matrix reused batch after batch: rows [0, b) hold the batch's `us`
    perspectives, rows [b, 2b) its `them` ones. Column PAD absorbs the padding and is left out of
    the products."""

    def __init__(self, batch: int) -> None:
        self.x = np.zeros((2 * batch, nn.N_INPUTS + 1), dtype=np.float32)
        self.ones = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))

    def fill(self, us: np.ndarray, them: np.ndarray) -> np.ndarray:
        self.x[self.ones] = 0
        self.ones = (np.arange(2 * len(us))[:, None], np.concatenate([us, them]))
        self.x[self.ones] = 1
        return self.x[:2 * len(us), :nn.N_INPUTS]


def _forward(params: nn.Parameters, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The accumulators (2b, H), their activations and the outputs (b,) in units of
    OUTPUT_SCALE centipawns."""
    acc = x @ params.w1 + params.b1
    active = nn.screlu(acc)
    b, hidden = len(x) // 2, params.hidden
    out = active[:b] @ params.w2[:hidden] + active[b:] @ params.w2[hidden:] + params.b2
    return acc, active, out


def outputs(params: nn.Parameters, data: Positions, batch: int = 8192) -> np.ndarray:
    """The float network's output of every position, in units of OUTPUT_SCALE centipawns."""
    inputs = DenseInputs(min(batch, max(len(data), 1)))
    out = np.empty(len(data), dtype=np.float32)
    for start in range(0, len(data), batch):
        end = start + batch
        out[start:end] = _forward(params, inputs.fill(data.us[start:end], data.them[start:end]))[2]
    return out


def loss(params: nn.Parameters, data: Positions, target: np.ndarray, scale: float) -> float:
    """Mean squared error of sigmoid(K_t * out / 400) against the targets."""
    prediction = sigmoid(scale * nn.OUTPUT_SCALE / 400 * outputs(params, data))
    return float(np.mean((prediction - target) ** 2))


def gradients(params: nn.Parameters, x: np.ndarray, target: np.ndarray,
              scale: float) -> tuple[float, dict[str, np.ndarray]]:
    """The mean squared error of a batch and its gradient by parameter name; ``x`` holds the
    batch's dense inputs, its `us` rows then its `them` rows."""
    acc, active, out = _forward(params, x)
    b, hidden = len(target), params.hidden
    k = scale * nn.OUTPUT_SCALE / 400
    p = sigmoid(k * out)
    error = p - target
    # The loss is mean((p - t)^2) with p = sigmoid(k * out).
    d_out = (2 / b) * error * p * (1 - p) * k
    d_active = np.concatenate([np.outer(d_out, params.w2[:hidden]), np.outer(d_out, params.w2[hidden:])])
    # SCReLU's derivative: 2x on (0, 1), 0 elsewhere.
    d_acc = d_active * (2 * acc) * ((acc > 0) & (acc < 1))
    return float(np.mean(error ** 2)), {
        "w1": x.T @ d_acc, "b1": d_acc.sum(axis=0),
        "w2": np.concatenate([active[:b].T @ d_out, active[b:].T @ d_out]), "b2": d_out.sum()}


def mirror_files(inputs: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``inputs`` with the board of each of ``rows`` (bool, one per position) mirrored from the
    a-file to the h-file: a square's file is its index's low three bits."""
    flip = rows[:, None] & (inputs != PAD)
    return np.where(flip, inputs ^ 7, inputs)


def fit(data: Positions, target: np.ndarray, params: nn.Parameters, scale: float, *,
        epochs: int = 10, batch: int = 4096, lr: float = 3e-3, valid: Positions | None = None,
        valid_target: np.ndarray | None = None, mirror: bool = False, seed: int = 1,
        log: Callable[[str], None] = print) -> nn.Parameters:
    """Adam on mini-batches of the mean squared error; returns the parameters of the epoch with
    the lowest validation loss (of the last epoch without a validation set).

    With ``mirror``, each position of a batch is mirrored a-file to h-file with probability 1/2:
    the network does not see castling rights, so a mirrored position is as good an example (its
    label nearly so), and the training set is in effect twice as large."""
    weights = {"w1": params.w1.copy(), "b1": params.b1.copy(), "w2": params.w2.copy(),
               "b2": np.array(params.b2, dtype=np.float32)}
    m = {name: np.zeros_like(value) for name, value in weights.items()}
    v = {name: np.zeros_like(value) for name, value in weights.items()}
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    rng = np.random.default_rng(seed)
    inputs = DenseInputs(min(batch, max(len(data), 1)))

    def current() -> nn.Parameters:
        return nn.Parameters(weights["w1"].copy(), weights["b1"].copy(), weights["w2"].copy(),
                             float(weights["b2"]))

    n = len(data)
    steps_total = epochs * max(1, -(-n // batch))
    step = 0
    best, best_loss = current(), float("inf")
    for epoch in range(epochs):
        started = time.monotonic()
        order = rng.permutation(n)
        train_loss = 0.0
        for start in range(0, n, batch):
            index = np.sort(order[start:start + batch])
            us, them = data.us[index], data.them[index]
            if mirror:
                rows = rng.random(len(index)) < 0.5
                us, them = mirror_files(us, rows), mirror_files(them, rows)
            x = inputs.fill(us, them)
            batch_loss, grads = gradients(nn.Parameters(**weights), x, target[index], scale)
            train_loss += batch_loss * len(index)
            step += 1
            rate = np.float32(lr * (1 - 0.9 * step / steps_total))
            for name, grad in grads.items():
                m[name] = beta1 * m[name] + (1 - beta1) * grad
                v[name] = beta2 * v[name] + (1 - beta2) * grad * grad
                update = (m[name] / (1 - beta1 ** step)) / (np.sqrt(v[name] / (1 - beta2 ** step)) + eps)
                weights[name] = np.clip(weights[name] - rate * update,
                                        -LIMITS[name], LIMITS[name]).astype(np.float32)
        # The training loss is the mean over the epoch's batches, as the weights were then.
        line = f"epoch {epoch + 1:3d}  train {train_loss / max(n, 1):.6f}"
        if valid is not None:
            valid_loss = loss(current(), valid, valid_target, scale)
            line += f"  validation {valid_loss:.6f}"
            if valid_loss < best_loss:
                best, best_loss = current(), valid_loss
        log(f"{line}  ({time.monotonic() - started:.1f} s)")
    return current() if valid is None else best


def quantised_losses(params: nn.Parameters, network: nn.Network, data: Positions,
                     target: np.ndarray, scale: float) -> tuple[float, float]:
    """The float network's loss and the integer kernel's on the same positions."""
    scores = np.array([nn.network_evaluate(board_of(us), network) for us in data.us], dtype=np.float64)
    kernel_loss = float(np.mean((sigmoid(scale * scores / 400) - target) ** 2))
    return loss(params, data, target, scale), kernel_loss


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", type=Path, nargs="+", help="files written by scripts/make_data.py")
    parser.add_argument("--out", type=Path, default=nn.NETWORK_FILE)
    parser.add_argument("--hidden", type=int, default=nn.HIDDEN, help="H, the accumulator's size")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--lr", type=float, default=3e-3, help="Adam's step size at the start")
    parser.add_argument("--limit", type=int, help="use only the first N positions (shared among the files)")
    parser.add_argument("--validation", type=float, default=0.1,
                        help="share of positions held out, in blocks of whole games")
    parser.add_argument("--result-share", type=float, default=0.0,
                        help="lambda: the target's share of the game result; the rest is the "
                             "teacher's score (default 0: learn the teacher's scores only)")
    parser.add_argument("--no-mirror", dest="mirror", action="store_false",
                        help="do not mirror half of each batch a-file to h-file")
    parser.add_argument("--seed", type=int, default=1, help="seeds the initial weights and the batches")
    args = parser.parse_args(argv)

    started = time.monotonic()
    # Flushed line by line, so that a run logging to a file can be followed.
    log = functools.partial(print, flush=True)
    data = build_positions(args.data, args.limit)
    train, valid = split(data, args.validation)
    if not len(train) or not len(valid):
        parser.error(f"{len(data)} positions are too few to hold out whole games for validation")
    log(f"{len(train)} training and {len(valid)} validation positions "
          f"({time.monotonic() - started:.0f} s)")
    teacher_scale = fit_scale(train.score, train.result)
    train_target = targets(train, teacher_scale, args.result_share)
    valid_target = targets(valid, teacher_scale, args.result_share)
    log(f"teacher scale K_t = {teacher_scale:.4f}; lambda = {args.result_share}; "
          f"H = {args.hidden}; mirrored batches: {args.mirror}")
    params = initialise(args.hidden, args.seed)
    log(f"start      validation {loss(params, valid, valid_target, teacher_scale):.6f}")
    params = fit(train, train_target, params, teacher_scale, epochs=args.epochs, batch=args.batch,
                 lr=args.lr, valid=valid, valid_target=valid_target, mirror=args.mirror,
                 seed=args.seed, log=log)
    network = nn.save_network(params, args.out)
    sample = np.sort(np.random.default_rng(args.seed).permutation(len(valid))[:QUANTISED_SAMPLE])
    float_loss, kernel_loss = quantised_losses(params, network, valid.take(sample),
                                               valid_target[sample], teacher_scale)
    log(f"quantised  on {len(sample)} validation positions: float {float_loss:.6f}, "
          f"integer kernel {kernel_loss:.6f}")
    log(f"wrote {args.out} ({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
