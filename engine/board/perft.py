"""Perft and divide: count the leaf nodes of the legal move tree, to check move generation.

`perft_report` produces the text for `go perft N` and `brudno perft N [FEN]` in Stockfish's
layout, so that a perft tool that diffs against Stockfish (e.g. perftree) can read it.
"""

from __future__ import annotations

from collections.abc import Sequence

import chess

__all__ = ["KIWIPETE", "perft", "divide", "format_divide", "perft_report"]

# Peter McKenzie's perft position: castling, en passant, promotions and pins within a few plies,
# which is why it is the standard test of move generators (and a busy middlegame elsewhere).
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def perft(board: chess.Board, depth: int) -> int:
    """Number of leaf nodes `depth` plies below `board` (1 at depth 0).

    The board is played on and restored, so it must not be used by another thread meanwhile.
    """
    if depth < 0:
        raise ValueError(f"perft depth must be >= 0, not {depth}")
    if depth == 0:
        return 1
    return _count(board, depth)


def _count(board: chess.Board, depth: int) -> int:
    # Bulk counting: the last ply only needs the number of legal moves, not playing them,
    # which saves most of the cost since leaves outnumber inner nodes by the branching factor.
    if depth == 1:
        return board.legal_moves.count()
    nodes = 0
    # A list, not the live generator: the generator would resume on a board that has been
    # pushed and popped in between, which is correct only as long as pop() restores everything.
    for move in list(board.legal_moves):
        board.push(move)
        nodes += _count(board, depth - 1)
        board.pop()
    return nodes


def divide(board: chess.Board, depth: int) -> list[tuple[chess.Move, int]]:
    """Perft split by root move, in python-chess's generation order.

    Each pair is (root move, leaf count of `depth - 1` below it). Depth 0 has no root moves and
    gives an empty list; use `perft_report` for output that also covers depth 0.
    """
    if depth < 0:
        raise ValueError(f"perft depth must be >= 0, not {depth}")
    if depth == 0:
        return []
    results = []
    for move in list(board.legal_moves):
        board.push(move)
        results.append((move, perft(board, depth - 1)))
        board.pop()
    return results


def format_divide(results: Sequence[tuple[chess.Move, int]], nodes: int | None = None) -> str:
    """Stockfish's `go perft` text: `<uci>: <count>` per move, an empty line, `Nodes searched: N`.

    `nodes` defaults to the sum of the counts (pass 1 for depth 0, where there are no moves).
    The text ends with a newline, so `print()` of it reproduces Stockfish's output byte for byte,
    including its empty line after the total. Moves are printed with `Move.uci()`: moves taken from
    a Chess960 board are already in king-takes-rook form, so no board is needed here.
    """
    total = sum(count for _, count in results) if nodes is None else nodes
    lines = [f"{move.uci()}: {count}" for move, count in results]
    lines += ["", f"Nodes searched: {total}", ""]
    return "\n".join(lines)


def perft_report(board: chess.Board, depth: int) -> str:
    """The complete `go perft <depth>` answer for `board` (see `format_divide`)."""
    if depth == 0:
        return format_divide([], nodes=1)
    return format_divide(divide(board, depth))
