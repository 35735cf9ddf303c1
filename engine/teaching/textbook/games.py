"""The games the textbook searches run on, behind one small interface.

A game is a mutable state that the search walks with `push(move)` and `pop()`, so that
chess can reuse a single python-chess board instead of copying one per node. Values are
always given from the first player's view: the first player (White, or "the computer" in
the binary tree) maximises, the other player minimises. Negamax turns them round itself.

Three games implement the interface:

* `ChessGame`: a python-chess board, static evaluation at the horizon;
* `BinaryTree`: the 31-position tree of the lecture's alpha-beta exercise;
* `Matchsticks`: take 1 or 2 matches, whoever takes the last one loses.

`ExplicitTree` (a tree written as nested lists) is there for tests and small examples.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Protocol, TypeVar, Union

import chess
import chess.polyglot

# The engine's mate score, so that a mate has the same value in both searches: a mate found `ply`
# half-moves from the root scores MATE - ply (quicker mates score higher).
from engine.evaluation.score import MATE

Move = TypeVar("Move")


class Game(Protocol[Move]):
    """What the searches in `engine.teaching.textbook.search` need to know about a game."""

    def moves(self) -> list[Move]:
        """The legal moves of the current state, in the game's own order."""

    def push(self, move: Move) -> None:
        """Play `move`."""

    def pop(self) -> None:
        """Take back the last move."""

    def first_player_to_move(self) -> bool:
        """True when the maximising (first) player is to move."""

    def is_over(self) -> bool:
        """True when the game has ended in the current state."""

    def final_value(self) -> int:
        """The exact value of an ended game, from the first player's view."""

    def horizon_value(self) -> int:
        """A heuristic value of a state where the search stops, from the first player's view."""

    def key(self) -> Hashable:
        """Identifies the current state (for caching exact values)."""


class ChessGame:
    """Chess on a python-chess board; White is the first (maximising) player."""

    def __init__(self, board: chess.Board,
                 evaluate: Callable[[chess.Board], int] | None = None) -> None:
        if evaluate is None:
            from engine.evaluation.evaluate import evaluate
        self.board = board.copy()
        self.evaluate = evaluate
        self.root_ply = board.ply()

    def moves(self) -> list[chess.Move]:
        return list(self.board.legal_moves)

    def push(self, move: chess.Move) -> None:
        self.board.push(move)

    def pop(self) -> None:
        self.board.pop()

    def first_player_to_move(self) -> bool:
        return self.board.turn == chess.WHITE

    def is_over(self) -> bool:
        return self.board.is_game_over()

    def final_value(self) -> int:
        winner = self.board.outcome().winner
        if winner is None:
            return 0
        mate = MATE - (self.board.ply() - self.root_ply)
        return mate if winner == chess.WHITE else -mate

    def horizon_value(self) -> int:
        # The engine's evaluation is from the side to move's view.
        score = self.evaluate(self.board)
        return score if self.board.turn == chess.WHITE else -score

    def key(self) -> Hashable:
        return chess.polyglot.zobrist_hash(self.board)


# The lecture's tree: position p has children 2p + 1 and 2p + 2; 15..30 are the leaves.
TREE_LEAF_VALUES = (4, 5, 3, 2, 6, 7, 8, 9, 1, 10, 2, 11, 12, 13, 14, 14)
TREE_SIZE = 31
TREE_FIRST_LEAF = 15
TREE_MIN_VALUE, TREE_MAX_VALUE = 0, 15


class BinaryTree:
    """The 31-position binary tree; the computer maximises at position 0.

    A move is the position it leads to, so the best move is the "BestPos" of the lecture.
    """

    def __init__(self, leaf_values: Sequence[int] = TREE_LEAF_VALUES) -> None:
        self.leaf_values = tuple(leaf_values)
        self.first_leaf = len(self.leaf_values) - 1
        self.path = [0]

    @property
    def position(self) -> int:
        return self.path[-1]

    def moves(self) -> list[int]:
        p = self.position
        return [] if self.is_over() else [2 * p + 1, 2 * p + 2]

    def push(self, move: int) -> None:
        self.path.append(move)

    def pop(self) -> None:
        self.path.pop()

    def first_player_to_move(self) -> bool:
        # The levels alternate, starting with the computer at level 0.
        return (len(self.path) - 1) % 2 == 0

    def is_over(self) -> bool:
        return self.position >= self.first_leaf

    def final_value(self) -> int:
        return self.leaf_values[self.position - self.first_leaf]

    def horizon_value(self) -> int:
        if self.is_over():
            return self.final_value()
        raise ValueError("the tree has no heuristic for inner positions: search to the leaves")

    def key(self) -> Hashable:
        return self.position


class Matchsticks:
    """N matches on the table; each player takes 1 or 2; whoever takes the last match loses.

    White moves first. A state is (matches left, White to move). An ended game scores +1 if
    White won and -1 if Black won.
    """

    def __init__(self, matches: int = 5, white_to_move: bool = True) -> None:
        self.matches = matches
        self.white_to_move = white_to_move
        self.history: list[int] = []

    def moves(self) -> list[int]:
        return [take for take in (1, 2) if take <= self.matches]

    def push(self, move: int) -> None:
        self.matches -= move
        self.white_to_move = not self.white_to_move
        self.history.append(move)

    def pop(self) -> None:
        self.matches += self.history.pop()
        self.white_to_move = not self.white_to_move

    def first_player_to_move(self) -> bool:
        return self.white_to_move

    def is_over(self) -> bool:
        return self.matches == 0

    def final_value(self) -> int:
        # The player who just moved took the last match and lost, so the side to move won.
        return 1 if self.white_to_move else -1

    def horizon_value(self) -> int:
        if self.is_over():
            return self.final_value()
        raise ValueError("matchsticks is searched to the end of the game")

    def key(self) -> Hashable:
        return (self.matches, self.white_to_move)


Tree = Union[int, Sequence["Tree"]]


class ExplicitTree:
    """A game tree written out as nested lists: an int is a leaf, a list holds the children.

    The first player moves at the root; a move is the index of a child. Leaf values are from
    the first player's view. A leaf above the search horizon ends the game.
    """

    def __init__(self, tree: Tree) -> None:
        self.tree = tree
        self.path: list[int] = []
        self.nodes: list[Tree] = [tree]

    def moves(self) -> list[int]:
        node = self.nodes[-1]
        return [] if isinstance(node, int) else list(range(len(node)))

    def push(self, move: int) -> None:
        self.path.append(move)
        self.nodes.append(self.nodes[-1][move])

    def pop(self) -> None:
        self.path.pop()
        self.nodes.pop()

    def first_player_to_move(self) -> bool:
        return len(self.path) % 2 == 0

    def is_over(self) -> bool:
        return isinstance(self.nodes[-1], int)

    def final_value(self) -> int:
        return self.nodes[-1]

    def horizon_value(self) -> int:
        # Stopping above the leaves: a crude guess, the first leaf below.
        node = self.nodes[-1]
        while not isinstance(node, int):
            node = node[0]
        return node

    def key(self) -> Hashable:
        return tuple(self.path)
