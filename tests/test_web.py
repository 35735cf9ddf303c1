"""The page's server (`brudno serve`, engine/teaching/web/) through its HTTP endpoints: a game played
against the real engine process, bad input refused with a message and nothing changed, each
tab its own game, a closed stream stopping the search, the pruning panel's counts equal to
scripts/studies/alphabeta_table.py's, and Ctrl-C leaving no process behind."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import chess
import pytest

from scripts.studies import alphabeta_table as table
from engine.board.perft import KIWIPETE
from engine.protocol.strength import ELO_MAX, ELO_MIN
from engine.teaching.web.server import PageServer

ROOT = Path(__file__).resolve().parents[1]
# Ten queens: about 15 million leaves at depth 4, far beyond what the page computes.
MOST_MOVES = "q2qk2q/q6q/8/8/8/8/Q6Q/Q2QK2Q w - - 0 1"
BACK_RANK = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"
# Seconds an engine process may take to answer its first isready: it loads the numba kernels
# from the cache in seconds, but compiles them first when the cache is cold or stale.
ENGINE_START = 300


class Client:
    """JSON over HTTP to one server, as the page's script sends it."""

    def __init__(self, port: int) -> None:
        self.port = port

    def request(self, method: str, path: str, body: Any = None,
                headers: dict[str, str] | None = None) -> tuple[int, Any]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
            connection.request(method, path, data, headers or {})
            response = connection.getresponse()
            raw = response.read()
            kind = response.getheader("Content-Type", "")
            return response.status, json.loads(raw) if "json" in kind else raw.decode()
        finally:
            connection.close()

    def post(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        return self.request("POST", path, body)

    def session(self) -> str:
        status, data = self.post("/api/session", {})
        assert status == 200, data
        return data["session"]

    def state(self, session: str) -> dict[str, Any]:
        status, data = self.request("GET", f"/api/state?session={session}")
        assert status == 200, data
        return data

    def wait(self, session: str, test, timeout: float = 60.0, what: str = "") -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            state = self.state(session)
            if test(state):
                return state
            time.sleep(0.1)
        brief = {k: state[k] for k in ("fen", "moves", "status", "engine", "thinking")}
        raise AssertionError(f"timed out waiting for {what}: {brief}")


@pytest.fixture
def server():
    page = PageServer(0, max_sessions=2).start()
    try:
        yield page
    finally:
        page.stop()


@pytest.fixture
def client(server):
    return Client(server.port)


def replay(start_fen: str, sans: list[str], chess960: bool = False) -> chess.Board:
    """The game the page shows, replayed by python-chess: raises on an illegal move."""
    board = chess.Board(start_fen, chess960=chess960)
    for san in sans:
        board.push_san(san)
    return board


def test_a_game_played_through_the_endpoints(client, server):
    s = client.session()
    assert client.post("/api/settings", {"session": s, "settings": {"movetime": 0.2}})[0] == 200
    status, data = client.post("/api/move", {"session": s, "from": "e2", "to": "e4"})
    assert status == 200 and data["state"]["moves"] == ["e4"]
    # The first engine start may compile the numba kernels (minutes on a loaded machine).
    state = client.wait(s, lambda st: len(st["moves"]) == 2 and not st["thinking"],
                        timeout=ENGINE_START, what="Brudno's first answer")
    board = replay(state["start_fen"], state["moves"])
    assert board.fen() == state["fen"]
    # The search reported lines in SAN from the position it searched, starting with its move.
    assert state["lines"] and state["lines"][0]["san"].startswith(f"1...{state['moves'][1]}")
    assert 2 == len(state["evals"][0]) and state["evals"][0][0] == 1  # its score, at ply 1

    # Knight out by clicking its squares (from, to), then take it back.
    assert client.post("/api/move", {"session": s, "from": "g1", "to": "f3"})[0] == 200
    client.wait(s, lambda st: len(st["moves"]) == 4 and not st["thinking"], what="answer 2")
    status, data = client.post("/api/takeback", {"session": s})
    assert status == 200 and data["state"]["moves"] == state["moves"]
    assert data["state"]["fen"] == state["fen"]

    status, pgn = client.request("GET", f"/api/pgn?session={s}")
    assert status == 200 and pgn.startswith("[Event") and f"1. e4 {state['moves'][1]}" in pgn

    # A new game as Black: Brudno moves first; then a Chess960 position by its number.
    status, _ = client.post("/api/new", {"session": s, "side": "black"})
    assert status == 200
    state = client.wait(s, lambda st: len(st["moves"]) == 1, what="Brudno's first move")
    assert state["human"] == "black" and state["orientation"] == "black"
    replay(chess.STARTING_FEN, state["moves"])
    status, data = client.post("/api/new", {"session": s, "side": "white", "chess960": True,
                                            "position": 0})
    assert status == 200 and data["state"]["chess960"]
    assert data["state"]["fen"].startswith("bbqnnrkr/pppppppp/")  # Scharnagl's number 0


def test_a_mate_ends_the_game_and_switching_sides_makes_brudno_move(client):
    s = client.session()
    assert client.post("/api/fen", {"session": s, "fen": "7k/8/6K1/8/8/8/8/R7 w - - 0 1"})[0] \
        == 200
    status, data = client.post("/api/move", {"session": s, "from": "a1", "to": "a8"})
    state = data["state"]
    assert status == 200 and state["game_over"] and state["status"].startswith("White wins")
    assert not state["thinking"]
    status, data = client.post("/api/move", {"session": s, "from": "h8", "to": "h7"})
    assert status == 400 and "the game is over" in data["error"]
    assert '[Result "1-0"]' in client.request("GET", f"/api/pgn?session={s}")[1]

    # A long think cut short: Brudno takes White's side, and "Move now" makes it play.
    client.post("/api/new", {"session": s, "side": "white"})
    client.post("/api/settings", {"session": s, "settings": {"movetime": 60}})
    status, data = client.post("/api/switch", {"session": s})
    assert status == 200 and data["state"]["human"] == "black"
    client.wait(s, lambda st: st["lines"], timeout=ENGINE_START, what="Brudno's search")
    assert client.post("/api/stop", {"session": s})[0] == 200
    state = client.wait(s, lambda st: len(st["moves"]) == 1, timeout=15, what="Move now")
    replay(chess.STARTING_FEN, state["moves"])


def test_castling_is_made_by_the_kings_square_or_the_rooks(client):
    s = client.session()
    fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"
    assert client.post("/api/mode", {"session": s, "mode": "analyse"})[0] == 200
    assert client.post("/api/fen", {"session": s, "fen": fen})[0] == 200
    status, data = client.post("/api/move", {"session": s, "from": "e1", "to": "h1"})
    assert status == 200 and data["state"]["moves"] == ["O-O"], data
    status, data = client.post("/api/move", {"session": s, "from": "e8", "to": "c8"})
    assert status == 200 and data["state"]["moves"] == ["O-O", "O-O-O"], data
    # Chess960: the king onto its rook (python-chess's own form) or onto g1, and the page
    # writes it as castling.
    for target in ("h1", "g1"):
        assert client.post("/api/fen", {"session": s, "fen": fen, "chess960": True})[0] == 200
        status, data = client.post("/api/move", {"session": s, "from": "e1", "to": target})
        assert status == 200 and data["state"]["moves"] == ["O-O"], data
        assert data["state"]["chess960"] and data["state"]["last_move"] == "e1h1"
    # A promotion needs its piece; with it, the move is made.
    promote = "8/P6k/8/8/8/8/8/K7 w - - 0 1"
    assert client.post("/api/fen", {"session": s, "fen": promote, "chess960": False})[0] == 200
    state = client.state(s)
    assert state["promotions"] == ["a7a8"]
    status, data = client.post("/api/move", {"session": s, "from": "a7", "to": "a8"})
    assert status == 400 and "promote" in data["error"]
    status, data = client.post("/api/move", {"session": s, "from": "a7", "to": "a8",
                                             "promotion": "n"})
    assert status == 200 and data["state"]["moves"] == ["a8=N"]
    client.post("/api/mode", {"session": s, "mode": "play"})


@pytest.mark.parametrize("path, body, message", [
    ("/api/move", {"from": "e2", "to": "e5"}, "illegal move e2-e5"),
    ("/api/move", {"from": "e7", "to": "e5"}, "illegal move"),
    ("/api/move", {"from": "z9", "to": "e4"}, "not a square"),
    ("/api/fen", {"fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1"}, "malformed FEN"),
    ("/api/fen", {"fen": "8/8/8/8/8/8/8/K7 w - - 0 1"}, "not a legal position"),
    ("/api/fen", {"fen": ""}, "give a FEN"),
    ("/api/settings", {"settings": {"elo": 5000}}, f"UCI_Elo must be between {ELO_MIN} and {ELO_MAX}"),
    ("/api/settings", {"settings": {"movetime": "soon"}}, "time per move"),
    ("/api/settings", {"settings": {"hash": 1}}, "no such setting"),
    ("/api/new", {"side": "green"}, "side must be"),
    ("/api/new", {"chess960": True, "position": 960}, "between 0 and 959"),
    ("/api/mode", {"mode": "blitz"}, "mode must be"),
    ("/api/tree", {"depth": 5}, "depth 5 is out of range"),
    ("/api/tree", {"depth": 2, "search": "sideways"}, "unknown search"),
    ("/api/takeback", {}, "nothing to take back"),
])
def test_bad_input_gets_a_message_and_changes_nothing(client, path, body, message):
    s = client.session()
    before = client.state(s)
    status, data = client.post(path, {"session": s, **body})
    assert status == 400, data
    assert message in data["error"]
    after = client.state(s)
    assert (after["fen"], after["moves"], after["settings"], after["mode"]) == \
        (before["fen"], before["moves"], before["settings"], before["mode"])


def test_a_tree_too_large_is_refused_before_it_runs(client):
    s = client.session()
    assert client.post("/api/fen", {"session": s, "fen": MOST_MOVES})[0] == 200
    status, data = client.post("/api/tree", {"session": s, "depth": 4})
    assert status == 400 and data["error"].startswith("too large"), data
    assert client.state(s)["fen"] == MOST_MOVES


def test_the_trace_page_draws_brudnos_tree_and_says_why_when_it_cannot(client, monkeypatch):
    from engine.teaching.trace import trace_search
    from engine.teaching.web import kernel_tree

    query = "/trace?" + urlencode({"fen": KIWIPETE, "depth": 3})
    status, page = client.request("GET", query)
    assert status == 200, page
    traced = trace_search(chess.Board(KIWIPETE), 3)
    assert f'data-nodes="{traced.nodes}"' in page and 'data-rule="null move cut-off"' in page
    status, page = client.request("GET", "/trace?" + urlencode({"fen": KIWIPETE, "depth": 9}))
    assert status == 400 and "depth 9 is out of range" in page
    monkeypatch.setattr(kernel_tree, "MAX_TRACE_ROWS", 50)
    status, page = client.request("GET", query)
    assert status == 400 and "too large to draw" in page


def test_the_trace_page_marks_internal_iterative_reduction_beside_the_rule_that_ended_it(client):
    from engine.teaching.trace import trace_search

    status, page = client.request("GET", "/trace?" + urlencode({"fen": KIWIPETE, "depth": 5}))
    assert status == 200, page
    stack, marked = list(trace_search(chess.Board(KIWIPETE), 5).passes), []
    while stack:
        node = stack.pop()
        stack += node["children"]
        marked += [node] if node["mark"] else []
    assert marked and {node["mark"] for node in marked} == {"internal iterative reduction"}
    lines = re.findall(r'<li [^>]*data-rule="([^"]*)"[^>]*data-mark="internal iterative '
                       r'reduction"[^>]*>\s*<details><summary>(.*?)</summary>', page)
    assert len(lines) == len(marked)
    assert sorted(rule for rule, _ in lines) == sorted(node["rule"] for node in marked)
    for rule, line in lines:  # the mark, then the rule that ended the node (if any) as before
        mark = line.index('<span class="rulemark changed"')
        assert not rule or line.index(f">{rule}</span>") > mark
    assert f'data-key="marked">{len(marked)}<' in page


def test_the_techniques_endpoint_returns_the_scripts_rows_for_the_position(client):
    # The script's own function, the same position, depth and evaluation: the same searches.
    board = chess.Board(KIWIPETE)
    query = urlencode({"fen": KIWIPETE, "depth": 3, "evaluation": "classical"})
    status, data = client.request("GET", f"/api/techniques?{query}")
    assert status == 200, data
    expected = table.compare_techniques("Position", board, [3])
    assert (data["fen"], data["depth"], data["evaluation"]) == (KIWIPETE, 3, "classical")
    assert [r["row"] for r in data["rows"]] == [r.row for r in expected]
    assert len(data["rows"]) == 2 * len(table.TECHNIQUES) + 1
    full = next(r for r in data["rows"] if r["kind"] == "add" and not r["off"])
    assert full["row"].endswith(f"(= {table.FULL})")
    assert full["nodes"] == next(r.nodes for r in expected if r.row == full["row"])
    for got, want in zip(data["rows"], expected):
        assert (got["nodes"], got["evaluations"], got["value"], got["best_move"]) == \
            (want.nodes, want.evaluations, want.value, want.best_move), got["row"]
        assert chess.Move.from_uci(got["best_move"]) in board.legal_moves, got["row"]
        assert got["best_san"] == board.san(chess.Move.from_uci(got["best_move"]))
        assert got["minimal_tree"] == pytest.approx(want.minimal_tree)


def test_the_techniques_endpoint_uses_the_network_by_default_as_the_script_does(client):
    from engine.evaluation.network import evaluator

    status, data = client.request("GET", "/api/techniques?" + urlencode({"depth": 2}))
    assert status == 200, data
    assert (data["fen"], data["evaluation"]) == (chess.STARTING_FEN, "network")
    expected = table.compare_techniques("Position", chess.Board(), [2], evaluator())
    assert [(r["nodes"], r["value"]) for r in data["rows"]] == \
        [(r.nodes, r.value) for r in expected]


@pytest.mark.parametrize("query, message", [
    ({"fen": "not a fen", "depth": 3}, "not a position"),
    ({"fen": "8/8/8/8/8/8/8/K7 w - - 0 1", "depth": 3}, "not a legal position"),
    ({"fen": "R6k/8/6K1/8/8/8/8/8 b - - 0 1", "depth": 3}, "the game is over"),
    ({"depth": 0}, "depth 0 is out of range: the table measures 1 to 6 plies"),
    ({"depth": 7}, "depth 7 is out of range"),
    ({"depth": "deep"}, "the depth must be a number of plies"),
    ({"depth": 3, "evaluation": "oracle"}, "unknown evaluation"),
])
def test_the_techniques_endpoint_refuses_bad_input_with_a_message(client, query, message):
    status, data = client.request("GET", "/api/techniques?" + urlencode(query))
    assert status == 400 and message in data["error"], data


def test_a_techniques_table_past_its_node_budget_is_refused_and_another_waits_its_turn(
        client, monkeypatch):
    from engine.teaching.web import techniques_table

    monkeypatch.setattr(techniques_table, "MAX_NODES", 5_000)
    status, data = client.request("GET", "/api/techniques?" + urlencode({"depth": 5}))
    assert status == 400 and data["error"].startswith("too large"), data
    assert "choose a smaller depth" in data["error"]
    # One table at a time: while one is measured, another waits, then is turned away.
    monkeypatch.setattr(techniques_table, "WAIT_SECONDS", 0.2)
    with techniques_table._running:
        status, data = client.request("GET", "/api/techniques?" + urlencode({"depth": 1}))
    assert status == 503 and "one at a time" in data["error"], data


def test_requests_the_server_does_not_take(client, server):
    assert client.request("POST", "/api/move", {"session": "nope", "from": "e2", "to": "e4"})[0] \
        == 404
    s = client.session()
    status, data = client.request("POST", "/api/move", b"{not json", {"Content-Type": "x"})
    assert status == 400 and "not JSON" in data["error"]
    # A page elsewhere that renames itself to this address is not answered.
    status, data = client.request("GET", f"/api/state?session={s}",
                                  headers={"Host": f"evil.example:{server.port}"})
    assert status == 403
    # Nor a page of another site posting to it (the browser says whose page it is).
    status, data = client.request("POST", "/api/session", b"{}",
                                  {"Origin": "https://elsewhere.example"})
    assert status == 403 and "elsewhere.example" in data["error"]
    status, _ = client.request("POST", "/api/session", b"{}",
                               {"Origin": f"http://127.0.0.1:{server.port}"})
    assert status == 200
    assert client.request("GET", "/static/../session.py")[0] == 404
    status, page = client.request("GET", "/")
    assert status == 200 and "<title>Brudno</title>" in page
    assert client.request("GET", "/static/app.js")[0] == 200


def test_each_tab_has_its_own_game_and_one_too_many_is_refused(client):
    first, second = client.session(), client.session()
    assert client.post("/api/mode", {"session": first, "mode": "analyse"})[0] == 200
    assert client.post("/api/move", {"session": first, "from": "d2", "to": "d4"})[0] == 200
    assert client.state(second)["moves"] == []
    status, data = client.post("/api/session", {})
    assert status == 503 and "games are open already" in data["error"]
    # Closing one tab's game makes room.
    assert client.post("/api/close", {"session": second})[0] == 200
    assert client.post("/api/session", {})[0] == 200


def events(port: int, session: str) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", f"/api/events?session={session}")
    response = connection.getresponse()
    assert response.status == 200
    assert response.getheader("Content-Type") == "text/event-stream"
    return response


def test_the_stream_carries_the_live_search_and_closing_it_stops_the_search(client, server):
    s = client.session()
    stream = events(server.port, s)
    assert client.post("/api/mode", {"session": s, "mode": "analyse"})[0] == 200
    seen: dict[str, Any] = {}
    deadline = time.monotonic() + ENGINE_START
    while "search" not in seen and time.monotonic() < deadline:
        line = stream.readline().decode()
        if line.startswith("event: "):
            name = line.split()[1]
            data = json.loads(stream.readline().decode()[len("data: "):])
            if name == "search" and data["lines"]:
                seen[name] = data
    line = seen["search"]["lines"][0]
    assert line["san"] and line["depth"] >= 1 and line["nodes"] > 0 and len(line["wdl"]) == 3
    assert client.state(s)["thinking"] == "analyse"
    stream.close()  # the tab is closed
    client.wait(s, lambda st: st["thinking"] is None, timeout=15, what="the search to stop")


def wait_for_job(client: Client, session: str, server: PageServer, job_id: str,
                 timeout: float = 60.0):
    job = server.sessions.get(session).tree_jobs[job_id]
    job.thread.join(timeout)
    assert job.progress.state == "done", job.progress
    return job


@pytest.mark.parametrize("fen, depth", [(chess.STARTING_FEN, 2), (BACK_RANK, 3),
                                        (KIWIPETE, 2)])
def test_the_trees_counts_equal_the_alphabeta_tables(client, server, fen, depth):
    s = client.session()
    assert client.post("/api/fen", {"session": s, "fen": fen})[0] == 200
    status, data = client.post("/api/tree", {"session": s, "depth": depth})
    assert status == 200, data
    job = wait_for_job(client, s, server, data["job"]["id"])
    expected = table.compare(chess.Board(fen), depth, brudno=False)[:3]
    got = job.summary()["rows"]
    assert [r["algorithm"] for r in got] == [r.algorithm for r in expected]
    for mine, theirs in zip(got, expected):
        assert (mine["evaluations"], mine["cutoffs"], mine["nodes"], mine["value"],
                mine["best_move"]) == (theirs.evaluations, theirs.cutoffs, theirs.nodes,
                                       theirs.value, theirs.best_move)
        assert mine["cut_share"] == pytest.approx(theirs.cut_share)
    # The drawn tree is the ordered row's search, node for node.
    status, html = client.request("GET", f"/tree/{s}/{job.id}.html")
    assert status == 200
    counts = dict(re.findall(r'data-(nodes|evaluations|cutoffs)="(\d+)"', html)[:3])
    ordered = expected[2]
    assert counts == {"nodes": str(ordered.nodes), "evaluations": str(ordered.evaluations),
                      "cutoffs": str(ordered.cutoffs)}
    assert len(re.findall(r'class="cutmark">[αβ]-cutoff', html)) == ordered.cutoffs


def test_a_small_tree_is_also_drawn_as_the_docs_picture(client, server):
    s = client.session()
    # Few moves: the whole depth-2 tree fits the picture (and the mate is above its horizon).
    assert client.post("/api/fen", {"session": s, "fen": "7k/8/6K1/8/8/8/8/R7 w - - 0 1"})[0] \
        == 200
    status, data = client.post("/api/tree", {"session": s, "depth": 2, "search": "plain"})
    assert status == 200
    job = wait_for_job(client, s, server, data["job"]["id"])
    status, svg = client.request("GET", f"/tree/{s}/{job.id}.svg")
    assert status == 200 and svg.startswith("<svg")
    assert svg.count('class="panel"') == 3
    # Ra8# is found by all three searches.
    assert all(row["best_san"] == "Ra8#" for row in job.summary()["rows"])


def test_a_large_tree_reports_progress_and_can_be_cancelled(client, server):
    s = client.session()
    client.post("/api/fen", {"session": s, "fen": KIWIPETE})
    status, data = client.post("/api/tree", {"session": s, "depth": 4})
    assert status == 200, data
    job = server.sessions.get(s).tree_jobs[data["job"]["id"]]
    deadline = time.monotonic() + 30
    while job.progress.positions < 2000 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert job.progress.state == "running" and job.progress.search == "Minimax"
    assert job.progress.root_total == 48
    status, data = client.post("/api/tree", {"session": s, "depth": 1})
    assert status == 400 and "cancel it first" in data["error"]
    assert client.post("/api/tree/cancel", {"session": s}) == (200, {"cancelled": True})
    job.thread.join(10)
    assert job.progress.state == "cancelled"
    assert client.post("/api/tree", {"session": s, "depth": 1})[0] == 200


def child_pids(pid: int) -> list[int]:
    """The processes whose parent is `pid` (Linux /proc)."""
    children = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                children.append(int(entry.name))
    return children


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs Linux /proc to find the engine")
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_ctrl_c_stops_the_server_and_its_engines(signum):
    process = subprocess.Popen([sys.executable, "-m", "engine", "serve", "--no-browser"],
                               cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert match, line
        client = Client(int(match.group(1)))
        s = client.session()
        client.post("/api/mode", {"session": s, "mode": "analyse"})
        client.wait(s, lambda st: st["engine"] == "ready", timeout=ENGINE_START,
                    what="the engine")
        engines = child_pids(process.pid)
        assert len(engines) == 1
        process.send_signal(signum)
        assert process.wait(timeout=20) == 0
        time.sleep(0.5)
        for pid in engines:
            assert not Path(f"/proc/{pid}").exists(), f"engine process {pid} left behind"
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()


def test_an_engine_that_fails_to_start_is_reported_not_hidden():
    page = PageServer(0, command=[sys.executable, "-c", "raise SystemExit(3)"]).start()
    try:
        client = Client(page.port)
        s = client.session()
        assert client.post("/api/move", {"session": s, "from": "e2", "to": "e4"})[0] == 200
        state = client.wait(s, lambda st: st["engine"].startswith("error"), timeout=30,
                            what="the failure")
        assert state["status"].startswith("The engine failed") and not state["thinking"]
    finally:
        page.stop()


def test_a_game_nobody_watches_or_touches_is_closed():
    page = PageServer(0, idle=0.4).start()
    try:
        client = Client(page.port)
        s = client.session()
        time.sleep(0.25)
        assert client.request("GET", f"/api/state?session={s}")[0] == 200  # a request: kept
        time.sleep(0.25)
        assert client.request("GET", f"/api/state?session={s}")[0] == 200
        time.sleep(1.0)  # the reaper looks every 0.2 s
        status, data = client.request("GET", f"/api/state?session={s}")
        assert status == 404 and "reload the page" in data["error"]
    finally:
        page.stop()


def test_without_a_display_no_browser_is_started():
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    process = subprocess.Popen([sys.executable, "-m", "engine", "serve"], cwd=ROOT, env=env,
                               stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout.readline().startswith("Brudno's page: http://127.0.0.1:")
        assert process.stdout.readline().startswith("no display: open the address")
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=20) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()
