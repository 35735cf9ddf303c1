"""The search's memory of which quiet moves cut off: the killer moves of each ply, a butterfly
history table per colour and a continuation history, with their bonus and malus and the score the
move order and the reductions read of them.

The tables are numpy arrays that one search shares between the Python root and the scout kernel
(engine/search/scout.py): the kernel records its own cut-offs here (`record_cutoff`) and the move
walk (engine/search/movepick.py) lists the quiet moves by their score (`quiet_score`). Killers
are move codes as in the transposition table (-1 for none), by ply; the butterfly history is
indexed by a move's squares (engine/board/movecode.py), one table for each side; the continuation
history by the man and square of an earlier move of the line (its `piece_to` index) and of the
move scored, one table read one and two plies back (Stockfish's and Ethereal's, as
`HISTORIES` of engine/search/params.py switches on). A node reads them as one record, its
``histories``: (its side's butterfly table, the continuation table, the piece_to of the move one
ply back and of the move two plies back, -1 for none or with the continuation history off).
"""

from __future__ import annotations

import chess
import numpy as np
from numba import njit

from engine.board import movecode
from engine.search.tt_kernels import encode_move

HISTORY_MAX = 1 << 14
PIECE_TO = 2 * 6 * 64  # a man (colour and type) and a square: a continuation table's row or column
NO_MOVE = -1  # the piece_to of no move (the root's own line, a null move)


class OrderingTables:
    """Killer moves per ply and a butterfly history table per colour, shared by one search."""

    def __init__(self, max_ply: int = 128) -> None:
        self.max_ply = max_ply
        self.clear()

    def clear(self) -> None:
        self.killers = np.full((self.max_ply + 2, 2), -1, dtype=np.int64)
        self.history = [np.zeros(4096, dtype=np.int64) for _ in chess.COLORS]
        self.continuation = np.zeros((PIECE_TO, PIECE_TO), dtype=np.int16)

    def age(self) -> None:
        """Halves history between searches so that old successes fade but still count."""
        for table in self.history:
            table >>= 1
        self.continuation >>= 1
        self.killers.fill(-1)

    def record_killer(self, move: chess.Move, ply: int) -> None:
        code = encode_move(move)
        killers = self.killers[ply]
        if killers[0] != code:
            killers[1] = killers[0]
            killers[0] = code


def board_piece_to(board: chess.Board, back: int) -> int:
    """The piece_to of the move ``back`` plies before ``board`` (1: the last one), from the man
    that stands on its target square now; NO_MOVE if there is none or that man has moved on."""
    if len(board.move_stack) < back:
        return NO_MOVE
    move = board.move_stack[-back]
    piece = board.piece_at(move.to_square)
    mover_white = board.turn == (back % 2 == 0)
    if piece is None or piece.color != mover_white or (
            back > 1 and any(m.to_square == move.to_square or m.from_square == move.to_square
                             for m in board.move_stack[-back + 1:])):
        return NO_MOVE
    kind = chess.PAWN if move.promotion else piece.piece_type
    return (0 if mover_white else 384) + (kind - 1) * 64 + move.to_square


@njit(cache=True, nogil=True, inline="always")
def piece_to(code, white_to_move):
    """The continuation history's index of the move ``code`` of the side to move: its man's colour
    and type, and its target square."""
    return (0 if white_to_move else 384) + (movecode.mover(code) - 1) * 64 + movecode.target(code)


@njit(cache=True, nogil=True, inline="always")
def quiet_score(histories, code, white_to_move):
    """The history score of the quiet move ``code``: its butterfly history, plus its continuation
    history after the moves one and two plies back."""
    butterfly, continuation, back_1, back_2 = histories
    score = butterfly[movecode.butterfly(code)]
    if back_1 >= 0 or back_2 >= 0:
        column = piece_to(code, white_to_move)
        if back_1 >= 0:
            score += continuation[back_1, column]
        if back_2 >= 0:
            score += continuation[back_2, column]
    return score


@njit(cache=True, nogil=True)
def by_score_into(out, codes, scores):
    """``codes`` by falling ``scores``, written into ``out``; codes of equal score keep their order
    (a stable insertion sort: the lists are short). Returns how many."""
    n = 0
    for k in range(codes.shape[0]):
        value = scores[k]
        j = n - 1
        while j >= 0 and scores[out[j]] < value:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = k
        n += 1
    for k in range(n):
        out[k] = codes[out[k]]
    return n


@njit(cache=True, nogil=True, inline="always")
def _gravity(table, row, column, bonus):
    """``bonus`` (a malus if negative) added to a history entry, less the share of it that the
    entry already holds: values stay within +-HISTORY_MAX without periodic rescaling."""
    value = table[row, column]
    table[row, column] = value + bonus - value * abs(bonus) // HISTORY_MAX


@njit(cache=True, nogil=True)
def _reward_all(histories, code, white_to_move, depth, tried):
    """`_reward` at the scale strong engines use, for the butterfly and continuation tables: the
    quiet move ``code`` cut off at ``depth``, the quiet moves ``tried`` before it did not."""
    butterfly, continuation, back_1, back_2 = histories
    bonus = min(16 * depth * depth + 128 * (depth - 1), 2048)
    for k in range(tried.shape[0] + 1):
        move = code if k == tried.shape[0] else tried[k]
        signed = bonus if k == tried.shape[0] else -bonus
        index = movecode.butterfly(move)
        value = butterfly[index]
        butterfly[index] = value + signed - value * bonus // HISTORY_MAX
        column = piece_to(move, white_to_move)
        if back_1 >= 0:
            _gravity(continuation, back_1, column, signed)
        if back_2 >= 0:
            _gravity(continuation, back_2, column, signed)


@njit(cache=True, nogil=True)
def record_cutoff(code, white_to_move, ply, depth, histories, tried, killers, all_tables):
    """The quiet move ``code`` cut off: it becomes the ply's first killer, its history rises and
    that of the quiet moves ``tried`` before it (their codes) falls: the butterfly table alone
    with today's bonus, or with ``all_tables`` every table with the larger one."""
    if all_tables:
        _reward_all(histories, code, white_to_move, depth, tried)
    else:
        butterfly = histories[0]
        bonus = min(depth * depth, 400)
        index = movecode.butterfly(code)
        butterfly[index] += bonus - butterfly[index] * bonus // HISTORY_MAX
        for other in tried:
            index = movecode.butterfly(other)
            butterfly[index] -= bonus + butterfly[index] * bonus // HISTORY_MAX
    move = movecode.table_move(code)
    if killers[ply, 0] != move:
        killers[ply, 1] = killers[ply, 0]
        killers[ply, 0] = move
