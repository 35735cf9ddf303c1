"""Generates training positions at scale: Stockfish self-play into binary chunks
(scripts/training/data/chunks.py).

    .venv/bin/python -m scripts.training.data.generate                  # run until stopped, 2 workers
    .venv/bin/python -m scripts.training.data.generate --status         # how many positions there are
    chrt --idle 0 nice -n 19 .venv/bin/python -m scripts.training.data.generate > /tmp/gen_data.log 2>&1 &

Each worker process drives one teacher (Stockfish, one thread) over a raw UCI pipe: it plays a
game from a random opening of the EPD file (or, in a share ``--chess960`` of the games, one of the
960 Chess960 start positions) plus 2, 4, 6 or 8 random plies (``--min-random-plies``,
``--random-plies``), one
``go nodes N`` a move, and the search that chooses a move also labels the position it searched.
A position is kept when it is quiet (not in check, the best move neither captures nor
promotes) and its score is not a mate score; every number of men is kept, endings of 5 and fewer
included (``--play-out`` of the games are played to the end without adjudication, so that won
endings are reached). Its label is the teacher's score and the game's result.

What keeps the worker lean (it spends about 15 % of its core; the teacher's search is the rest):
it sends ``position fen <a position after a capture or pawn move> moves <the moves since>``
(Stockfish replays the whole move list on every ``position``: from the start that cost 0.3 ms a
search at 100 plies), reads the answer as raw bytes and looks only at the last score, never asks
python-chess for legal moves during the game (checkmate and stalemate come from ``bestmove
(none)``, repetitions from the Zobrist keys it computes anyway), and keeps the game as its chain
(scripts/training/data/chunks.py, version 2): the start position, a 16-bit entry a position (the move played,
whether the position is kept), and the kept positions' keys and scores.

The parent process alone writes: a kept position whose Zobrist key is already in a chunk (or in
the chunk being filled) is no longer kept (its move stays: the chain goes on), and a chunk of whole
games is written atomically every ``--chunk-size`` kept positions, so a stop of any kind (kill -9
included) loses at most the chunk being filled. Started again, it reads the keys of the chunks
there are (of either version: a folder may mix them) and carries on. A lock file keeps a second
generator out of the same folder.
"""
from __future__ import annotations

import argparse
import fcntl
import multiprocessing as mp
import os
import pickle
import queue
import random
import signal
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import chess
import numpy as np

from scripts.training.data import chunks, codec
from scripts.training.data.make_text import DEFAULT_OPENINGS, load_openings  # make_text's openings
from scripts.training.data.teacher import default_teacher

DEFAULT_NODES = 1000  # 620-1,200 positions/s on 2 idle cores by machine; 1500: ~450, 5000: ~170 (the search dominates)
MATE = 30000  # a mate score, as the worker handles it (never stored)


class RawTeacher:
    """A UCI engine over a pipe, spoken to in bytes with as little Python as possible."""

    def __init__(self, command: list[str], options: dict[str, str]) -> None:
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, bufsize=0)
        self._in = self.process.stdin.fileno()
        self._out = self.process.stdout.fileno()
        self._buffer = bytearray()
        self._chess960 = False
        self.send(b"uci\n")
        self.name = "unknown"
        for line in self.read_until(b"uciok").splitlines():
            if line.startswith(b"id name "):
                self.name = line[8:].decode(errors="replace").strip()
        for name, value in options.items():
            self.send(f"setoption name {name} value {value}\n".encode())
        self.send(b"isready\n")
        self.read_until(b"readyok")

    def send(self, data: bytes) -> None:
        os.write(self._in, data)

    def read_until(self, token: bytes) -> bytes:
        """Everything up to the end of the first line containing ``token``."""
        start = 0
        while True:
            at = self._buffer.find(token, start)
            if at >= 0:
                end = self._buffer.find(b"\n", at)
                if end >= 0:
                    out = bytes(self._buffer[:end + 1])
                    del self._buffer[:end + 1]
                    return out
                start = at  # the token's line is not whole yet
            else:
                start = max(0, len(self._buffer) - len(token))
            data = os.read(self._out, 65536)
            if not data:
                raise RuntimeError("the teacher engine exited")
            self._buffer += data

    def set_chess960(self, on: bool) -> None:
        """Castling as king-takes-rook in both directions (python-chess's Chess960 boards)."""
        if on != self._chess960:
            self.send(b"setoption name UCI_Chess960 value " + (b"true\n" if on else b"false\n"))
            self._chess960 = on

    def search(self, position: bytes, go: bytes) -> tuple[bytes, int, bool]:
        """(best move as UCI bytes or b"(none)", score for the side to move, whether a mate
        score): one ``position``, one ``go``, and the last score reported."""
        self.send(position + go)
        out = self.read_until(b"bestmove")
        best = out[out.rfind(b"bestmove") + 9:].split()[0]
        at = out.rfind(b" score ")
        if at < 0:
            return best, 0, False
        kind, value = out[at + 7:at + 40].split()[:2]
        if kind == b"mate":
            mate = int(value)
            return best, (MATE if mate > 0 else -MATE), True
        return best, int(value), False

    def close(self) -> None:
        try:
            self.send(b"quit\n")
            self.process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()


def play_game(teacher: RawTeacher, rng: random.Random, openings: list[str],
              args: argparse.Namespace, key_and_check) -> tuple[tuple[bytes, ...] | None, int, int]:
    """One self-play game; (its chain as (start, entries, keys, scores) bytes: the start
    position with the result, an entry a position (scripts/training/data/chunks.py), the keys and scores of
    the kept positions; None if none is kept), searches made, plies played)."""
    chess960 = rng.random() < args.chess960
    # Chess960 games start from one of the 960 start positions: the pieces on home squares the
    # 8-move openings never have (the network misjudged them: docs/chess960.md).
    board = (chess.Board.from_chess960_pos(rng.randrange(960)) if chess960
             else chess.Board(rng.choice(openings)))
    # An even number of random plies, so that White and Black make as many random moves (with
    # 2 to 8 of any parity, White made the extra one: 54 % of the positions from decided games
    # came from games Black won).
    low = min(args.min_random_plies, args.random_plies)
    for _ in range(2 * rng.randint((low + 1) // 2, args.random_plies // 2)):
        moves = list(board.legal_moves)
        if not moves:
            return None, 0, 0
        board.push(rng.choice(moves))
    if not any(board.legal_moves):
        return None, 0, 0
    # The chain's start, with the castling rights the keys below are computed from.
    board.castling_rights = board.clean_castling_rights()
    start = chunks.start_of(board)
    adjudicate = rng.random() >= args.play_out
    go = f"\ngo nodes {args.nodes}\n".encode()
    teacher.set_chess960(chess960)
    teacher.send(b"ucinewgame\n")
    # The teacher gets a position after a capture or pawn move and the moves since (a new such
    # position once the list passes 16 moves): all the history a repetition can need, and a
    # short list to replay.
    base = b"position fen " + board.fen().encode()
    tail: list[bytes] = []
    repeats: dict[int, int] = {}
    entries: list[int] = []  # one a position: the move played from it, and whether it is kept
    keys: list[int] = []  # the kept positions'
    scores: list[int] = []
    searches, decisive, drawish = 0, 0, 0
    entry = codec.move_entry
    is_capture, push, from_uci = board.is_capture, board.push, chess.Move.from_uci
    start_ply = board.ply()
    result = 1
    while True:
        key, check = key_and_check(board)
        seen = repeats.get(key, 0) + 1
        repeats[key] = seen
        if seen >= 3 or board.halfmove_clock >= 100:
            entries.append(0)
            break  # drawn
        if board.occupied.bit_count() <= 4 and board.is_insufficient_material():
            entries.append(0)
            break
        best, score, mate = teacher.search(base + b" moves " + b" ".join(tail) if tail else base, go)
        searches += 1
        white = board.turn
        if best == b"(none)":
            if check:
                result = 0 if white else 2
            entries.append(0)
            break
        move = from_uci(best.decode())
        white_score = score if white else -score
        # (A Chess960 right of an inner rook has no record form: rare, and not kept.)
        if (not check and not mate and move.promotion is None and not is_capture(move)
                and not (chess960 and board.castling_rights and chunks.record_flags(board) is None)):
            entries.append(entry(move, True))
            keys.append(key)
            scores.append(white_score)
        else:
            entries.append(entry(move, False))
        if adjudicate:
            # Adjudication keeps games short; the results it gives are what the teacher would reach.
            decisive = decisive + 1 if abs(score) >= args.win_cp else 0
            drawish = drawish + 1 if abs(score) <= 10 and board.ply() >= 80 else 0
            if decisive >= 6:
                result = 2 if white_score > 0 else 0
                break
            if drawish >= 12:
                break
        if board.ply() - start_ply >= args.max_plies:
            result = 1 if abs(score) < args.win_cp else (2 if white_score > 0 else 0)
            break
        zeroing = board.is_zeroing(move)
        push(move)
        # A new base only when the list has grown (a FEN costs python-chess 0.2 ms); it must be
        # after a capture or pawn move, beyond which no repetition reaches.
        if zeroing and len(tail) >= 16:
            base = b"position fen " + board.fen().encode()
            tail = []
        else:
            tail.append(best)
        if zeroing:
            repeats.clear()
    if not keys:
        return None, searches, board.ply() - start_ply
    start["result"] = result
    game = (start.tobytes(), np.array(entries, dtype="<u2").tobytes(),
            np.array(keys, dtype="<u8").tobytes(),
            np.clip(scores, -chunks.SCORE_LIMIT, chunks.SCORE_LIMIT).astype("<i2").tobytes())
    return game, searches, board.ply() - start_ply


def _die_with_parent() -> None:
    """Asks Linux to kill this process when its parent dies (a worker stuck on a hung teacher
    would never see the parent go); elsewhere the check after each game has to do."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def worker(index: int, args: argparse.Namespace, seed: str, out: mp.Queue, stop: mp.Event,
           parent: int) -> None:
    """A worker process: plays games and puts (index, game, searches, plies) on ``out``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    _die_with_parent()
    # At a stop, games still in the pipe are dropped rather than waited for.
    out.cancel_join_thread()
    from engine.board.zobrist import key_and_check

    openings = load_openings(args.openings)
    options = {"Threads": "1", "Hash": str(args.hash)}
    teacher = RawTeacher(args.teacher.split(), options)
    rng = random.Random(seed)
    try:
        # A worker whose parent is gone (killed) stops after its game: nothing would be written.
        while not stop.is_set() and os.getppid() == parent:
            game, searches, plies = play_game(teacher, rng, openings, args, key_and_check)
            out.put((index, game, searches, plies))
    finally:
        teacher.close()


def status(folder: Path, detail: bool = False) -> str:
    """How much data there is in ``folder`` (``detail``: also by number of men, reading it all)."""
    paths = chunks.chunk_paths(folder)
    count, size, games, nodes, teachers = 0, 0, 0, {}, set()
    for path in paths:
        header, _ = chunks.read_header(path)
        count += header["count"]
        size += path.stat().st_size
        games += header.get("games", 0)
        nodes[header.get("nodes")] = nodes.get(header.get("nodes"), 0) + header["count"]
        teachers.add(header.get("teacher", "?"))
    lines = [f"folder      {folder}",
             f"chunks      {len(paths)}",
             f"positions   {count:,}",
             f"games       {games:,}",
             f"bytes       {size:,} ({size / max(count, 1):.1f} a position)",
             f"teacher     {', '.join(sorted(teachers)) or '-'}",
             "nodes       " + (", ".join(f"{n}: {c:,}" for n, c in sorted(nodes.items(), key=str)) or "-")]
    if detail and paths:
        men = np.zeros(33, dtype=np.int64)
        results = np.zeros(3, dtype=np.int64)
        for records in chunks.iter_records(paths):
            occ = np.ascontiguousarray(records["occupancy"]).view(np.uint8).reshape(-1, 8)
            men += np.bincount(np.unpackbits(occ, axis=1).sum(axis=1), minlength=33)
            results += np.bincount(records["result"], minlength=3)[:3]
        lines.append(f"men <= 5    {men[:6].sum():,} ({men[:6].sum() / max(count, 1):.2%})")
        lines.append(f"men 6..12   {men[6:13].sum():,}")
        lines.append(f"results     White won {results[2]:,}, drawn {results[1]:,}, Black won {results[0]:,}")
        every_key = np.sort(np.concatenate([chunks.read_keys(path) for path in paths]))
        twice = np.count_nonzero(every_key[1:] == every_key[:-1])  # (np.unique: 40 times slower)
        lines.append(f"duplicates  {twice:,} (keys written twice)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=None,
                        help="the data folder (default $BRUDNO_DATA, else ~/.local/share/brudno/data)")
    parser.add_argument("--status", action="store_true", help="say how much data there is, and stop")
    parser.add_argument("--detail", action="store_true", help="with --status: men and results too")
    parser.add_argument("--positions", type=int, default=None,
                        help="stop once the folder holds this many (default: run until stopped)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes, one teacher each")
    parser.add_argument("--teacher", default=default_teacher(),
                        help="UCI command of the teacher (default: scripts/training/data/teacher.py's build if there is "
                             "one, else /usr/games/stockfish)")
    parser.add_argument("--nodes", type=int, default=DEFAULT_NODES, help="teacher nodes per move")
    parser.add_argument("--hash", type=int, default=16, help="teacher hash, MB")
    parser.add_argument("--openings", type=Path, default=DEFAULT_OPENINGS,
                        help="EPD of start positions (the standard start position if absent)")
    parser.add_argument("--random-plies", type=int, default=8, help="up to this many random plies first")
    # At least 2: the teacher is deterministic at a fixed node count, so with no random ply an
    # opening gives the same game every time (992 games in all), with 1 about 30 per opening.
    parser.add_argument("--min-random-plies", type=int, default=2, help="at least this many random plies")
    parser.add_argument("--play-out", type=float, default=0.25,
                        help="share of games played to the end without adjudication")
    parser.add_argument("--chess960", type=float, default=0.2,
                        help="share of the games played from Chess960 start positions")
    parser.add_argument("--win-cp", type=int, default=1000, help="adjudicate a win after 6 plies beyond this")
    parser.add_argument("--max-plies", type=int, default=400, help="a game stops after this many plies")
    parser.add_argument("--chunk-size", type=int, default=20000, help="positions per chunk (about)")
    parser.add_argument("--seed", default=None, help="seeds the games (default: a random seed)")
    parser.add_argument("--log-every", type=float, default=30.0, help="seconds between progress lines")
    args = parser.parse_args(argv)
    folder = args.data if args.data is not None else chunks.data_folder()
    if args.status:
        print(status(folder, args.detail))
        return

    folder.mkdir(parents=True, exist_ok=True)
    lock = open(folder / ".lock", "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        sys.exit(f"gen_data: another generator is writing to {folder}")
    for stale in folder.glob(f".tmp-*{chunks.SUFFIX}"):
        stale.unlink()  # a chunk being written when the last run was killed
    keys = chunks.KeySet()
    paths = chunks.chunk_paths(folder)
    total = 0
    for path in paths:
        chunk_keys = chunks.read_keys(path)
        keys.add(chunk_keys)
        total += len(chunk_keys)
    number = 1 + max((int(p.stem.split("-")[-1]) for p in paths if p.stem.split("-")[-1].isdigit()),
                     default=0)
    log = lambda text: print(f"{datetime.now(timezone.utc):%H:%M:%S} {text}", flush=True)  # noqa: E731
    log(f"gen_data: {total:,} positions in {len(paths)} chunks in {folder}; teacher {args.teacher} "
        f"at {args.nodes} nodes, {args.workers} workers")
    if args.positions is not None and total >= args.positions:
        return

    stopping = False

    def stop_soon(signum, frame) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop_soon)
    signal.signal(signal.SIGINT, stop_soon)
    seed = args.seed if args.seed is not None else os.urandom(8).hex()
    context = mp.get_context("spawn")  # a fresh interpreter: no numba state forked
    results: mp.Queue = context.Queue()
    stop = context.Event()
    processes: dict[int, mp.Process] = {}
    starts = 0

    def start_worker(index: int) -> None:
        nonlocal starts
        starts += 1
        # Chunk number and start count in the seed: a restarted run plays new games.
        process = context.Process(target=worker, daemon=True,
                                  args=(index, args, f"{seed}-{number}-{starts}", results, stop, os.getpid()))
        process.start()
        processes[index] = process

    # The teacher's name for the chunks' headers; a teacher that does not start stops us here.
    probe = RawTeacher(args.teacher.split(), {})
    teacher_name = probe.name
    probe.close()
    for index in range(args.workers):
        start_worker(index)
    pending = chunks.Chains()
    pending_keys: set[int] = set()
    pending_key_arrays: list[np.ndarray] = []
    games = pending_games = searches = plies = offered = 0
    started = last_log = time.monotonic()
    written_since_start = 0
    last_count = 0

    def add_game(start: bytes, entry_bytes: bytes, key_bytes: bytes, score_bytes: bytes) -> int:
        """Adds a worker's game to the chunk being filled, its positions already written (or
        already in this chunk) no longer kept; returns how many it offered."""
        entries = np.frombuffer(entry_bytes, dtype="<u2").copy()
        game_keys = np.frombuffer(key_bytes, dtype="<u8")
        fresh = ~keys.contains(game_keys)
        for i in np.flatnonzero(fresh):
            key = int(game_keys[i])
            if key in pending_keys:
                fresh[i] = False  # in this chunk already, or earlier in this game
            else:
                pending_keys.add(key)
        entries[np.flatnonzero(entries & codec.KEPT)[~fresh]] ^= codec.KEPT
        if fresh.any():
            pending.add(start, entries, np.frombuffer(score_bytes, dtype="<i2")[fresh])
            pending_key_arrays.append(game_keys[fresh])
        return len(game_keys)

    def flush() -> None:
        nonlocal number, total, pending, pending_keys, pending_key_arrays, pending_games
        nonlocal written_since_start
        if not len(pending):
            return
        header = {"teacher": teacher_name, "nodes": args.nodes, "games": pending_games,
                  "generator": "scripts/training/data/generate.py", "random_plies": args.random_plies,
                  "min_random_plies": args.min_random_plies,
                  "play_out": args.play_out, "chess960": args.chess960, "seed": seed,
                  "created": datetime.now(timezone.utc).isoformat(timespec="seconds")}
        chunks.write_chains(folder, f"chunk-{number:06d}{chunks.SUFFIX}", pending, header)
        keys.add(np.concatenate(pending_key_arrays))
        number += 1
        total += pending.count
        written_since_start += pending.count
        pending, pending_keys, pending_key_arrays, pending_games = chunks.Chains(), set(), [], 0

    try:
        while not stopping:
            if args.positions is not None and total + len(pending_keys) >= args.positions:
                break
            try:
                index, game, game_searches, game_plies = results.get(timeout=0.5)
                message = True
            except queue.Empty:
                message = False
            except (EOFError, OSError, pickle.UnpicklingError) as error:
                log(f"a worker's message was lost ({error!r})")  # a worker killed mid-message
                message = False
            if message:
                games += 1
                pending_games += 1
                searches += game_searches
                plies += game_plies
                if game is not None:
                    offered += add_game(*game)
                if len(pending_keys) >= args.chunk_size:
                    flush()
            for index, process in list(processes.items()):
                if not process.is_alive() and not stopping:
                    log(f"worker {index} exited ({process.exitcode}); starting another")
                    start_worker(index)
            now = time.monotonic()
            if now - last_log >= args.log_every:
                made = written_since_start + len(pending_keys)
                log(f"{total + len(pending_keys):,} positions ({total:,} in chunks)  games {games:,}  "
                    f"{made / (now - started):.0f} positions/s since start, "
                    f"{(made - last_count) / (now - last_log):.0f} now  "
                    f"{searches / (now - started):.0f} searches/s  "
                    f"kept {made / max(searches, 1):.0%} of searches "
                    f"({1 - made / max(offered, 1):.1%} of quiet ones were duplicates)  "
                    f"load {os.getloadavg()[0]:.1f}")
                last_count, last_log = made, now
    finally:
        stop.set()
        flush()
        deadline = time.monotonic() + 10
        while any(p.is_alive() for p in processes.values()) and time.monotonic() < deadline:
            try:
                results.get(timeout=0.1)  # drained, so that no worker waits on a full pipe
            except queue.Empty:
                pass
        for process in processes.values():
            if process.is_alive():
                process.terminate()
        log(f"gen_data: {total:,} positions in {folder} ({written_since_start:,} new, "
            f"{games:,} games, {time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
