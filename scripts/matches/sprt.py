"""A change judged as the field judges it: fastchess's SPRT of a new build against the old one,
counting game pairs (pentanomial), at a control scaled to this machine's speed.

    .venv/bin/python -m scripts.matches.sprt --new <worktree> --base <worktree> --tc 5+0.05 \\
        --bounds 0 10 --out <folder>                      # plays until the test decides
    .venv/bin/python -m scripts.matches.sprt ... --out <folder> --resume   # goes on from its games

fastchess (https://github.com/Disservin/fastchess) plays the games, keeps the clocks, counts the
pairs and decides; this adds only what it lacks: the time control of the reference machine
(``--tc``) scaled by the factor of ../shared/tools/machine_speed.py (or ``--factor``), each side
run from its own tree with its own search parameters (``--new-params``/``--base-params``, through
BRUDNO_PARAMS: two values on one build need no second tree), and the folder that holds the games
(games.pgn), fastchess's state for ``--resume`` (config.json) and the two launchers. The bounds are
logistic Elo, alpha = beta = 0.05 unless given. With ``--chunks``, the test's games become training
chunks when it ends (scripts/training/data/openbench.py: positions labelled with Brudno's own
search scores and the games' results), so that no game is wasted.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
DEFAULT_OPENINGS = SHARED / "data" / "openings" / "8moves_v3_sample992.epd"
MACHINE_SPEED = SHARED / "tools" / "machine_speed.py"


def scaled_tc(tc: str, factor: float) -> str:
    """The reference control ``tc`` (BASE+INC in seconds) at a machine of speed ``factor``."""
    base, _, inc = tc.partition("+")
    scaled = [f"{float(part) * factor:.3f}".rstrip("0").rstrip(".") for part in (base, inc or "0")]
    return "+".join(scaled)


def machine_factor(python: str = sys.executable) -> float:
    """The factor ../shared/tools/machine_speed.py measures (reference speed over this machine's)."""
    printed = subprocess.run([python, str(MACHINE_SPEED)], capture_output=True, text=True,
                             check=True).stdout
    match = re.search(r"factor ([0-9.]+)", printed)
    if not match:
        raise RuntimeError(f"no factor in the output of {MACHINE_SPEED}: {printed!r}")
    return float(match.group(1))


def launcher(tree: Path, params: str, python: str) -> str:
    """A shell script that starts the engine of ``tree`` with the search parameters ``params``."""
    lines = ["#!/bin/sh", f"cd {shlex.quote(str(tree))} || exit 1"]
    if params:
        lines.append(f"BRUDNO_PARAMS={shlex.quote(params)}; export BRUDNO_PARAMS")
    lines.append(f"exec {shlex.quote(python)} -m engine")
    return "\n".join(lines) + "\n"


def fastchess_command(args: argparse.Namespace, out: Path, tc: str) -> list[str]:
    """The fastchess command line of the test."""
    command = [args.fastchess]
    if args.resume:
        # (Options after the saved state's override it: the games in parallel may change.)
        return command + ["-config", f"file={out / 'config.json'}",
                          "-concurrency", str(args.concurrency)]
    elo0, elo1 = args.bounds
    command += [
        "-engine", f"cmd={out / 'new.sh'}", f"name={args.new_name}",
        *[f"option.{option}" for option in args.new_option],
        "-engine", f"cmd={out / 'base.sh'}", f"name={args.base_name}",
        "-each", "proto=uci", f"tc={tc}", f"option.Hash={args.hash}",
        "-openings", f"file={args.openings}", "format=epd", "order=random",
        "-srand", str(args.seed), "-rounds", str(args.rounds), "-games", "2", "-repeat",
        "-concurrency", str(args.concurrency), "-recover",
        "-sprt", f"elo0={elo0:g}", f"elo1={elo1:g}", f"alpha={args.alpha:g}",
        f"beta={args.beta:g}", "model=logistic",
        "-pgnout", f"file={out / 'games.pgn'}",
        "-config", f"outname={out / 'config.json'}",
        "-ratinginterval", "20",
    ]
    return command


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--new", type=Path, default=ROOT, help="the new build's tree (default: this one)")
    p.add_argument("--base", type=Path, help="the old build's tree (default: --new's)")
    p.add_argument("--new-params", default="", help="BRUDNO_PARAMS of the new side")
    p.add_argument("--base-params", default="", help="BRUDNO_PARAMS of the old side")
    p.add_argument("--new-option", action="append", default=[], metavar="NAME=VALUE",
                   help="a UCI option of the new side only (EvalFile=FILE: a new network)")
    p.add_argument("--new-name", default="new")
    p.add_argument("--base-name", default="base")
    p.add_argument("--tc", default="5+0.05", help="the control on the reference machine")
    p.add_argument("--factor", type=float, help="this machine's factor (default: measured)")
    p.add_argument("--bounds", type=float, nargs=2, default=(0.0, 10.0), metavar=("ELO0", "ELO1"))
    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--beta", type=float, default=0.05)
    p.add_argument("--rounds", type=int, default=5000, help="game pairs at most")
    p.add_argument("--concurrency", type=int, default=2)
    p.add_argument("--hash", type=int, default=16)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--openings", type=Path, default=DEFAULT_OPENINGS)
    p.add_argument("--python", default=sys.executable,
                   help="the Python that runs both engines (default: this one)")
    p.add_argument("--fastchess", default=os.environ.get("FASTCHESS") or shutil.which("fastchess")
                   or "fastchess", help="the fastchess binary (default: $FASTCHESS, then PATH)")
    p.add_argument("--out", type=Path, required=True, help="the test's folder")
    p.add_argument("--resume", action="store_true", help="go on from the folder's config.json")
    p.add_argument("--chunks", type=Path, metavar="DIR",
                   help="afterwards, the games as training chunks in DIR (the data folder)")
    p.add_argument("--dry-run", action="store_true", help="print the command, play nothing")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    tc = ""
    if not args.resume:
        factor = args.factor if args.factor is not None else machine_factor(args.python)
        tc = scaled_tc(args.tc, factor)
        print(f"sprt: factor {factor:g}: {args.tc} on the reference machine is {tc} here",
              flush=True)
        base = args.base or args.new
        for name, tree, params in (("new", args.new, args.new_params),
                                   ("base", base, args.base_params)):
            script = out / f"{name}.sh"
            script.write_text(launcher(tree.resolve(), params, args.python))
            script.chmod(0o755)
    command = fastchess_command(args, out, tc)
    print(shlex.join(command), flush=True)
    if args.dry_run:
        return 0
    status = subprocess.call(command)
    if args.chunks is not None and (out / "games.pgn").exists():
        from scripts.training.data import openbench

        openbench.main([str(out / "games.pgn"), "--out", str(args.chunks), "--prefix",
                        f"sprt-{out.name}"])
    return status


if __name__ == "__main__":
    sys.exit(main())
