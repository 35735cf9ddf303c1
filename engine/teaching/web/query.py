"""The position a page request names: its `fen` (and `chess960`) query fields, checked."""

from __future__ import annotations

import chess


def board_of(query: dict[str, str]) -> chess.Board:
    """The legal position of ``query`` (the start position if it names none); ValueError with the
    user's message."""
    try:
        board = chess.Board(query.get("fen", chess.STARTING_FEN),
                            chess960=query.get("chess960") in ("1", "true"))
    except ValueError as error:
        raise ValueError(f"not a position: {error}") from None
    if not board.is_valid():
        raise ValueError("not a legal position")
    return board
