"""Held-out loss against training positions: does more data still pay?

    .venv/bin/python -m scripts.studies.data_scaling                         # 0.5M, 1M, 2M, 4M, all
    .venv/bin/python -m scripts.studies.data_scaling --sizes 1e6 0 --plot docs/data-scaling.png  # 0: all
    .venv/bin/python -m scripts.studies.data_scaling --sizes --plot docs/data-scaling.png        # plot only

Each size is one run of scripts/training/train.py from random weights on the first N positions of the data
folder (whole chunks: ``--limit``), with the same settings at every size; the validation set is
the same in every run (train.py holds out the same chunks while the folder only grows). A size
already measured (its line in ``--results``) is not run again, so a run that was stopped resumes;
the whole folder (size 0) is run again when it has grown, which adds a point. The plot is the
best validation loss of each run against its training positions, on a log scale.
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

from scripts.training.data import chunks

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_RESULTS = Path.home() / ".local" / "share" / "brudno" / "scaling" / "results.jsonl"


def measured(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def run(size: int | None, args: argparse.Namespace) -> dict:
    """One training run; its training positions and best validation loss."""
    out = args.results.parent / f"net-h{args.hidden}-{size or 'all'}.npz"
    command = [sys.executable, "-m", "scripts.training.train", "--epochs", str(args.epochs),
               "--output-buckets", str(args.output_buckets), "--hidden", str(args.hidden),
               "--out", str(out)]
    if size is not None:
        command += ["--limit", str(size)]
    lines = []
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd=ROOT) as process:
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
    """One line for each network setting (H, heads, epochs) measured."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    settings = sorted({(r["hidden"], r["output_buckets"], r["epochs"]) for r in rows})
    for hidden, heads, epochs in settings:
        line = sorted((r for r in rows if (r["hidden"], r["output_buckets"], r["epochs"])
                       == (hidden, heads, epochs)), key=lambda r: r["positions"])
        ax.plot([r["positions"] for r in line], [r["validation"] for r in line], "o-",
                label=f"H = {hidden}, {heads} heads, {epochs} epochs")
        for r in line:
            ax.annotate(f"{r['validation']:.5f}", (r["positions"], r["validation"]),
                        textcoords="offset points", xytext=(4, 6), fontsize=8)
    ax.set_xscale("log")
    ticks = []
    for positions in sorted({r["positions"] for r in rows}):
        if not ticks or positions > 1.3 * ticks[-1]:  # labels close together overlap
            ticks.append(positions)
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{t / 1e6:.1f}M" for t in ticks])
    ax.minorticks_off()
    ax.set_xlabel("training positions (from random weights)")
    ax.set_ylabel("held-out loss (200,000 positions)")
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    print(f"wrote {path}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=float, nargs="*", default=[5e5, 1e6, 2e6, 4e6, 0],
                        help="training positions of the runs (0: the whole folder)")
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--output-buckets", type=int, default=8)
    parser.add_argument("--results", type=Path, default=DEFAULT_RESULTS)
    parser.add_argument("--plot", type=Path, help="write the plot here (e.g. docs/data-scaling.png)")
    args = parser.parse_args(argv)
    args.results.parent.mkdir(parents=True, exist_ok=True)
    total = sum(chunks.read_header(path)[0]["count"] for path in chunks.chunk_paths(chunks.data_folder()))
    same = {"epochs": args.epochs, "hidden": args.hidden, "output_buckets": args.output_buckets}
    everything = measured(args.results)
    done = [r for r in everything if all(r[k] == v for k, v in same.items())]
    sizes = sorted({int(s) for s in args.sizes if 0 < s < total})
    for size in sizes + ([None] if 0 in args.sizes else []):
        if size is None and any(r["size"] is None and r["folder"] == total for r in done):
            continue
        if size is not None and any(r["size"] == size for r in done):
            continue
        row = run(size, args) | {"folder": total}
        with args.results.open("a") as out:
            out.write(json.dumps(row) + "\n")
        everything.append(row)
    for row in sorted(everything, key=lambda r: (r["hidden"], r["positions"])):
        print(f"H = {row['hidden']:3d}  {row['positions']:>12,} positions  "
              f"validation {row['validation']:.6f}")
    if args.plot:
        plot(everything, args.plot)


if __name__ == "__main__":
    main()
