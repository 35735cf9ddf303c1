"""Move orderings for `engine.teaching.textbook.search.ordered_alphabeta`.

Alpha-beta returns the same value whatever the order of the moves, but it cuts off sooner
when the best move comes first. An ordering sorts the moves of each node and may learn from
the moves that caused a cutoff (the killer heuristic).
"""

from __future__ import annotations

from typing import Any, Protocol

import chess

# The engine's piece values, indexed by python-chess piece type (pawn = 1 .. king = 6). MVV-LVA
# uses only their ranking, so the alpha-beta table's counts do not depend on the exact values.
from engine.board.piece_values import PIECE_VALUE
from engine.teaching.textbook.games import ChessGame, Game


class MoveOrdering(Protocol):
    def order(self, game: Game, moves: list[Any], ply: int) -> list[Any]:
        """The moves of the current state, the most promising first."""

    def cutoff(self, game: Game, move: Any, ply: int) -> None:
        """`move` refuted the current state: remember it if that helps later."""


class GenerationOrder:
    """The game's own move order: plain alpha-beta."""

    def order(self, game: Game, moves: list[Any], ply: int) -> list[Any]:
        return moves

    def cutoff(self, game: Game, move: Any, ply: int) -> None:
        pass


class MvvLvaKillers:
    """Chess: captures first, most valuable victim then least valuable attacker (MVV-LVA),
    then the two killer moves of this ply, then the other moves in generation order.

    A killer is a quiet move that refuted a sibling position at the same ply; positions at
    the same ply tend to share refutations, so it is tried before the other quiet moves.
    """

    def __init__(self) -> None:
        self.killers: dict[int, list[chess.Move]] = {}

    def order(self, game: ChessGame, moves: list[chess.Move], ply: int) -> list[chess.Move]:
        board = game.board
        captures = [move for move in moves if board.is_capture(move)]
        captures.sort(key=lambda move: (-victim_value(board, move),
                                        PIECE_VALUE[board.piece_type_at(move.from_square)]))
        killers = [move for move in self.killers.get(ply, []) if move in moves
                   and not board.is_capture(move)]
        rest = [move for move in moves if move not in killers and not board.is_capture(move)]
        return captures + killers + rest

    def cutoff(self, game: ChessGame, move: chess.Move, ply: int) -> None:
        if game.board.is_capture(move):
            return  # captures are ordered well already
        killers = self.killers.setdefault(ply, [])
        if move not in killers:
            killers.insert(0, move)
            del killers[2:]


def victim_value(board: chess.Board, move: chess.Move) -> int:
    """The value of the piece `move` captures (en passant captures a pawn)."""
    if board.is_en_passant(move):
        return PIECE_VALUE[chess.PAWN]
    return PIECE_VALUE[board.piece_type_at(move.to_square)]
