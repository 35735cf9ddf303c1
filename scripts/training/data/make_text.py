"""Builds a training set of quiet positions from engine self-play (seeded and resumable).

    .venv/bin/python -m scripts.training.data.make_text --out data/sf5k.txt --positions 1000000

The teacher (Debian's Stockfish by default) plays itself at a fixed node count from the 8-move
openings, after a few random plies so that games differ; with ``--player`` another engine (Brudno:
``--player scripts/brudno``) plays the games and the teacher only labels its positions. Every
position it reaches is kept if it is quiet (not in check, and the teacher's best move neither
captures nor promotes), is not decided by a mate score, has more than ``--min-pieces`` men (no
tablebase endings) and was not kept before. Each is labelled with the teacher's score and the
game's result (scripts/training/data/text.py has the format). Game k is played from seed (seed, k), so a run stopped at any point and started
again with the same arguments carries on where it stopped, and adds the same positions.

The teacher's scores are data: the evaluation and its trainer (scripts/training/tune.py) are
Brudno's own.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import chess

from scripts.training.data.text import Sample, parse_line, position_id

ROOT = Path(__file__).resolve().parents[3]
DEFAULT_OPENINGS = ROOT.parent / "shared" / "data" / "openings" / "8moves_v3_sample992.epd"
MATE_CP = 100_000  # a mate score, as this script stores it internally


class UciTeacher:
    """A UCI engine over a pipe: one `go nodes N` per position, returning (best move, score)."""

    def __init__(self, command: list[str], options: dict[str, str]) -> None:
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self._send("uci")
        self._read_until("uciok")
        for name, value in options.items():
            self._send(f"setoption name {name} value {value}")
        self._send("isready")
        self._read_until("readyok")

    def _send(self, line: str) -> None:
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def _read_until(self, prefix: str) -> list[str]:
        lines = []
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError("the teacher engine exited")
            lines.append(line)
            if line.startswith(prefix):
                return lines

    def new_game(self) -> None:
        self._send("ucinewgame")

    def search(self, start_fen: str, moves: list[chess.Move], nodes: int) -> tuple[chess.Move, int]:
        """Best move and score (cp from the side to move, or +-MATE_CP) of the position."""
        text = f"position fen {start_fen}"
        if moves:
            text += " moves " + " ".join(m.uci() for m in moves)
        self._send(text)
        self._send(f"go nodes {nodes}")
        score = 0
        for line in self._read_until("bestmove"):
            words = line.split()
            if words[0] == "info" and "score" in words and "pv" in words:
                i = words.index("score")
                if words[i + 1] == "cp":
                    score = int(words[i + 2])
                else:
                    score = MATE_CP if int(words[i + 2]) > 0 else -MATE_CP
        best = chess.Move.from_uci(line.split()[1])
        return best, score

    def close(self) -> None:
        try:
            self._send("quit")
            self.process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()


def load_openings(path: Path | None) -> list[str]:
    if path is None or not path.exists():
        return [chess.STARTING_FEN]
    fens = []
    for line in path.read_text().splitlines():
        if line.strip():
            fens.append(chess.Board.from_epd(line.strip())[0].fen())
    return fens


def play_game(teacher: UciTeacher, player: UciTeacher | None, opening: str, rng: random.Random,
              args: argparse.Namespace, seen: set[str]) -> list[Sample]:
    """One game (the teacher against itself, or ``player`` against itself with the teacher
    labelling); its quiet, new positions labelled with score and result."""
    board = chess.Board(opening)
    for _ in range(rng.randint(0, args.random_plies)):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
    if board.is_game_over():
        return []
    start = board.fen()
    board = chess.Board(start)
    teacher.new_game()
    if player is not None:
        player.new_game()
    kept: list[tuple[str, int]] = []  # FEN and White's score
    decisive, quiet_draw = 0, 0
    result: float | None = None
    while result is None:
        if board.is_game_over(claim_draw=True):
            outcome = board.outcome(claim_draw=True)
            result = 0.5 if outcome.winner is None else float(outcome.winner == chess.WHITE)
            break
        move, score = teacher.search(start, board.move_stack, args.nodes)
        white_score = score if board.turn == chess.WHITE else -score
        played = move if player is None else player.search(start, board.move_stack, args.player_nodes)[0]
        quiet = (not board.is_check() and not board.is_capture(move) and move.promotion is None
                 and abs(score) < MATE_CP and len(board.piece_map()) > args.min_pieces)
        if quiet:
            key = position_id(board)
            if key not in seen:
                seen.add(key)
                kept.append((board.fen(), white_score))
        # Adjudication keeps games short; the results it gives are what the teacher would reach.
        decisive = decisive + 1 if abs(score) >= args.win_cp else 0
        quiet_draw = quiet_draw + 1 if abs(score) <= 10 and board.ply() >= 80 else 0
        if decisive >= 6:
            result = 1.0 if white_score > 0 else 0.0
        elif quiet_draw >= 12 or board.ply() >= 400:
            result = 0.5
        board.push(played)
    return [Sample(fen, max(-args.clip, min(args.clip, s)), result) for fen, s in kept]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "data" / "positions.txt")
    parser.add_argument("--positions", type=int, default=1_000_000, help="stop after this many")
    parser.add_argument("--teacher", default="/usr/games/stockfish", help="UCI command of the teacher")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="teacher option (default Threads=1, Hash=16)")
    parser.add_argument("--nodes", type=int, default=5000, help="teacher nodes per move")
    parser.add_argument("--player", help="UCI command of an engine that plays the games instead "
                                         "(e.g. scripts/brudno); the teacher still labels them")
    parser.add_argument("--player-nodes", type=int, default=2000, help="player nodes per move")
    parser.add_argument("--openings", type=Path, default=DEFAULT_OPENINGS,
                        help="EPD of start positions (the standard start position if absent)")
    parser.add_argument("--random-plies", type=int, default=4, help="up to this many random plies first")
    parser.add_argument("--min-pieces", type=int, default=5, help="skip positions with this many men or fewer")
    parser.add_argument("--win-cp", type=int, default=1000, help="adjudicate a win after 6 plies beyond this")
    parser.add_argument("--clip", type=int, default=3000, help="scores are clipped to +-this")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    args.out.parent.mkdir(parents=True, exist_ok=True)
    state_path = args.out.with_suffix(args.out.suffix + ".state")
    state = json.loads(state_path.read_text()) if state_path.exists() else {"games": 0, "seed": args.seed}
    if state["seed"] != args.seed:
        sys.exit(f"{args.out} was made with --seed {state['seed']}; use it, or another --out")
    seen: set[str] = set()
    count = 0
    if args.out.exists():
        with open(args.out, encoding="utf-8") as f:
            for line in f:
                sample = parse_line(line)
                if sample is not None:
                    seen.add(position_id(sample.board()))
                    count += 1
    openings = load_openings(args.openings)
    options = {"Threads": "1", "Hash": "16"}
    options.update(dict(o.split("=", 1) for o in args.option))
    teacher = UciTeacher(args.teacher.split(), options)
    player = None if args.player is None else UciTeacher(args.player.split(), {})
    started, start_count = time.monotonic(), count
    print(f"make_data: {count} positions from {state['games']} games in {args.out}; "
          f"target {args.positions}", file=sys.stderr)
    try:
        with open(args.out, "a", encoding="utf-8") as out:
            while count < args.positions:
                game = state["games"]
                rng = random.Random(f"{args.seed}-{game}")
                samples = play_game(teacher, player, rng.choice(openings), rng, args, seen)
                for sample in samples:
                    out.write(sample.line() + "\n")
                out.flush()
                os.fsync(out.fileno())
                count += len(samples)
                state["games"] = game + 1
                state_path.write_text(json.dumps(state))
                rate = (count - start_count) / max(1e-9, time.monotonic() - started)
                eta = (args.positions - count) / rate if rate > 0 else float("inf")
                print(f"\rgames {state['games']}  positions {count}  {rate:.0f} positions/s  "
                      f"ETA {eta / 60:.0f} min   ", end="", file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        teacher.close()
        if player is not None:
            player.close()
        print(f"\nmake_data: {count} positions from {state['games']} games in {args.out}",
              file=sys.stderr)


if __name__ == "__main__":
    main()
