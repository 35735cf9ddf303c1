"""The tree a textbook search walked, recorded from its own hooks, for drawing it.

A `Recorder` wraps the game the search runs on, so that it sees every move the search plays
and every move list it asks for, and takes the search's `trace` and `backed_up` hooks: from
them it builds one `TracedNode` per state the search entered, in the order of the search,
with the window on entry and the value backed up. A node whose value left its window was cut
off by the last child it searched; the moves it never tried are its pruned moves. Nothing is
searched twice: a drawing made from the record shows what the search did.

`trace_minimax`, `trace_alphabeta` and `trace_ordered` run the searches of
`engine.teaching.textbook.search` with a recorder and return a `SearchTrace`.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from engine.teaching.textbook.games import Game
from engine.teaching.textbook.ordering import MoveOrdering
from engine.teaching.textbook.search import (INFINITY, UNLIMITED, SearchResult, alphabeta, minimax,
                                             ordered_alphabeta)

MovePath = tuple[Hashable, ...]  # the moves from the root to a state


@dataclass
class TracedNode:
    """A state the search entered. Windows and values are from the first player's view."""

    order: int  # 1 for the root, then in the order the search entered the states
    path: MovePath
    first_player: bool  # the maximising player is to move ("MAX")
    alpha: int  # the window on entry
    beta: int
    value: int | None = None  # backed up on leaving (None only while the search runs)
    best_move: Any = None  # the search's choice; None if no move improved the start value
    moves: list[Any] | None = None  # the moves listed here, in the game's order; None at a leaf
    children: list[TracedNode] = field(default_factory=list)  # in the order searched

    @property
    def move(self) -> Any:
        """The move that led here (None at the root)."""
        return self.path[-1] if self.path else None

    @property
    def is_leaf(self) -> bool:
        """Evaluated, not expanded: the horizon or an ended game."""
        return self.moves is None

    @property
    def pruned(self) -> list[Any]:
        """The moves never tried here, in the game's order."""
        if self.moves is None:
            return []
        tried = [child.move for child in self.children]
        return [move for move in self.moves if move not in tried]

    @property
    def cutoff(self) -> bool:
        """The last child searched refuted this node, and the search left it.

        Its value went past the window (MAX at beta or above, MIN at alpha or below): the
        test of the search's loop. A cutoff on the last move prunes nothing but still counts.
        """
        if self.is_leaf or self.value is None:
            return False
        return self.value >= self.beta if self.first_player else self.value <= self.alpha

    @property
    def bound(self) -> str:
        """'' for an exact value, '<=' or '>=' for a fail-hard bound.

        An inner node's value at or below alpha only says "at most", at or above beta "at
        least"; a leaf's value is always exact.
        """
        if self.is_leaf or self.value is None:
            return ""
        if self.value <= self.alpha and self.alpha > -INFINITY:
            return "<="
        if self.value >= self.beta and self.beta < INFINITY:
            return ">="
        return ""


@dataclass
class SearchTrace:
    """A recorded search: its result and the states it entered, in the order it entered them."""

    result: SearchResult
    nodes: list[TracedNode]

    @property
    def root(self) -> TracedNode:
        return self.nodes[0]

    def by_path(self) -> dict[MovePath, TracedNode]:
        return {node.path: node for node in self.nodes}

    def principal_path(self) -> list[TracedNode]:
        """From the root along each node's best move, as far as the search chose one."""
        line = [self.root]
        while line[-1].best_move is not None:
            line.append(next(child for child in line[-1].children
                             if child.move == line[-1].best_move))
        return line

    def cutoff_nodes(self) -> list[TracedNode]:
        return [node for node in self.nodes if node.cutoff]

    def leaves(self) -> list[TracedNode]:
        return [node for node in self.nodes if node.is_leaf]


class Recorder:
    """Wraps a game for a search and builds the `TracedNode`s from the search's hooks.

    Every method of the game is passed through; `moves` and `push` are also noted. Other
    attributes (a chess game's `board`, read by move orderings) are the wrapped game's.
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        self.nodes: list[TracedNode] = []
        self.open: list[TracedNode] = []  # from the root to the state the search is in
        self.last_move: Any = None

    # The game, as the search sees it.
    def moves(self) -> list[Any]:
        moves = self.game.moves()
        self.open[-1].moves = list(moves)
        return moves

    def push(self, move: Any) -> None:
        self.last_move = move
        self.game.push(move)

    def pop(self) -> None:
        self.game.pop()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.game, name)

    # The search's hooks.
    def enter(self, game: Game, alpha: int, beta: int) -> None:
        parent = self.open[-1] if self.open else None
        path = parent.path + (self.last_move,) if parent else ()
        node = TracedNode(len(self.nodes) + 1, path, self.game.first_player_to_move(),
                          alpha, beta)
        if parent:
            parent.children.append(node)
        self.nodes.append(node)
        self.open.append(node)

    def leave(self, game: Game, value: int, best_move: Any) -> None:
        node = self.open.pop()
        node.value, node.best_move = value, best_move

    def finish(self, result: SearchResult) -> SearchTrace:
        """The trace, checked against the search's own counters."""
        trace = SearchTrace(result, self.nodes)
        counters = result.counters
        assert len(trace.nodes) == counters.nodes, "a state was entered without the hook"
        assert len(trace.leaves()) == counters.evaluations, "a leaf listed its moves"
        assert len(trace.cutoff_nodes()) == counters.cutoffs, "a cutoff was missed"
        assert all(node.cutoff for node in self.nodes if node.pruned), "moves were skipped"
        return trace


def trace_minimax(game: Game, depth: int = UNLIMITED) -> SearchTrace:
    """`minimax`, recorded: every state of the game tree down to `depth`."""
    recorder = Recorder(game)
    result = minimax(recorder, depth, trace=recorder.enter, backed_up=recorder.leave)
    return recorder.finish(result)


def trace_alphabeta(game: Game, depth: int = UNLIMITED, alpha: int = -INFINITY,
                    beta: int = INFINITY, max_start: int | None = None) -> SearchTrace:
    """`alphabeta` (one function per player, the game's move order), recorded."""
    recorder = Recorder(game)
    result = alphabeta(recorder, depth, alpha, beta, trace=recorder.enter,
                       backed_up=recorder.leave, max_start=max_start)
    return recorder.finish(result)


def trace_ordered(game: Game, depth: int, ordering: MoveOrdering) -> SearchTrace:
    """`ordered_alphabeta` (negamax in `ordering`'s move order), recorded.

    The ordering must not search the game itself (as `PerfectOrdering` does): its searches
    would be recorded as part of the tree.
    """
    recorder = Recorder(game)
    result = ordered_alphabeta(recorder, depth, ordering, trace=recorder.enter,
                               backed_up=recorder.leave)
    return recorder.finish(result)

