#!/usr/bin/env python3
"""A stand-in UCI teacher for the data generator's tests where Stockfish is not installed.

It speaks as much UCI as scripts/training/data/generate.py uses (uci, isready, setoption, ucinewgame, position
fen ... moves ..., go nodes N, quit) and answers every search at once: a legal move chosen by the
position's key (so a position always gets the same answer, and games can repeat), scored by
material from the side to move's view; ``bestmove (none)`` when there is no legal move.
"""
from __future__ import annotations

import sys

import chess
import chess.polyglot

VALUES = {chess.PAWN: 100, chess.KNIGHT: 300, chess.BISHOP: 300, chess.ROOK: 500, chess.QUEEN: 900}


def material(board: chess.Board) -> int:
    return sum(VALUES.get(p.piece_type, 0) * (1 if p.color == board.turn else -1)
               for p in board.piece_map().values())


def main() -> None:
    board = chess.Board()
    chess960 = False  # UCI_Chess960: castling moves as king-takes-rook
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "uci":
            print("id name FakeTeacher 1\nuciok", flush=True)
        elif words[0] == "isready":
            print("readyok", flush=True)
        elif words[:3] == ["setoption", "name", "UCI_Chess960"]:
            chess960 = words[-1] == "true"
        elif words[0] == "position":
            if words[1] == "startpos":
                board, rest = chess.Board(chess960=chess960), words[2:]
            else:
                board, rest = chess.Board(" ".join(words[2:8]), chess960=chess960), words[8:]
            for move in rest[1:] if rest and rest[0] == "moves" else []:
                board.push_uci(move)
        elif words[0] == "go":
            moves = list(board.legal_moves)
            if not moves:
                print(f"info depth 0 score {'mate 0' if board.is_check() else 'cp 0'}\n"
                      "bestmove (none)", flush=True)
                continue
            move = moves[chess.polyglot.zobrist_hash(board) % len(moves)]
            print(f"info depth 1 seldepth 1 score cp {material(board)} nodes 1 pv {move.uci()}\n"
                  f"bestmove {move.uci()}", flush=True)
        elif words[0] == "quit":
            return


if __name__ == "__main__":
    main()
