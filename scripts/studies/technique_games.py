"""What each technique of the search is worth in games: the full search with one technique
switched off (through BRUDNO_PARAMS, by the parameters' off values) against the full search.

    .venv/bin/python -m scripts.studies.technique_games --tc 1.2+0.012 --games 100 --out out/techniques.json

Prints a Markdown row a technique as its match ends, and keeps the results in ``--out`` (a
stopped run resumes with the techniques not played yet). Iterative deepening is not among them:
it is a switch of the Python search (Search.iterative_deepening), not a parameter.

``--plot PATH`` then draws the results (played or recorded: a technique in ``--out`` is not played
again) as bars of worth with their 95 % intervals, beside the share of nodes each saves from
``--saves`` (a JSON object {technique: share}, or the rows of
``scripts/studies/alphabeta_table.py --techniques --json``):

    .venv/bin/python -m scripts.studies.technique_games --out docs/techniques-games.json \
        --saves docs/techniques-saves.json --plot docs/techniques-worth.png
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import sys
from pathlib import Path

from engine.search.params import PARAMETERS
from scripts.matches import match
from scripts.matches.stats import elo_estimate

ROOT = Path(__file__).resolve().parents[2]
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

# alphabeta_table.py --techniques names its rows "full search without <name>" with the names of
# engine/teaching/techniques.py, which are TECHNIQUES' keys: the one mapping is this prefix. Its row
# without iterative deepening has no games here.
WITHOUT = "full search without "
# Under this score of the search without a technique, 100 games bound its worth from below only:
# the interval on the score reaches towards 0, where Elo runs off. docs/textbook.md calls the
# four drastic ones so (scores 6-13 %).
OPEN_SCORE = 0.15


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


def saved_shares(rows: list[dict]) -> dict[str, float]:
    """Each technique's saved share of nodes, 1 - full / without, the positions summed, from the
    rows alphabeta_table.py --techniques --json prints (of its deepest depth)."""
    depth = max(r["depth"] for r in rows)
    rows = [r for r in rows if r["depth"] == depth]
    full = sum(r["nodes"] for r in rows if r["kind"] == "add" and not r["off"])
    without: dict[str, int] = {}
    for r in rows:
        if r["kind"] == "without":
            name = r["row"].removeprefix(WITHOUT)
            without[name] = without.get(name, 0) + r["nodes"]
    return {name: 1 - full / nodes for name, nodes in without.items()}


def read_saves(path: Path) -> dict[str, float]:
    """--saves: a JSON object {technique: share}, or alphabeta_table's rows (a JSON list)."""
    data = json.loads(path.read_text())
    return saved_shares(data) if isinstance(data, list) else {k: float(v) for k, v in data.items()}


def plot_worth(results: dict[str, dict], path: Path, saves: dict[str, float] | None = None,
               label: str = "") -> None:
    """Each technique's worth (the full search's Elo over the search without it) with its 95 %
    interval, sorted, and beside it the share of nodes it saves if ``saves`` has them."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = []
    for name, r in results.items():
        games = r["wins"] + r["draws"] + r["losses"]
        # The match is the search without it against the full search: turned round.
        estimate = elo_estimate(r["wins"], r["draws"], r["losses"])
        score = (r["wins"] + r["draws"] / 2) / games
        rows.append((-estimate.elo, -estimate.upper, -estimate.lower, score, name, r))
    rows.sort()  # the worthiest at the top: barh counts from the bottom
    y = range(len(rows))
    fig, axes = plt.subplots(1, 2 if saves else 1, sharey=True, squeeze=False,
                             figsize=(11 if saves else 8.5, 1.6 + 0.5 * len(rows)),
                             width_ratios=[3, 1] if saves else [1], layout="constrained")
    ax = axes[0][0]
    closed = [high for _, _, high, score, _, _ in rows if score >= OPEN_SCORE]
    right = max(closed + [worth for worth, *_ in rows]) * 1.3 + 60
    left = min(0, min(low for _, low, *_ in rows)) - 20
    for i, (worth, low, high, score, name, r) in enumerate(rows):
        is_open = score < OPEN_SCORE
        ax.barh(i, worth, height=0.6, color="#9ecae1" if is_open else "#3182bd",
                hatch="//" if is_open else None, edgecolor="#3182bd")
        wdl = f"{r['wins']}/{r['draws']}/{r['losses']}"
        if is_open:
            # Only the lower end is measured: a cap there and an arrow on to the axis's edge.
            ax.annotate("", xy=(right, i), xytext=(low, i),
                        arrowprops={"arrowstyle": "-|>", "color": "black"})
            ax.plot(low, i, marker="|", markersize=9, color="black")
            ax.text(worth - 8, i + 0.36, f"{worth:+.0f}, ≥ {low:+.0f}   {wdl}", ha="right",
                    va="bottom", fontsize=8)
        else:
            ax.errorbar(worth, i, xerr=[[worth - low], [high - worth]], fmt="none",
                        ecolor="black", capsize=4)
            ax.text(high + 8, i, f"{worth:+.0f} [{low:+.0f}, {high:+.0f}]   {wdl}", va="center",
                    fontsize=8)
    ax.axvline(0, color="grey", linewidth=0.8)
    ax.set_xlim(left, right)
    ax.set_yticks(list(y), [name for *_, name, _ in rows])
    ax.set_ylim(-0.6, len(rows) - 0.2)
    ax.set_xlabel("worth: the full search's Elo over the search without it (95 % interval)")
    ax.grid(True, axis="x", alpha=0.3)
    if saves:
        ax2 = axes[0][1]
        shares = [saves.get(name) for *_, name, _ in rows]
        for i, share in enumerate(shares):
            if share is None:
                continue
            ax2.barh(i, 100 * share, height=0.6, color="#fd8d3c")
            ax2.text(max(0, 100 * share) + 2, i, f"{share:+.0%}", va="center", fontsize=8)
        ax2.axvline(0, color="grey", linewidth=0.8)
        ax2.set_xlim(min(-10, *(100 * s - 5 for s in shares if s is not None)), 120)
        ax2.set_xlabel("nodes it saves (%)\n1 − full / without")
        ax2.grid(True, axis="x", alpha=0.3)
    games = sorted({r["wins"] + r["draws"] + r["losses"] for *_, r in rows})
    tcs = sorted({r.get("tc", "?") for *_, r in rows})
    title = (f"What each technique is worth: the search without it against the full search, "
             f"{'/'.join(map(str, games))} games each at {', '.join(tcs)}")
    fig.suptitle(title + (f"\n{label}" if label else ""), fontsize=10)
    if any(score < OPEN_SCORE for _, _, _, score, _, _ in rows):
        fig.text(0.01, 0.005, f"Hatched, with an arrow: the search without it scored under "
                 f"{OPEN_SCORE:.0%}, so the games bound the worth from below only (≥ the "
                 f"interval's lower end).\nNumbers: worth [95 % interval], W/D/L of the search "
                 f"without it.", fontsize=8, va="bottom")
        fig.get_layout_engine().set(rect=(0, 0.06, 1, 0.94))
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    fig.savefig(buffer, dpi=100)
    plt.close(fig)
    # A few colours suffice for bars: the palette keeps the PNG in docs/ small.
    from PIL import Image  # matplotlib's own dependency
    Image.open(buffer).quantize(colors=32).save(path, optimize=True)


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
    parser.add_argument("--plot", type=Path, help="then draw the results as a PNG (matplotlib)")
    parser.add_argument("--saves", type=Path,
                        help="with --plot: each technique's saved share of nodes, a JSON object "
                             "{technique: share} or alphabeta_table.py --techniques --json rows")
    parser.add_argument("--label", default="", help="with --plot: a second title line (build, "
                                                    "date, where the saves come from)")
    args = parser.parse_args(argv)
    results = json.loads(args.out.read_text()) if args.out.exists() else {}
    print("| technique off | games | W/D/L | score | Elo (95 %) |\n|---|---|---|---|---|")
    shown = {}
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
        r = shown[name] = results[name]
        games = r["wins"] + r["draws"] + r["losses"]
        estimate = elo_estimate(r["wins"], r["draws"], r["losses"])
        print(f"| {name} | {games} | {r['wins']}/{r['draws']}/{r['losses']} | "
              f"{(r['wins'] + r['draws'] / 2) / games:.1%} | {estimate.elo:+.0f} "
              f"[{estimate.lower:+.0f}, {estimate.upper:+.0f}] |", flush=True)
    if args.plot:
        plot_worth(shown, args.plot, read_saves(args.saves) if args.saves else None, args.label)
        print(f"plot written to {args.plot}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
