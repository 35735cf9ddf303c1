#!/usr/bin/env python3
"""What each technique of the search is worth in games: the full search with one technique
switched off (through BRUDNO_PARAMS, by the parameters' off values) against the full search.

    .venv/bin/python scripts/technique_games.py --tc 1.2+0.012 --games 100 --out out/techniques.json

Prints a Markdown row a technique as its match ends, and keeps the results in ``--out`` (a
stopped run resumes with the techniques not played yet). Iterative deepening is not among them:
it is a switch of the Python search (Search.iterative_deepening), not a parameter.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import match  # noqa: E402
from match_stats import elo_estimate  # noqa: E402

from engine.params import PARAMETERS  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OPENINGS = ROOT.parent / "shared" / "data" / "openings" / "8moves_v3_sample992.epd"


def _off(*names: str) -> str:
    """BRUDNO_PARAMS switching the rules of ``names`` off (every value of each at its off)."""
    return " ".join(f"{p.name}={','.join([str(p.off)] * len(p.values))}"
                    for p in PARAMETERS if p.name in names)


_PRUNING = ("RAZOR", "REVERSE_FUTILITY", "REVERSE_FUTILITY_DEPTH", "FUTILITY", "LATE_MOVES", "SEE",
            "SEE_DEPTH", "DELTA", "RECAPTURES_AFTER")
# Mild ones first: a stopped run has the table's most informative rows.
TECHNIQUES = {
    "aspiration windows": _off("ASPIRATION_DEPTH"),
    "internal iterative reduction": _off("IIR_DEPTH"),
    "null move": _off("NULL_MOVE_DEPTH"),
    "late-move reductions": _off("LMR_DEPTH"),
    "futility, late-move and SEE pruning, razoring": _off(*_PRUNING),
    "killers and history": _off("KILLERS_AND_HISTORY"),
    "quiescence": _off("QUIESCENCE_PLIES"),
    "PVS": _off("PVS"),
    "transposition table": _off("TABLE_READS"),
}
assert all(TECHNIQUES.values())


def play(overrides: str, args: argparse.Namespace) -> match.Tally:
    command = [sys.executable, "-m", "engine"]
    without = match.EngineSpec(["env", f"BRUDNO_PARAMS={overrides}", *command], {"Hash": "16"},
                               "without")
    full = match.EngineSpec(command, {"Hash": "16"}, "full")
    config = match.MatchConfig(engine1=without, engine2=full,
                               limits=match.SearchLimits(tc=match.parse_tc(args.tc)),
                               games=args.games, openings=match.load_openings(str(args.openings)),
                               seed=args.seed, concurrency=args.concurrency)
    tally = match.Tally()
    asyncio.run(match.run_match(config, tally, None))
    return tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tc", default="1.2+0.012", help="the scaled 2+0.02 of this machine")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--seed", type=int, default=57)
    parser.add_argument("--openings", type=Path, default=DEFAULT_OPENINGS)
    parser.add_argument("--only", nargs="*", help="these techniques only (by name)")
    parser.add_argument("--out", type=Path, required=True, help="JSON results (resumed)")
    args = parser.parse_args(argv)
    results = json.loads(args.out.read_text()) if args.out.exists() else {}
    print("| technique off | games | W/D/L | score | Elo (95 %) |\n|---|---|---|---|---|")
    for name, overrides in TECHNIQUES.items():
        if args.only and name not in args.only:
            continue
        if name not in results:
            tally = play(overrides, args)
            results[name] = {"wins": tally.wins, "draws": tally.draws, "losses": tally.losses,
                             "tc": args.tc, "overrides": overrides,
                             "forfeits": sum(e.time_forfeits for e in tally.engines)}
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(json.dumps(results, indent=1))
        r = results[name]
        games = r["wins"] + r["draws"] + r["losses"]
        estimate = elo_estimate(r["wins"], r["draws"], r["losses"])
        print(f"| {name} | {games} | {r['wins']}/{r['draws']}/{r['losses']} | "
              f"{(r['wins'] + r['draws'] / 2) / games:.1%} | {estimate.elo:+.0f} "
              f"[{estimate.lower:+.0f}, {estimate.upper:+.0f}] |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
