"""Minimax and alpha-beta as the textbook writes them, with counters to compare them.

Every search takes a `Game` (see `engine.teaching.textbook.games`) and a depth in plies, and returns
a `SearchResult`: the value of the root from the first player's view, the best move, and
the counters. All searches are fixed-depth: a state at depth 0 gets the game's heuristic
value, an ended game its exact value; both count as one evaluation.

* `minimax`: looks at the whole tree.
* `alphabeta`: the same value with two functions, one for each player (max/min), skipping
  the moves that cannot change the result.
* `negamax_alphabeta`: alpha-beta with a single function: a player's value is minus the
  opponent's, so maximising the negated values of the children covers both players.
* `ordered_alphabeta`: negamax alpha-beta that tries the moves in the order of a
  `MoveOrdering`.
* `perfect_alphabeta`: alpha-beta with the best move always first; it visits the minimal
  tree of Knuth and Moore, about b^(d/2) leaves instead of minimax's b^d.

`minimax`, `alphabeta` and `ordered_alphabeta` take two hooks, for a trace of the search:
`trace(game, alpha, beta)` on entering a state and `backed_up(game, value, best_move)` on
leaving it, both from the first player's view (minimax reports the full window).

The alpha-beta functions are "fail-hard" (Knuth and Moore's F2): a node's value starts at
alpha, so the value returned always lies in [alpha, beta]. It is exact when it lies strictly
inside the window; alpha means "at most alpha" and beta "at least beta".
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from engine.teaching.textbook.games import Game
from engine.teaching.textbook.ordering import GenerationOrder, MoveOrdering

# Larger than any value a game returns, mate scores included.
INFINITY = 1_000_000

# Searches the trees of the small games to their leaves.
UNLIMITED = 1 << 30


@dataclass
class Counters:
    """What a search did: `evaluations` are heuristic or end-of-game values computed,
    `cutoffs` are nodes left early because a move refuted them, `nodes` all visited states."""

    evaluations: int = 0
    cutoffs: int = 0
    nodes: int = 0


@dataclass
class SearchResult:
    value: int  # from the first (maximising) player's view
    best_move: Any  # None if no move raised the value above the initial alpha
    counters: Counters = field(default_factory=Counters)


def _leaf_value(game: Game, depth: int, counters: Counters) -> int | None:
    """The value of a leaf of the search tree, or None for an inner node."""
    if depth == 0:
        counters.evaluations += 1
        return game.horizon_value()
    if game.is_over():
        counters.evaluations += 1
        return game.final_value()
    return None


Trace = Callable[[Game, int, int], None]
BackedUp = Callable[[Game, int, Any], None]
Step = Callable[..., tuple[int, Any]]  # an inner search function: (depth, ...) -> (value, move)


def _with_hooks(step: Step, game: Game, trace: Trace | None, backed_up: BackedUp | None,
                mover_view: bool = False) -> Step:
    """`step(depth, [alpha, beta, ...])` with `trace` called before it and `backed_up` after.

    The searches rebind their inner functions to this wrapper, so that the recursive calls
    go through the hooks too while the functions keep the textbook's form. Negamax values
    are the mover's: the second player's window (alpha, beta) is the first's (-beta, -alpha).
    """

    def hooked(depth: int, *args: Any) -> tuple[int, Any]:
        side = _side(game) if mover_view else 1
        if trace:
            alpha, beta = args[:2] if args else (-INFINITY, INFINITY)  # minimax: no window
            trace(game, *((alpha, beta) if side > 0 else (-beta, -alpha)))
        value, best_move = step(depth, *args)
        if backed_up:
            backed_up(game, side * value, best_move)
        return value, best_move

    return hooked


def minimax(game: Game, depth: int = UNLIMITED, *, trace: Trace | None = None,
            backed_up: BackedUp | None = None) -> SearchResult:
    """The first player picks the move of highest value, the second the move of lowest."""
    counters = Counters()

    def value(depth: int) -> tuple[int, Any]:
        counters.nodes += 1
        leaf = _leaf_value(game, depth, counters)
        if leaf is not None:
            return leaf, None
        maximising = game.first_player_to_move()
        best_value, best_move = (-INFINITY if maximising else INFINITY), None
        for move in game.moves():
            game.push(move)
            child, _ = value(depth - 1)
            game.pop()
            if (child > best_value) if maximising else (child < best_value):
                best_value, best_move = child, move
        return best_value, best_move

    if trace or backed_up:
        value = _with_hooks(value, game, trace, backed_up)
    root_value, root_move = value(depth)
    return SearchResult(root_value, root_move, counters)


def alphabeta(game: Game, depth: int = UNLIMITED, alpha: int = -INFINITY,
              beta: int = INFINITY, *, trace: Trace | None = None,
              backed_up: BackedUp | None = None, max_start: int | None = None) -> SearchResult:
    """Alpha-beta with one function for the maximising and one for the minimising player.

    alpha is the value the maximiser is already sure of elsewhere in the tree, beta the value
    the minimiser is sure of. A max node whose value reaches beta will never be allowed by
    the minimiser above it, so its remaining moves are skipped (and a min node at alpha).

    `trace` and `backed_up` are the hooks of the module docstring. `max_start` makes max
    nodes start from that constant instead of alpha: the lecture's warning, kept only to
    show how it loses cutoffs (the value stays right).
    """
    counters = Counters()

    def max_value(depth: int, alpha: int, beta: int) -> tuple[int, Any]:
        counters.nodes += 1
        leaf = _leaf_value(game, depth, counters)
        if leaf is not None:
            return leaf, None
        value, best_move = (alpha if max_start is None else max_start), None
        for move in game.moves():
            game.push(move)
            child, _ = min_value(depth - 1, alpha, beta)
            game.pop()
            if child > value:
                value, best_move = child, move
            if value >= beta:
                counters.cutoffs += 1
                break
            alpha = value  # the best value found so far bounds the remaining moves
        return value, best_move

    def min_value(depth: int, alpha: int, beta: int) -> tuple[int, Any]:
        counters.nodes += 1
        leaf = _leaf_value(game, depth, counters)
        if leaf is not None:
            return leaf, None
        value, best_move = beta, None
        for move in game.moves():
            game.push(move)
            child, _ = max_value(depth - 1, alpha, beta)
            game.pop()
            if child < value:
                value, best_move = child, move
            if value <= alpha:
                counters.cutoffs += 1
                break
            beta = value
        return value, best_move

    if trace or backed_up:
        max_value = _with_hooks(max_value, game, trace, backed_up)
        min_value = _with_hooks(min_value, game, trace, backed_up)
    search = max_value if game.first_player_to_move() else min_value
    root_value, root_move = search(depth, alpha, beta)
    return SearchResult(root_value, root_move, counters)


def _side(game: Game) -> int:
    """+1 when the first player is to move, -1 otherwise: turns values to the mover's view."""
    return 1 if game.first_player_to_move() else -1


def negamax_alphabeta(game: Game, depth: int = UNLIMITED, alpha: int = -INFINITY,
                      beta: int = INFINITY) -> SearchResult:
    """Alpha-beta in negamax form: one function for both players.

    Inside, values are from the side to move's view: a state is worth minus the best of its
    children for the opponent, and the child's window is the parent's negated and swapped,
    (-beta, -alpha). alpha, beta and the result are from the first player's view.
    """
    counters = Counters()

    def negamax(depth: int, alpha: int, beta: int) -> tuple[int, Any]:
        counters.nodes += 1
        leaf = _leaf_value(game, depth, counters)
        if leaf is not None:
            return _side(game) * leaf, None
        value, best_move = alpha, None
        for move in game.moves():
            game.push(move)
            child = -negamax(depth - 1, -beta, -alpha)[0]
            game.pop()
            if child > value:
                value, best_move = child, move
            if value >= beta:
                counters.cutoffs += 1
                break
            alpha = value
        return value, best_move

    side = _side(game)
    if side < 0:
        alpha, beta = -beta, -alpha
    root_value, root_move = negamax(depth, alpha, beta)
    return SearchResult(side * root_value, root_move, counters)


def ordered_alphabeta(game: Game, depth: int, ordering: MoveOrdering,
                      alpha: int = -INFINITY, beta: int = INFINITY, *,
                      trace: Trace | None = None,
                      backed_up: BackedUp | None = None) -> SearchResult:
    """`negamax_alphabeta` trying the moves in `ordering`'s order.

    The ordering is told about every move that causes a cutoff (for killer moves). The hooks
    get windows and values from the first player's view, as in `alphabeta`.
    """
    counters = Counters()

    def negamax(depth: int, alpha: int, beta: int, ply: int) -> tuple[int, Any]:
        counters.nodes += 1
        leaf = _leaf_value(game, depth, counters)
        if leaf is not None:
            return _side(game) * leaf, None
        value, best_move = alpha, None
        for move in ordering.order(game, game.moves(), ply):
            game.push(move)
            child = -negamax(depth - 1, -beta, -alpha, ply + 1)[0]
            game.pop()
            if child > value:
                value, best_move = child, move
            if value >= beta:
                counters.cutoffs += 1
                ordering.cutoff(game, move, ply)
                break
            alpha = value
        return value, best_move

    if trace or backed_up:
        negamax = _with_hooks(negamax, game, trace, backed_up, mover_view=True)
    side = _side(game)
    if side < 0:
        alpha, beta = -beta, -alpha
    root_value, root_move = negamax(depth, alpha, beta, 0)
    return SearchResult(side * root_value, root_move, counters)


class ExactValues:
    """Exact minimax values of states, remembered per (state, remaining depth).

    They come from an uncounted full-window alpha-beta search, which is exact because the
    true value always lies inside (-INFINITY, INFINITY).
    """

    def __init__(self, helper: MoveOrdering | None = None) -> None:
        self.helper = helper or GenerationOrder()  # only speeds up the uncounted searches
        self.cache: dict[tuple[Hashable, int], int] = {}

    def value(self, game: Game, depth: int) -> int:
        key = (game.key(), depth)
        if key not in self.cache:
            self.cache[key] = ordered_alphabeta(game, depth, self.helper).value
        return self.cache[key]


class PerfectOrdering:
    """Sorts the moves by the exact minimax value of the state each leads to, best first.

    Knows the root depth, because the value of a child depends on how deep it is searched.
    """

    def __init__(self, root_depth: int, helper: MoveOrdering | None = None) -> None:
        self.root_depth = root_depth
        self.exact = ExactValues(helper)
        self.seconds = 0.0  # spent finding exact values, so the search can be timed alone

    def order(self, game: Game, moves: list[Any], ply: int) -> list[Any]:
        start = time.perf_counter()
        values = []
        for move in moves:
            game.push(move)
            values.append(self.exact.value(game, self.root_depth - ply - 1))
            game.pop()
        self.seconds += time.perf_counter() - start
        # sorted() is stable, also in reverse: equal moves keep the game's order.
        ranking = sorted(range(len(moves)), key=values.__getitem__,
                         reverse=game.first_player_to_move())
        return [moves[i] for i in ranking]

    def cutoff(self, game: Game, move: Any, ply: int) -> None:
        pass


def perfect_alphabeta(game: Game, depth: int = UNLIMITED,
                      helper: MoveOrdering | None = None) -> SearchResult:
    """Alpha-beta with perfect move ordering: at every node the moves are sorted by their
    exact minimax value, best first, so alpha-beta visits exactly Knuth and Moore's minimal
    tree, b^ceil(d/2) + b^floor(d/2) - 1 leaves for a uniform tree of branching b and depth d.

    Only the ordered search is counted; finding the exact values (with alpha-beta ordered
    by `helper`) is the oracle a real program does not have.
    """
    return ordered_alphabeta(game, depth, PerfectOrdering(depth, helper))
