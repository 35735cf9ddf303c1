"""Texel tuning: fits every weight of the classical evaluation to labelled positions.

    .venv/bin/python -m scripts.training.tune data/sf4k.txt --out engine/evaluation/weights/classical.npz

The evaluation is linear in its weights for each game phase (scripts/training/model/classical.py),
so tuning is a logistic regression in numpy:

1. the teacher's scale: K_t such that sigmoid(K_t * teacher score) best predicts the results;
   the target of a position is lambda * result + (1 - lambda) * sigmoid(K_t * teacher score)
   (scripts/training/labels.py);
2. the evaluation's scale K, fitted first, with the current weights;
3. every weight, by Adam on mini-batches of the mean squared error between sigmoid(K * e) and
   the target (scripts/training/loop.py); train and validation loss (held-out whole games) are
   printed per epoch, and the epoch with the lowest validation loss is kept.

The weights are rounded to integers and written with their feature layout.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from engine.evaluation import evaluate as ev
from scripts.training.config import TrainConfig
from scripts.training.data.text import split
from scripts.training.labels import fit_scale, targets
from scripts.training.loop import fit_classical
from scripts.training.model.classical import build_dataset, loss, white_scores


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", type=Path, nargs="+", help="files written by scripts/training/data/make_text.py")
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
    args = parser.parse_args(argv)

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
    config = TrainConfig(epochs=args.epochs, batch=args.batch, lr=args.lr)
    weights = fit_classical(train, train_target, start, scale, config,
                            valid=(valid, valid_target))
    rounded = np.rint(weights).astype(np.int64)
    print(f"rounded   train {loss(train, train_target, rounded, scale):.6f}  "
          f"validation {loss(valid, valid_target, rounded, scale):.6f}")
    ev.save_weights(rounded, args.out)
    print(f"wrote {args.out} ({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
