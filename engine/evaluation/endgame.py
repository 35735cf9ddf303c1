"""Endings against a bare king: how to give mate where it can be forced, and the draws to know.

The evaluation's features (fitted to, or learnt from, positions with many men) hardly tell a lone
king on the edge from one in the centre, and their mobility and square tables pull the winning
pieces about: with a queen or a rook against a bare king a shallow search finds no progress and
can drift into the fifty-move rule. So, as Stockfish's KXK and KBNK endgames do, a bare-king
ending where the other side can force mate is scored by its own rule instead of the evaluation:
material, plus a bonus for driving the lone king to the edge (with bishop and knight, to a corner
the bishop covers) and for bringing the winning king close. (A stalemated lone king is the
search's business: quiescence checks a side without pieces for a move.)

Two kinds of draw the evaluation does not know are scored 0: a bare king against men that cannot
force mate (nothing, a minor, two knights: the network, which never saw such positions, gave them
anything from -0.7 to +1.2), and bishop and pawns on one rook file, the bishop not of the
promotion square's colour, with the lone king on or next to that square, which the network scored
+5 to +7 for a hundred moves in games against Stockfish (docs/experiments.md): the king cannot be
driven from the corner, as Stockfish's KBPsK scaling says.
"""

from __future__ import annotations

import chess
import numpy as np
from numba import int64, njit, uint64

from engine.board.bitboards import PIECE_VALUES, U0, U1, compile_kernel, lsb, popcount
from engine.board.position import POSITION, all_men, from_board

# Centipawns per step: the lone king's distance from the centre (0..6), the kings' distance
# (1..7), and with bishop and knight the lone king's distance to the bishop's nearest corner
# counted in files plus ranks (0..14).
EDGE_BONUS = 20
CLOSE_BONUS = 10
CORNER_BONUS = 20

NO_RULE = -(1 << 40)  # the kernel's answer where the rule does not apply

_LIGHT_SQUARES = np.uint64(chess.BB_LIGHT_SQUARES)
_DARK_SQUARES = np.uint64(chess.BB_DARK_SQUARES)
_DARK_CORNERS = (chess.A1, chess.H8)
_LIGHT_CORNERS = (chess.A8, chess.H1)
_FILE_A = np.uint64(chess.BB_FILE_A)
_FILE_H = np.uint64(chess.BB_FILE_H)


def with_endgame_knowledge(board: chess.Board, score: int) -> int:
    """``score``, the side to move's evaluation of ``board``, or the bare-king ending's score."""
    white, black = board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK]
    if white & (white - 1) and black & (black - 1):
        return score  # neither king is alone: the usual case, kept cheap
    return _kernel(from_board(board, in_check=False), score)


def bare_king_rule_applies(board: chess.Board) -> bool:
    """Whether ``board`` is scored by the bare-king rule instead of the evaluation."""
    return any(bare_king_score(board, colour) is not None for colour in chess.COLORS)


def known_draw(board: chess.Board) -> bool:
    """Whether ``board`` is one of the draws against a bare king that are scored 0."""
    return is_known_draw(*_men_of(board)[:5], np.uint64(board.occupied_co[chess.WHITE]),
                         np.uint64(board.occupied_co[chess.BLACK]))


def bare_king_score(board: chess.Board, strong: chess.Color) -> int | None:
    """The score for ``strong`` if the other side has a bare king and ``strong`` the men to mate
    without promoting a pawn (None otherwise)."""
    score = _bare_king_score(*_men_of(board, strong), np.uint64(board.occupied_co[not strong]))
    return None if score == NO_RULE else score


def _men_of(board: chess.Board, colour: chess.Color | None = None) -> tuple[np.uint64, ...]:
    """``colour``'s (or both sides') pawns, knights, bishops, rooks, queens and kings, as the
    kernels take them (a Python int with bit 63 set, a man on h8, does not convert to uint64)."""
    own = board.occupied if colour is None else board.occupied_co[colour]
    return tuple(np.uint64(men & own) for men in (board.pawns, board.knights, board.bishops,
                                                  board.rooks, board.queens, board.kings))


@njit(cache=True, nogil=True)
def _distance(a, b):
    return max(abs((a & 7) - (b & 7)), abs((a >> 3) - (b >> 3)))


@njit(cache=True, nogil=True)
def _bare_king_score(pawns, knights, bishops, rooks, queens, king, theirs):
    """`bare_king_score` over the strong side's men and the other side's (NO_RULE if none)."""
    if theirs & (theirs - U1):
        return NO_RULE
    heavy = queens | rooks
    both_colours = (bishops & _LIGHT_SQUARES) != U0 and (bishops & _DARK_SQUARES) != U0
    if heavy == U0 and not both_colours and (bishops == U0 or knights == U0):
        return NO_RULE
    material = (PIECE_VALUES[1] * popcount(pawns) + PIECE_VALUES[2] * popcount(knights)
                + PIECE_VALUES[3] * popcount(bishops) + PIECE_VALUES[4] * popcount(rooks)
                + PIECE_VALUES[5] * popcount(queens))
    lone = lsb(theirs)
    bonus = CLOSE_BONUS * (7 - _distance(lone, lsb(king)))
    file, rank = lone & 7, lone >> 3
    if heavy or both_colours:
        centre = max(3 - file, file - 4) + max(3 - rank, rank - 4)
        return material + bonus + EDGE_BONUS * centre
    corners = _LIGHT_CORNERS if bishops & _LIGHT_SQUARES else _DARK_CORNERS
    corner_distance = 14
    for corner in corners:
        corner_distance = min(corner_distance, abs(file - (corner & 7)) + abs(rank - (corner >> 3)))
    return material + bonus + CORNER_BONUS * (14 - corner_distance)


@njit(cache=True, nogil=True)
def _cannot_win(pawns, knights, bishops, heavy, lone, strong_is_white):
    """Whether the strong side's men, too few for the bare-king rule, cannot beat the lone king on
    square ``lone``: no pawns (a minor, two knights or nothing), or pawns on one rook file, bishops
    (if any) none of the promotion square's colour, the lone king on or next to that square."""
    if pawns == U0:
        return True
    if knights != U0 or heavy != U0:
        return False
    if pawns & ~_FILE_A == U0:
        file = 0
    elif pawns & ~_FILE_H == U0:
        file = 7
    else:
        return False
    promotion = file + (56 if strong_is_white else 0)
    promotion_colour = _LIGHT_SQUARES if (U1 << np.uint64(promotion)) & _LIGHT_SQUARES else _DARK_SQUARES
    return bishops & promotion_colour == U0 and _distance(lone, promotion) <= 1


@njit(cache=True, nogil=True)
def is_known_draw(pawns, knights, bishops, rooks, queens, white, black):
    """Whether a bare king holds the draw against the other side's men (`known_draw` over the
    bitboards). Exact, so the search takes it as it takes a repetition: before any pruning, whose
    null move could otherwise hand the bare king a zugzwang it never meets."""
    for strong_is_white in (True, False):
        own, theirs = (white, black) if strong_is_white else (black, white)
        if theirs & (theirs - U1) == U0 and _bare_king_score(
                pawns & own, knights & own, bishops & own, rooks & own, queens & own,
                own & ~(pawns | knights | bishops | rooks | queens), theirs) == NO_RULE:
            return _cannot_win(pawns & own, knights & own, bishops & own, (rooks | queens) & own,
                               lsb(theirs), strong_is_white)
    return False


@njit(cache=True, nogil=True)
def with_endgame_knowledge_kernel(position, score):
    """`with_endgame_knowledge` over the position record (engine/board/position.py)."""
    p = position
    white = p.white
    black = all_men(p) & ~white
    if white & (white - U1) and black & (black - U1):
        return score
    for strong_is_white in (True, False):
        own, theirs = (white, black) if strong_is_white else (black, white)
        won = _bare_king_score(p.pawns & own, p.knights & own, p.bishops & own, p.rooks & own,
                               p.queens & own, p.kings & own, theirs)
        if won != NO_RULE:
            return won if p.white_to_move == strong_is_white else -won
    return 0 if is_known_draw(p.pawns, p.knights, p.bishops, p.rooks, p.queens, white,
                              black) else score


_kernel = compile_kernel(with_endgame_knowledge_kernel, int64(POSITION, int64))
_bare_king_score = compile_kernel(_bare_king_score,
                                  int64(uint64, uint64, uint64, uint64, uint64, uint64, uint64))
