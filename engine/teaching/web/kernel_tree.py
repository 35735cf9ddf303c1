"""The page's drawing of Brudno's own search tree (engine/teaching/trace.py), served at /trace.

As the textbook tree (engine/teaching/textbook/drawing.py `chess_page`, whose style and folding it uses):
a self-contained HTML page with the board, the counts and the tree as nested lists that fold.
Each node shows how its parent searched it, its kind (PV, non-PV, quiescence), its depth, its
window on entry and its value, from White's view as the textbook tree's, internal iterative
reduction where it searched the node's moves shallower, and the rule that ended it; under its
children, the moves it did not search, by the rule that pruned them.
"""

from __future__ import annotations

from html import escape
from typing import Any

import chess
import chess.svg

from engine.evaluation.score import INFINITY
from engine.teaching.textbook.drawing import CHESS_SCRIPT, CHESS_STYLE, value_text
from engine.teaching.trace import MAX_TRACE_DEPTH, MAX_TRACE_ROWS, TracedSearch, trace_search
from engine.teaching.web.query import board_of

TRACE_STYLE = """
.kind { display: inline-block; min-width: 4.6em; font-size: 11px; color: #fff;
  border-radius: 8px; padding: 0 5px; margin-right: 6px; text-align: center; }
.kind.PV { background: #2b8a3e; } .kind.non-PV { background: #1c7ed6; }
.kind.quiescence { background: #868e96; } .kind.root { background: #212529; }
.depth { color: #495057; display: inline-block; min-width: 3em; font-size: 13px; }
.how { color: #f08c00; font-size: 13px; margin-left: 8px; }
.rulemark { color: #e03131; font-weight: bold; margin-left: 8px; }
.rulemark.end { color: #868e96; font-weight: normal; }
.rulemark.changed { color: #f08c00; }
.pv-line > details > summary .san, .pv-line > span.line .san { color: #2b8a3e; }
"""

# What ended a node without pruning anything: drawn grey, the rules that cut in red.
PLAIN_ENDS = {"stand pat", "draw", "evaluated (ply limit)", "no move (mate or stalemate)",
              "mate distance", "tablebase"}
# The name of how a child was searched, where it says more than its window does.
HOW_MARKS = {"reduced (LMR)": "reduced (LMR)", "again at full depth": "searched again at full depth",
             "again with the window": "searched again with the window"}


def score_text(value: int) -> str:
    """A score as the textbook pictures print it (real minus, mates as #n), ±∞ for the window's
    open ends."""
    if abs(value) >= INFINITY:
        return "∞" if value > 0 else "−∞"
    return value_text(value, signed=True)


def white_view(node: dict[str, Any]) -> tuple[int, int, int]:
    """The node's window and value from White's view (the kernel's are its mover's)."""
    if node["white_to_move"]:
        return node["alpha"], node["beta"], node["value"]
    return -node["beta"], -node["alpha"], -node["value"]


def _label(node: dict[str, Any], siblings: list[dict[str, Any]], index: int) -> str:
    """How the parent searched the node, where it is more than the plain search: LMR, again."""
    how = node["how"]
    if how == "reduced (LMR)":
        again = any(s["move"] == node["move"] and s["how"] != "reduced (LMR)"
                    for s in siblings[index + 1:])
        return "reduced (LMR), searched again" if again else "reduced (LMR)"
    return HOW_MARKS.get(how, "")


def _render(node: dict[str, Any], out: list[str], siblings: list[dict[str, Any]], index: int,
            root: bool) -> None:
    alpha, beta, value = white_view(node)
    name = "root" if root else node["move"] or "razoring's check"
    kind = "root" if root else node["kind"]
    attrs = (f' class="node {"pv-line" if node["kind"] == "PV" else ""}'
             f'{" leaf" if not node["children"] else ""}"'
             f' data-kind="{escape(kind)}" data-rule="{escape(node["rule"])}"'
             f' data-how="{escape(node["how"])}" data-mark="{escape(node["mark"])}"'
             f' data-value="{value}"'
             f' data-alpha="{alpha}" data-beta="{beta}" data-depth="{node["depth"]}"')
    summary = (f'<span class="kind {escape(kind)}">{escape(kind)}</span>'
               f'<span class="san">{escape(name)}</span>'
               f'<span class="depth">d {node["depth"]}</span>'
               f'<span class="window">({score_text(alpha)}, {score_text(beta)})</span>'
               f'<span class="value">{score_text(value)}</span>')
    label = "" if root else _label(node, siblings, index)
    if label:
        summary += f'<span class="how">{escape(label)}</span>'
    if node["mark"]:
        # A rule that changed the node without ending it (internal iterative reduction: no table
        # move, so its moves were searched a ply shallower than its depth on entry; the singular
        # extension: the table's move searched a ply deeper or shallower than the others).
        title = (f'no move from the table: its moves searched shallower than d {node["depth"]}'
                 if node["mark"] == "internal iterative reduction" else
                 "the table's move searched a ply deeper (singular) or shallower than the others")
        summary += (f'<span class="rulemark changed" title="{escape(title)}">'
                    f'{escape(node["mark"])}</span>')
    if node["rule"]:
        plain = " end" if node["rule"] in PLAIN_ENDS else ""
        summary += f'<span class="rulemark{plain}">{escape(node["rule"])}</span>'
    out.append(f"<li{attrs}>")
    if not node["children"] and not node["pruned"]:
        out.append(f'<span class="line">{summary}</span></li>')
        return
    # Open along the principal-variation nodes (few), closed elsewhere.
    is_open = root or node["kind"] == "PV"
    out.append(f"<details{' open' if is_open else ''}><summary>{summary}</summary><ul>")
    for i, child in enumerate(node["children"]):
        _render(child, out, node["children"], i, False)
    out.append("</ul>")
    by_rule: dict[str, list[str]] = {}
    for move in node["pruned"]:
        by_rule.setdefault(move["rule"], []).append(move["move"])
    for rule, moves in by_rule.items():
        what = "not searched after the " + rule if rule == "beta cut-off" else rule
        names = " ".join(f"<s>{escape(m)}</s>" for m in moves)
        out.append(f'<div class="pruned" data-rule="{escape(rule)}"><b>{escape(what)}</b>: '
                   f"{len(moves)} move{'s' if len(moves) != 1 else ''}: {names}</div>")
    out.append("</details></li>")


def trace_page(board: chess.Board, traced: TracedSearch) -> str:
    """The traced search as an HTML page."""
    tree: list[str] = []
    for root in traced.passes:
        _render(root, tree, traced.passes, 0, True)
    pruned = 0
    rules: dict[str, int] = {}
    marks: dict[str, int] = {}
    stack = list(traced.passes)
    while stack:
        node = stack.pop()
        stack += node["children"]
        pruned += len(node["pruned"])
        if node["mark"]:
            marks[node["mark"]] = marks.get(node["mark"], 0) + 1
        for move in node["pruned"]:
            rules[move["rule"]] = rules.get(move["rule"], 0) + 1
    score = traced.score if board.turn == chess.WHITE else -traced.score
    facts = [("Kernel nodes", f"{traced.nodes:,}", "nodes"),
             ("Moves not searched", f"{pruned:,}", "pruned"),
             ("Value (cp, White)", score_text(score), "value"),
             ("Best move", traced.best_move or "none", "best"),
             ("Aspiration passes", str(len(traced.passes)), "passes")]
    facts += [(f"… by {rule}", f"{count:,}", "") for rule, count in sorted(rules.items())]
    facts += [(f"Nodes shallower by {mark}", f"{count:,}", "marked")
              for mark, count in sorted(marks.items())]
    rows = "".join(f'<tr><th>{escape(label)}</th><td class="n" data-key="{key}">'
                   f"{escape(value)}</td></tr>" for label, value, key in facts)
    title = f"Brudno's search, depth {traced.depth}"
    counts = (f' data-depth="{traced.depth}" data-fen="{escape(board.fen())}"'
              f' data-nodes="{traced.nodes}" data-pruned="{pruned}" data-value="{score}"')
    legend = (
        "<p class=\"legend\">The last iteration of Brudno's own search (iterative deepening "
        "from depth 1, a fresh table, the classical evaluation): the root as the Python "
        "search plays it (one per aspiration pass), below it every node of the scout kernel, in "
        "the order searched. Each line: the node's kind (<b>PV</b>: an open window, nothing "
        "pruned; <b>non-PV</b>: a null window, may prune; <b>quiescence</b>: captures past the "
        "horizon), the move that reached it, its depth <i>d</i>, its window (α, β) on entry and "
        "the value it returned, in centipawns from White's view; then how its parent searched "
        "it if not in full (<span class=\"how\">reduced (LMR)</span>: at less depth, "
        "<i>searched again</i> when it beat alpha; <b>null move</b>: the side to move passes), "
        "<span class=\"rulemark changed\">internal iterative reduction</span> where the node, "
        "with no move from the table, searched its moves a ply shallower than its depth "
        "(<span class=\"rulemark changed\">singular extension</span> where it searched the "
        "table's move a ply deeper or shallower than the others), "
        "and the rule that ended it (<span class=\"rulemark\">beta cut-off</span>, table cut, "
        "null move cut-off, reverse futility, razoring, stand pat, …). Under a node's children, "
        "its moves not searched, struck out, by the rule that pruned them (futility, late-move, "
        "SEE and delta pruning) or, after a beta cut-off, never reached.</p>")
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           f"<title>{escape(title)}</title>", f"<style>{CHESS_STYLE}{TRACE_STYLE}</style>",
           f"<script>{CHESS_SCRIPT}</script>", "</head>", "<body>",
           f"<h1>{escape(title)}</h1>", '<div class="top">',
           f'<div class="board">{chess.svg.board(board, size=280)}</div>', "<div>",
           f"<p>FEN <code>{escape(board.fen())}</code></p>",
           f'<table id="counts"{counts}>{rows}</table>', legend,
           '<p><button onclick="fold(true)">Expand all</button>'
           '<button onclick="fold(false)">Collapse all</button></p>',
           "</div>", "</div>", '<ul class="tree">', *tree, "</ul>", "</body>", "</html>"]
    return "\n".join(out) + "\n"


def message_page(message: str) -> str:
    """A page that says why no tree is drawn (shown in the same frame)."""
    return ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>No tree</title><style>{CHESS_STYLE}</style></head><body>"
            f'<p class="note" id="trace-message">{escape(message)}</p></body></html>\n')


def parse_request(query: dict[str, str]) -> tuple[chess.Board, int]:
    """The board and depth of a /trace request; ValueError with the user's message."""
    try:
        depth = int(query.get("depth", "3"))
    except ValueError:
        raise ValueError("the depth must be a number of plies") from None
    if not 1 <= depth <= MAX_TRACE_DEPTH:
        raise ValueError(f"depth {depth} is out of range: the trace draws 1 to "
                         f"{MAX_TRACE_DEPTH} plies")
    return board_of(query), depth


def render_request(query: dict[str, str]) -> tuple[bool, str]:
    """/trace's answer: (whether a tree was drawn, the page). Runs the search (a fraction of a
    second at the depths drawn; the first call loads the kernels)."""
    try:
        board, depth = parse_request(query)
        traced = trace_search(board, depth, MAX_TRACE_ROWS)
    except ValueError as error:  # TraceTooLarge too
        return False, message_page(str(error))
    return True, trace_page(board, traced)
