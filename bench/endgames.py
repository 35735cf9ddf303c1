"""Does the engine mate a bare king? Won endings played out against a defending engine.

Draws random positions of each ending (the strong side, White, to move; no piece next to the
lone king; the two bishops on different colours), lets the engine play the strong side at a
fixed node count and the defender (Stockfish by default) the lone king at a fixed depth, and
counts the mates before a draw by rule. No clock is involved, so the result does not depend on
the machine's load. Syzygy tables stay off unless the engine is told otherwise.
"""
from __future__ import annotations

import argparse
import random
import shlex

import chess
import chess.engine

ENDINGS = {"KQK": "Q", "KRK": "R", "KBBK": "BB", "KBNK": "BN"}


def positions(ending: str, count: int, seed: int) -> list[chess.Board]:
    rng = random.Random(f"{ending}-{seed}")
    men = ENDINGS[ending]
    boards: list[chess.Board] = []
    while len(boards) < count:
        squares = rng.sample(chess.SQUARES, 2 + len(men))
        board = chess.Board(None)
        board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        for symbol, square in zip(men, squares[2:]):
            board.set_piece_at(square, chess.Piece.from_symbol(symbol))
        bishops = board.bishops
        if men == "BB" and not (bishops & chess.BB_LIGHT_SQUARES and bishops & chess.BB_DARK_SQUARES):
            continue
        if any(chess.square_distance(square, squares[1]) <= 1 for square in squares[2:]):
            continue
        if board.is_valid() and not board.is_game_over():
            boards.append(board)
    return boards


def play_out(board: chess.Board, engine: chess.engine.SimpleEngine,
             defender: chess.engine.SimpleEngine, nodes: int, depth: int) -> chess.Board:
    board = board.copy()
    while not board.is_game_over(claim_draw=True):
        if board.turn == chess.WHITE:
            move = engine.play(board, chess.engine.Limit(nodes=nodes)).move
        else:
            move = defender.play(board, chess.engine.Limit(depth=depth)).move
        board.push(move)
    return board


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", default="scripts/brudno", help="the engine's command")
    parser.add_argument("--defender", default="/usr/games/stockfish", help="the lone king's engine")
    parser.add_argument("--endings", nargs="+", default=list(ENDINGS), choices=list(ENDINGS))
    parser.add_argument("--positions", type=int, default=20, help="positions per ending")
    parser.add_argument("--nodes", type=int, default=3000, help="the engine's nodes a move")
    parser.add_argument("--depth", type=int, default=12, help="the defender's depth a move")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    engine = chess.engine.SimpleEngine.popen_uci(shlex.split(args.engine))
    defender = chess.engine.SimpleEngine.popen_uci(shlex.split(args.defender))
    try:
        print("| ending | mated | mean plies to mate | draws by rule |")
        print("|---|---|---|---|")
        for ending in args.endings:
            plies, draws = [], 0
            for board in positions(ending, args.positions, args.seed):
                engine.configure({"Clear Hash": None})
                final = play_out(board, engine, defender, args.nodes, args.depth)
                if final.is_checkmate():
                    plies.append(len(final.move_stack))
                else:
                    draws += 1
            mean = f"{sum(plies) / len(plies):.1f}" if plies else "-"
            print(f"| {ending} | {len(plies)}/{args.positions} | {mean} | {draws} |", flush=True)
    finally:
        engine.quit()
        defender.quit()


if __name__ == "__main__":
    main()
