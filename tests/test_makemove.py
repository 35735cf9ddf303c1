"""The search's fast push leaves exactly the board python-chess's own push leaves."""

from __future__ import annotations

import chess
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.board import makemove

FIELDS = ("pawns", "knights", "bishops", "rooks", "queens", "kings", "occupied", "promoted",
          "turn", "castling_rights", "ep_square", "halfmove_clock", "fullmove_number")

STARTS = [
    chess.STARTING_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",  # castling, en passant
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",  # promotions
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
    "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",
]


def state(board: chess.Board) -> tuple:
    return (tuple(getattr(board, name) for name in FIELDS), tuple(board.occupied_co),
            tuple(board.move_stack), board.fen())


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(STARTS + ["chess960"]), st.integers(0, 959),
       st.lists(st.integers(0, 10_000), min_size=1, max_size=60))
def test_fast_push_and_pop_agree_with_python_chess(start: str, scharnagl: int,
                                                  choices: list[int]) -> None:
    if start == "chess960":
        ours = chess.Board.from_chess960_pos(scharnagl)
    else:
        ours = chess.Board(start)
    theirs = ours.copy()
    before = []
    for choice in choices:
        legal = list(theirs.legal_moves)
        if not legal:
            break
        move = legal[choice % len(legal)]
        before.append(state(ours))
        makemove.push(ours, move)
        theirs.push(move)
        assert state(ours) == state(theirs), move
        assert list(ours.legal_moves) == list(theirs.legal_moves)
    while before:
        ours.pop()
        assert state(ours) == before.pop()
