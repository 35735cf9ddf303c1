"""The search's move order built from python-chess alone: the oracle of engine/search/movepick.py's walk."""

from __future__ import annotations

import chess

from engine.board.piece_values import PIECE_VALUE
from engine.board.see import see


def staged_order(board: chess.Board) -> list[chess.Move]:
    """``board``'s legal moves in the walk's order when there is no table move, no killer and no
    history: captures and promotions by MVV-LVA (not in check: queen promotions first and
    under-promotions last, each by the victim), then the quiet moves, then the captures that lose
    material by SEE. Ties keep python-chess's order (Python's sort is stable), but for captures
    out of check, which the capture kernel lists by victim, target square and origin from h8
    down, en passant last among the pawns taken."""
    legal = list(board.legal_moves)
    noisy = [move for move in legal if board.is_capture(move) or move.promotion]
    quiet = [move for move in legal if move not in noisy]

    def victim(move: chess.Move) -> int:
        return chess.PAWN if board.is_en_passant(move) else board.piece_type_at(move.to_square) or 0

    def mvv_lva(move: chess.Move) -> int:
        score = PIECE_VALUE[victim(move)] * 8 - board.piece_type_at(move.from_square)
        if move.promotion == chess.QUEEN:
            score += PIECE_VALUE[chess.QUEEN] * 8
        elif move.promotion:
            score -= 100_000
        return score

    if board.is_check():
        first = sorted(noisy, key=mvv_lva, reverse=True)
    else:
        by_victim = sorted((m for m in noisy if m.promotion), key=lambda m: -PIECE_VALUE[victim(m)])
        first = ([m for m in by_victim if m.promotion == chess.QUEEN]
                 + sorted((m for m in noisy if not m.promotion),
                          key=lambda m: (-victim(m), PIECE_VALUE[board.piece_type_at(m.from_square)],
                                         board.is_en_passant(m), -m.to_square, -m.from_square))
                 + [m for m in by_victim if m.promotion != chess.QUEEN])
    losing = [move for move in first
              if not move.promotion
              and PIECE_VALUE[board.piece_type_at(move.from_square)] > PIECE_VALUE[victim(move)]
              and see(board, move) < 0]
    return [move for move in first if move not in losing] + quiet + losing
