"""The plain Python search that chooses a move while the kernels compile (engine/search/interim.py)."""

from __future__ import annotations

import threading
import time

import chess

from engine.protocol.engine import Engine
from engine.search.interim import InterimSearch
from engine.search.timeman import Limits

SCHOLARS = "r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 2 4"


def test_it_mates_in_one_and_takes_a_hanging_queen():
    assert InterimSearch(chess.Board(SCHOLARS), 1.0, 2.0, lambda: False).run(
        lambda info: None) == chess.Move.from_uci("h5f7")
    hanging = chess.Board("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1")
    assert InterimSearch(hanging, 0.5, 1.0, lambda: False).run(
        lambda info: None) == chess.Move.from_uci("d1d5")


def test_it_ends_at_the_hard_limit_and_reports_each_finished_depth():
    infos = []
    started = time.perf_counter()
    move = InterimSearch(chess.Board(), 0.3, 0.5, lambda: False).run(infos.append)
    assert time.perf_counter() - started < 0.6
    assert move in chess.Board().legal_moves
    assert [info.depth for info in infos] == list(range(1, len(infos) + 1)) and infos


def test_a_stop_ends_it_at_once():
    stop = threading.Event()
    stop.set()
    started = time.perf_counter()
    move = InterimSearch(chess.Board(), 10.0, 20.0, stop.is_set).run(lambda info: None)
    assert time.perf_counter() - started < 0.5
    assert move in chess.Board().legal_moves


class Listener:
    def __init__(self) -> None:
        self.infos, self.messages, self.moves = [], [], []
        self.done = threading.Event()

    def on_info(self, info) -> None:
        self.infos.append(info)

    def on_message(self, text: str) -> None:
        self.messages.append(text)

    def on_bestmove(self, move, ponder) -> None:
        self.moves.append(move)
        self.done.set()


def test_a_clocked_go_before_the_kernels_load_is_searched_not_guessed(monkeypatch):
    monkeypatch.setattr(Engine, "_load_search", lambda self: None)  # kernels that never load
    listener = Listener()
    engine = Engine(listener)
    engine.set_position(chess.Board(SCHOLARS))
    engine.go(Limits(wtime=10_000, btime=10_000, winc=100, binc=100))
    assert listener.done.wait(10)
    assert listener.moves == [chess.Move.from_uci("h5f7")]
    assert listener.infos and listener.infos[0].depth >= 1
    assert any("plain Python search" in message for message in listener.messages)


def test_stop_ends_the_interim_search(monkeypatch):
    monkeypatch.setattr(Engine, "_load_search", lambda self: None)
    listener = Listener()
    engine = Engine(listener)
    engine.go(Limits(wtime=600_000, btime=600_000))
    time.sleep(0.2)
    started = time.perf_counter()
    engine.stop()
    assert time.perf_counter() - started < 0.5
    assert listener.moves and listener.moves[0] in chess.Board().legal_moves
