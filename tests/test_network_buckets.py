"""King buckets (engine/evaluation/network.py, scripts/training/train.py): a first layer per bucket of a
side's own king, kept up to date as kings cross buckets, trained factorised and folded for the
engine."""

from __future__ import annotations

import random

import chess
import numpy as np
import pytest

from engine.evaluation import network as nn
from scripts.training import train
from scripts.training.data import positions as training_data
from scripts.training.model import network as model
from test_network import game_positions
from test_network_incremental import boards_of, fresh


def bucketed_parameters(hidden: int, seed: int) -> nn.Parameters:
    """Random parameters of a bucketed network whose buckets differ, with a trained network's
    spread (see test_network.trained_like_parameters)."""
    rng = np.random.default_rng(seed)
    return nn.Parameters(rng.normal(0, 0.09, (nn.N_BUCKETS * nn.N_INPUTS, hidden)).astype(np.float32),
                         rng.normal(0.1, 0.07, hidden).astype(np.float32),
                         rng.normal(0, 0.16, 2 * hidden).astype(np.float32), 0.01)


@pytest.fixture(scope="module")
def bucketed(tmp_path_factory) -> nn.Network:
    path = tmp_path_factory.mktemp("buckets") / "b.npz"
    nn.save_network(bucketed_parameters(32, seed=5), path)
    return nn.load_network(path)


def bucket(board: chess.Board, colour: chess.Color) -> int:
    king = board.king(colour)
    return int(nn.KING_BUCKET[king if colour == chess.WHITE else king ^ 56])


def test_the_buckets_are_the_same_on_the_a_and_h_sides_and_all_are_used():
    assert all(nn.KING_BUCKET[sq] == nn.KING_BUCKET[sq ^ 7] for sq in range(64))
    assert sorted(set(nn.KING_BUCKET.tolist())) == list(range(nn.N_BUCKETS))


def test_a_bucketed_weight_file_loads_back_with_its_buckets(bucketed):
    assert bucketed.buckets == nn.N_BUCKETS and bucketed.w1.shape == (nn.N_BUCKETS * 768, 32)
    assert nn.default_network().buckets in (1, nn.N_BUCKETS)


def test_a_weight_file_of_another_bucket_count_is_refused(bucketed, tmp_path):
    params = bucketed.dequantised()
    three = nn.Parameters(params.w1[:3 * 768], params.b1, params.w2, params.b2)
    with pytest.raises(ValueError):
        nn.quantise(three)
    path = tmp_path / "three.npz"
    nn.save_network(params, path)
    with np.load(path) as data:
        fields = dict(data)
    np.savez(path, **{**fields, "buckets": np.int64(3), "w1": fields["w1"][:3 * 768]})
    with pytest.raises(ValueError):
        nn.load_network(path)


def test_the_features_move_to_the_bucket_of_the_perspectives_own_king():
    # White's king castled on g1 (bucket 0), Black's on e8: d1/e1 as Black sees it (bucket 1).
    board = chess.Board("4k3/8/8/8/8/8/8/R5K1 w - - 0 1")
    plain = nn.features(board, chess.WHITE)
    assert list(nn.features(board, chess.WHITE, nn.N_BUCKETS)) == list(plain + 0 * 768)
    assert list(nn.features(board, chess.BLACK, nn.N_BUCKETS)) == list(nn.features(board, chess.BLACK) + 768)
    up = chess.Board("8/8/8/4k3/8/8/6K1/R7 w - - 0 1")  # White's king on g2, Black's on e5 (its e4)
    assert (nn.features(up, chess.WHITE, nn.N_BUCKETS) >= 2 * 768).all()
    assert (nn.features(up, chess.BLACK, nn.N_BUCKETS) >= 3 * 768).all()


def test_a_bucketed_network_computes_its_float_formula_and_scores_colour_mirrors_alike(bucketed):
    rounded = bucketed.dequantised()
    for board in game_positions(range(12), plies=160, every=4):
        score = nn.network_evaluate(board, bucketed)
        assert -1.01 < score - nn.float_evaluate(board, rounded) < 0.01, board.fen()
        assert score == nn.network_evaluate(board.mirror(), bucketed)


def test_the_updated_first_layer_equals_the_fresh_one_as_kings_cross_buckets(bucketed):
    rng = random.Random(11)
    crossings = {chess.WHITE: 0, chess.BLACK: 0}
    for game in range(30):
        board = (chess.Board.from_chess960_pos(rng.randrange(960)) if game % 3 == 2
                 else chess.Board())
        acc = fresh(board, bucketed)
        for _ in range(150):
            moves = list(board.legal_moves)
            if not moves:
                break
            kings = [m for m in moves if board.piece_type_at(m.from_square) == chess.KING]
            move = rng.choice(kings if kings and rng.random() < 0.4 else moves)
            if not board.is_check() and rng.random() < 0.05:
                move = chess.Move.null()
            buckets_before = {colour: bucket(board, colour) for colour in chess.COLORS}
            before, white_before = boards_of(board), np.uint64(board.occupied_co[chess.WHITE])
            board.push(move)
            for colour in chess.COLORS:
                crossings[colour] += bucket(board, colour) != buckets_before[colour]
            child = np.empty_like(acc)
            nn.update(acc, child, before, white_before, boards_of(board),
                      np.uint64(board.occupied_co[chess.WHITE]), bucketed.w1)
            assert np.array_equal(child, fresh(board, bucketed)), (board.fen(), move.uci())
            assert nn.output(child, board.turn, np.uint64(board.occupied), bucketed.w2,
                             bucketed.b2) == nn.network_evaluate(board, bucketed)
            acc = child
    assert min(crossings.values()) > 50, crossings


def test_the_factorised_encoding_lists_each_man_as_shared_and_bucket_input():
    boards = game_positions(range(8))
    us, them = training_data.encode([b.board_fen() for b in boards], np.array([b.turn for b in boards]),
                            nn.N_BUCKETS)
    for board, own, other in zip(boards, us, them):
        for perspective, listed in ((board.turn, own), (not board.turn, other)):
            shared, own_bucket = listed[:nn.MAX_ACTIVE], listed[nn.MAX_ACTIVE:]
            assert sorted(shared[shared != training_data.PAD]) == list(nn.features(board, perspective))
            assert sorted(own_bucket[own_bucket != training_data.PAD]) == list(
                nn.features(board, perspective, nn.N_BUCKETS) + 768)
        assert list(nn.features(training_data.board_of(own), chess.WHITE, nn.N_BUCKETS)) == list(
            nn.features(board, board.turn, nn.N_BUCKETS))


def test_folding_the_factorised_layer_keeps_every_output():
    boards = game_positions(range(6))
    data = training_data.Positions(*training_data.encode([b.board_fen() for b in boards],
                                         np.array([b.turn for b in boards]), nn.N_BUCKETS),
                           np.zeros(len(boards), np.float32), np.zeros(len(boards), np.float32),
                           np.zeros(len(boards), np.int32))
    rng = np.random.default_rng(4)
    factorised = nn.Parameters(rng.normal(0, 0.05, ((1 + nn.N_BUCKETS) * 768, 8)).astype(np.float32),
                               rng.normal(0.1, 0.05, 8).astype(np.float32),
                               rng.normal(0, 0.2, 16).astype(np.float32), 0.02)
    folded = model.fold(factorised)
    assert folded.buckets == nn.N_BUCKETS
    expected = [nn.float_evaluate(board, folded) / nn.OUTPUT_SCALE for board in boards]
    assert model.outputs(factorised, data) == pytest.approx(expected, abs=1e-4)


def test_mirroring_a_factorised_index_list_gives_the_mirrored_boards_lists():
    boards = game_positions(range(3))[:30]
    fields, turns = [b.board_fen() for b in boards], np.array([b.turn for b in boards])
    us, _ = training_data.encode(fields, turns, nn.N_BUCKETS)
    flip = np.arange(len(boards)) % 2 == 0
    mirrored = training_data.mirror_files(us, flip)
    expected, _ = training_data.encode([b.transform(chess.flip_horizontal).board_fen() if f else b.board_fen()
                                for b, f in zip(boards, flip)], turns, nn.N_BUCKETS)
    for got, want in zip(mirrored, expected):
        assert sorted(got[:nn.MAX_ACTIVE]) == sorted(want[:nn.MAX_ACTIVE])
        assert sorted(got[nn.MAX_ACTIVE:]) == sorted(want[nn.MAX_ACTIVE:])


def test_the_sparse_gradients_of_a_factorised_layer_equal_the_dense_ones():
    boards = game_positions(range(2), every=8)
    us, them = training_data.encode([b.board_fen() for b in boards], np.array([b.turn for b in boards]),
                            nn.N_BUCKETS)
    rows = (1 + nn.N_BUCKETS) * 768
    x = model.DenseInputs(len(boards), rows).fill(us, them).astype(np.float64)
    rng = np.random.default_rng(6)
    params = nn.Parameters(rng.normal(0, 0.05, (rows, 6)), rng.normal(0.1, 0.05, 6),
                           rng.normal(0, 0.2, 12), 0.02)
    target = rng.random(len(boards))
    dense_loss, dense = model.gradients(params, x, target, scale=1.5)
    sparse_loss, sparse = model.sparse_gradients(params, us, them, target, scale=1.5)
    assert sparse_loss == pytest.approx(dense_loss, rel=1e-9)
    assert np.abs(dense["w1"][768:]).sum() > 0  # the bucket rows are reached
    for name in ("w1", "b1", "w2", "b2"):
        assert np.allclose(sparse[name], dense[name], rtol=1e-7, atol=1e-12), name


def test_the_training_script_trains_and_writes_a_bucketed_network(tmp_path, capsys):
    from test_network import write_labelled_games

    path = tmp_path / "d.txt"
    write_labelled_games(path, range(150))
    out = tmp_path / "network.npz"
    train.main([str(path), "--hidden", "32", "--epochs", "3", "--batch", "512", "--lr", "1e-2",
                "--validation", "0.3", "--king-buckets", "--out", str(out)])
    network = nn.load_network(out)
    assert network.buckets == nn.N_BUCKETS and network.hidden == 32
    printed = capsys.readouterr().out
    # 5,000 positions are too few for 4 buckets to generalise (validation rises, then falls
    # below the start over more epochs); the training loss shows that the layer learns.
    losses = [float(line.split("train")[1].split()[0]) for line in printed.splitlines()
              if line.startswith("epoch")]
    assert len(losses) == 3 and losses[-1] < 0.5 * losses[0], printed
    assert "integer kernel" in printed
