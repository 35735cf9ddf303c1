"""The network's first layer kept up to date move by move (engine/evaluation/network.py `update`, as the scout
kernel keeps it) equals the first layer computed from scratch, and so scores as the full network
does, along random games with every kind of move."""

from __future__ import annotations

import random

import chess
import numpy as np

from engine.board.position import from_board
from engine.evaluation import network as nn


def boards_of(board: chess.Board) -> tuple[np.uint64, ...]:
    return tuple(np.uint64(bb) for bb in (board.pawns, board.knights, board.bishops, board.rooks,
                                          board.queens, board.kings))


def fresh(board: chess.Board, net: nn.Network) -> np.ndarray:
    acc = np.empty((2, net.hidden), dtype=nn.ACCUMULATOR)
    nn.refresh(acc, from_board(board), net.w1, net.b1)
    return acc


def test_updated_first_layer_equals_the_fresh_one_along_random_games() -> None:
    net = nn.default_network()
    rng = random.Random(3)
    kinds = {"castling": 0, "en passant": 0, "promotion": 0, "capture": 0, "null": 0}
    for game in range(40):
        board = (chess.Board.from_chess960_pos(rng.randrange(960)) if game % 4 == 3
                 else chess.Board())
        acc = fresh(board, net)
        for _ in range(120):
            moves = list(board.legal_moves)
            if not moves:
                break
            special = [m for m in moves if board.is_castling(m) or board.is_en_passant(m)
                       or m.promotion or board.is_capture(m)]
            move = rng.choice(special if special and rng.random() < 0.5 else moves)
            if not board.is_check() and rng.random() < 0.05:
                move = chess.Move.null()
            kinds["castling"] += board.is_castling(move)
            kinds["en passant"] += board.is_en_passant(move)
            kinds["promotion"] += move.promotion is not None
            kinds["capture"] += board.is_capture(move)
            kinds["null"] += not move
            before, white_before = boards_of(board), np.uint64(board.occupied_co[chess.WHITE])
            board.push(move)
            child = np.empty_like(acc)
            nn.update(acc, child, before, white_before, boards_of(board),
                      np.uint64(board.occupied_co[chess.WHITE]), net.w1)
            assert np.array_equal(child, fresh(board, net)), (board.fen(), move.uci())
            assert nn.output(child, board.turn, np.uint64(board.occupied), net.w2, net.b2) == nn.network_evaluate(board, net)
            acc = child
    assert all(count > 0 for count in kinds.values()), kinds
