"""Won endings against a bare king: what the search needs to know to give mate.

The evaluation's features (fitted to, or learnt from, positions with many men) hardly tell a lone
king on the edge from one in the centre, and their mobility and square tables pull the winning
pieces about: with a queen or a rook against a bare king a shallow search finds no progress and
can drift into the fifty-move rule. So, as Stockfish's KXK and KBNK endgames do, a bare-king
ending where the other side can force mate is scored by its own rule instead of the evaluation:
material, plus a bonus for driving the lone king to the edge (with bishop and knight, to a corner
the bishop covers) and for bringing the winning king close. (A stalemated lone king is the
search's business: quiescence checks a side without pieces for a move.)
"""

from __future__ import annotations

import chess

from engine.score import PIECE_VALUE  # material on the usual centipawn scale

# Centipawns per step: the lone king's distance from the centre (0..6), the kings' distance
# (1..7), and with bishop and knight the lone king's distance to the bishop's nearest corner
# counted in files plus ranks (0..14).
EDGE_BONUS = 20
CLOSE_BONUS = 10
CORNER_BONUS = 20

_DARK_CORNERS = (chess.A1, chess.H8)
_LIGHT_CORNERS = (chess.A8, chess.H1)


def with_endgame_knowledge(board: chess.Board, score: int) -> int:
    """``score``, the side to move's evaluation of ``board``, or the bare-king ending's score."""
    white, black = board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK]
    if white & (white - 1) and black & (black - 1):
        return score  # neither king is alone: the usual case, kept cheap
    strong = chess.WHITE if black & (black - 1) == 0 else chess.BLACK
    won = bare_king_score(board, strong)
    if won is None:
        return score
    return won if board.turn == strong else -won


def bare_king_rule_applies(board: chess.Board) -> bool:
    """Whether ``board`` is scored by the bare-king rule instead of the evaluation."""
    return any(bare_king_score(board, colour) is not None for colour in chess.COLORS)


def bare_king_score(board: chess.Board, strong: chess.Color) -> int | None:
    """The score for ``strong`` if the other side has a bare king and ``strong`` the men to mate
    without promoting a pawn (None otherwise)."""
    own, theirs = board.occupied_co[strong], board.occupied_co[not strong]
    if theirs & (theirs - 1):
        return None
    bishops, knights = board.bishops & own, board.knights & own
    heavy = (board.queens | board.rooks) & own
    both_colours = bool(bishops & chess.BB_LIGHT_SQUARES) and bool(bishops & chess.BB_DARK_SQUARES)
    if not (heavy or both_colours or (bishops and knights)):
        return None
    material = sum(PIECE_VALUE[piece] * chess.popcount(board.pieces_mask(piece, strong))
                   for piece in range(chess.PAWN, chess.KING))
    lone = board.king(not strong)
    bonus = CLOSE_BONUS * (7 - chess.square_distance(lone, board.king(strong)))
    if heavy or both_colours:
        return material + bonus + EDGE_BONUS * _centre_distance(lone)
    corners = _LIGHT_CORNERS if bishops & chess.BB_LIGHT_SQUARES else _DARK_CORNERS
    corner_distance = min(chess.square_manhattan_distance(lone, c) for c in corners)
    return material + bonus + CORNER_BONUS * (14 - corner_distance)


def _centre_distance(square: chess.Square) -> int:
    file, rank = chess.square_file(square), chess.square_rank(square)
    return max(3 - file, file - 4) + max(3 - rank, rank - 4)
