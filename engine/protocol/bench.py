"""The bench: a fixed set of positions searched to a fixed depth; its node count signs the build.

Each position is searched from an empty transposition table and fresh ordering tables, with no
time limit, so the total node count is the same on every run of the same code (and changes when
the search changes): `Nodes searched` is the build's signature, as in Stockfish.
"""

from __future__ import annotations

import time
from typing import Callable

import chess

from engine.search.timeman import Limits

DEFAULT_DEPTH = 5

# Thirty-one positions of Stockfish's bench (src/benchmark.cpp): openings, middlegames, endgames
# and its Chess960 position.
POSITIONS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 10",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 11",
    "4rrk1/pp1n3p/3q2pQ/2p1pb2/2PP4/2P3N1/P2B2PP/4RRK1 b - - 7 19",
    "r3r1k1/2p2ppp/p1p1bn2/8/1q2P3/2NPQN2/PPP3PP/R4RK1 b - - 2 15",
    "r1bbk1nr/pp3p1p/2n5/1N4p1/2Np1B2/8/PPP2PPP/2KR1B1R w kq - 0 13",
    "r1bq1rk1/ppp1nppp/4n3/3p3Q/3P4/1BP1B3/PP1N2PP/R4RK1 w - - 1 16",
    "4r1k1/r1q2ppp/ppp2n2/4P3/5Rb1/1N1BQ3/PPP3PP/R5K1 w - - 1 17",
    "2rqkb1r/ppp2p2/2npb1p1/1N1Nn2p/2P1PP2/8/PP2B1PP/R1BQK2R b KQ - 0 11",
    "r1bq1r1k/b1p1npp1/p2p3p/1p6/3PP3/1B2NN2/PP3PPP/R2Q1RK1 w - - 1 16",
    "3r1rk1/p5pp/bpp1pp2/8/q1PP1P2/b3P3/P2NQRPP/1R2B1K1 b - - 6 22",
    "r1q2rk1/2p1bppp/2Pp4/p6b/Q1PNp3/4B3/PP1R1PPP/2K4R w - - 2 18",
    "4k2r/1pb2ppp/1p2p3/1R1p4/3P4/2r1PN2/P4PPP/1R4K1 b - - 3 22",
    "3q2k1/pb3p1p/4pbp1/2r5/PpN2N2/1P2P2P/5PP1/Q2R2K1 b - - 4 26",
    "6k1/6p1/6Pp/ppp5/3pn2P/1P3K2/1PP2P2/3N4 b - - 0 1",
    "3b4/5kp1/1p1p1p1p/pP1PpP1P/P1P1P3/3KN3/8/8 w - - 0 1",
    "8/6pk/1p6/8/PP3p1p/5P2/4KP1q/3Q4 w - - 0 1",
    "7k/3p2pp/4q3/8/4Q3/5Kp1/P6b/8 w - - 0 1",
    "8/2p5/8/2kPKp1p/2p4P/2P5/3P4/8 w - - 0 1",
    "8/1p3pp1/7p/5P1P/2k3P1/8/2K2P2/8 w - - 0 1",
    "8/pp2r1k1/2p1p3/3pP2p/1P1P1P1P/P5KR/8/8 w - - 0 1",
    "8/3p4/p1bk3p/Pp6/1Kp1PpPp/2P2P1P/2P5/5B2 b - - 0 1",
    "5k2/7R/4P2p/5K2/p1r2P1p/8/8/8 b - - 0 1",
    "6k1/6p1/P6p/r1N5/5p2/7P/1b3PP1/4R1K1 w - - 0 1",
    "1r3k2/4q3/2Pp3b/3Bp3/2Q2p2/1p1P2P1/1P2KP2/3N4 w - - 0 1",
    "6k1/4pp1p/3p2p1/P1pPb3/R7/1r2P1PP/3B1P2/6K1 w - - 0 1",
    "8/3p3B/5p2/5P2/p7/PP5b/k7/6K1 w - - 0 1",
    "5rk1/q6p/2p3bR/1pPp1rP1/1P1Pp3/P3B1Q1/1K3P2/R7 w - - 93 90",
    "4rrk1/1p1nq3/p7/2p1P1pp/3P2bp/3Q1Bn1/PPPB4/1K2R1NR w - - 40 21",
    "r3k2r/3nnpbp/q2pp1p1/p7/Pp1PPPP1/4BNN1/1P5P/R2Q1RK1 w kq - 0 16",
    # Stockfish's Chess960 position (Shredder-FEN castling rights: searched as Chess960).
    "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1 moves g2g3 d7d5 d2d4 c8h3 c1g5 e8d6 g5e7 f7f6",
]


def bench_board(entry: str) -> chess.Board:
    """The board of a bench entry, `FEN [moves ...]`; castling rights given as rook files
    (Shredder-FEN) make it a Chess960 board."""
    fen, _, moves = entry.partition(" moves ")
    castling = fen.split()[2]
    board = chess.Board(fen, chess960=any(c not in "KQkq-" for c in castling))
    for move in moves.split():
        board.push_uci(move)
    return board


def run_bench(depth: int | None = None, out: Callable[[str], None] = print,
              positions: list[str] | None = None,
              evaluate: Callable[[chess.Board], int] | None = None) -> tuple[int, float]:
    """Searches every position to ``depth`` with ``evaluate`` (by default the engine's default
    evaluation: the network of EvalFile's default, the shipped one unless a build names another);
    prints per-position and total figures.

    Returns (nodes, seconds).
    """
    from engine.evaluation.network import NETWORK_FILE, evaluator
    from engine.protocol.options import find
    from engine.search.root import Search
    from engine.search.tt import TranspositionTable

    if evaluate is None:
        evaluate = evaluator(find("EvalFile").default or NETWORK_FILE)

    depth = depth or DEFAULT_DEPTH
    positions = positions or POSITIONS
    total_nodes = 0
    total_time = 0.0
    for number, fen in enumerate(positions, 1):
        board = bench_board(fen)
        search = Search(TranspositionTable(16))
        search.evaluate = evaluate
        start = time.perf_counter()
        result = search.run(board, Limits(depth=depth))
        elapsed = time.perf_counter() - start
        total_nodes += result.nodes
        total_time += elapsed
        best = result.best_move.uci() if result.best_move else "(none)"
        out(f"Position {number:2d}/{len(positions)}: nodes {result.nodes:8d}  "
            f"time {elapsed * 1000:7.0f} ms  bestmove {best:6s} {fen}")
    out("")
    out("===========================")
    out(f"Total time (ms) : {total_time * 1000:.0f}")
    out(f"Nodes searched  : {total_nodes}")
    out(f"Nodes/second    : {int(total_nodes / max(total_time, 1e-9))}")
    return total_nodes, total_time

