"""Trains the neural-network evaluation (engine/evaluation/network.py) on labelled positions: the command line.

    .venv/bin/python -m scripts.training.train                 # every chunk of the data folder
    .venv/bin/python -m scripts.training.train ~/.local/share/brudno/data --epochs 4 --out /tmp/net.npz
    .venv/bin/python -m scripts.training.train data/sf4k.txt data/sf2k-s3.txt   # text files

Two sources, one training loop (scripts/training/loop.py; the positions and their reading:
scripts/training/data/positions.py):

- **Chunks** (scripts/training/data/chunks.py, written by scripts/training/data/generate.py; a
  folder or chunk files, by default the data folder): streamed a few chunks at a time, shuffled
  within that buffer, decoded to index lists batch by batch, so memory does not grow with the
  data. Whole chunks (whole games) are held out for validation: every 10th (``--validation
  0.1``) until they hold ``--valid-limit`` positions, and the first that many validate; held-out
  chunks past that train.
- **Text files** (scripts/training/data/text.py, from scripts/training/data/make_text.py): read
  whole and encoded once, cached beside the first file (``*.net.npz``); whole games are held out
  in blocks.

The teacher's scale K_t is fitted as the classical tuner fits it (scripts/training/labels.py;
over chunks, on the first million training positions): the target of a position is lambda *
result + (1 - lambda) * sigmoid(K_t * teacher score / 400), and the network's prediction
sigmoid(K_t * out / 400), so that its output is on the teacher's centipawn scale. Adam on
mini-batches of the mean squared error, with hand-written gradients
(scripts/training/model/network.py). The step size falls linearly to a tenth of itself
(``--final-lr``) by the last position of the last epoch; train and validation loss are printed
per epoch and the epoch with the lowest validation loss is kept. With output buckets
(``--output-buckets N``) each position's number of men chooses the output layer it goes through
(engine/evaluation/network.py `output_head`), and only that layer learns from it.

The kept parameters are quantised and written to ``--out``, after a check of the integer kernel's
loss on a sample of validation positions, which shows what quantisation costs.
"""
from __future__ import annotations

import argparse
import functools
import time
from pathlib import Path

import numpy as np

from engine.evaluation import network as nn
from scripts.training.config import TrainConfig
from scripts.training.data import chunks
from scripts.training.data.positions import (ChunkStream, build_positions, chunk_files,
                                             chunk_split, first_chunks)
from scripts.training.data.text import split
from scripts.training.labels import fit_scale, targets
from scripts.training.loop import fit_network, fit_network_stream
from scripts.training.model.network import fold, initialise, loss, quantised_losses, warm_start

QUANTISED_SAMPLE = 5000
SCALE_SAMPLE = 1_000_000  # training positions K_t is fitted on


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
            f"epochs, step size {args.lr}{falling}, lambda {args.result_share}; scripts/training/train.py, "
            f"{time.strftime('%Y-%m-%d')}"
            + (f"; continued from {args.init.name} ({nn.network_provenance(args.init)})"
               if args.init is not None else ""))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", type=Path, nargs="*",
                        help="chunk folders or files (default: the data folder, see scripts/training/data/chunks.py), "
                             "or text files written by scripts/training/data/make_text.py")
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
                             "engine/evaluation/network.py (trained factorised)")
    parser.add_argument("--output-buckets", type=int, default=1, metavar="N",
                        help="N output layers, chosen by the number of men on the board "
                             "(engine/evaluation/network.py output_head; 8: one for each 4 men)")
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
    if args.hidden % nn.OUTPUT_CHUNK:
        parser.error(f"--hidden {args.hidden}: the engine's output layer needs a multiple of "
                     f"{nn.OUTPUT_CHUNK}")
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
    config = TrainConfig(epochs=args.epochs or (4 if files is not None else 10),
                         batch=args.batch or (8192 if files is not None else 4096), lr=args.lr,
                         final_lr=args.final_lr, mirror=args.mirror, seed=args.seed)
    if files is not None:
        params = fit_network_stream(stream, params, teacher_scale, args.result_share, config,
                                    (valid, valid_target), log)
    else:
        train_target = targets(train, teacher_scale, args.result_share)
        params = fit_network(train, train_target, params, teacher_scale, config,
                             (valid, valid_target), log)
    network = nn.save_network(fold(params), args.out, provenance(
        len(stream) if files is not None else len(train),
        train_paths if files is not None else paths, args, buckets, config.epochs))
    sample = np.sort(np.random.default_rng(args.seed).permutation(len(valid))[:QUANTISED_SAMPLE])
    float_loss, kernel_loss = quantised_losses(params, network, valid.take(sample),
                                               valid_target[sample], teacher_scale)
    log(f"quantised  on {len(sample)} validation positions: float {float_loss:.6f}, "
        f"integer kernel {kernel_loss:.6f}")
    log(f"wrote {args.out} ({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
