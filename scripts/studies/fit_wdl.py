"""Fits the win/draw/loss model of engine/evaluation/wdl.py to games written by scripts/matches/match.py.

Every move of those PGNs carries the mover's score as a comment (`+0.35/12 0.123s`). Each such
score, with the material on the board before the move and how the game ended for the mover, is
one sample; the model's midpoint a(m) and spread b(m), each linear in the material m, are chosen
to maximise the likelihood of the results (win, draw or loss; the model gives all three).

    .venv/bin/python -m scripts.studies.fit_wdl out/wdl/selfplay.pgn          # print the fit
    .venv/bin/python -m scripts.studies.fit_wdl out/wdl/selfplay.pgn --write  # and store it in engine/evaluation/wdl.py

Games that ended by a time forfeit, an illegal move, a crash or adjudication are left out, and so
are mate scores and scores beyond --max-score (there the model says certain anyway).
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.pgn
import numpy as np

from engine.evaluation import wdl

SCORE_COMMENT = re.compile(r"^([+-]\d+\.\d+)/\d+")
RULES_ENDINGS = {"checkmate", "stalemate", "insufficient material", "fifty-move rule",
                 "threefold repetition", "fivefold repetition", "seventy-five-move rule"}
WDL_MODULE = Path(__file__).resolve().parents[2] / "engine" / "evaluation" / "wdl.py"


@dataclass
class Samples:
    score: np.ndarray  # centipawns, mover's view
    material: np.ndarray  # wdl.material() before the move
    result: np.ndarray  # 1 win, 0 draw, -1 loss for the mover
    games: int


def read_samples(paths: list[str], max_score: int) -> Samples:
    scores, materials, results = [], [], []
    games = 0
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            while (game := chess.pgn.read_game(handle)) is not None:
                outcome = {"1-0": 1, "0-1": -1, "1/2-1/2": 0}.get(game.headers.get("Result"))
                if outcome is None or game.headers.get("Termination", "") not in RULES_ENDINGS:
                    continue
                games += 1
                board = game.board()
                for node in game.mainline():
                    found = SCORE_COMMENT.match(node.comment.strip())
                    if found:
                        score = round(float(found.group(1)) * 100)
                        if abs(score) <= max_score:
                            scores.append(score)
                            materials.append(wdl.material(board))
                            results.append(outcome if board.turn == chess.WHITE else -outcome)
                    board.push(node.move)
    return Samples(np.array(scores, float), np.array(materials, float), np.array(results), games)


def negative_log_likelihood(params: np.ndarray, samples: Samples) -> float:
    a, b = (params[0], params[1]), (params[2], params[3])
    m = np.clip(samples.material, *wdl.MATERIAL_CLAMP) / wdl.MATERIAL_SCALE
    mid = np.maximum(1.0, a[0] + a[1] * m)
    spread = np.maximum(1.0, b[0] + b[1] * m)
    win = 1 / (1 + np.exp(np.clip((mid - samples.score) / spread, -700, 700)))
    loss = 1 / (1 + np.exp(np.clip((mid + samples.score) / spread, -700, 700)))
    p = np.where(samples.result == 1, win, np.where(samples.result == -1, loss, 1 - win - loss))
    return float(-np.sum(np.log(np.maximum(p, 1e-12))))


def nelder_mead(f, start: np.ndarray, step: float = 20.0, iterations: int = 4000,
                tolerance: float = 1e-7) -> np.ndarray:
    """Minimises f from ``start`` by the Nelder-Mead simplex (few parameters, no gradient)."""
    simplex = [start] + [start + step * np.eye(len(start))[i] for i in range(len(start))]
    values = [f(x) for x in simplex]
    for _ in range(iterations):
        order = np.argsort(values)
        simplex = [simplex[i] for i in order]
        values = [values[i] for i in order]
        if abs(values[-1] - values[0]) <= tolerance * (abs(values[0]) + 1e-12):
            break
        centroid = np.mean(simplex[:-1], axis=0)
        reflected = centroid + (centroid - simplex[-1])
        fr = f(reflected)
        if fr < values[0]:
            expanded = centroid + 2 * (centroid - simplex[-1])
            fe = f(expanded)
            simplex[-1], values[-1] = (expanded, fe) if fe < fr else (reflected, fr)
        elif fr < values[-2]:
            simplex[-1], values[-1] = reflected, fr
        else:
            contracted = centroid + 0.5 * (simplex[-1] - centroid)
            fc = f(contracted)
            if fc < values[-1]:
                simplex[-1], values[-1] = contracted, fc
            else:  # shrink towards the best point
                simplex = [simplex[0]] + [simplex[0] + 0.5 * (x - simplex[0]) for x in simplex[1:]]
                values = [values[0]] + [f(x) for x in simplex[1:]]
    return simplex[int(np.argmin(values))]


def fit(samples: Samples) -> tuple[tuple[float, float], tuple[float, float]]:
    start = np.array([*wdl.A, *wdl.B], float)
    best = nelder_mead(lambda p: negative_log_likelihood(p, samples), start)
    best = nelder_mead(lambda p: negative_log_likelihood(p, samples), best, step=5.0)  # restart
    return (round(best[0], 1), round(best[1], 1)), (round(best[2], 1), round(best[3], 1))


def constants_block(a: tuple[float, float], b: tuple[float, float], note: str) -> str:
    return (f"A = ({a[0]}, {a[1]})\n"
            f"B = ({b[0]}, {b[1]})\n"
            f"FIT = {note!r}\n")


def write_constants(block: str) -> None:
    text = WDL_MODULE.read_text()
    pattern = re.compile(r"(# a\(m\) = .*?\n)(A = .*?\nB = .*?\nFIT = .*?\n)", re.S)
    if not pattern.search(text):
        raise SystemExit(f"no constants block found in {WDL_MODULE}")
    WDL_MODULE.write_text(pattern.sub(lambda found: found.group(1) + block, text, count=1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pgn", nargs="+", help="PGN files written by scripts/matches/match.py")
    parser.add_argument("--max-score", type=int, default=1500, help="leave out larger scores (cp)")
    parser.add_argument("--write", action="store_true", help="store the fit in engine/evaluation/wdl.py")
    parser.add_argument("--note", default="", help="where the games come from, kept with the fit")
    args = parser.parse_args(argv)

    samples = read_samples(args.pgn, args.max_score)
    if len(samples.score) < 100:
        print(f"only {len(samples.score)} samples: not enough to fit", file=sys.stderr)
        return 1
    a, b = fit(samples)
    wins, draws, losses = (int(np.sum(samples.result == r)) for r in (1, 0, -1))
    note = (f"{len(samples.score)} positions of {samples.games} games "
            f"(samples W/D/L {wins}/{draws}/{losses}), {', '.join(Path(p).name for p in args.pgn)}"
            + (f": {args.note}" if args.note else ""))
    before = negative_log_likelihood(np.array([*wdl.A, *wdl.B], float), samples)
    after = negative_log_likelihood(np.array([*a, *b], float), samples)
    print(f"{note}\nnegative log-likelihood: {before:.1f} with the current constants, {after:.1f} fitted")
    for material in (78, 58, 38, 18):
        mid, spread = wdl.parameters(material, a, b)
        print(f"material {material:2d}: a = {mid:6.1f} cp, b = {spread:5.1f} cp; "
              f"score +100 -> wdl {wdl_at(100, material, a, b)}")
    block = constants_block(a, b, note)
    print(block, end="")
    if args.write:
        write_constants(block)
        print(f"written to {WDL_MODULE}")
    return 0


def wdl_at(score: int, material: int, a: tuple[float, float], b: tuple[float, float]) -> str:
    win = round(1000 * wdl.win_chance(score, material, a, b))
    loss = round(1000 * wdl.win_chance(-score, material, a, b))
    return f"{win} {1000 - win - loss} {loss}"


if __name__ == "__main__":
    sys.exit(main())
