"""The page in a real browser: Debian's headless Chromium, driven as a user would drive it.

The test speaks the DevTools protocol to Chromium over a pipe (`--remote-debugging-pipe`, JSON
messages ended by a NUL byte on file descriptors 3 and 4), so it needs nothing beyond the
standard library. It drags a pawn on the board with mouse events, waits for Brudno's answer
(a legal move, with its live line shown), and runs the pruning panel (its tree is drawn, with
the counts of its row); a second tab gets a game of its own, and leaving the page stops its
search; a FEN is set up, a pawn promoted through the choice, Chess960 started, the board flipped;
Brudno's own tree is drawn, and the techniques table measured for the position on the board.
Skipped, saying so, where Chromium is not installed.

`BRUDNO_SCREENSHOTS=docs .venv/bin/python -m pytest tests/test_web_browser.py` also writes the
screenshots of the views (docs/page-play.png, page-think.png, page-pruning.png, page-trace.png,
page-techniques.png).
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import chess
import pytest

from engine.protocol.strength import ELO_MAX, ELO_MIN
from engine.teaching.web.server import PageServer

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (Debian: "
                                "apt-get install chromium): the page is not tried in a browser")
WIDTH, HEIGHT = 1400, 1000


class Chromium:
    """A headless Chromium, over the DevTools pipe; `open` gives a tab."""

    def __init__(self, profile: Path) -> None:
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()

        def pipes_at_3_and_4() -> None:  # where --remote-debugging-pipe looks for them
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)

        self.process = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--remote-debugging-pipe", f"--user-data-dir={profile}",
             f"--window-size={WIDTH},{HEIGHT}", "about:blank"],
            preexec_fn=pipes_at_3_and_4, close_fds=False, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buffer = b""
        self._id = 0

    def send(self, method: str, params: dict[str, Any] | None = None,
             session: str | None = None, timeout: float = 30.0) -> dict[str, Any]:
        self._id += 1
        message: dict[str, Any] = {"id": self._id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_chrome, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read(deadline)  # events of the pages come in between: skipped
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_chrome], [], [], left)[0]:
                raise TimeoutError("Chromium did not answer")
            chunk = os.read(self._from_chrome, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed the pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def open(self, url: str) -> Tab:
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget",
                            {"targetId": target, "flatten": True})["sessionId"]
        tab = Tab(self, session)
        tab.send("Page.enable")
        tab.send("Emulation.setDeviceMetricsOverride",
                 {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False})
        tab.navigate(url)
        return tab

    def close(self) -> None:
        try:
            self.send("Browser.close", timeout=5)
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, 9)
            self.process.wait()
        os.close(self._to_chrome)
        os.close(self._from_chrome)


class Tab:
    """One page of the browser: script, mouse and screenshots."""

    def __init__(self, browser: Chromium, session: str) -> None:
        self.browser = browser
        self.session = session

    def send(self, method: str, params: dict[str, Any] | None = None,
             timeout: float = 30.0) -> dict[str, Any]:
        return self.browser.send(method, params, self.session, timeout)

    def navigate(self, url: str) -> None:
        self.send("Page.navigate", {"url": url})

    def js(self, expression: str) -> Any:
        result = self.send("Runtime.evaluate", {"expression": expression,
                                                "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 60.0, what: str = "") -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                value = self.js(expression)
            except RuntimeError:
                value = None
            if value:
                return value
            time.sleep(0.2)
        raise AssertionError(f"timed out waiting for {what or expression}")

    def mouse(self, kind: str, x: float, y: float) -> None:
        self.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left",
                                               "buttons": 0 if kind == "mouseReleased" else 1,
                                               "clickCount": 1})

    def screenshot(self, path: Path) -> None:
        data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        path.write_bytes(base64.b64decode(data))


@pytest.fixture
def page(tmp_path):
    """The server, and the page open in a tab of a fresh browser."""
    server = PageServer(0).start()
    browser = Chromium(tmp_path / "profile")
    try:
        yield server, browser, browser.open(server.url)
    finally:
        browser.close()
        server.stop()


def square_centre(browser: Tab, square: str) -> tuple[float, float]:
    """Where `square` is on the screen, from the board's SVG as drawn."""
    return tuple(browser.js(f"""(() => {{
        const [x, y] = corner("{square}");
        const svg = boardSvg(), p = svg.createSVGPoint();
        p.x = x + SQUARE / 2; p.y = y + SQUARE / 2;
        const s = p.matrixTransform(svg.getScreenCTM());
        return [s.x, s.y];
    }})()"""))


def drag(browser: Tab, frm: str, to: str) -> None:
    (x1, y1), (x2, y2) = square_centre(browser, frm), square_centre(browser, to)
    browser.mouse("mousePressed", x1, y1)
    for step in range(1, 6):
        browser.mouse("mouseMoved", x1 + (x2 - x1) * step / 5, y1 + (y2 - y1) * step / 5)
    browser.mouse("mouseReleased", x2, y2)


def click(browser: Tab, selector: str) -> None:
    x, y = browser.js(f"""(() => {{ const r = document.querySelector("{selector}")
        .getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()""")
    browser.mouse("mousePressed", x, y)
    browser.mouse("mouseReleased", x, y)


def test_a_move_on_the_board_is_answered_and_the_tree_is_drawn(page):
    server, _, browser = page
    shots = os.environ.get("BRUDNO_SCREENSHOTS")
    browser.wait_for("!!document.querySelector('#board svg') && state && state.fen",
                     what="the board")
    # The UCI_Elo field offers the engine's measured range, from the server.
    assert browser.js("[document.getElementById('elo').min, document.getElementById('elo').max]"
                      ) == [str(ELO_MIN), str(ELO_MAX)]
    # A short time per move, typed as a user would (the input's change event).
    browser.js("(() => { const m = document.getElementById('movetime'); m.value = '0.5'; "
               "m.dispatchEvent(new Event('change')); })()")
    browser.wait_for("state.settings.movetime === 0.5", what="the setting")
    browser.js("(() => { const m = document.getElementById('movetime'); m.value = '999'; "
               "m.dispatchEvent(new Event('change')); })()")
    message = browser.wait_for("!document.getElementById('message').hidden && "
                               "document.getElementById('message').textContent",
                               what="the refusal of 999 s")
    assert message.startswith("time per move must be"), message
    assert browser.js("state.settings.movetime") == 0.5

    # An illegal drag changes nothing and says why.
    drag(browser, "e2", "e5")
    browser.wait_for("!document.getElementById('message').hidden && document.getElementById("
                     "'message').textContent === 'illegal move e2-e5'", what="the refusal")
    assert browser.js("state.moves.length") == 0
    # The pawn is back on e2, not left where it was dropped.
    assert browser.js("Object.keys(pieceElements()).includes('e2') && "
                      "!Object.keys(pieceElements()).includes('e5')")

    drag(browser, "e2", "e4")
    browser.wait_for("state.moves.length === 2", timeout=90, what="Brudno's answer")
    sans = browser.js("state.moves")
    board = chess.Board()
    for san in sans:
        board.push_san(san)  # raises if the page shows an illegal move
    assert sans[0] == "e4"
    assert board.fen() == browser.js("state.fen")
    # The live line that was shown is the one Brudno played: it starts with its answer.
    pv = browser.wait_for("document.getElementById('live-pv').textContent", what="a live line")
    assert pv.split()[0] == f"1...{sans[1]}", pv
    assert browser.js("document.querySelectorAll('#lines tbody tr').length") >= 1
    assert browser.js("document.getElementById('live-depth').textContent").startswith("depth ")

    # Click, click: the knight's squares are marked, and the move is made.
    (x, y) = square_centre(browser, "g1")
    browser.mouse("mousePressed", x, y)
    browser.mouse("mouseReleased", x, y)
    targets = browser.js("[...document.querySelectorAll('#marks circle.target')]"
                         ".map(c => c.dataset.square).sort()")
    assert targets == sorted(chess.square_name(m.to_square) for m in board.legal_moves
                             if m.from_square == chess.G1)
    (x, y) = square_centre(browser, "f3")
    browser.mouse("mousePressed", x, y)
    browser.mouse("mouseReleased", x, y)
    browser.wait_for("state.moves.length === 4", timeout=60, what="Brudno's second answer")
    board.push_san("Nf3")
    board.push_san(browser.js("state.moves[3]"))
    assert board.fen() == browser.js("state.fen")
    if shots:
        (x, y) = square_centre(browser, "f1")  # a piece picked up, its squares marked
        browser.mouse("mousePressed", x, y)
        browser.mouse("mouseReleased", x, y)
        browser.screenshot(Path(shots) / "page-play.png")
        (x, y) = square_centre(browser, "h5")  # an empty square: put it down again
        browser.mouse("mousePressed", x, y)
        browser.mouse("mouseReleased", x, y)
    assert browser.js("document.querySelectorAll('#marks circle.target').length") == 0

    # Analyse mode: several live lines (MultiPV), a score on the graph.
    click(browser, "#tab-think")
    click(browser, "#mode-analyse")
    browser.wait_for("document.querySelectorAll('#lines tbody tr').length >= 2 && "
                     "state.mode === 'analyse' && lines[0].depth >= 6", timeout=60,
                     what="analysis lines")
    browser.wait_for("document.querySelectorAll('#graph circle').length >= 1",
                     what="the graph")
    if shots:
        time.sleep(2)
        browser.screenshot(Path(shots) / "page-think.png")
    click(browser, "#mode-play")
    browser.wait_for("state.mode === 'play' && !state.thinking", what="play mode")

    # The pruning panel: depth 2 of the position on the board.
    click(browser, "#tab-pruning")
    browser.js("document.getElementById('tree-depth').value = '2'")
    click(browser, "#tree-go")
    browser.wait_for("!document.getElementById('tree-frame').hidden && "
                     "!!document.getElementById('tree-frame').contentDocument"
                     ".getElementById('counts')", timeout=90, what="the tree")
    counts = browser.js("({...document.getElementById('tree-frame').contentDocument"
                        ".getElementById('counts').dataset})")
    row = browser.js("({...document.querySelector('#tree-rows tr[data-algorithm="
                     "\"AlphaBeta with move ordering\"]').dataset})")
    assert counts["algorithm"] == "AlphaBeta with move ordering"
    assert counts["fen"] == board.fen()
    assert (counts["evaluations"], counts["cutoffs"]) == (row["evaluations"], row["cutoffs"])
    assert int(counts["cutoffs"]) > 0
    marks = browser.js("document.getElementById('tree-frame').contentDocument"
                       ".querySelectorAll('ul.tree .cutmark').length")
    assert marks == int(counts["cutoffs"])
    if shots:
        # The tree in view: the principal variation open, and the first node that cut.
        browser.js("""(() => {
            const doc = document.getElementById('tree-frame').contentDocument;
            doc.defaultView.showPv();
            doc.querySelector('li.cutoff > details').open = true;
            doc.querySelector('ul.tree').scrollIntoView();
            document.getElementById('tree-frame').scrollIntoView();
        })()""")
        time.sleep(0.5)
        browser.screenshot(Path(shots) / "page-pruning.png")


def test_a_second_tab_has_its_own_game_and_closing_a_tab_stops_its_search(page):
    server, chromium, tab = page
    tab.wait_for("!!document.querySelector('#board svg') && state && state.fen",
                 what="the board")
    first = tab.js("session")
    click(tab, "#mode-analyse")
    tab.wait_for("state.thinking === 'analyse'", what="the analysis")
    game = server.sessions.get(first)

    # A second tab: a game of its own (its id lives in its own sessionStorage).
    other = chromium.open(server.url)
    other.wait_for("!!document.querySelector('#board svg') && state && state.fen",
                   what="the second tab's board")
    assert other.js("session") != first and other.js("state.mode") == "play"
    assert game.mode == "analyse"

    # Closing the first tab (leaving the page) stops its search.
    tab.navigate("about:blank")
    deadline = time.monotonic() + 15
    while game.thinking is not None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert game.thinking is None


def set_input(browser: Tab, element_id: str, value: str) -> None:
    """Type into a field as far as the page can tell: focus (the page leaves a focused field
    alone when the game changes), its value, then its change event."""
    browser.js(f"(() => {{ const e = document.getElementById({element_id!r}); e.focus(); "
               f"e.value = {value!r}; e.dispatchEvent(new Event('change')); }})()")


def test_setting_up_a_fen_promoting_chess960_flipping_and_the_pgn(page):
    server, _, browser = page
    browser.wait_for("!!document.querySelector('#board svg') && state && state.fen && "
                     "document.getElementById('connection').textContent === 'connected'",
                     what="the board and its event stream")
    # Set up from FEN, promote by dragging and choosing a knight.
    set_input(browser, "fen", "8/P6k/8/8/8/8/8/K7 w - - 0 1")
    click(browser, "#set-fen")
    browser.wait_for("state.fen === '8/P6k/8/8/8/8/8/K7 w - - 0 1'", what="the FEN")
    drag(browser, "a7", "a8")
    browser.wait_for("!document.getElementById('promotion').hidden", what="the choice")
    assert browser.js("state.moves.length") == 0  # nothing is played before the choice
    click(browser, "#promotion button[data-piece='n']")
    browser.wait_for("state.moves[0] === 'a8=N'", what="the promotion")
    # King and knight against king: a draw, the game is over.
    browser.wait_for("state.game_over && state.status.startsWith('Draw')", what="the draw")

    # A malformed FEN: a message, and the game goes on as it was.
    fen = browser.js("state.fen")
    set_input(browser, "fen", "not a fen")
    click(browser, "#set-fen")
    browser.wait_for("document.getElementById('message').textContent.startsWith("
                     "'malformed FEN')", what="the refusal")
    assert browser.js("state.fen") == fen

    # Chess960 position 0, then the board flipped: e2 is now in the top half.
    browser.js("document.getElementById('chess960').checked = true")
    set_input(browser, "chess960-number", "0")
    click(browser, "#new-game")
    browser.wait_for("state.chess960 && state.fen.startsWith('bbqnnrkr/')", what="Chess960")
    y_before = square_centre(browser, "e2")[1]
    click(browser, "#flip")
    browser.wait_for("state.orientation === 'black'", what="the flip")
    assert square_centre(browser, "e2")[1] < y_before
    drag(browser, "e2", "e4")
    browser.wait_for("state.moves.length >= 1", what="the move")

    pgn = browser.js("fetch(document.getElementById('pgn-download').href).then(r => r.text())")
    assert '[Variant "Chess960"]' in pgn and "1. e4" in pgn


def kiwipete_on_the_pruning_tab(browser) -> None:
    """Waits for the page, sets Kiwipete on the board and opens the pruning tab."""
    from engine.board.perft import KIWIPETE

    browser.wait_for("!!document.querySelector('#board svg') && state && state.fen && "
                     "document.getElementById('connection').textContent === 'connected'",
                     what="the board and its event stream")
    set_input(browser, "fen", KIWIPETE)
    click(browser, "#set-fen")
    browser.wait_for(f"state.fen === {KIWIPETE!r}", what="the FEN")
    click(browser, "#tab-pruning")


def test_brudnos_own_tree_is_drawn_with_its_rules_folds_and_says_when_too_large(page, monkeypatch):
    from engine.board.perft import KIWIPETE
    from engine.teaching.trace import trace_search
    from engine.teaching.web import kernel_tree

    server, _, browser = page
    shots = os.environ.get("BRUDNO_SCREENSHOTS")
    kiwipete_on_the_pruning_tab(browser)
    browser.js("document.getElementById('trace-depth').value = '4'")
    click(browser, "#trace-go")
    frame = "document.getElementById('trace-frame').contentDocument"
    browser.wait_for(f"!document.getElementById('trace-frame').hidden && "
                     f"!!{frame}.getElementById('counts')", timeout=120, what="Brudno's tree")
    counts = browser.js(f"({{...{frame}.getElementById('counts').dataset}})")
    traced = trace_search(chess.Board(KIWIPETE), 4)  # the same search: a fresh table each time
    assert (counts["fen"], counts["depth"]) == (KIWIPETE, "4")
    assert (int(counts["nodes"]), int(counts["value"])) == (traced.nodes, traced.score)
    # Every kernel node is a list item below the root; the rules are marked where they acted.
    assert browser.js(f"{frame}.querySelectorAll('ul.tree li.node').length") == traced.nodes + 1
    for selector in ("li[data-rule='beta cut-off']", "li[data-rule='null move cut-off']",
                     "li[data-how='null move']", "li[data-how='reduced (LMR)']",
                     ".pruned[data-rule='futility pruning']", ".pruned[data-rule='beta cut-off']",
                     ".pruned[data-rule='SEE pruning']", ".pruned[data-rule='delta pruning']"):
        assert browser.js(f"{frame}.querySelectorAll(\"{selector}\").length") > 0, selector
    # Folding: a closed subtree opens on a click of its line, and "Collapse all" closes all.
    closed = f"{frame}.querySelector(\"li[data-kind='non-PV'] > details:not([open])\")"
    browser.js(f"{closed}.setAttribute('data-picked', '1')")
    browser.js(f"{frame}.querySelector('[data-picked] > summary').click()")
    assert browser.js(f"{frame}.querySelector('[data-picked]').open")
    if shots:
        # Folded to the root's line and one node that a null move cut off.
        browser.js(f"""(() => {{
            const doc = {frame};
            doc.defaultView.fold(false);
            let node = doc.querySelector("li[data-rule='null move cut-off']");
            node.querySelector('details').open = true;
            for (let e = node; e; e = e.parentElement) if (e.tagName === 'DETAILS') e.open = true;
            const frame = document.getElementById('trace-frame');
            frame.style.height = '900px';
            frame.scrollIntoView();
            doc.querySelector('ul.tree').scrollIntoView();
        }})()""")
        time.sleep(0.5)
        browser.screenshot(Path(shots) / "page-trace.png")
    browser.js(f"{frame}.defaultView.fold(false)")
    assert browser.js(f"{frame}.querySelectorAll('details[open]').length") == 0

    # A tree larger than the page draws: a message in its place, saying how large.
    monkeypatch.setattr(kernel_tree, "MAX_TRACE_ROWS", 500)
    click(browser, "#trace-go")
    message = browser.wait_for(f"{frame} && {frame}.getElementById('trace-message') && "
                               f"{frame}.getElementById('trace-message').textContent",
                               what="the refusal")
    assert message.startswith("too large to draw: the tree of depth 4 has"), message
    assert "more than the 500 drawn" in message


def test_the_techniques_table_is_drawn_for_the_position_on_the_board(page):
    from engine.evaluation.network import evaluator
    from engine.board.perft import KIWIPETE
    from engine.teaching.techniques import FULL, compare_techniques, technique_rows

    server, _, browser = page
    shots = os.environ.get("BRUDNO_SCREENSHOTS")
    kiwipete_on_the_pruning_tab(browser)
    assert browser.js("document.getElementById('techniques-depth').value") == "5"
    click(browser, "#techniques-go")
    table = "document.getElementById('techniques-rows')"
    browser.wait_for(f"!{table}.hidden && {table}.dataset.fen === state.fen", timeout=120,
                     what="the techniques table")
    rows = browser.js(f"[...{table}.querySelectorAll('tbody tr[data-row]')].map(tr => "
                      "({...tr.dataset, cells: [...tr.cells].map(td => td.textContent)}))")
    # The script's rows of the board's position, the network evaluating as in play.
    expected = compare_techniques("Position", chess.Board(KIWIPETE), [5], evaluator())
    assert [r["row"] for r in rows] == [label for label, _, _ in technique_rows()]
    assert [int(r["nodes"]) for r in rows] == [r.nodes for r in expected]
    full = browser.js(f"{table}.querySelector('tr.full').dataset.row")
    assert full.endswith(f"(= {FULL})")
    board = chess.Board(KIWIPETE)
    for row in rows:
        assert chess.Move.from_uci(row["bestMove"]) in board.legal_moves, row
        assert row["cells"][-1] == board.san(chess.Move.from_uci(row["bestMove"]))
    assert browser.js(f"{table}.querySelectorAll('tr.group').length") == 2
    if shots:
        # Taller than the other views: the board and the whole table at once.
        browser.send("Emulation.setDeviceMetricsOverride", {"width": WIDTH, "height": 1240,
                                                            "deviceScaleFactor": 1, "mobile": False})
        time.sleep(0.5)
        browser.screenshot(Path(shots) / "page-techniques.png")
        browser.send("Emulation.setDeviceMetricsOverride", {"width": WIDTH, "height": HEIGHT,
                                                            "deviceScaleFactor": 1, "mobile": False})

    # Another position: the table says it is of an earlier one; a finished game gets the reason.
    click(browser, "#tab-play")
    set_input(browser, "fen", "R6k/8/6K1/8/8/8/8/8 b - - 0 1")
    click(browser, "#set-fen")
    browser.wait_for(f"{table}.classList.contains('stale')", what="the stale mark")
    click(browser, "#tab-pruning")
    click(browser, "#techniques-go")
    message = browser.wait_for("document.getElementById('techniques-status').classList"
                               ".contains('error') && document.getElementById("
                               "'techniques-status').textContent", what="the refusal")
    assert message.startswith("the game is over"), message
