"""The UCI options that choose the evaluation: `Use NNUE` and `EvalFile`, in the engine process."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import chess
import numpy as np
import pytest

from engine.evaluation import network as nn
from uci_client import RawUci

# A network that ignores the pieces and gives the side to move 2000 cp: a search with it scores
# about 2000 for one side or the other (its line may end with either side to move: extensions and
# reductions change a line's length; correction history moves the static score by what the searches
# found it off by, a few percent at these depths); the classical one about 0.
BIAS_CP = 2000


def scores_as_the_constant_network(score: int) -> bool:
    return abs(abs(score) - BIAS_CP) <= BIAS_CP // 10


@pytest.fixture
def constant_network(tmp_path):
    hidden = 32
    path = tmp_path / "constant.npz"
    nn.save_network(nn.Parameters(np.zeros((nn.N_INPUTS, hidden), np.float32), np.zeros(hidden, np.float32),
                                  np.zeros(2 * hidden, np.float32), BIAS_CP / nn.OUTPUT_SCALE), path)
    return path


@pytest.fixture
def raw():
    client = RawUci()
    client.send("uci")
    client.read_until("uciok")
    yield client
    if client.process.poll() is None:
        client.close()


def score_at_depth(raw: RawUci, depth: int) -> int:
    raw.send("position startpos")
    raw.send(f"go depth {depth}")
    lines = raw.read_until("bestmove")
    info = [line.split() for line in lines if line.startswith("info depth")][-1]
    move = chess.Move.from_uci(lines[-1].split()[1])
    assert move in chess.Board().legal_moves
    return int(info[info.index("cp") + 1])


def test_use_nnue_makes_the_search_and_eval_use_the_network_of_evalfile(raw, constant_network):
    assert abs(score_at_depth(raw, 3)) < 200
    raw.send(f"setoption name EvalFile value {constant_network}")
    raw.send("setoption name Use NNUE value true")
    assert scores_as_the_constant_network(score_at_depth(raw, 3))
    raw.send("eval")
    raw.send("isready")
    lines = raw.read_until("readyok")
    assert any(line.startswith("NNUE evaluation") and f"({BIAS_CP} cp)" in line for line in lines)
    raw.send("setoption name Use NNUE value false")
    assert abs(score_at_depth(raw, 3)) < 200


def test_an_unusable_evalfile_is_reported_and_the_evaluation_is_kept(raw, constant_network, tmp_path):
    raw.send(f"setoption name EvalFile value {constant_network}")
    raw.send("setoption name Use NNUE value true")
    broken = tmp_path / "broken.npz"
    broken.write_bytes(b"not a network")
    for path in (broken, tmp_path / "missing.npz"):
        raw.send(f"setoption name EvalFile value {path}")
        raw.send("isready")
        lines = raw.read_until("readyok")
        assert any(line.startswith("info string") and "network" in line for line in lines)
        assert scores_as_the_constant_network(score_at_depth(raw, 3))


def failed(line: str) -> bool:
    """An error, or a helper's failure (each names its helper: "helper 1 ..."); an isready that
    only says helpers are still starting is none."""
    return "error" in line or re.search(r"helper \d", line) is not None


def test_helpers_evaluate_with_the_network_too(raw, constant_network):
    raw.send(f"setoption name EvalFile value {constant_network}")
    raw.send("setoption name Use NNUE value true")
    raw.send("setoption name Threads value 2")
    raw.send("isready")
    assert not [line for line in raw.read_until("readyok") if failed(line)]
    assert scores_as_the_constant_network(score_at_depth(raw, 5))
    raw.send("isready")
    assert not [line for line in raw.read_until("readyok") if failed(line)]


# ---------------------------------------------------------------------- BRUDNO_EVALFILE

def test_brudno_evalfile_is_evalfiles_default_and_what_the_engine_plays(constant_network):
    raw = RawUci(env={**os.environ, "BRUDNO_EVALFILE": str(constant_network)})
    try:
        raw.send("uci")
        assert f"option name EvalFile type string default {constant_network}" in raw.read_until("uciok")
        assert scores_as_the_constant_network(score_at_depth(raw, 3))
        raw.send("eval")
        lines = raw.sync()
        assert any(line.startswith(f"NNUE network {constant_network}: ") for line in lines)
        assert any(line.startswith("NNUE evaluation") and f"({BIAS_CP} cp)" in line for line in lines)
    finally:
        assert raw.close() == 0


def bench_nodes(env: dict[str, str]) -> int:
    done = subprocess.run([sys.executable, "-m", "engine", "bench", "2"], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return int(re.search(r"Nodes searched\s*:\s*(\d+)", done.stdout).group(1))


def test_the_bench_plays_brudno_evalfiles_network(constant_network):
    env = {key: value for key, value in os.environ.items() if key != "BRUDNO_EVALFILE"}
    assert bench_nodes({**env, "BRUDNO_EVALFILE": str(constant_network)}) != bench_nodes(env)


def test_an_unusable_brudno_evalfile_is_reported_and_the_shipped_network_played(tmp_path):
    missing = tmp_path / "missing.npz"
    raw = RawUci(env={**os.environ, "BRUDNO_EVALFILE": str(missing)})
    try:
        raw.start()
        assert any(line.startswith("info string error: cannot use the network")
                   and line.endswith("the shipped network is used") for line in raw.lines)
        assert abs(score_at_depth(raw, 3)) < 200
        raw.send("eval")
        assert any(line.startswith("NNUE network ") and "weights" in line for line in raw.sync())
    finally:
        assert raw.close() == 0
