"""The scout kernel's make-move (engine/board/bitmove.py) leaves the position python-chess's push
leaves: bitboards, castling rights, side to move, key, check, en passant square and halfmove clock,
for every legal move of positions from standard and Chess960 games (castling on any files
included). The kernel updates the key from the parent's: it must equal the key computed afresh."""

from __future__ import annotations

import random

import chess
import numpy as np

from engine.board.bitmove import child, move_code
from engine.board.position import Position
from engine.board.zobrist import key_and_check


def kernel_child(board: chess.Board, move: chess.Move) -> tuple:
    """The kernel's child of ``board``, from the key and en passant square the kernel has for it."""
    u = np.uint64
    key, _ = key_and_check(board)
    ep = board.ep_square if board.has_legal_en_passant() else -1
    return child(move_code(board, move), Position(
        u(board.pawns), u(board.knights), u(board.bishops), u(board.rooks), u(board.queens),
        u(board.kings), u(board.occupied_co[chess.WHITE]), u(board.castling_rights), board.turn,
        u(key), board.is_check(), ep, board.halfmove_clock))


def expected_child(board: chess.Board, move: chess.Move) -> tuple:
    after = board.copy(stack=False)
    after.push(move)
    key, in_check = key_and_check(after)
    ep = after.ep_square if after.ep_square is not None and after.has_legal_en_passant() else -1
    return (after.pawns, after.knights, after.bishops, after.rooks, after.queens, after.kings,
            after.occupied_co[chess.WHITE], after.castling_rights, after.turn, key, in_check, ep,
            after.halfmove_clock)


def test_kernel_make_move_is_python_chess_push_in_standard_and_chess960_games() -> None:
    rng = random.Random(5)
    castles = 0
    for game in range(120):
        chess960 = game % 2 == 1
        board = (chess.Board.from_chess960_pos(rng.randrange(960)) if chess960
                 else chess.Board())
        for _ in range(rng.randrange(10, 60)):
            moves = list(board.legal_moves)
            if not moves:
                break
            for move in moves:
                got = tuple(int(x) if not isinstance(x, (bool, np.bool_)) else bool(x)
                            for x in kernel_child(board, move))
                assert got == expected_child(board, move), (board.fen(), move.uci())
                castles += board.is_castling(move)
            castling = [m for m in moves if board.is_castling(m)]
            board.push(rng.choice(castling if castling and rng.random() < 0.3 else moves))
    assert castles > 100
