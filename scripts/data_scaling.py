#!/usr/bin/env python3
"""Held-out loss against training positions: does more data still pay?

    .venv/bin/python scripts/data_scaling.py                         # 0.5M, 1M, 2M, 4M, all
    .venv/bin/python scripts/data_scaling.py --sizes 1e6 4e6 --epochs 6 --plot docs/data-scaling.png

Each size is one run of scripts/train.py from random weights on the first N positions of the data
folder (whole chunks: ``--limit``), with the same settings at every size; the validation set is
the same in every run (train.py holds out the same chunks while the folder only grows). A size
already measured (its line in ``--results``) is not run again, so a run that was stopped resumes
and a larger folder only adds its new sizes. The plot is the best validation loss of each run
against its training positions, on a log scale.
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import chunks  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_RESULTS = Path.home() / ".local" / "share" / "brudno" / "scaling" / "results.jsonl"


def measured(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def run(size: int | None, args: argparse.Namespace) -> dict:
    """One training run; its training positions and best validation loss."""
    out = args.results.parent / f"net-{size or 'all'}.npz"
    command = [sys.executable, str(ROOT / "scripts" / "train.py"), "--epochs", str(args.epochs),
               "--output-buckets", str(args.output_buckets), "--hidden", str(args.hidden),
               "--out", str(out)]
    if size is not None:
        command += ["--limit", str(size)]
    lines = []
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as process:
        for line in process.stdout:
            print(line, end="", flush=True)
            lines.append(line)
    if process.returncode:
        raise SystemExit(f"train.py failed ({process.returncode}): {' '.join(command)}")
    text = "".join(lines)
    positions = int(re.search(r"^([\d,]+) training positions", text, re.M).group(1).replace(",", ""))
    losses = [float(v) for v in re.findall(r"^epoch +\d+ .*validation ([\d.]+)", text, re.M)]
    return {"size": size, "positions": positions, "validation": min(losses), "epochs": args.epochs,
            "hidden": args.hidden, "output_buckets": args.output_buckets, "by_epoch": losses}


def plot(rows: list[dict], path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = sorted(rows, key=lambda row: row["positions"])
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    ax.plot([r["positions"] for r in rows], [r["validation"] for r in rows], "o-")
    for r in rows:
        ax.annotate(f"{r['validation']:.5f}", (r["positions"], r["validation"]),
                    textcoords="offset points", xytext=(4, 6), fontsize=8)
    ax.set_xscale("log")
    ax.set_xticks([r["positions"] for r in rows])
    ax.set_xticklabels([f"{r['positions'] / 1e6:.1f}M" for r in rows])
    ax.minorticks_off()
    ax.set_xlabel("training positions (from random weights)")
    ax.set_ylabel("held-out loss (200,000 positions)")
    first = rows[0]
    ax.set_title(f"Brudno's network, H = {first['hidden']}, {first['output_buckets']} heads, "
                 f"{first['epochs']} epochs", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    print(f"wrote {path}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=float, nargs="*", default=[5e5, 1e6, 2e6, 4e6],
                        help="training positions of the runs (the whole folder is always run too)")
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--output-buckets", type=int, default=8)
    parser.add_argument("--results", type=Path, default=DEFAULT_RESULTS)
    parser.add_argument("--plot", type=Path, help="write the plot here (e.g. docs/data-scaling.png)")
    args = parser.parse_args(argv)
    args.results.parent.mkdir(parents=True, exist_ok=True)
    total = sum(chunks.read_header(path)[0]["count"] for path in chunks.chunk_paths(chunks.data_folder()))
    same = {"epochs": args.epochs, "hidden": args.hidden, "output_buckets": args.output_buckets}
    done = [r for r in measured(args.results) if all(r[k] == v for k, v in same.items())]
    for size in sorted({int(s) for s in args.sizes if s < total}) + [None]:
        if size is None and any(r["size"] is None and r["folder"] == total for r in done):
            continue
        if size is not None and any(r["size"] == size for r in done):
            continue
        row = run(size, args) | {"folder": total}
        with args.results.open("a") as out:
            out.write(json.dumps(row) + "\n")
        done.append(row)
    for row in sorted(done, key=lambda r: r["positions"]):
        print(f"{row['positions']:>12,} positions  validation {row['validation']:.6f}")
    if args.plot:
        plot(done, args.plot)


if __name__ == "__main__":
    main()
