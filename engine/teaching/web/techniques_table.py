"""The page's "what each technique saves" table: /api/techniques for the position on the board.

It reads the request (a FEN, a depth of 1-6 plies, the evaluation), measures the rows of
engine/teaching/techniques.py (the same call as `scripts/studies/alphabeta_table.py --techniques`, so the same
nodes, evaluations, values and best moves) and returns them as JSON for the page's script to draw.
The search runs in the request's thread, within limits that keep a request to seconds: the depth
range, a node budget for all the rows together, and one table at a time (a second request waits a
little for the first, then is turned away): the machine's cores are also the games' engines'.
"""

from __future__ import annotations

import threading
from dataclasses import asdict
from http import HTTPStatus
from typing import Any

import chess

from engine.teaching.web.query import board_of

MIN_DEPTH, MAX_DEPTH = 1, 6
DEFAULT_DEPTH = 5  # about a second here (the start position 0.3 s, Kiwipete 1.2 s)
# The rows together: depth 6 of Kiwipete takes 3.2 million nodes (3 s here), a middlegame 4.9
# million; depth 7 takes 18 to 58 million, a minute: refused with a message.
MAX_NODES = 10_000_000
EVALUATIONS = ("network", "classical")  # the network as in play and in the script's default
WAIT_SECONDS = 20.0  # how long a request waits for the table being measured, then is turned away
_running = threading.Lock()


class RequestError(ValueError):
    """A table the page will not measure, with the reason to show (HTTP 400)."""


class Busy(RuntimeError):
    """Another table is being measured and did not end in time (HTTP 503)."""


def parse_request(query: dict[str, str]) -> tuple[chess.Board, int, str]:
    """The board, depth and evaluation of a request; RequestError with the user's message."""
    try:
        depth = int(query.get("depth", str(DEFAULT_DEPTH)))
    except ValueError:
        raise RequestError("the depth must be a number of plies") from None
    if not MIN_DEPTH <= depth <= MAX_DEPTH:
        raise RequestError(f"depth {depth} is out of range: the table measures {MIN_DEPTH} to "
                           f"{MAX_DEPTH} plies")
    evaluation = query.get("evaluation", EVALUATIONS[0])
    if evaluation not in EVALUATIONS:
        raise RequestError(f"unknown evaluation {evaluation!r}: network or classical")
    try:
        board = board_of(query)
    except ValueError as error:
        raise RequestError(str(error)) from None
    if board.is_game_over():
        raise RequestError("the game is over in this position: there is no tree to search")
    return board, depth, evaluation


def measure(board: chess.Board, depth: int, evaluation: str,
            max_nodes: int | None = None) -> dict[str, Any]:
    """The table of ``board`` at ``depth`` as JSON-ready data: each row as engine.teaching.techniques
    measures it, with its best move in SAN, its value as the page prints it and the note on the
    technique it adds or takes out;
    RequestError if the rows pass ``max_nodes`` (MAX_NODES by default), Busy if another table
    holds the search too long."""
    # Imported on first use, as /trace's search: the server starts without the search's kernels.
    from engine.evaluation.network import evaluator
    from engine.teaching.techniques import DEFAULT_NOTE, TECHNIQUES, TooLarge, compare_techniques
    from engine.teaching.textbook.drawing import value_text

    evaluate = evaluator() if evaluation == "network" else None
    if not _running.acquire(timeout=WAIT_SECONDS):
        raise Busy("another table is being measured (one at a time): try again in a moment")
    try:
        rows = compare_techniques("Position", board, [depth], evaluate,
                                  max_nodes=MAX_NODES if max_nodes is None else max_nodes)
    except TooLarge as error:
        raise RequestError(str(error)) from None
    finally:
        _running.release()
    # The technique each row adds or takes out, in technique_rows' order: none for the first.
    changed = [None, *TECHNIQUES, *TECHNIQUES]
    out = []
    for row, technique in zip(rows, changed):
        data = asdict(row)
        move = chess.Move.from_uci(row.best_move) if row.best_move else None
        data["best_san"] = board.san(move) if move else None
        data["value_text"] = value_text(row.value, signed=True)  # as the textbook rows: #3
        data["technique"] = technique.name if technique else None
        data["note"] = (technique.note or DEFAULT_NOTE) if technique else ""
        out.append(data)
    first = rows[0]
    return {"fen": board.fen(), "depth": depth, "evaluation": evaluation,
            "branching": first.branching, "minimal_tree": first.minimal_tree,
            "seconds": sum(r.seconds for r in rows), "rows": out}


def answer(query: dict[str, str]) -> tuple[HTTPStatus, dict[str, Any]]:
    """/api/techniques' answer: (status, the table or {"error": the reason})."""
    try:
        return HTTPStatus.OK, measure(*parse_request(query))
    except RequestError as error:
        return HTTPStatus.BAD_REQUEST, {"error": str(error)}
    except Busy as error:
        return HTTPStatus.SERVICE_UNAVAILABLE, {"error": str(error)}
