"""UCI_ShowWDL: the win/draw/loss model, its fit, and the `wdl` field of `info` lines."""

from __future__ import annotations

import re
from pathlib import Path

import chess
import chess.pgn
import numpy as np
import pytest

from scripts.studies import fit_wdl
from engine.evaluation import wdl
from engine.evaluation.score import MATE
from uci_client import RawUci

SCORES = range(-1500, 1501, 7)
MATERIALS = (10, 18, 30, 45, 58, 78)


def test_wdl_adds_up_to_a_thousand():
    for material in MATERIALS:
        for score in SCORES:
            chances = wdl.wdl(score, material)
            assert sum(chances) == 1000 and min(chances) >= 0, (score, material, chances)


def test_wdl_is_monotone_in_the_score():
    for material in MATERIALS:
        table = [wdl.wdl(score, material) for score in SCORES]
        wins = [w for w, _, _ in table]
        losses = [l for _, _, l in table]
        assert wins == sorted(wins) and losses == sorted(losses, reverse=True)
        assert wins[0] == 0 and wins[-1] > 900  # -15 pawns never wins; +15 nearly always


def test_wdl_of_the_negated_score_is_reversed():
    for material in MATERIALS:
        for score in SCORES:
            assert wdl.wdl(-score, material) == wdl.wdl(score, material)[::-1]


def test_an_even_score_is_as_likely_won_as_lost_and_mates_are_certain():
    for material in MATERIALS:
        win, draw, loss = wdl.wdl(0, material)
        assert win == loss and draw > 0
    assert wdl.wdl(MATE - 5, 40) == (1000, 0, 0)
    assert wdl.wdl(-MATE + 4, 40) == (0, 0, 1000)


def test_material_counts_both_sides_and_is_clamped():
    assert wdl.material(chess.Board()) == 78
    assert wdl.material(chess.Board("4k3/8/8/8/8/8/8/4K2R w K - 0 1")) == wdl.MATERIAL_CLAMP[0]


def test_the_shipped_constants_are_a_fit_as_scripts_fit_wdl_writes_it():
    # The block in engine/evaluation/wdl.py is the one the fitter writes, with its sample counts.
    source = Path(wdl.__file__).read_text()
    assert fit_wdl.constants_block(wdl.A, wdl.B, wdl.FIT) in source
    found = re.match(r"(\d+) positions of (\d+) games \(samples W/D/L (\d+)/(\d+)/(\d+)\)", wdl.FIT)
    assert found, wdl.FIT
    positions, games, wins, draws, losses = map(int, found.groups())
    assert wins + draws + losses == positions and games > 0
    # A usable model: a positive midpoint and spread over the whole material range.
    for material_count in range(wdl.MATERIAL_CLAMP[0], wdl.MATERIAL_CLAMP[1] + 1):
        midpoint, spread = wdl.parameters(material_count)
        assert midpoint > 0 and spread > 0


# ---------------------------------------------------------------------- the fit

def test_fit_recovers_the_parameters_that_generated_the_results():
    rng = np.random.default_rng(7)
    n = 6000
    true_a, true_b = (60.0, 180.0), (40.0, 90.0)
    score = rng.uniform(-600, 600, n)
    material = rng.integers(10, 79, n).astype(float)
    win = np.array([wdl.win_chance(s, m, true_a, true_b) for s, m in zip(score, material)])
    loss = np.array([wdl.win_chance(-s, m, true_a, true_b) for s, m in zip(score, material)])
    u = rng.uniform(size=n)
    result = np.where(u < win, 1, np.where(u < win + loss, -1, 0))
    a, b = fit_wdl.fit(fit_wdl.Samples(score, material, result, games=1))
    for material_count in (20, 50, 78):
        fitted = wdl.parameters(material_count, a, b)
        true = wdl.parameters(material_count, true_a, true_b)
        assert fitted[0] == pytest.approx(true[0], abs=25) and fitted[1] == pytest.approx(true[1], rel=0.2)


PGN = """[Event "t"]
[Result "0-1"]
[Termination "checkmate"]

1. f3 {+0.10/5 0.100s} e5 {+0.40/5 0.100s} 2. g4 {-2.50/5 0.100s} Qh4# {+M1/2 0.010s Black mates} 0-1

[Event "t"]
[Result "1-0"]
[Termination "time forfeit"]

1. e4 {+0.30/5 0.100s} 1-0
"""


def test_samples_are_read_from_the_movers_view_and_abnormal_games_are_left_out(tmp_path):
    path = tmp_path / "games.pgn"
    path.write_text(PGN)
    samples = fit_wdl.read_samples([str(path)], max_score=1500)
    assert samples.games == 1
    assert samples.score.tolist() == [10, 40, -250]  # the mate score is left out
    assert samples.result.tolist() == [-1, 1, -1]  # White lost, Black won
    assert samples.material.tolist() == [78, 78, 78]


# ---------------------------------------------------------------------- UCI

def test_info_lines_carry_wdl_only_when_the_option_is_on():
    raw = RawUci()
    try:
        raw.send("uci")
        assert "option name UCI_ShowWDL type check default false" in raw.read_until("uciok")
        raw.send("position startpos moves e2e4")
        raw.send("go depth 3")
        infos = [line for line in raw.read_until("bestmove") if line.startswith("info depth")]
        assert infos and not any(" wdl " in line for line in infos)
        raw.send("setoption name UCI_ShowWDL value true")
        raw.send("go depth 3")
        infos = [line for line in raw.read_until("bestmove") if line.startswith("info depth")]
        assert infos
        for line in infos:
            words = line.split()
            at = words.index("wdl")
            assert words[at - 2] == "cp" or words[at - 1] in ("lowerbound", "upperbound")
            win, draw, loss = map(int, words[at + 1:at + 4])
            score = int(words[words.index("score") + 2])
            assert win + draw + loss == 1000
            assert (win, draw, loss) == wdl.wdl(score, wdl.material(chess.Board()))
    finally:
        raw.close()
