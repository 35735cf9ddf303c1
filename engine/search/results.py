"""What a search reports: its progress after each iteration (`Info`, a UCI `info` line without the
formatting) and its result (`SearchResult`). The search, the tablebase root probe and the strength
levels make them; the engine and the protocol read them."""

from __future__ import annotations

from dataclasses import dataclass, field

import chess


@dataclass
class Info:
    """One progress report of the search (a UCI `info` line without the formatting)."""

    depth: int
    seldepth: int
    score: int  # centipawns from the side to move, or a mate score (see score.MATE)
    nodes: int
    time: float  # seconds
    pv: list[chess.Move]
    multipv: int = 1
    bound: str | None = None  # "lowerbound", "upperbound" or None
    hashfull: int = 0
    tbhits: int = 0
    wdl: tuple[int, int, int] | None = None  # win/draw/loss per mille, added by the engine


@dataclass
class SearchResult:
    best_move: chess.Move | None
    ponder_move: chess.Move | None = None
    score: int = 0
    depth: int = 0
    nodes: int = 0
    evaluations: int = 0
    cutoffs: int = 0
    pv: list[chess.Move] = field(default_factory=list)
