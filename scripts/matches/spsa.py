"""Tunes the search's parameters by games: SPSA, as fishtest does it.

    .venv/bin/python -m scripts.matches.spsa --tc 1.2+0.012 --iterations 2000 --state out/spsa.json
    .venv/bin/python -m scripts.matches.spsa --state out/spsa.json --show      # the values so far

Each iteration draws a random sign for every tuned parameter (engine/search/params.py PARAMETERS, those
with a step), plays the engine with the values moved up by c_k steps against the engine with them
moved down (``--games`` games from random openings, both colours), and moves every value by
a_k * (wins - losses of the upper side) / (c_k * sign), in steps: c_k = c / k^gamma,
a_k = a / (A + k)^alpha (Spall's gains, fishtest's defaults). The engines get their values through
the BRUDNO_PARAMS environment variable (params.with_overrides), so nothing is recompiled. The state
(iteration and values) is written after every iteration: a stopped run resumes where it stopped.
Play the strength targets at the control ../shared/tools/machine_speed.py prints for 2+0.02.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
from pathlib import Path

from engine.search.params import PARAMETERS, Parameter
from scripts.matches import match

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_OPENINGS = ROOT.parent / "shared" / "data" / "openings" / "8moves_v3_sample992.epd"


def tuned_parameters(names: list[str] | None) -> list[Parameter]:
    chosen = [p for p in PARAMETERS if p.step and (not names or p.name in names)]
    unknown = set(names or ()) - {p.name for p in chosen}
    if unknown:
        raise ValueError(f"not tunable parameters: {', '.join(sorted(unknown))}")
    return chosen


def overrides(values: dict[str, list[float]]) -> str:
    """The BRUDNO_PARAMS text of ``values`` (rounded to integers)."""
    return " ".join(f"{name}={','.join(str(round(v)) for v in vs)}" for name, vs in values.items())


def perturbed(values: dict[str, list[float]], signs: dict[str, list[int]], c_k: float,
              parameters: list[Parameter], direction: int) -> dict[str, list[float]]:
    """The values moved by ``direction`` * c_k steps along ``signs``, kept within their ranges."""
    by_name = {p.name: p for p in parameters}
    return {name: [min(by_name[name].high, max(by_name[name].low,
                                               v + direction * c_k * by_name[name].step * s))
                   for v, s in zip(vs, signs[name])] for name, vs in values.items()}


def update(values: dict[str, list[float]], signs: dict[str, list[int]], a_k: float, c_k: float,
           score: int, parameters: list[Parameter]) -> dict[str, list[float]]:
    """SPSA's step: each value moves by a_k * score / (c_k * sign) of its steps, within its range."""
    by_name = {p.name: p for p in parameters}
    return {name: [min(by_name[name].high, max(by_name[name].low,
                                               v + a_k * score * by_name[name].step / (c_k * s)))
                   for v, s in zip(vs, signs[name])] for name, vs in values.items()}


def play(plus: str, minus: str, args: argparse.Namespace, seed: int) -> int:
    """Wins less losses of the engine with the ``plus`` values over ``args.games`` games."""
    command = [sys.executable, "-m", "engine"]
    specs = [match.EngineSpec(["env", f"BRUDNO_PARAMS={text}", *command], {"Hash": "16"}, name)
             for text, name in ((plus, "plus"), (minus, "minus"))]
    config = match.MatchConfig(engine1=specs[0], engine2=specs[1],
                               limits=match.SearchLimits(tc=match.parse_tc(args.tc)),
                               games=args.games, openings=match.load_openings(str(args.openings)),
                               seed=seed, concurrency=args.concurrency)
    tally = match.Tally()
    asyncio.run(match.run_match(config, tally, None))
    return tally.wins - tally.losses


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--state", type=Path, required=True, help="JSON file of the run (resumed)")
    parser.add_argument("--show", action="store_true", help="print the values so far and stop")
    parser.add_argument("--params", nargs="*", help="tune only these (default: every tunable one)")
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--tc", default="1.2+0.012", help="the scaled 2+0.02 of this machine")
    parser.add_argument("--games", type=int, default=2, help="games an iteration (even)")
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--openings", type=Path, default=DEFAULT_OPENINGS)
    parser.add_argument("--a", type=float, default=1.0, help="a of a_k (in steps per point)")
    parser.add_argument("--c", type=float, default=2.0, help="c of c_k (in steps)")
    parser.add_argument("--A", type=float, default=100.0, help="A of a_k: ~10 %% of the iterations")
    parser.add_argument("--alpha", type=float, default=0.602)
    parser.add_argument("--gamma", type=float, default=0.101)
    args = parser.parse_args(argv)
    parameters = tuned_parameters(args.params)
    if args.state.exists():
        state = json.loads(args.state.read_text())
    else:
        state = {"iteration": 0, "values": {p.name: list(p.values) for p in parameters}}
    if args.show:
        print(overrides(state["values"]))
        return 0
    rng = random.Random(state["iteration"])
    parameters = [p for p in parameters if p.name in state["values"]]
    while state["iteration"] < args.iterations:
        k = state["iteration"] + 1
        c_k = args.c / k ** args.gamma
        a_k = args.a / (args.A + k) ** args.alpha
        signs = {name: [rng.choice((-1, 1)) for _ in vs] for name, vs in state["values"].items()}
        plus = perturbed(state["values"], signs, c_k, parameters, +1)
        minus = perturbed(state["values"], signs, c_k, parameters, -1)
        score = play(overrides(plus), overrides(minus), args, seed=k)
        state["values"] = update(state["values"], signs, a_k, c_k, score, parameters)
        state["iteration"] = k
        args.state.parent.mkdir(parents=True, exist_ok=True)
        args.state.write_text(json.dumps(state, indent=1))
        print(f"iteration {k}: {score:+d}; {overrides(state['values'])}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
