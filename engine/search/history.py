"""The search's memory of which quiet moves cut off: the killer moves of each ply, a butterfly
history table per colour and a continuation history, with their bonus and malus and the one score
of a quiet move that the move order, the reductions and pruning read of them; and of how far its
searches found the static score off (correction history), by pawn structure and by each side's
other men, which corrects the static score at every later use.

The tables are numpy arrays that one search shares between the Python root and the scout kernel
(engine/search/scout.py): the kernel records its own cut-offs here (`record_cutoff`) and the move
walk (engine/search/movepick.py) lists the quiet moves by their score (`quiet_score`). Killers
are move codes as in the transposition table (-1 for none), by ply; the butterfly history is
indexed by a move's squares (engine/board/movecode.py), one table for each side; the continuation
history by the man and square of an earlier move of the line (its `piece_to`) and of the move
scored, one table read one, two and four plies back (Stockfish's and Ethereal's, switched on by
CONTINUATION in engine/search/params.py). The three tables are one int16 array (gravity keeps
every entry within +-HISTORY_MAX), so that the kernel's calls pass one array for them: Black's
butterfly table, White's, then the continuation table by rows. A node reads them as one record,
its ``histories``: that array, where its side's butterfly table starts, and where the
continuation rows of the moves one, two and four plies back start (NO_MOVE for none, a null
move, or with the continuation history off).
"""

from __future__ import annotations

import chess
import numpy as np
from numba import njit

from engine.board import movecode
from engine.search.tt_kernels import encode_move

HISTORY_MAX = 1 << 14
PIECE_TO = 2 * 6 * 64  # a man (colour and type) and a square: a continuation table's row or column
NO_MOVE = -1  # the piece_to of no move (before the root, a null move), and its row
BUTTERFLY = 4096  # a butterfly table's entries
CONTINUATION_AT = 2 * BUTTERFLY  # where the continuation table starts in the history array
HISTORY_SIZE = CONTINUATION_AT + PIECE_TO * PIECE_TO
# Correction history: per side to move, a table of CORRECTION_SLOTS entries for the pawns and one
# for each side's other men (CORRECTION_ROWS rows: side to move x those three), each entry within
# +-CORRECTION_LIMIT; an entry of CORRECTION_LIMIT moves the score by CORRECTION_LIMIT /
# CORRECTION_GRAIN centipawns at a weight of 100.
CORRECTION_BITS = 14
CORRECTION_SLOTS = 1 << CORRECTION_BITS
CORRECTION_ROWS = 6
CORRECTION_LIMIT = 1024
CORRECTION_GRAIN = 16


class OrderingTables:
    """Killer moves per ply, the history tables and the correction history, shared by one
    search."""

    def __init__(self, max_ply: int = 128) -> None:
        self.max_ply = max_ply
        self.clear()

    def clear(self) -> None:
        self.killers = np.full((self.max_ply + 2, 2), -1, dtype=np.int64)
        # The history array and views of its tables: by colour (False: Black), the continuation
        # table by rows.
        self.table = np.zeros(HISTORY_SIZE, dtype=np.int16)
        self.history = [self.table[:BUTTERFLY], self.table[BUTTERFLY:CONTINUATION_AT]]
        self.continuation = self.table[CONTINUATION_AT:].reshape(PIECE_TO, PIECE_TO)
        self.correction = np.zeros((CORRECTION_ROWS, CORRECTION_SLOTS), dtype=np.int64)

    def age(self) -> None:
        """Halves history between searches so that old successes fade but still count."""
        self.table >>= 1
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
    if piece is None or piece.color != mover_white or any(
            later.to_square == move.to_square or later.from_square == move.to_square
            for later in board.move_stack[len(board.move_stack) - back + 1:]):
        return NO_MOVE
    kind = chess.PAWN if move.promotion else piece.piece_type
    return (0 if mover_white else 384) + (kind - 1) * 64 + move.to_square


@njit(cache=True, nogil=True, inline="always")
def butterfly_at(white_to_move):
    """Where the butterfly table of a side starts in the history array."""
    return BUTTERFLY if white_to_move else 0


@njit(cache=True, nogil=True, inline="always")
def continuation_row(piece_to_index):
    """Where the continuation row after a move (its piece_to) starts in the history array; NO_MOVE
    for no move."""
    return CONTINUATION_AT + piece_to_index * PIECE_TO if piece_to_index >= 0 else NO_MOVE


@njit(cache=True, nogil=True, inline="always")
def piece_to(code, white_to_move):
    """The continuation history's index of the move ``code`` of the side to move: its man's colour
    and type, and its target square."""
    return (0 if white_to_move else 384) + (movecode.mover(code) - 1) * 64 + movecode.target(code)


@njit(cache=True, nogil=True, inline="always")
def quiet_score(histories, code, white_to_move):
    """The history score of the quiet move ``code``: its butterfly history, plus its continuation
    history after the moves one, two and four plies back."""
    table, butterfly, back_1, back_2, back_4 = histories
    score = np.int64(table[butterfly + movecode.butterfly(code)])
    if back_1 >= 0 or back_2 >= 0 or back_4 >= 0:
        column = piece_to(code, white_to_move)
        if back_1 >= 0:
            score += table[back_1 + column]
        if back_2 >= 0:
            score += table[back_2 + column]
        if back_4 >= 0:
            score += table[back_4 + column]
    return score


@njit(cache=True, nogil=True)
def by_score_into(out, codes, scores):
    """``codes`` by falling ``scores``, written into ``out``; codes of equal score keep their order
    (a stable insertion sort: the lists are short). Returns how many."""
    n = codes.shape[0]
    for k in range(n):
        value = scores[k]
        j = k - 1
        while j >= 0 and scores[out[j]] < value:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = k
    for k in range(n):
        out[k] = codes[out[k]]
    return n


@njit(cache=True, nogil=True, inline="always")
def _gravity(table, index, bonus):
    """``bonus`` (a malus if negative) added to a history entry, less the share of it that the
    entry already holds: values stay within +-HISTORY_MAX without periodic rescaling."""
    value = np.int64(table[index])
    table[index] = value + bonus - value * abs(bonus) // HISTORY_MAX


@njit(cache=True, nogil=True)
def _reward(histories, code, white_to_move, bonus, continuation_on):
    """The quiet move ``code``'s entries moved by ``bonus`` (a malus if negative): its butterfly
    entry and, with ``continuation_on``, its continuation entries after the moves of the line."""
    table, butterfly, back_1, back_2, back_4 = histories
    _gravity(table, butterfly + movecode.butterfly(code), bonus)
    if continuation_on:
        column = piece_to(code, white_to_move)
        if back_1 >= 0:
            _gravity(table, back_1 + column, bonus)
        if back_2 >= 0:
            _gravity(table, back_2 + column, bonus)
        if back_4 >= 0:
            _gravity(table, back_4 + column, bonus)


@njit(cache=True, nogil=True)
def record_cutoff(code, white_to_move, depth, histories, tried, killers, scale):
    """The quiet move ``code`` of the side to move cut off at ``depth``: it becomes the first
    killer of its ply (the row ``killers``), its history rises and that of the quiet moves
    ``tried`` before it (their codes) falls. ``scale`` 0: the butterfly table alone, by
    min(d², 400); else every table by min(16 d² + 128 (d - 1), ``scale``), strong engines' bonus
    (Ethereal's)."""
    if scale:
        bonus = min(16 * depth * depth + 128 * (depth - 1), scale)
    else:
        bonus = min(depth * depth, 400)
    _reward(histories, code, white_to_move, bonus, scale != 0)
    for other in tried:
        _reward(histories, other, white_to_move, -bonus, scale != 0)
    move = movecode.table_move(code)
    if killers[0] != move:
        killers[1] = killers[0]
        killers[0] = move


# Odd multipliers that spread a bitboard's bits over a slot's index (Fibonacci hashing).
_SPREAD = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F), np.uint64(0x165667B19E3779F9),
           np.uint64(0xD6E8FEB86659FD93), np.uint64(0xFF51AFD7ED558CCD), np.uint64(0xC4CEB9FE1A85EC53))


@njit(cache=True, nogil=True, inline="always")
def _slot(a, b, c, d, e):
    """A slot of a correction table for these five bitboards."""
    h = (a * _SPREAD[0]) ^ (b * _SPREAD[1]) ^ (c * _SPREAD[2]) ^ (d * _SPREAD[3]) ^ (e * _SPREAD[4])
    h ^= h >> np.uint64(31)
    return np.int64((h * _SPREAD[5]) >> np.uint64(64 - CORRECTION_BITS))


@njit(cache=True, nogil=True, inline="always")
def correction_slots(pawns, knights, bishops, rooks, queens, kings, white, white_to_move):
    """The position's three slots in the correction tables (each in its row): its pawns, White's
    other men, Black's other men."""
    black = ~white
    z = np.uint64(0)
    row = 0 if white_to_move else 3
    return (row, _slot(pawns & white, pawns & black, z, z, z),
            row + 1, _slot(knights & white, bishops & white, rooks & white, queens & white,
                           kings & white),
            row + 2, _slot(knights & black, bishops & black, rooks & black, queens & black,
                           kings & black))


@njit(cache=True, nogil=True, inline="always")
def corrected(raw, correction, slots, pawn_weight, other_weight):
    """The static score ``raw`` moved by the corrections of its ``slots`` (weights in hundredths)."""
    r0, s0, r1, s1, r2, s2 = slots
    return raw + (pawn_weight * correction[r0, s0]
                  + other_weight * (correction[r1, s1] + correction[r2, s2])
                  ) // (100 * CORRECTION_GRAIN)


@njit(cache=True, nogil=True)
def record_correction(correction, slots, depth, error):
    """A node searched to ``depth`` found its score ``error`` centipawns off its corrected static
    score: each of its entries moves towards that, more for a deeper search (with gravity, so that
    they stay within +-CORRECTION_LIMIT)."""
    bonus = min(max(error * depth // 8, -CORRECTION_LIMIT // 4), CORRECTION_LIMIT // 4)
    r0, s0, r1, s1, r2, s2 = slots
    for row, slot in ((r0, s0), (r1, s1), (r2, s2)):
        entry = correction[row, slot]
        correction[row, slot] = entry + bonus - entry * abs(bonus) // CORRECTION_LIMIT
