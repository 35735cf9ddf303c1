"""The numba move lists are python-chess's: the same moves in the same order (the order decides
ties in move ordering, so the search's tree depends on it)."""

from __future__ import annotations

import random

import chess
import numpy as np

from engine.protocol.bench import POSITIONS
from engine.board.movegen import castling_kernel, promotion_kernel, quiet_checks
from engine.board.position import from_board
from engine.search.history import OrderingTables
from engine.search.movepick import ordered_moves

from staged_order import staged_order

# Positions in check where the evasions include an en passant capture, a promotion that blocks,
# a capture that promotes, and only king moves (double check).
SPECIAL_EVASIONS = [
    "8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1",  # d4+ : ...exd3 e.p. takes the checking pawn
    "3r3k/2P5/8/8/8/8/8/3K4 w - - 0 1",  # cxd8=Q and the under-promotions
    "r6K/1P6/8/8/8/8/8/k7 w - - 0 1",  # b8=Q blocks, bxa8=Q takes
    "4k3/8/8/8/8/5n2/8/r3K3 w - - 0 1",  # double check
    "4k3/8/8/8/8/8/1p6/KR5r w - - 0 1",
]


def positions_in_check(count: int, seed: int) -> list[chess.Board]:
    """Positions in check along random games from the bench positions (checks preferred)."""
    rng = random.Random(seed)
    boards = [chess.Board(fen) for fen in SPECIAL_EVASIONS]
    while len(boards) < count:
        board = chess.Board(rng.choice(POSITIONS[:30]))
        for _ in range(rng.randrange(1, 60)):
            moves = list(board.legal_moves)
            if not moves:
                break
            checks = [move for move in moves if board.gives_check(move)]
            board.push(rng.choice(checks if checks and rng.random() < 0.5 else moves))
            if board.is_check():
                boards.append(board.copy())
    return boards


def test_evasions_come_in_the_staged_order_of_python_chess_moves() -> None:
    tables = OrderingTables()
    for board in positions_in_check(3000, seed=5):
        assert list(ordered_moves(board, None, tables, 0)) == staged_order(board), board.fen()


def test_special_evasions_are_listed() -> None:
    # The en passant capture of a checking pawn, a block by promotion, and a double check with
    # king moves only.
    tables = OrderingTables()
    board = chess.Board(SPECIAL_EVASIONS[0])
    assert board.is_check()
    assert chess.Move.from_uci("e4d3") in ordered_moves(board, None, tables, 0)
    board = chess.Board(SPECIAL_EVASIONS[2])
    assert chess.Move.from_uci("b7b8q") in ordered_moves(board, None, tables, 0)
    board = chess.Board(SPECIAL_EVASIONS[3])
    assert len(board.checkers()) == 2
    assert all(move.from_square == chess.E1 for move in ordered_moves(board, None, tables, 0))


def positions_with(count: int, seed: int, wanted) -> list[chess.Board]:
    """Positions not in check along random games from the start and the bench positions where
    ``wanted(board)`` holds."""
    rng = random.Random(seed)
    starts = [chess.STARTING_FEN] + [fen for fen in POSITIONS[:30] if " moves " not in fen]
    boards = []
    while len(boards) < count:
        board = chess.Board(rng.choice(starts))
        for _ in range(rng.randrange(1, 80)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
            if not board.is_check() and wanted(board):
                boards.append(board.copy())
    return boards


def test_castling_moves_are_python_chess_castling_moves_in_its_order() -> None:
    listed = 0
    for board in positions_with(2000, 8, lambda b: b.castling_rights & b.occupied_co[b.turn]):
        expected = [move.from_square | move.to_square << 6 for move in board.generate_castling_moves()]
        codes = castling_kernel(from_board(board), False).tolist()
        assert codes == expected, board.fen()
        listed += len(codes)
    assert listed > 300


def test_chess960_castling_moves_are_python_chess_king_takes_rook_moves_in_its_order() -> None:
    # Random games from random Chess960 start positions: kings and rooks on any files, castling
    # moves that leave the king or the rook where it stood, rooks beside the king.
    rng = random.Random(960)
    listed = 0
    for _ in range(300):
        board = chess.Board.from_chess960_pos(rng.randrange(960))
        for _ in range(rng.randrange(1, 40)):
            if not board.is_check() and board.castling_rights & board.occupied_co[board.turn]:
                expected = [move.from_square | move.to_square << 6
                            for move in board.generate_castling_moves()]
                codes = castling_kernel(from_board(board), True).tolist()
                assert codes == expected, board.fen()
                listed += len(codes)
            moves = list(board.legal_moves)
            if not moves:
                break
            # Castle whenever it may, so that the games go on with the rights half used.
            castles = [m for m in moves if board.is_castling(m)]
            board.push(rng.choice(castles if castles and rng.random() < 0.5 else moves))
    assert listed > 300


def test_quiet_checks_are_python_chess_quiet_moves_that_give_check() -> None:
    # Quiescence's first ply searches them: direct checks and discovered ones, pinned pieces
    # kept to their line; castling and promotions are not among them.
    has_check = lambda b: any(b.gives_check(m) for m in b.generate_legal_moves(to_mask=~b.occupied))
    listed = discovered = 0
    for board in positions_with(1500, 11, has_check):
        expected = [move for move in board.generate_legal_moves(to_mask=~board.occupied)
                    if board.gives_check(move) and not move.promotion
                    and not board.is_castling(move) and not board.is_en_passant(move)]
        codes = quiet_checks(from_board(board)).tolist()
        as_moves = [chess.Move(code & 63, code >> 6 & 63) for code in codes]
        assert sorted(as_moves, key=str) == sorted(expected, key=str), board.fen()
        for code in codes:
            assert code >> 16 & 15 == board.piece_type_at(code & 63)
        listed += len(codes)
        for move in as_moves:
            board.push(move)
            discovered += any(square != move.to_square for square in board.checkers())
            board.pop()
    assert listed > 3000 and discovered > 100


def test_promotions_come_in_the_order_of_the_searchs_captures() -> None:
    # The walk searches the queen promotions first, the under-promotions after the captures, each
    # in python-chess's order stably sorted by the victim taken.
    promoting_side = lambda b: b.pawns & b.occupied_co[b.turn] & (chess.BB_RANK_7 if b.turn else chess.BB_RANK_2)
    listed = 0
    for board in positions_with(1500, 9, promoting_side):
        promotions = [move for move in staged_order(board) if move.promotion]
        codes = promotion_kernel(from_board(board), np.uint64(promoting_side(board))).tolist()
        as_moves = [chess.Move(code & 63, code >> 6 & 63, code >> 20) for code in codes]
        queens = [move for move in as_moves if move.promotion == chess.QUEEN]
        assert queens + [move for move in as_moves if move.promotion != chess.QUEEN] == promotions, board.fen()
        for code in codes:
            victim = board.piece_type_at(code >> 6 & 63) or 0
            assert code >> 12 & 15 == victim and code >> 16 & 15 == chess.PAWN
        listed += len(codes)
    assert listed > 1000


def test_slider_attacks_are_python_chess_attacks_on_every_square() -> None:
    from engine.board.bitboards import bishop_attacks, rook_attacks

    rng = random.Random(11)
    for square in chess.SQUARES:
        # Empty rays, full boards, and the board's first and last squares occupied.
        boards = [0, chess.BB_ALL, chess.BB_A1 | chess.BB_H8]
        boards += [rng.getrandbits(64) & rng.getrandbits(64) for _ in range(40)]
        for occupied in boards:
            diagonal = chess.BB_DIAG_ATTACKS[square][occupied & chess.BB_DIAG_MASKS[square]]
            straight = (chess.BB_RANK_ATTACKS[square][occupied & chess.BB_RANK_MASKS[square]]
                        | chess.BB_FILE_ATTACKS[square][occupied & chess.BB_FILE_MASKS[square]])
            assert int(bishop_attacks(square, np.uint64(occupied))) == diagonal
            assert int(rook_attacks(square, np.uint64(occupied))) == straight
