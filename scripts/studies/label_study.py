"""How good are the generator's labels? Node-limited teacher scores against a deep search.

    .venv/bin/python -m scripts.studies.label_study [--positions 2000] [--depth 14] [--nodes 250 500 1000 2000 4000] [--max-men 12]

Takes held-out positions of the data folder (the trainer's validation chunks: every tenth), labels
each again with the teacher (Stockfish) at a fixed depth as the reference, and at several node
counts, each search from an empty hash; then prints, on the trainer's scale (sigmoid(K_t *
score / 400), K_t fitted to the games' results as scripts/training/train.py does), the mean squared error
against the reference of: each node count, the label stored in the chunk (1,000 nodes with the
hash warm from the game's previous moves), and the shipped network. The labels' noise beside the
network's own error says whether cheaper labels (more positions an hour) could pay; games decide.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import chess
import chess.engine
import numpy as np

from engine.evaluation import network as nn
from scripts.training.data import chunks
from scripts.training.labels import fit_scale, sigmoid

MATE_CP = 2000  # a mate score on the centipawn scale (far on the sigmoid's flat part)


def held_out_records(folder: Path) -> np.ndarray:
    """The records of every tenth chunk (the trainer's held-out games)."""
    paths = chunks.chunk_paths(folder)
    valid = [p for i, p in enumerate(sorted(paths)) if i % 10 == 9]
    if not valid:
        raise SystemExit(f"{folder}: fewer than 10 chunks, no held-out games")
    return np.concatenate([chunks.read_chunk(p) for p in valid])


def white_cp(info: chess.engine.InfoDict) -> int:
    return info["score"].white().score(mate_score=100_000) if "score" in info else 0


def clamp(cp: np.ndarray) -> np.ndarray:
    return np.clip(cp, -MATE_CP, MATE_CP)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--folder", type=Path, default=chunks.data_folder())
    parser.add_argument("--positions", type=int, default=2000)
    parser.add_argument("--depth", type=int, default=14, help="the reference search's depth")
    parser.add_argument("--nodes", type=int, nargs="+", default=[250, 500, 1000, 2000, 4000])
    parser.add_argument("--teacher", default="/usr/games/stockfish")
    parser.add_argument("--hash", type=int, default=16, help="MB, as the generator's teacher")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-men", type=int, default=32,
                        help="only positions with at most this many men (e.g. 12: the endings)")
    args = parser.parse_args(argv)

    held_out = held_out_records(args.folder)
    k_t = fit_scale(held_out["score"].astype(np.float64), held_out["result"] / 2.0)
    occupancy = np.ascontiguousarray(held_out["occupancy"]).view(np.uint8).reshape(-1, 8)
    eligible = np.flatnonzero(np.unpackbits(occupancy, axis=1).sum(axis=1) <= args.max_men)
    pick = np.random.default_rng(args.seed).choice(eligible, replace=False,
                                                   size=min(args.positions, len(eligible)))
    records = held_out[np.sort(pick)]
    stored = records["score"].astype(np.float64)
    network = nn.default_network()
    labels = {n: np.zeros(len(records)) for n in args.nodes}
    reference = np.zeros(len(records))
    net = np.zeros(len(records))
    seconds = dict.fromkeys(["reference", *args.nodes], 0.0)
    started = time.monotonic()
    with chess.engine.SimpleEngine.popen_uci(args.teacher) as teacher:
        teacher.configure({"Threads": 1, "Hash": args.hash})
        for i, record in enumerate(records):
            board = chunks.board_of(record)
            sign = 1 if board.turn == chess.WHITE else -1
            net[i] = sign * nn.network_evaluate(board, network)
            for n in args.nodes:
                t = time.monotonic()
                labels[n][i] = white_cp(teacher.analyse(board, chess.engine.Limit(nodes=n),
                                                        game=object()))
                seconds[n] += time.monotonic() - t
            t = time.monotonic()
            reference[i] = white_cp(teacher.analyse(board, chess.engine.Limit(depth=args.depth),
                                                    game=object()))
            seconds["reference"] += time.monotonic() - t
            if (i + 1) % 200 == 0:
                print(f"  {i + 1} positions ({time.monotonic() - started:.0f} s)", file=sys.stderr,
                      flush=True)

    truth = sigmoid(k_t * clamp(reference) / 400)

    def row(name: str, cp: np.ndarray, time_each: float | None) -> str:
        p = sigmoid(k_t * clamp(cp) / 400)
        mse = float(np.mean((p - truth) ** 2))
        mae = float(np.median(np.abs(clamp(cp) - clamp(reference))))
        spent = "" if time_each is None else f"{1000 * time_each:.1f}"
        return f"| {name} | {mse:.6f} | {mae:.0f} | {spent} |"

    n = len(records)
    print(f"{n} held-out positions of {args.folder} with at most {args.max_men} men; "
          f"reference: depth {args.depth} ({1000 * seconds['reference'] / n:.0f} ms each); K_t {k_t:.4f}; "
          f"{time.monotonic() - started:.0f} s in all")
    print()
    print("| label | MSE against the reference (sigmoid) | median abs cp | ms a search |")
    print("|---|---|---|---|")
    for nodes in args.nodes:
        print(row(f"{nodes} nodes, empty hash", labels[nodes], seconds[nodes] / n))
    print(row("the chunk's label (1,000 nodes, warm hash)", stored, None))
    print(row("the shipped network", net, None))


if __name__ == "__main__":
    main()
