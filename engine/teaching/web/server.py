"""The page's web server: `brudno serve` (standard library `http.server` only).

It serves the page (engine/teaching/web/static/), a small JSON API that changes a tab's game
(engine/teaching/web/session.py), and one server-sent-event stream per tab that carries the game's state,
the live search and the pruning panel's progress. Each tab gets a game and an engine process of
its own, up to MAX_SESSIONS; one more is refused with a message. Requests only change the game:
searches run in the sessions' threads and engine processes, trees in their own threads; only
/trace, Brudno's own search tree of a position (small depths, a fraction of a second), and
/api/techniques, what each technique saves there (within a node budget, seconds), search in their
request's thread, in this process.

It listens on 127.0.0.1 only and answers only requests addressed to it by that name (a page
elsewhere cannot reach it through a DNS name of its own) and coming from its own page (the
browser's Origin header). Ctrl-C (or SIGTERM) closes every
session, which quits its engine process.
"""

from __future__ import annotations

import itertools
import json
import mimetypes
import os
import queue
import secrets
import signal
import sys
import threading
import time
import webbrowser
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from engine.teaching.web.session import InputError, Session

STATIC = Path(__file__).resolve().parent / "static"
HOST = "127.0.0.1"
MAX_SESSIONS = 4  # each has an engine process of its own (about 100 MB)
IDLE_SECONDS = 60.0  # a game no tab has watched for this long is closed
KEEPALIVE_SECONDS = 5.0  # a comment on an idle stream: how a closed tab is noticed
MAX_BODY = 64 * 1024


class Refused(Exception):
    """A request the server turns down as a whole (too many tabs, unknown game)."""

    def __init__(self, status: HTTPStatus, message: str) -> None:
        super().__init__(message)
        self.status = status


class Sessions:
    """The open games, one per tab, and the reaper that closes the abandoned ones."""

    def __init__(self, command: list[str] | None = None, limit: int = MAX_SESSIONS,
                 idle: float = IDLE_SECONDS) -> None:
        self.command = command
        self.limit = limit
        self.idle = idle
        self.lock = threading.Lock()
        self.sessions: dict[str, Session] = {}
        self.jobs = itertools.count(1)
        self.stopping = threading.Event()
        self.reaper = threading.Thread(target=self._reap, name="reaper", daemon=True)
        self.reaper.start()

    def create(self) -> Session:
        with self.lock:
            if len(self.sessions) >= self.limit:
                raise Refused(HTTPStatus.SERVICE_UNAVAILABLE,
                              f"{self.limit} games are open already, each with an engine of its "
                              "own: close another tab of this page, then reload this one")
            session = Session(secrets.token_hex(8), self.command)
            self.sessions[session.id] = session
            return session

    def get(self, session_id: str | None) -> Session:
        with self.lock:
            session = self.sessions.get(session_id or "")
        if session is None or session.closed:
            raise Refused(HTTPStatus.NOT_FOUND, "this game is closed (the server was restarted "
                          "or the tab was left too long): reload the page for a new one")
        session.last_seen = time.monotonic()  # any request keeps the game open
        return session

    def close(self, session_id: str) -> None:
        with self.lock:
            session = self.sessions.pop(session_id, None)
        if session is not None:
            session.close()

    def _reap(self) -> None:
        while not self.stopping.wait(min(1.0, self.idle / 2)):
            now = time.monotonic()
            with self.lock:
                idle = [s.id for s in self.sessions.values()
                        if not s.subscribers and now - s.last_seen > self.idle]
            for session_id in idle:
                self.close(session_id)

    def close_all(self) -> None:
        self.stopping.set()
        with self.lock:
            sessions, self.sessions = list(self.sessions.values()), {}
        for session in sessions:
            session.close()


class PageServer(ThreadingHTTPServer):
    """The HTTP server with the games it serves."""

    daemon_threads = True  # an open event stream must not keep the process alive

    def __init__(self, port: int = 0, command: list[str] | None = None,
                 max_sessions: int = MAX_SESSIONS, idle: float = IDLE_SECONDS) -> None:
        super().__init__((HOST, port), Handler)
        self.sessions = Sessions(command, max_sessions, idle)
        self.port = self.server_address[1]
        self.url = f"http://{HOST}:{self.port}/"
        self.allowed_hosts = {f"{HOST}:{self.port}", f"localhost:{self.port}"}
        self._thread: threading.Thread | None = None

    def start(self) -> PageServer:
        """Serve in a background thread (tests); `stop` ends it."""
        # A short poll: `stop` (shutdown) waits for the loop to look at its flag.
        self._thread = threading.Thread(target=self.serve_forever, args=(0.1,), name="http",
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, close every game and quit their engines."""
        if self._thread is not None:
            self.shutdown()
            self._thread.join(timeout=5)
        self.sessions.close_all()
        self.server_close()


class Handler(BaseHTTPRequestHandler):
    server: PageServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the terminal shows the address and errors, not every request

    # Plumbing.
    def _send(self, status: int, body: bytes, content_type: str,
              headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, data: Any) -> None:
        self._send(status, json.dumps(data).encode(), "application/json")

    def _error(self, status: int, message: str) -> None:
        self._json(status, {"error": message})

    def _query(self) -> dict[str, str]:
        return {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}

    def _body(self) -> dict[str, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            raise InputError("request too large")
        raw = self.rfile.read(length) if length else b"{}"
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            raise InputError("the request is not JSON") from None
        if not isinstance(body, dict):
            raise InputError("the request must be a JSON object")
        return body

    def _host_ok(self) -> bool:
        if self.headers.get("Host") not in self.server.allowed_hosts:
            self._error(HTTPStatus.FORBIDDEN, "this server answers only to "
                        + " or ".join(sorted(self.server.allowed_hosts)))
            return False
        # A page of another site may post here (the address is known): the browser names it.
        origin = self.headers.get("Origin")
        if origin is not None and urlsplit(origin).netloc not in self.server.allowed_hosts:
            self._error(HTTPStatus.FORBIDDEN, f"requests from {origin} are not taken")
            return False
        return True

    # GET.
    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        if not self._host_ok():
            return
        path = urlsplit(self.path).path
        try:
            if path == "/" or path == "/index.html":
                self._static("index.html")
            elif path.startswith("/static/"):
                self._static(path[len("/static/"):])
            elif path == "/api/events":
                self._events(self.server.sessions.get(self._query().get("session")))
            elif path == "/api/state":
                session = self.server.sessions.get(self._query().get("session"))
                self._json(HTTPStatus.OK, session.state())
            elif path == "/api/pgn":
                self._pgn()
            elif path.startswith("/tree/"):
                self._tree(path)
            elif path == "/trace":
                self._trace()
            elif path == "/api/techniques":
                self._techniques()
            else:
                self._error(HTTPStatus.NOT_FOUND, f"no such page: {path}")
        except Refused as refused:
            self._error(refused.status, str(refused))

    def _static(self, name: str) -> None:
        file = (STATIC / name).resolve()
        if STATIC not in file.parents or not file.is_file():
            self._error(HTTPStatus.NOT_FOUND, f"no such file: {name}")
            return
        content_type = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
        if content_type.startswith("text/") or content_type.endswith("javascript"):
            content_type += "; charset=utf-8"
        self._send(HTTPStatus.OK, file.read_bytes(), content_type)

    def _pgn(self) -> None:
        query = self._query()
        session = self.server.sessions.get(query.get("session"))
        headers = {}
        if query.get("download"):
            headers["Content-Disposition"] = 'attachment; filename="brudno-game.pgn"'
        self._send(HTTPStatus.OK, session.pgn().encode(), "application/x-chess-pgn", headers)

    def _tree(self, path: str) -> None:
        """/tree/SESSION/JOB.html (the folding tree) or .svg (the picture)."""
        parts = path.split("/")
        if len(parts) != 4 or "." not in parts[3]:
            raise Refused(HTTPStatus.NOT_FOUND, f"no such tree: {path}")
        session = self.server.sessions.get(parts[2])
        job_id, kind = parts[3].rsplit(".", 1)
        job = session.tree_jobs.get(job_id)
        body = None if job is None else job.html if kind == "html" else \
            job.svg if kind == "svg" else None
        if body is None:
            raise Refused(HTTPStatus.NOT_FOUND, f"no such tree (or not drawn): {path}")
        content_type = "text/html; charset=utf-8" if kind == "html" else "image/svg+xml"
        self._send(HTTPStatus.OK, body.encode(), content_type)

    def _trace(self) -> None:
        """/trace?fen=...&depth=...[&chess960=1]: Brudno's own search tree of a position, drawn
        (engine/teaching/web/kernel_tree.py); a page with the reason where none is drawn. The search
        takes a fraction of a second at the depths drawn and runs in this request's thread."""
        from engine.teaching.web import kernel_tree  # loads the search's kernels: only when asked

        drawn, page = kernel_tree.render_request(self._query())
        self._send(HTTPStatus.OK if drawn else HTTPStatus.BAD_REQUEST, page.encode(),
                   "text/html; charset=utf-8")

    def _techniques(self) -> None:
        """/api/techniques?fen=...&depth=...[&evaluation=network|classical][&chess960=1]: what
        each technique of Brudno's search saves in a position, as JSON (engine/teaching/web/
        techniques_table.py); 400 with the reason for bad input or a table too large. The search
        runs in this request's thread, within a node budget (seconds)."""
        from engine.teaching.web import techniques_table

        status, data = techniques_table.answer(self._query())
        self._json(status, data)

    def _events(self, session: Session) -> None:
        """The tab's event stream; when it closes and no other stream of the game is open,
        the session stops its search."""
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        q = session.subscribe()
        try:
            while True:
                try:
                    item = q.get(timeout=KEEPALIVE_SECONDS)
                except queue.Empty:
                    self.wfile.write(b": keep-alive\n\n")
                    self.wfile.flush()
                    continue
                if item is None:
                    break
                event, data = item
                self.wfile.write(f"event: {event}\ndata: {data}\n\n".encode())
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, OSError):
            pass  # the tab was closed
        finally:
            session.unsubscribe(q)

    # POST.
    def do_POST(self) -> None:  # noqa: N802
        if not self._host_ok():
            return
        path = urlsplit(self.path).path
        try:
            body = self._body()
            if path == "/api/session":
                session = self.server.sessions.create()
                self._json(HTTPStatus.OK, {"session": session.id, "state": session.state()})
                return
            if path == "/api/close":
                self.server.sessions.close(str(body.get("session", "")))
                self._json(HTTPStatus.OK, {"ok": True})
                return
            session = self.server.sessions.get(body.get("session"))
            result = self._action(session, path, body)
            self._json(HTTPStatus.OK, result)
        except InputError as error:
            self._error(HTTPStatus.BAD_REQUEST, str(error))
        except Refused as refused:
            self._error(refused.status, str(refused))

    def _action(self, session: Session, path: str, body: dict[str, Any]) -> dict[str, Any]:
        action = path.removeprefix("/api/")
        if action == "move":
            session.move(body.get("from"), body.get("to"), body.get("promotion"))
        elif action == "new":
            session.new_game(body.get("side", "white"), body.get("chess960", False),
                             body.get("position"))
        elif action == "fen":
            session.set_fen(body.get("fen"), body.get("side"), body.get("chess960"))
        elif action == "takeback":
            session.take_back()
        elif action == "settings":
            changes = body.get("settings")
            if not isinstance(changes, dict):
                raise InputError("settings must be an object")
            session.set_settings(changes)
        elif action == "mode":
            session.set_mode(body.get("mode"))
        elif action == "flip":
            session.flip()
        elif action == "switch":
            session.switch_sides()
        elif action == "stop":
            session.stop()
        elif action == "hidden":
            session.hidden()
        elif action == "tree":
            job_id = f"t{next(self.server.sessions.jobs)}"
            job = session.start_tree(body.get("depth"), body.get("search", "ordered"), job_id)
            return {"job": job.summary()}
        elif action == "tree/cancel":
            return {"cancelled": session.cancel_tree()}
        else:
            raise Refused(HTTPStatus.NOT_FOUND, f"no such action: {action}")
        return {"state": session.state()}


def _has_display() -> bool:
    """Whether a graphical browser can open here. Without a display (a server, an ssh session)
    Python's webbrowser falls back to a text browser, which would take over the terminal."""
    if sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


def serve(port: int = 0, open_browser: bool = True) -> int:
    """`brudno serve`: serve the page until Ctrl-C, then close every game and engine."""
    try:
        server = PageServer(port)
    except OSError as error:
        print(f"brudno serve: cannot listen on {HOST}:{port}: {error}", file=sys.stderr)
        return 1

    def terminate(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, terminate)
    try:
        print(f"Brudno's page: {server.url}  (Ctrl-C stops it)", flush=True)
        if open_browser and _has_display():
            # webbrowser may wait for the browser it starts: not in the way of the server.
            threading.Thread(target=webbrowser.open, args=(server.url,), daemon=True).start()
        elif open_browser:
            print("no display: open the address in a browser", flush=True)
        server.serve_forever()
    except KeyboardInterrupt:
        print("brudno serve: stopping the engines…", flush=True)
    finally:
        # A second Ctrl-C must not cut the clean-up short and leave engines behind.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        server.sessions.close_all()
        server.server_close()
    return 0
