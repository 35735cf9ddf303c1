"""The search the engine plays with while its numba kernels compile: a plain negamax alpha-beta over
python-chess, so that no move of a game goes unsearched.

Numba compiles the kernels on a start that finds none cached (a new processor, a new numba): half a
minute or more, which in a blitz game is the game. Until they load, each clocked move is chosen
here, within the move's time: iterative deepening, captures first by most valuable victim (and the
last iteration's best move first), a quiescence search of captures, material and the men's
squares as the evaluation. Far weaker than the kernel's search, and the engine says so when it
uses it. Imports nothing compiled.
"""

from __future__ import annotations

import time
from typing import Callable

import chess

from engine.board.piece_values import PIECE_VALUE
from engine.evaluation.score import INFINITY, MATE
from engine.search.results import Info

# A bonus in centipawns for a man's square, from White's side (a1 = 0): the centre for the
# pieces, the ranks ahead for the pawns.
_CENTRE = [6 - max(abs(2 * (square & 7) - 7), abs(2 * (square >> 3) - 7))
           for square in chess.SQUARES]
_CHECK_EVERY = 128  # nodes between looks at the clock


class _OutOfTime(Exception):
    pass


def evaluate(board: chess.Board) -> int:
    """The position's score from the side to move: material, central pieces, advanced pawns."""
    score = 0
    for square, piece in board.piece_map().items():
        value = PIECE_VALUE[piece.piece_type] if piece.piece_type != chess.KING else 0
        if piece.piece_type == chess.PAWN:
            rank = chess.square_rank(square)
            value += 4 * (rank - 1 if piece.color == chess.WHITE else 6 - rank)
        elif piece.piece_type != chess.KING:
            value += 3 * _CENTRE[square]
        score += value if piece.color == chess.WHITE else -value
    return score if board.turn == chess.WHITE else -score


def _ordered(board: chess.Board, first: chess.Move | None, captures_only: bool) -> list[chess.Move]:
    moves = list(board.generate_legal_captures() if captures_only else board.legal_moves)

    def key(move: chess.Move) -> int:
        if move == first:
            return -1_000_000
        victim = board.piece_type_at(move.to_square) or (chess.PAWN if board.is_en_passant(move)
                                                          else 0)
        if victim or move.promotion:
            mover = board.piece_type_at(move.from_square) or chess.PAWN
            return -10 * PIECE_VALUE[victim] + PIECE_VALUE[mover] // 100 - (
                PIECE_VALUE[move.promotion] if move.promotion else 0)
        return 0

    moves.sort(key=key)
    return moves


class InterimSearch:
    """One move's search: `run` it with the time it may take and a stop flag to read."""

    def __init__(self, board: chess.Board, soft: float, hard: float,
                 stopped: Callable[[], bool]) -> None:
        self.board = board.copy()
        self.started = time.perf_counter()
        self.soft = self.started + soft
        self.hard = self.started + hard
        self.stopped = stopped
        self.nodes = 0

    def run(self, report: Callable[[Info], None]) -> chess.Move | None:
        """The best move of the deepest finished iteration (the first legal move if none is)."""
        legal = list(self.board.legal_moves)
        best = legal[0] if legal else None
        if len(legal) <= 1:
            return best
        depth = 0
        while depth < 64 and time.perf_counter() < self.soft and not self.stopped():
            depth += 1
            try:
                score, move = self._root(depth, best)
            except _OutOfTime:
                break
            best = move
            report(Info(depth=depth, seldepth=depth, score=score, nodes=self.nodes,
                        time=time.perf_counter() - self.started, pv=[move]))
            if abs(score) >= MATE - 64:
                break
        return best

    def _root(self, depth: int, first: chess.Move | None) -> tuple[int, chess.Move]:
        alpha, best = -INFINITY, None
        for move in _ordered(self.board, first, False):
            self.board.push(move)
            score = -self._negamax(depth - 1, -INFINITY, -alpha, 1)
            self.board.pop()
            if best is None or score > alpha:
                alpha, best = score, move
        return alpha, best

    def _tick(self) -> None:
        self.nodes += 1
        if self.nodes % _CHECK_EVERY == 0 and (time.perf_counter() >= self.hard or self.stopped()):
            raise _OutOfTime

    def _negamax(self, depth: int, alpha: int, beta: int, ply: int) -> int:
        self._tick()
        board = self.board
        if board.is_checkmate():
            return -MATE + ply
        if board.is_stalemate() or board.is_insufficient_material() or board.halfmove_clock >= 100 \
                or board.is_repetition(2):
            return 0
        if depth <= 0:
            return self._quiescence(alpha, beta, ply)
        for move in _ordered(board, None, False):
            board.push(move)
            score = -self._negamax(depth - 1, -beta, -alpha, ply + 1)
            board.pop()
            if score >= beta:
                return score
            alpha = max(alpha, score)
        return alpha

    def _quiescence(self, alpha: int, beta: int, ply: int) -> int:
        self._tick()
        stand_pat = evaluate(self.board)
        if stand_pat >= beta:
            return stand_pat
        alpha = max(alpha, stand_pat)
        for move in _ordered(self.board, None, True):
            self.board.push(move)
            score = -self._quiescence(-beta, -alpha, ply + 1)
            self.board.pop()
            if score >= beta:
                return score
            alpha = max(alpha, score)
        return alpha
