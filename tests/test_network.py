"""The network evaluation (engine/evaluation/network.py) and its trainer (scripts/training/train.py)."""

from __future__ import annotations

import chess
import numpy as np
import pytest

from engine.evaluation import network as nn
from engine.evaluation.evaluate import EVAL_LIMIT, evaluate
from engine.board.perft import KIWIPETE
from scripts.training import labels, loop, optim, train
from scripts.training.config import TrainConfig
from scripts.training.data import positions as training_data
from scripts.training.data import text as dataset
from scripts.training.data.text import Sample, write_samples
from scripts.training.model import network as model
from test_evaluate import random_game


def trained_like_parameters(hidden: int, seed: int) -> nn.Parameters:
    """Random parameters with the spread of a trained network's (measured on one trained for a
    few epochs on Stockfish-labelled data), so that scores span hundreds of centipawns."""
    rng = np.random.default_rng(seed)
    return nn.Parameters(rng.normal(0, 0.09, (nn.N_INPUTS, hidden)).astype(np.float32),
                         rng.normal(0.1, 0.07, hidden).astype(np.float32),
                         rng.normal(0, 0.16, 2 * hidden).astype(np.float32), 0.01)


def game_positions(seeds: range, plies: int = 120, every: int = 3) -> list[chess.Board]:
    return [board for seed in seeds for board in random_game(seed, plies)[::every]]


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> tuple[nn.Parameters, nn.Network]:
    params = trained_like_parameters(nn.HIDDEN, seed=3)
    path = tmp_path_factory.mktemp("network") / "n.npz"
    nn.save_network(params, path)
    return params, nn.load_network(path)


def test_the_integer_kernel_computes_the_float_formula_on_its_rounded_weights(saved):
    _, network = saved
    rounded = network.dequantised()
    for board in game_positions(range(10)):
        difference = nn.network_evaluate(board, network) - nn.float_evaluate(board, rounded)
        # The kernel floors the exact value; float32 adds noise far below a centipawn.
        assert -1.01 < difference < 0.01, board.fen()


def rounding_noise(board: chess.Board, params: nn.Parameters) -> float:
    """The standard deviation of the score change (cp) caused by rounding every weight to its
    integer step (1/QA for W1 and b1, 1/QB for W2), the rounding errors taken as independent and
    uniform: through W2 each activation s adds s^2 / (12 QB^2) to the output's variance; through
    W1 each accumulator moves by the errors of its (men + 1) rows, which SCReLU's slope 2x and
    the neuron's weight in W2 carry to the output."""
    sides = (board.turn, not board.turn)
    acc = np.concatenate([params.b1 + params.w1[nn.features(board, side)].sum(axis=0) for side in sides])
    slope = np.where((acc > 0) & (acc < 1), 2 * acc, 0)
    men = len(board.piece_map())
    variance = ((nn.screlu(acc) ** 2).sum() / (12 * nn.QB ** 2)
                + ((params.w2 * slope) ** 2).sum() * (men + 1) / (12 * nn.QA ** 2))
    return nn.OUTPUT_SCALE * float(np.sqrt(variance))


def test_quantisation_changes_scores_by_the_noise_that_rounding_the_weights_makes(saved):
    params, network = saved
    boards = game_positions(range(20))
    scores = np.array([nn.float_evaluate(b, params) for b in boards])
    assert np.median(np.abs(scores)) > 100  # the scale is realistic
    errors = np.array([nn.network_evaluate(b, network) for b in boards]) - scores
    noise = np.array([rounding_noise(b, params) for b in boards])
    # Typically 6 to 10 cp here (about 5 on a trained network's positions), most of it from W2.
    assert 3 < np.median(noise) < 15
    # Normal noise: |error| averages 0.8 standard deviations (0.7 to 1.3 over networks of other
    # seeds: positions of one game share their pieces, hence their errors) and stays within 5;
    # the kernel's floor adds at most 1 cp.
    assert 0.4 < np.mean(np.abs(errors) / noise) < 1.6
    assert (np.abs(errors) <= 5 * noise + 1).all()


def test_a_position_and_its_colour_mirror_get_exactly_the_same_score(saved):
    _, network = saved
    for board in game_positions(range(20), plies=160, every=2) + [chess.Board(KIWIPETE)]:
        assert nn.network_evaluate(board, network) == nn.network_evaluate(board.mirror(), network)


def test_the_side_to_move_matters(saved):
    _, network = saved
    board = chess.Board(KIWIPETE)
    other = board.copy()
    other.turn = chess.BLACK
    assert nn.network_evaluate(board, network) != nn.network_evaluate(other, network)


def test_network_evaluate_returns_a_python_int_within_the_limit(saved):
    _, network = saved
    score = nn.network_evaluate(chess.Board(), network)
    assert type(score) is int and abs(score) <= EVAL_LIMIT
    huge = nn.Parameters(np.full((nn.N_INPUTS, 32), 0.5, np.float32), np.zeros(32, np.float32),
                         np.full(64, 0.9, np.float32), 0.0)
    assert nn.network_evaluate(chess.Board(), nn.quantise(huge)) == EVAL_LIMIT


def test_an_evaluator_scores_like_network_evaluate_with_the_file_it_was_given(saved, tmp_path):
    _, network = saved
    path = tmp_path / "n.npz"
    nn.save_network(network.dequantised(), path)
    evaluate_with = nn.evaluator(path)
    for board in game_positions(range(3)):
        assert evaluate_with(board) == nn.network_evaluate(board, network)
    with pytest.raises(ValueError):
        nn.evaluator(tmp_path)  # a directory, not a weight file


def test_features_count_the_men_and_a_perspective_is_the_other_colours_on_the_mirror():
    for board in game_positions(range(10)) + [chess.Board(KIWIPETE)]:
        men = len(board.piece_map())
        for colour in chess.COLORS:
            active = nn.features(board, colour)
            assert len(active) == len(set(active)) == men
            assert (active >= 0).all() and (active < nn.N_INPUTS).all()
        assert (nn.features(board, chess.WHITE) == nn.features(board.mirror(), chess.BLACK)).all()


def test_own_pieces_are_the_first_half_of_the_inputs_from_either_side():
    board = chess.Board("4k3/8/8/8/8/8/8/4K2R w - - 0 1")
    # White's rook on h1: piece 3, square 7; from Black's side an enemy rook on h8 (63).
    assert list(nn.features(board, chess.WHITE)) == [3 * 64 + 7, 5 * 64 + 4, 384 + 5 * 64 + 60]
    assert list(nn.features(board, chess.BLACK)) == [5 * 64 + 4, 384 + 3 * 64 + 63,
                                                    384 + 5 * 64 + 60]


def test_the_trainers_encoding_gives_each_perspectives_features():
    boards = game_positions(range(10))
    us, them = training_data.encode([b.board_fen() for b in boards], np.array([b.turn for b in boards]))
    for board, own, other in zip(boards, us, them):
        assert sorted(own[own != training_data.PAD]) == list(nn.features(board, board.turn))
        assert sorted(other[other != training_data.PAD]) == list(nn.features(board, not board.turn))
        # Rebuilt as its side to move sees it, the position scores the same.
        assert list(nn.features(training_data.board_of(own), chess.WHITE)) == list(nn.features(board, board.turn))


def test_a_saved_network_loads_back_unchanged(saved, tmp_path):
    _, network = saved
    nn.save_network(network.dequantised(), tmp_path / "again.npz")
    again = nn.load_network(tmp_path / "again.npz")
    assert again.hidden == network.hidden and (again.b2 == network.b2).all()
    for name in ("w1", "b1", "w2"):
        assert (getattr(again, name) == getattr(network, name)).all()
        assert getattr(again, name).dtype == np.int16 and getattr(again, name).flags.c_contiguous


def test_load_network_refuses_files_of_another_layout(saved, tmp_path):
    _, network = saved
    good = tmp_path / "good.npz"
    nn.save_network(network.dequantised(), good)
    with np.load(good) as data:
        fields = dict(data)

    def refused(name: str, **changes) -> None:
        path = tmp_path / f"{name}.npz"
        np.savez(path, **{key: value for key, value in {**fields, **changes}.items() if value is not None})
        with pytest.raises(ValueError):
            nn.load_network(path)

    refused("inputs", inputs=np.int64(640), w1=fields["w1"][:640])
    refused("version", version=np.int64(nn.FORMAT_VERSION + 1))
    refused("scale", qb=np.int64(128))
    refused("missing", w2=None)
    refused("dtype", w1=fields["w1"].astype(np.float32))
    refused("shape", b1=fields["b1"][:-1])
    overflowing = fields["w1"].copy()
    overflowing[:nn.MAX_ACTIVE, 0] = 1100  # 32 men on these inputs would sum past int16
    refused("accumulator range", w1=overflowing)
    (tmp_path / "text.npz").write_text("not an archive")
    with pytest.raises(ValueError):
        nn.load_network(tmp_path / "text.npz")
    with pytest.raises(FileNotFoundError):
        nn.load_network(tmp_path / "absent.npz")


def test_parameters_too_large_for_int16_are_refused():
    params = trained_like_parameters(32, seed=1)
    params.w2[0] = 600.0
    with pytest.raises(ValueError):
        nn.quantise(params)


def test_a_first_layer_whose_sums_could_leave_the_accumulators_range_is_refused():
    params = trained_like_parameters(32, seed=1)
    params.w1[:nn.MAX_ACTIVE, 3] = 4.0  # one input fits int16 (1020), 32 of them (32,640) with b1 not
    params.b1[3] = 1.0
    with pytest.raises(ValueError, match="accumulators"):
        nn.quantise(params)
    params.b1[3] = -1.0
    assert nn.accumulator_range(nn.quantise(params).w1, nn.quantise(params).b1)[1] <= 32767


def test_an_output_layer_whose_int32_sums_could_overflow_or_of_a_width_off_the_chunks_is_refused():
    params = trained_like_parameters(32, seed=1)
    assert nn.output_range(nn.quantise(params).w2) < 2**31
    params.w2[:nn.OUTPUT_CHUNK] = 1.1  # 32 * 1126 * 255^2 > 2^31
    with pytest.raises(ValueError, match="int32"):
        nn.quantise(params)
    with pytest.raises(ValueError, match="multiple"):
        nn.quantise(trained_like_parameters(nn.OUTPUT_CHUNK + 8, seed=1))


def test_the_output_layers_int32_chunks_sum_exactly_at_full_activation():
    network = nn.default_network()
    hidden = network.hidden
    for head in range(network.heads):
        occupied = np.uint64((1 << (nn.MAX_ACTIVE * head // network.heads + 1)) - 1)
        assert nn.output_head(int(occupied).bit_count(), network.heads) == head
        for sign in (1, -1):
            # Every input of one sign's weights at full activation: the largest sums there are.
            acc = np.where(np.sign(network.w2[head]) == sign, 2 * nn.QA, -1).reshape(2, hidden)
            total = int((np.clip(acc, 0, nn.QA).astype(np.int64) ** 2).ravel()
                        @ network.w2[head].astype(np.int64)) + int(network.b2[head]) * nn.QA
            exact = total * nn.OUTPUT_SCALE // (nn.QA * nn.QA * nn.QB)
            assert nn.output(acc.astype(nn.ACCUMULATOR), True, occupied, network.w2,
                             network.b2) == max(-EVAL_LIMIT, min(EVAL_LIMIT, exact))


def test_every_first_layer_sum_of_real_positions_lies_in_the_accumulator_range():
    network = nn.default_network()
    low, high = nn.accumulator_range(network.w1, network.b1)
    limits = np.iinfo(nn.ACCUMULATOR)
    assert limits.min <= low and high <= limits.max
    w1 = network.w1.astype(np.int64)
    assert network.buckets == 1  # the rows of nn.features
    for board in game_positions(range(4)) + [chess.Board(KIWIPETE)]:
        for colour in chess.COLORS:
            sums = network.b1 + w1[nn.features(board, colour)].sum(axis=0)
            assert low <= sums.min() and sums.max() <= high


def test_the_default_network_without_a_weight_file_says_how_to_make_one(monkeypatch, tmp_path):
    monkeypatch.setattr(nn, "NETWORK_FILE", tmp_path / "network.npz")
    nn.default_network.cache_clear()
    try:
        with pytest.raises(FileNotFoundError, match="scripts.training.train"):
            nn.default_network()
    finally:
        nn.default_network.cache_clear()


# ---------------------------------------------------------------------- training

def write_labelled_games(path, seeds: range) -> None:
    """Positions of random games (every second ply of the first 80) labelled by the classical
    evaluation (White's view), with a result that follows the score."""
    samples = []
    for board in [b for seed in seeds for b in random_game(seed, 80)[2::2]]:
        score = evaluate(board) if board.turn == chess.WHITE else -evaluate(board)
        result = 1.0 if score > 200 else 0.0 if score < -200 else 0.5
        samples.append(Sample(board.fen(), score, result))
    with open(path, "w", encoding="utf-8") as out:
        write_samples(out, samples)


def test_the_gradients_are_the_derivatives_of_the_loss():
    boards = game_positions(range(3), every=10)
    us, them = training_data.encode([b.board_fen() for b in boards], np.array([b.turn for b in boards]))
    x = model.DenseInputs(len(boards)).fill(us, them).astype(np.float64)
    target = np.random.default_rng(1).random(len(boards))
    start = trained_like_parameters(6, seed=2)
    params = nn.Parameters(*(np.asarray(getattr(start, name), dtype=np.float64)
                             for name in ("w1", "b1", "w2", "b2")))
    _, grads = model.gradients(params, x, target, scale=1.5)
    rng = np.random.default_rng(3)
    for name in ("w1", "b1", "w2", "b2"):
        values = getattr(params, name)
        for _ in range(5):
            at = tuple(rng.integers(0, n) for n in values.shape)
            if name == "w1":  # a row that some position uses
                at = (int(rng.choice(us[us != training_data.PAD])), at[1])
            original, step = values[at], 1e-6
            values[at] = original + step
            up = model.gradients(params, x, target, 1.5)[0]
            values[at] = original - step
            down = model.gradients(params, x, target, 1.5)[0]
            values[at] = original
            assert grads[name][at] == pytest.approx((up - down) / (2 * step), rel=1e-4, abs=1e-9)


def test_training_on_a_small_labelled_set_lowers_the_validation_loss(tmp_path):
    path = tmp_path / "d.txt"
    write_labelled_games(path, range(125))
    data = training_data.build_positions([path])
    assert len(data) > 4000
    trainset, valid = dataset.split(data, 0.25, block=101)
    scale = labels.fit_scale(trainset.score, trainset.result)
    target, valid_target = labels.targets(trainset, scale, 0.0), labels.targets(valid, scale, 0.0)
    start = model.initialise(16, seed=1)
    before = model.loss(start, valid, valid_target, scale)
    fitted = loop.fit_network(trainset, target, start, scale,
                              TrainConfig(epochs=10, batch=128, lr=1e-2), (valid, valid_target),
                              log=lambda line: None)
    after = model.loss(fitted, valid, valid_target, scale)
    # Measured: about 0.65 of the start (the random net predicts about 0.5 everywhere, so the
    # start is also roughly what a constant achieves).
    assert after < 0.8 * before, (before, after)
    # A second build reads the cache.
    assert (training_data.build_positions([path]).us == data.us).all()


def test_the_step_size_falls_linearly_to_its_final_share():
    assert optim.step_size(1e-3, 0.1, 0.0) == pytest.approx(1e-3)
    assert optim.step_size(1e-3, 0.1, 0.5) == pytest.approx(5.5e-4)
    assert optim.step_size(1e-3, 0.01, 1.0) == pytest.approx(1e-5)
    # Past the last position (a rounding of the count) it stays at the final share.
    assert optim.step_size(1e-3, 0.01, 1.2) == pytest.approx(1e-5)


def test_the_training_script_writes_a_network_the_engine_can_load(tmp_path, capsys):
    path = tmp_path / "d.txt"
    # Validation holds out blocks of 1000 positions: enough games for a few blocks.
    write_labelled_games(path, range(150))
    out = tmp_path / "network.npz"
    train.main([str(path), "--hidden", "32", "--epochs", "2", "--batch", "1024",
                "--validation", "0.3", "--out", str(out)])
    network = nn.load_network(out)
    assert network.hidden == 32
    printed = capsys.readouterr().out
    assert "validation" in printed and "integer kernel" in printed


def test_a_weight_file_keeps_the_record_of_its_training_and_the_shipped_one_has_it(tmp_path):
    network = nn.default_network()
    path = tmp_path / "n.npz"
    nn.save_network(network.dequantised(), path, provenance="12 positions by a test")
    assert nn.network_provenance(path) == "12 positions by a test"
    assert (nn.load_network(path).w1 == network.w1).all()
    assert "training positions" in nn.network_provenance()


def test_the_shipped_network_loads_and_knows_a_queen_from_nothing():
    network = nn.default_network()
    assert abs(nn.network_evaluate(chess.Board(), network)) < 100
    queen_up = chess.Board("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    assert nn.network_evaluate(queen_up, network) > 500
    assert nn.network_evaluate(queen_up.mirror(), network) > 500  # Black to move, a queen up


def test_mirroring_the_files_of_an_index_list_gives_the_mirrored_boards_inputs():
    boards = [b for b in game_positions(range(2))][:20]
    us = np.full((len(boards), nn.MAX_ACTIVE), training_data.PAD, dtype=np.int16)
    for row, board in enumerate(boards):
        active = nn.features(board, board.turn)
        us[row, :len(active)] = active
    flip = np.arange(len(boards)) % 2 == 0
    mirrored = training_data.mirror_files(us, flip)
    for row, board in enumerate(boards):
        expected = board.transform(chess.flip_horizontal) if flip[row] else board
        got = sorted(int(i) for i in mirrored[row] if i != training_data.PAD)
        assert got == list(nn.features(expected, board.turn))
