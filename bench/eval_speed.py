"""Benchmark of the static evaluation: numba kernel against the same code interpreted.

Run as `python -m bench.eval_speed`. For each position it prints the
microseconds per `evaluate()` call (bitboard extraction included), the cost
of the same kernel run as plain Python (every njit function swapped for its
`.py_func`, so the identical code is interpreted) and their ratio, plus the
cost of a bare `board.push(m); board.pop()` for scale.
"""

from __future__ import annotations

import time
from contextlib import contextmanager

import chess
import numpy as np

from engine.board import bitboards
from engine.evaluation import evaluate as ev
from engine.board.perft import KIWIPETE

POSITIONS = [
    ("startpos", chess.STARTING_FEN),
    ("kiwipete", KIWIPETE),
    ("italian", "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"),
    ("qgd", "2rq1rk1/pb1nbppp/1p2pn2/2pp4/2PP4/1PN1PN2/PB2BPPP/2RQ1RK1 w - - 0 12"),
    ("sicilian", "r1b1k2r/2qnbppp/p2ppn2/1p4B1/3NPP2/2N2Q2/PPP3PP/2KR1B1R w kq - 0 11"),
    ("rook end", "6k1/5pp1/7p/8/8/2R5/r4PPP/6K1 w - - 0 1"),
    ("perft3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"),
    ("pawn end", "8/8/4k3/3p4/3P4/4K3/8/8 w - - 0 1"),
    ("minor end", "8/5pk1/6p1/3B4/8/2n3P1/5PK1/8 b - - 0 1"),
]

COMPILED_REPS = 20000
INTERPRETED_REPS = 100
PUSH_POP_REPS = 20000


@contextmanager
def interpreted():
    """Swap every numba function of engine.evaluate and engine.bitboards for its Python
    original, so that the kernel and all the helpers it calls run in the interpreter."""
    saved = [(module, name, obj) for module in (ev, bitboards)
             for name, obj in vars(module).items() if hasattr(obj, "py_func")]
    for module, name, obj in saved:
        setattr(module, name, obj.py_func)
    try:
        # The kernel is written to stay within uint64/int64: make any overflow loud.
        with np.errstate(all="raise"):
            yield
    finally:
        for module, name, obj in saved:
            setattr(module, name, obj)


def per_call_us(fn, reps: int) -> float:
    best = float("inf")
    for _ in range(5):  # best of five: the machine is shared
        start = time.perf_counter()
        for _ in range(reps):
            fn()
        best = min(best, time.perf_counter() - start)
    return best / reps * 1e6


def main() -> None:
    header = (f"{'position':<10} {'eval':>6} {'numba us':>9} {'python us':>10}"
              f" {'ratio':>7} {'push/pop us':>12}")
    print(header)
    print("-" * len(header))
    totals = [0.0, 0.0, 0.0]
    for name, fen in POSITIONS:
        board = chess.Board(fen)
        score = ev.evaluate(board)
        numba_us = per_call_us(lambda: ev.evaluate(board), COMPILED_REPS)
        with interpreted():
            kernel = ev.evaluate_kernel
            assert kernel(*ev.board_arguments(board)) == score
            python_us = per_call_us(lambda: kernel(*ev.board_arguments(board)),
                                    INTERPRETED_REPS)
        move = next(iter(board.legal_moves))

        def push_pop() -> None:
            board.push(move)
            board.pop()

        push_pop_us = per_call_us(push_pop, PUSH_POP_REPS)
        totals[0] += numba_us
        totals[1] += python_us
        totals[2] += push_pop_us
        print(f"{name:<10} {score:>6} {numba_us:>9.2f} {python_us:>10.1f}"
              f" {python_us / numba_us:>6.0f}x {push_pop_us:>12.2f}")
    print("-" * len(header))
    n = len(POSITIONS)
    print(f"{'mean':<10} {'':>6} {totals[0] / n:>9.2f} {totals[1] / n:>10.1f}"
          f" {totals[1] / totals[0]:>6.0f}x {totals[2] / n:>12.2f}")

    # The fixed cost of entering numba at all, for comparison.
    args = ev.board_arguments(chess.Board(None))
    empty_us = per_call_us(lambda: ev.evaluate_kernel(*args), COMPILED_REPS)
    print()
    print(f"kernel on an empty board (call overhead + fixed work): {empty_us:.2f} us")


if __name__ == "__main__":
    main()
