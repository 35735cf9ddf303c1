"""The learned evaluation's tools: the data format, the data generator and the Texel tuner."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import chess
import numpy as np
import pytest

from engine.evaluation import evaluate as ev
from paths import STOCKFISH, needs_stockfish
from scripts.training import labels, loop
from scripts.training.config import TrainConfig
from scripts.training.data import text as dataset
from scripts.training.model import classical
from test_evaluate import random_game

ROOT = Path(__file__).resolve().parents[1]


def test_a_sample_line_round_trips_and_bad_lines_are_refused():
    sample = dataset.Sample(chess.STARTING_FEN, -35, 0.5)
    assert dataset.parse_line(sample.line()) == sample
    assert dataset.parse_line("# a comment") is None
    with pytest.raises(ValueError):
        dataset.parse_line(f"{chess.STARTING_FEN} | 12")
    with pytest.raises(ValueError):
        dataset.parse_line(f"{chess.STARTING_FEN} | 12 | 0.7")


def synthetic_dataset(true_weights: np.ndarray) -> classical.Dataset:
    """Positions of random games, each labelled with the score ``true_weights`` give it."""
    boards = [b for seed in range(60) for b in random_game(seed, 120)[8::3]]
    coefs = np.zeros((len(boards), ev.N_FEATURES), dtype=np.float32)
    phase = np.zeros(len(boards), dtype=np.float32)
    for i, board in enumerate(boards):
        row, p = ev.feature_coefficients(board)
        coefs[i], phase[i] = row, p / ev.PHASE_MAX
    data = classical.Dataset(coefs, phase, np.zeros(len(boards), np.float32), np.zeros(len(boards), np.float32))
    data.score = classical.white_scores(data, true_weights.astype(np.float32))
    return data


def test_tuning_recovers_the_weights_that_labelled_a_synthetic_set():
    start = ev.WEIGHTS.copy()
    truth = start.copy()
    material = slice(ev.F_MATERIAL, ev.F_MATERIAL + 5)
    truth[material] += np.array([[-20, 15], [60, -40], [-45, 30], [80, 70], [-90, 120]])
    data = synthetic_dataset(truth)
    target = labels.targets(data, teacher_scale=1.0, result_share=0.0)
    trainable = np.zeros(start.shape, dtype=bool)
    trainable[material] = True
    fitted = loop.fit_classical(data, target, start, 1.0, TrainConfig(epochs=300, batch=1024, lr=6.0),
                                trainable=trainable, log=lambda line: None)
    assert np.abs(fitted[material] - truth[material]).max() < 6, fitted[material] - truth[material]
    assert (fitted[~trainable] == start[~trainable]).all()
    assert classical.loss(data, target, fitted, 1.0) < classical.loss(data, target, start, 1.0) / 50


def test_the_scale_fit_finds_the_scale_that_made_the_targets():
    scores = np.linspace(-800, 800, 2001).astype(np.float32)
    target = labels.sigmoid(1.7 * scores / 400)
    assert abs(labels.fit_scale(scores, target) - 1.7) < 0.01


@needs_stockfish
def test_make_data_writes_quiet_unique_positions_and_resumes(tmp_path):
    out = tmp_path / "d.txt"
    command = [sys.executable, "-m", "scripts.training.data.make_text", "--out", str(out),
               "--teacher", STOCKFISH, "--nodes", "300", "--seed", "5"]
    subprocess.run(command + ["--positions", "40"], check=True, capture_output=True, timeout=120, cwd=ROOT)
    first = list(dataset.read_samples(out))
    assert len(first) >= 40
    subprocess.run(command + ["--positions", str(len(first) + 40)], check=True,
                   capture_output=True, timeout=120, cwd=ROOT)
    both = list(dataset.read_samples(out))
    assert both[:len(first)] == first and len(both) >= len(first) + 40
    keys = set()
    for sample in both:
        board = sample.board()
        assert board.is_valid() and not board.is_check()
        assert len(board.piece_map()) > 5
        keys.add(dataset.position_id(board))
    assert len(keys) == len(both)
