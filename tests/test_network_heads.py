"""Output heads by material (engine/evaluation/network.py `output_head`, scripts/training/train.py
--output-buckets): a weight file of N output layers, one chosen by the number of men on the
board, in the kernel, the float reference, the incremental path and the trainer."""

from __future__ import annotations

import random

import chess
import numpy as np
import pytest

from engine.evaluation import network as nn
from engine.evaluation.evaluate import EVAL_LIMIT
from scripts.training import train
from scripts.training.data import positions as training_data
from scripts.training.model import network as model
from test_network import game_positions, trained_like_parameters, write_labelled_games
from test_network_incremental import boards_of, fresh

HEADS = 8


def headed_parameters(hidden: int, seed: int, rows: int = nn.N_INPUTS,
                      heads: int = HEADS) -> nn.Parameters:
    """Random parameters with a trained network's spread (test_network.trained_like_parameters)
    and ``heads`` output layers that differ from each other as much as from zero."""
    rng = np.random.default_rng(seed)
    return nn.Parameters(rng.normal(0, 0.09, (rows, hidden)).astype(np.float32),
                         rng.normal(0.1, 0.07, hidden).astype(np.float32),
                         rng.normal(0, 0.16, (heads, 2 * hidden)).astype(np.float32),
                         rng.normal(0, 0.2, heads).astype(np.float32))


@pytest.fixture(scope="module", params=[nn.N_INPUTS, nn.N_BUCKETS * nn.N_INPUTS],
                ids=["one first layer", "king buckets"])
def headed(request, tmp_path_factory) -> nn.Network:
    path = tmp_path_factory.mktemp("heads") / "h.npz"
    nn.save_network(headed_parameters(32, seed=7, rows=request.param), path)
    return nn.load_network(path)


def random_position(men: int, rng: random.Random) -> chess.Board:
    """A position of ``men`` men (two kings and random others; pawns off the first and last
    ranks), either side to move: the network needs no legal position, only men."""
    board = chess.Board(None)
    squares = rng.sample(range(64), men)
    board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
    board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
    for square in squares[2:]:
        kinds = [chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN]
        if chess.square_rank(square) not in (0, 7):
            kinds += [chess.PAWN] * 4
        board.set_piece_at(square, chess.Piece(rng.choice(kinds), rng.random() < 0.5))
    board.turn = rng.random() < 0.5
    return board


def positions_of_every_men_count(per_count: int, seed: int) -> list[chess.Board]:
    rng = random.Random(seed)
    return [random_position(men, rng) for men in range(2, nn.MAX_ACTIVE + 1)
            for _ in range(per_count)]


def test_eight_heads_take_four_men_each_and_one_head_takes_all():
    for men in range(1, nn.MAX_ACTIVE + 1):
        assert nn.output_head(men, 8) == (men - 1) // 4
        assert nn.output_head(men, 1) == 0
    for heads in range(1, nn.MAX_HEADS + 1):
        chosen = [nn.output_head(men, heads) for men in range(1, nn.MAX_ACTIVE + 1)]
        # Every head is used, in order of the men, and none past the last.
        assert chosen == sorted(chosen) and set(chosen) == set(range(heads)), heads


def test_a_weight_file_of_eight_heads_loads_back_with_its_heads(headed, tmp_path):
    assert headed.heads == HEADS and headed.w2.shape == (HEADS, 64) and headed.b2.shape == (HEADS,)
    assert headed.w2.dtype == np.int16 and headed.b2.dtype == np.int32
    assert len(set(headed.b2.tolist())) == HEADS  # the heads were kept apart
    path = tmp_path / "again.npz"
    nn.save_network(headed.dequantised(), path)
    again = nn.load_network(path)
    assert (again.w2 == headed.w2).all() and (again.b2 == headed.b2).all()


def test_a_weight_file_whose_heads_do_not_match_its_layers_is_refused(headed, tmp_path):
    path = tmp_path / "h.npz"
    nn.save_network(headed.dequantised(), path)
    with np.load(path) as data:
        fields = dict(data)
    for name, changes in {"heads": {"heads": np.int64(4)}, "none": {"heads": np.int64(0)},
                          "too many": {"heads": np.int64(nn.MAX_HEADS + 1)},
                          "b2": {"b2": fields["b2"][:4]}}.items():
        broken = tmp_path / f"{name}.npz"
        np.savez(broken, **{**fields, **changes})
        with pytest.raises(ValueError):
            nn.load_network(broken)
    params = headed.dequantised()
    with pytest.raises(ValueError):  # a b2 for another number of heads
        nn.quantise(nn.Parameters(params.w1, params.b1, params.w2, params.b2[:3]))


def test_an_eight_head_network_computes_its_float_formula_at_every_number_of_men(headed):
    rounded = headed.dequantised()
    heads_seen = set()
    for board in positions_of_every_men_count(4, seed=1):
        score = nn.network_evaluate(board, headed)
        assert -1.01 < score - nn.float_evaluate(board, rounded) < 0.01, board.fen()
        assert score == nn.network_evaluate(board.mirror(), headed)
        heads_seen.add(nn.output_head(len(board.piece_map()), HEADS))
    assert heads_seen == set(range(HEADS))


def test_the_head_of_the_positions_men_count_is_the_one_that_scores():
    # Heads that differ only in their bias: each position's score moves by its own head's bias.
    params = trained_like_parameters(32, seed=4)
    biases = np.arange(HEADS) * 100 / nn.OUTPUT_SCALE  # 0, 100, ..., 700 cp
    headed = nn.quantise(nn.Parameters(params.w1, params.b1, np.tile(params.w2, (HEADS, 1)),
                                       biases + params.b2[0]))
    one = nn.quantise(params)
    for board in positions_of_every_men_count(2, seed=2):
        head = (len(board.piece_map()) - 1) // 4
        plain = nn.network_evaluate(board, one)
        assert abs(plain) + 800 < EVAL_LIMIT  # neither score is clamped
        difference = nn.network_evaluate(board, headed) - plain
        assert abs(difference - 100 * head) <= 1, (board.fen(), head, difference)


def test_eight_copies_of_one_head_score_exactly_as_the_one_head(tmp_path):
    one = nn.quantise(trained_like_parameters(nn.HIDDEN, seed=3))
    copies = nn.Network(one.w1, one.b1, np.ascontiguousarray(np.tile(one.w2, (HEADS, 1))),
                        np.tile(one.b2, HEADS))
    for board in game_positions(range(6), plies=200, every=5) + positions_of_every_men_count(1, 3):
        assert nn.network_evaluate(board, copies) == nn.network_evaluate(board, one), board.fen()


def test_one_head_is_written_in_the_layout_before_heads_which_loads_as_one_head(tmp_path):
    path = tmp_path / "one.npz"
    network = nn.save_network(trained_like_parameters(32, seed=1), path)
    with np.load(path) as data:
        fields = dict(data)
    # What engines before heads read: w2 (2H), b2 a scalar.
    assert fields["w2"].shape == (64,) and fields["b2"].shape == () and int(fields["heads"]) == 1
    del fields["heads"]
    np.savez(tmp_path / "before.npz", **fields)
    before = nn.load_network(tmp_path / "before.npz")
    assert before.heads == 1 and (before.w2 == network.w2).all() and (before.b2 == network.b2).all()


def test_the_updated_first_layer_scores_as_a_fresh_evaluation_through_every_head(headed):
    # Games that prefer captures, so that the men fall through the heads.
    rng = random.Random(5)
    heads_seen = set()
    for _ in range(12):
        board = chess.Board()
        acc = fresh(board, headed)
        for _ in range(200):
            moves = list(board.legal_moves)
            if not moves:
                break
            captures = [m for m in moves if board.is_capture(m)]
            move = rng.choice(captures if captures and rng.random() < 0.7 else moves)
            before, white_before = boards_of(board), np.uint64(board.occupied_co[chess.WHITE])
            board.push(move)
            child = np.empty_like(acc)
            nn.update(acc, child, before, white_before, boards_of(board),
                      np.uint64(board.occupied_co[chess.WHITE]), headed.w1)
            score = nn.output(child, board.turn, np.uint64(board.occupied), headed.w2, headed.b2)
            assert score == nn.network_evaluate(board, headed), board.fen()
            heads_seen.add(nn.output_head(len(board.piece_map()), HEADS))
            acc = child
    assert len(heads_seen) >= 6, heads_seen


# ---------------------------------------------------------------------- training

def encoded(boards: list[chess.Board], buckets: int = 1) -> tuple[np.ndarray, np.ndarray]:
    return training_data.encode([b.board_fen() for b in boards], np.array([b.turn for b in boards]), buckets)


def test_the_trainer_sends_each_position_through_the_engines_head_for_it():
    boards = positions_of_every_men_count(2, seed=6)
    us, them = encoded(boards)
    assert model.output_heads(us, HEADS).tolist() == [nn.output_head(len(b.piece_map()), HEADS)
                                                      for b in boards]
    data = training_data.Positions(us, them, *np.zeros((2, len(boards)), np.float32),
                           np.zeros(len(boards), np.int32))
    params = headed_parameters(8, seed=2)
    expected = [nn.float_evaluate(board, params) / nn.OUTPUT_SCALE for board in boards]
    assert model.outputs(params, data) == pytest.approx(expected, abs=1e-4)


def test_the_gradients_of_each_head_are_the_derivatives_of_the_loss_and_only_its_positions_move_it():
    # Positions of 5 to 16 men: heads 1, 2 and 3 only.
    rng = random.Random(8)
    boards = [random_position(men, rng) for men in range(5, 17) for _ in range(2)]
    us, them = encoded(boards)
    x = model.DenseInputs(len(boards)).fill(us, them).astype(np.float64)
    target = np.random.default_rng(1).random(len(boards))
    start = headed_parameters(6, seed=3)
    params = nn.Parameters(*(np.asarray(getattr(start, name), dtype=np.float64)
                             for name in ("w1", "b1", "w2", "b2")))
    _, grads = model.gradients(params, x, target, scale=1.5)
    unused = [0, 4, 5, 6, 7]
    assert (grads["w2"][unused] == 0).all() and (grads["b2"][unused] == 0).all()
    assert (np.abs(grads["w2"][1:4]).sum(axis=1) > 0).all() and (grads["b2"][1:4] != 0).all()
    picks = np.random.default_rng(4)
    checks = [("b2", (head,)) for head in range(HEADS)]
    checks += [("w2", (head, int(picks.integers(0, 12)))) for head in range(HEADS) for _ in range(3)]
    checks += [("w1", (int(picks.choice(us[us != training_data.PAD])), int(picks.integers(0, 6))))
               for _ in range(4)]
    checks += [("b1", (int(picks.integers(0, 6)),)) for _ in range(2)]
    for name, at in checks:
        values = getattr(params, name)
        original, step = values[at], 1e-6
        values[at] = original + step
        up = model.gradients(params, x, target, 1.5)[0]
        values[at] = original - step
        down = model.gradients(params, x, target, 1.5)[0]
        values[at] = original
        assert grads[name][at] == pytest.approx((up - down) / (2 * step), rel=1e-4, abs=1e-9), (name, at)


@pytest.mark.parametrize("buckets", [1, nn.N_BUCKETS], ids=["one first layer", "king buckets"])
def test_the_sparse_gradients_of_eight_heads_equal_the_dense_ones(buckets):
    boards = positions_of_every_men_count(1, seed=9)
    us, them = encoded(boards, buckets)
    rows = nn.N_INPUTS if buckets == 1 else (1 + buckets) * nn.N_INPUTS
    x = model.DenseInputs(len(boards), rows).fill(us, them).astype(np.float64)
    params = headed_parameters(6, seed=5, rows=rows)
    params = nn.Parameters(*(np.asarray(getattr(params, name), dtype=np.float64)
                             for name in ("w1", "b1", "w2", "b2")))
    target = np.random.default_rng(6).random(len(boards))
    dense_loss, dense = model.gradients(params, x, target, scale=1.5)
    sparse_loss, sparse = model.sparse_gradients(params, us, them, target, scale=1.5)
    assert sparse_loss == pytest.approx(dense_loss, rel=1e-9)
    for name in ("w1", "b1", "w2", "b2"):
        assert sparse[name].shape == dense[name].shape == getattr(params, name).shape
        assert np.allclose(sparse[name], dense[name], rtol=1e-7, atol=1e-12), name


def test_a_network_of_heads_starts_as_the_one_head_network_of_its_seed():
    one, eight = model.initialise(16, seed=3), model.initialise(16, seed=3, heads=HEADS)
    assert (eight.w1 == one.w1).all() and eight.w2.shape == (HEADS, 32)
    assert (eight.w2 == one.w2).all() and (eight.b2 == 0).all()


def test_the_training_script_writes_an_eight_head_network_and_records_its_heads(tmp_path, capsys):
    path = tmp_path / "d.txt"
    write_labelled_games(path, range(150))
    out = tmp_path / "network.npz"
    train.main([str(path), "--hidden", "32", "--epochs", "2", "--batch", "512", "--lr", "1e-2",
                "--validation", "0.3", "--output-buckets", str(HEADS), "--out", str(out)])
    network = nn.load_network(out)
    assert network.heads == HEADS and network.hidden == 32
    # The heads that positions reached moved apart from their common start.
    assert len({tuple(row) for row in network.w2.tolist()}) > 1
    assert f"{HEADS} output bucket(s)" in nn.network_provenance(out)
    printed = capsys.readouterr().out
    assert f"output buckets: {HEADS}" in printed and "integer kernel" in printed
    with pytest.raises(SystemExit):
        train.main([str(path), "--output-buckets", "0", "--out", str(tmp_path / "no.npz")])


@pytest.mark.parametrize("heads, buckets", [(1, 1), (8, 1), (8, nn.N_BUCKETS)])
def test_a_run_started_from_a_network_scores_as_that_network(heads, buckets):
    one_head = nn.quantise(trained_like_parameters(nn.HIDDEN, seed=3))
    for network in (one_head, nn.default_network()):
        if network.heads not in (1, heads):
            with pytest.raises(ValueError):
                model.warm_start(network, buckets, heads)
            continue
        start = nn.quantise(model.fold(model.warm_start(network, buckets, heads)))
        assert start.heads == heads and start.buckets == buckets
        for board in game_positions(range(3), plies=120, every=4):
            assert nn.network_evaluate(board, start) == nn.network_evaluate(board, network), board.fen()


def test_a_run_started_wider_than_its_network_scores_as_that_network():
    network = nn.default_network()
    start = model.warm_start(network, 1, 8, hidden=2 * network.hidden)
    assert start.hidden == 2 * network.hidden and np.any(start.w1[:, network.hidden:])
    wider = nn.quantise(start)
    for board in game_positions(range(2), plies=120, every=4):
        assert nn.network_evaluate(board, wider) == nn.network_evaluate(board, network), board.fen()
    with pytest.raises(ValueError):
        model.warm_start(network, 1, 8, hidden=network.hidden // 2)
