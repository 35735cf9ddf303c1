"""Pictures of recorded searches (`engine.teaching.textbook.recording`), written by hand as SVG and HTML.

* `tree_svg`: game trees, one panel per search, side by side. Each panel is laid out on the
  whole game tree (minimax's record), so what the search never reached is drawn faint in its
  place. A visited state shows its visit order, its window (alpha, beta) on entry and the
  value it backed up; the move that caused a cutoff is drawn red and the branches it cut
  are crossed out; the principal path is green.
* `tree_page`: the same SVG in an HTML page, with the trace as a table.
* `chess_page`: a chess search as a self-contained HTML page: the board, the counts, and the
  move tree in SAN as nested lists that fold (`<details>`), each node that cut listing the
  moves it pruned.

The output depends only on the records: no dates, no random ids, states in the order of the
search or of the game. Every node and edge carries `data-` attributes (state, order, window,
value) so that tests can read the picture back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

import chess
import chess.svg

from engine.teaching.textbook.recording import MovePath, SearchTrace, TracedNode
from engine.teaching.textbook.search import INFINITY
from engine.evaluation.score import MATE, MATE_BOUND

FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
SLOT = 64  # horizontal room of one leaf
LEVEL = 104  # vertical distance between levels
HALF = 16  # half the size of a node's shape
TOP = 84  # room above the root for the panel's title
MARGIN = 56  # room left of the tree for the MAX/MIN labels
COLOURS = {"edge": "#495057", "pv": "#2b8a3e", "cut": "#e03131", "faint": "#adb5bd",
           "order": "#1c7ed6", "highlight": "#f08c00", "text": "#212529", "name": "#868e96"}


@dataclass
class Panel:
    """One search drawn over the game tree of `full` (a minimax record: every state)."""

    title: str
    search: SearchTrace
    full: SearchTrace
    windows: bool = True  # minimax has no window to show
    highlight: frozenset[MovePath] = frozenset()  # states to make stand out
    highlight_note: str = ""


def value_text(value: int, signed: bool = False) -> str:
    """A value as printed in the pictures: a real minus sign, infinity, mates as #n / #-n."""
    if abs(value) >= INFINITY:
        return "∞" if value > 0 else "−∞"
    if MATE_BOUND < abs(value) <= MATE:
        moves = (MATE - abs(value) + 1) // 2  # MATE - plies, counted in full moves
        return f"#{moves}" if value > 0 else f"#−{moves}"
    text = str(abs(value))
    if value < 0:
        return "−" + text
    return "+" + text if signed and value > 0 else text


def node_value_text(node: TracedNode, signed: bool = False) -> str:
    """The backed-up value with its bound: ≤ for at most, ≥ for at least (fail-hard)."""
    bound = {"<=": "≤", ">=": "≥"}[node.bound] if node.bound else ""
    return bound + value_text(node.value, signed)


def window_text(node: TracedNode, signed: bool = False) -> str:
    return f"({value_text(node.alpha, signed)}, {value_text(node.beta, signed)})"


def _attrs(attrs: dict[str, Any]) -> str:
    return "".join(f' {key}="{escape(str(value))}"' for key, value in attrs.items()
                   if value is not None)


def _text(x: float, y: float, text: str, size: float, colour: str = COLOURS["text"],
          anchor: str = "middle", weight: str | None = None, halo: bool = False,
          **extra: Any) -> str:
    # A white halo keeps a label readable where it crosses an edge.
    halo_attrs = {"stroke": "#fff", "stroke-width": 3, "paint-order": "stroke"} if halo else {}
    attrs = {"x": f"{x:g}", "y": f"{y:g}", "font-size": size, "fill": colour,
             "text-anchor": anchor, "font-weight": weight, **halo_attrs, **extra}
    return f"<text{_attrs(attrs)}>{escape(text)}</text>"


def _line(x1: float, y1: float, x2: float, y2: float, colour: str, width: float,
          dashed: bool = False) -> str:
    return (f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" stroke="{colour}" '
            f'stroke-width="{width:g}"' + (' stroke-dasharray="5 4"' if dashed else "") + "/>")


def _shape(x: float, y: float, first_player: bool, fill: str, stroke: str,
           dashed: bool = False, width: float = 1.6) -> str:
    """MAX as a square, MIN as a circle."""
    style = (f'fill="{fill}" stroke="{stroke}" stroke-width="{width:g}"'
             + (' stroke-dasharray="3 3"' if dashed else ""))
    if first_player:
        return (f'<rect x="{x - HALF:g}" y="{y - HALF:g}" width="{2 * HALF}" '
                f'height="{2 * HALF}" rx="2" {style}/>')
    return f'<circle cx="{x:g}" cy="{y:g}" r="{HALF + 1}" {style}/>'


def _path_text(path: MovePath) -> str:
    """A state's moves from the root, as an attribute: unique where names repeat."""
    return " ".join(str(move) for move in path)


def layout(full: SearchTrace) -> dict[MovePath, tuple[float, float]]:
    """x, y of every state: leaves one slot apart in the game's order, parents centred above
    their children, one level per ply."""
    places: dict[MovePath, tuple[float, float]] = {}
    leaves = 0

    def place(node: TracedNode, depth: int) -> float:
        nonlocal leaves
        if node.children:
            xs = [place(child, depth + 1) for child in node.children]
            x = (xs[0] + xs[-1]) / 2
        else:
            x = leaves * SLOT + SLOT / 2
            leaves += 1
        places[node.path] = (x, depth * LEVEL)
        return x

    place(full.root, 0)
    return places


def _panel_svg(index: int, panel: Panel, name: Callable[[MovePath], str],
               move_label: Callable[[Any], str] | None, signed: bool,
               left: float) -> tuple[str, float, float]:
    """The SVG of one panel at x offset `left`; also its width and height."""
    places = layout(panel.full)
    width = max(x for x, _ in places.values()) + SLOT / 2 + MARGIN + 8
    depth = max(len(path) for path in places)
    visited = panel.search.by_path()
    pv = {node.path for node in panel.search.principal_path()}
    full = panel.full.by_path()

    def at(path: MovePath) -> tuple[float, float]:
        x, y = places[path]
        return left + MARGIN + x, TOP + y

    out = [f'<g class="panel" id="panel-{index}"{_attrs({"data-title": panel.title})}>']
    result = panel.search.result
    best = name((result.best_move,)) if result.best_move is not None else "none"
    cutoffs = result.counters.cutoffs
    summary = (f"value {value_text(result.value, signed)}, best move to {best}; "
               f"{len(visited)} of {len(full)} states visited, "
               f"{len(full) - len(visited)} never reached, {cutoffs} cutoff"
               + ("" if cutoffs == 1 else "s"))
    out.append(_text(left + MARGIN, 26, panel.title, 17, anchor="start", weight="bold"))
    out.append(_text(left + MARGIN, 48, summary, 13, anchor="start"))

    # Which player moves on each level, from the states on it (they alternate).
    for level in range(depth + 1):
        players = {node.first_player for node in panel.full.nodes if len(node.path) == level}
        label = "MAX" if players == {True} else "MIN" if players == {False} else ""
        out.append(_text(left + 8, TOP + level * LEVEL + 4, label, 12, COLOURS["name"],
                         anchor="start", weight="bold"))

    # Edges first, so that the nodes are drawn over them.
    for node in panel.full.nodes:
        for child in node.children:
            out.append(_edge(node, child, visited, pv, at, name, move_label))
    for node in panel.full.nodes:
        out.append(_node(node, visited.get(node.path), panel, pv, at, name, signed))
    out.append("</g>")
    height = TOP + depth * LEVEL + 64
    return "\n".join(out), width, height


def _edge(parent: TracedNode, child: TracedNode, visited: dict[MovePath, TracedNode],
          pv: set[MovePath], at: Callable[[MovePath], tuple[float, float]],
          name: Callable[[MovePath], str], move_label: Callable[[Any], str] | None) -> str:
    (x1, y1), (x2, y2) = at(parent.path), at(child.path)
    y1, y2 = y1 + HALF + 1, y2 - HALF - 1
    searched_parent = visited.get(parent.path)
    if child.path in visited:
        refuted = searched_parent.cutoff and searched_parent.children[-1].path == child.path
        kind = "pv" if child.path in pv else "cutoff" if refuted else "searched"
    elif searched_parent is not None:
        kind = "pruned"  # the parent was searched and cut this branch off
    else:
        kind = "unreached"
    colour, width = {"pv": (COLOURS["pv"], 4), "cutoff": (COLOURS["cut"], 2.5),
                     "searched": (COLOURS["edge"], 1.6), "pruned": (COLOURS["faint"], 1.4),
                     "unreached": (COLOURS["faint"], 1.2)}[kind]
    attrs = {"class": f"edge {kind}", "data-from": name(parent.path),
             "data-to": name(child.path)}
    out = [f"<g{_attrs(attrs)}>", _line(x1, y1, x2, y2, colour, width,
                                        dashed=kind in ("pruned", "unreached"))]
    if kind == "pruned":
        # Cross the branch out below the parent's window, where the cutoff stopped the search.
        cx, cy, r = x1 + (x2 - x1) * 0.4, y1 + (y2 - y1) * 0.4, 7
        out += [_line(cx - r, cy - r, cx + r, cy + r, COLOURS["cut"], 3),
                _line(cx - r, cy + r, cx + r, cy - r, COLOURS["cut"], 3),
                f"<title>{escape(name(child.path))}: cut off, never searched</title>"]
    if kind == "cutoff":
        # The cutoff is marked on the edge of the move that caused it, below the parent's
        # window: MAX reached beta (a beta cutoff), MIN fell to alpha.
        cut = "β-cut" if searched_parent.first_player else "α-cut"
        out.append(_text(x1 + (x2 - x1) * 0.74, y1 + (y2 - y1) * 0.74 + 4, cut, 11,
                         COLOURS["cut"], weight="bold", halo=True))
    if move_label is not None:
        mx, my = x1 + (x2 - x1) * 0.56, y1 + (y2 - y1) * 0.56
        side = -1 if x2 < x1 else 1
        out.append(_text(mx + side * 7, my, move_label(child.move), 11,
                         COLOURS["name"] if kind in ("pruned", "unreached") else COLOURS["text"],
                         anchor="start" if side > 0 else "end", halo=True))
    out.append("</g>")
    return "\n".join(out)


def _node(full: TracedNode, node: TracedNode | None, panel: Panel, pv: set[MovePath],
          at: Callable[[MovePath], tuple[float, float]], name: Callable[[MovePath], str],
          signed: bool) -> str:
    x, y = at(full.path)
    label = name(full.path)
    if node is None:
        attrs = {"class": "node unreached", "data-name": label,
                 "data-path": _path_text(full.path), "data-state": "unreached"}
        out = [f"<g{_attrs(attrs)}>",
               _shape(x, y, full.first_player, "#f8f9fa", COLOURS["faint"], dashed=True),
               _text(x + HALF + 3, y - HALF + 1, label, 10, COLOURS["faint"], anchor="start")]
        if full.is_leaf:  # the leaf's value is part of the game, shown faint
            out.append(_text(x, y + 5, value_text(full.value, signed), 13, COLOURS["faint"]))
        out.append(f"<title>{escape(label)}: never reached</title></g>")
        return "\n".join(out)

    attrs = {"class": "node visited" + (" pv" if node.path in pv else ""),
             "data-name": label, "data-path": _path_text(node.path), "data-state": "visited",
             "data-order": node.order,
             "data-alpha": node.alpha if panel.windows else None,
             "data-beta": node.beta if panel.windows else None,
             "data-value": node.value, "data-bound": node.bound or None,
             "data-cutoff": 1 if node.cutoff else None,
             "data-highlight": 1 if node.path in panel.highlight else None}
    out = [f"<g{_attrs(attrs)}>"]
    if node.path in panel.highlight:
        out.append(f'<circle cx="{x:g}" cy="{y:g}" r="{HALF + 6}" fill="none" '
                   f'stroke="{COLOURS["highlight"]}" stroke-width="4"/>')
        out.append(_text(x, y + HALF + 36, panel.highlight_note, 12, COLOURS["highlight"],
                         weight="bold", halo=True))
    stroke = COLOURS["pv"] if node.path in pv else COLOURS["text"]
    fill = "#ebfbee" if node.path in pv else "#fff"
    out.append(_shape(x, y, node.first_player, fill, stroke, width=2.4 if node.path in pv else 1.6))
    value = node_value_text(node, signed)
    out.append(_text(x, y + 5, value, 13 if len(value) < 3 else 11.5, weight="bold"))
    # The visit order in a blue badge at the top left, the state's name at the top right.
    bx, by = x - HALF - 4, y - HALF - 4
    out.append(f'<circle cx="{bx:g}" cy="{by:g}" r="9" fill="{COLOURS["order"]}"/>')
    out.append(_text(bx, by + 3.5, str(node.order), 10, "#fff", weight="bold"))
    out.append(_text(x + HALF + 3, y - HALF + 1, label, 10, COLOURS["name"], anchor="start"))
    if panel.windows:
        out.append(_text(x, y + HALF + 17, window_text(node, signed), 11, halo=True))
    tip = f"{label}: visited {node.order}."
    if panel.windows:
        tip += f" window {window_text(node, signed)},"
    tip += f" value {node_value_text(node, signed)}"
    if node.pruned:
        tip += f"; cutoff: {', '.join(name(node.path + (m,)) for m in node.pruned)} not searched"
    out.append(f"<title>{escape(tip)}</title></g>")
    return "\n".join(out)


def _legend(y: float, windows: bool, name_legend: str, width: float) -> tuple[str, float]:
    """The legend in rows that fit `width`; also the y below it. Symbols are drawn around
    (14, 0) and moved into place."""
    items = [
        (_shape(14, 0, True, "#fff", COLOURS["text"]), "MAX to move"),
        (_shape(14, 0, False, "#fff", COLOURS["text"]), "MIN to move"),
        (f'<circle cx="14" cy="0" r="9" fill="{COLOURS["order"]}"/>'
         + _text(14, 3.5, "7", 10, "#fff", weight="bold"), "visit order"),
        (_text(14, 5, "≤4", 13, weight="bold"), "value backed up (≤ at most, ≥ at least)"),
        (_text(14, 4, "3", 10, COLOURS["name"]), name_legend),
    ]
    if windows:
        items.append((_text(14, 4, "(α, β)", 11), "window on entry"))
    items += [
        (_line(0, 0, 28, 0, COLOURS["pv"], 4), "principal path"),
        (_line(0, 0, 28, 0, COLOURS["cut"], 2.5), "move that caused the cutoff"),
        (_line(0, 0, 28, 0, COLOURS["faint"], 1.4, dashed=True)
         + _line(7, -7, 21, 7, COLOURS["cut"], 3)
         + _line(7, 7, 21, -7, COLOURS["cut"], 3), "branch cut off"),
        (_shape(14, 0, True, "#f8f9fa", COLOURS["faint"], dashed=True), "never reached"),
    ]
    out, x = ['<g class="legend">'], 20.0
    for symbol, text in items:
        room = 36 + 7.2 * len(text) + 22  # 7.2 px: a generous mean width of a 12 px letter
        if x + room > width:
            x, y = 20.0, y + 40
        out.append(f'<g transform="translate({x:g},{y:g})">{symbol}'
                   + _text(36, 4, text, 12, anchor="start") + "</g>")
        x += room
    out.append("</g>")
    return "\n".join(out), y + 24


def tree_svg(panels: Sequence[Panel], name: Callable[[MovePath], str],
             move_label: Callable[[Any], str] | None = None, signed: bool = False,
             caption: str = "", name_legend: str = "state") -> str:
    """The panels side by side in one SVG document.

    `name(path)` names a state (the lecture's position number, the matches left), and
    `name_legend` says what the name is; `move_label(move)`, if given, labels the edges;
    `signed` prints values as +1/−1.
    """
    parts, left, height = [], 0.0, 0.0
    for index, panel in enumerate(panels):
        svg, width, panel_height = _panel_svg(index, panel, name, move_label, signed, left)
        parts.append(svg)
        left += width + 24
        height = max(height, panel_height)
    width = max(left - 24, 1000)
    if caption:
        parts.append(_text(20, height + 4, caption, 12, anchor="start"))
        height += 20
    legend, height = _legend(height + 24, any(panel.windows for panel in panels), name_legend,
                             width)
    parts.append(legend)
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}" height="{height:g}" '
            f'viewBox="0 0 {width:g} {height:g}" font-family="{FONT}">')
    background = f'<rect width="{width:g}" height="{height:g}" fill="#fff"/>'
    return "\n".join([head, background, *parts, "</svg>"]) + "\n"


PAGE_STYLE = """
body { font-family: DejaVu Sans, Verdana, Arial, sans-serif; margin: 24px; color: #212529; }
h1 { font-size: 22px; } table { border-collapse: collapse; margin: 8px 0 16px; }
td, th { border: 1px solid #dee2e6; padding: 3px 8px; text-align: right; font-size: 13px; }
th { background: #f1f3f5; } .cut { color: #e03131; font-weight: bold; }
svg { max-width: 100%; height: auto; }
"""


def tree_page(svg: str, panels: Sequence[Panel], name: Callable[[MovePath], str],
              title: str, intro: str = "", signed: bool = False) -> str:
    """An HTML page with the picture and, per panel, the trace as a table."""
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           f"<title>{escape(title)}</title>", f"<style>{PAGE_STYLE}</style>", "</head>",
           "<body>", f"<h1>{escape(title)}</h1>"]
    if intro:
        out.append(f"<p>{escape(intro)}</p>")
    out.append(svg)
    for panel in panels:
        out.append(f"<h2>{escape(panel.title)}</h2>")
        header = "<th>visit</th><th>state</th><th>to move</th>"
        header += "<th>α</th><th>β</th>" if panel.windows else ""
        header += "<th>value</th><th>cut off</th>"
        out.append(f"<table><tr>{header}</tr>")
        for node in panel.search.nodes:
            cells = [str(node.order), name(node.path), "MAX" if node.first_player else "MIN"]
            if panel.windows:
                cells += [value_text(node.alpha, signed), value_text(node.beta, signed)]
            cells.append(node_value_text(node, signed))
            pruned = " ".join(name(node.path + (move,)) for move in node.pruned)
            cells.append(("cutoff" + (f": {pruned}" if pruned else "")) if node.cutoff else "")
            row = "".join(f"<td>{escape(cell)}</td>" for cell in cells[:-1])
            row += f'<td class="cut">{escape(cells[-1])}</td>'
            out.append(f"<tr>{row}</tr>")
        out.append("</table>")
    out += ["</body>", "</html>"]
    return "\n".join(out) + "\n"


CHESS_STYLE = """
body { font-family: DejaVu Sans, Verdana, Arial, sans-serif; margin: 24px; color: #212529; }
h1 { font-size: 22px; } .top { display: flex; gap: 32px; align-items: flex-start; }
table { border-collapse: collapse; } td, th { border: 1px solid #dee2e6; padding: 3px 8px;
  font-size: 14px; text-align: left; } td.n { text-align: right; }
ul.tree, ul.tree ul { list-style: none; padding-left: 22px; margin: 0; }
ul.tree { padding-left: 0; margin-top: 12px; }
li.node { margin: 1px 0; font-size: 14px; }
li.node > span.line, summary { white-space: nowrap; }
summary { cursor: pointer; list-style: none; }
summary::-webkit-details-marker { display: none; }
summary::before, li.leaf > span.line::before { content: "▸"; display: inline-block;
  width: 1.1em; color: #495057; }
details[open] > summary::before { content: "▾"; }
li.leaf > span.line::before { content: ""; }
.order { display: inline-block; min-width: 2.6em; text-align: right; color: #fff;
  background: #1c7ed6; border-radius: 8px; padding: 0 5px; font-size: 11px; margin-right: 6px; }
.san { font-weight: bold; display: inline-block; min-width: 6.5em; }
.window { color: #495057; display: inline-block; min-width: 9em; }
.value { font-weight: bold; }
.pv > details > summary .san, .pv > span.line .san { color: #2b8a3e; }
.pv > details > summary .value, .pv > span.line .value { color: #2b8a3e; }
.cutmark { color: #e03131; font-weight: bold; margin-left: 8px; }
.refutes .san { text-decoration: underline #e03131 2px; }
.pruned { color: #868e96; font-size: 13px; margin: 2px 0 4px 22px; white-space: normal; }
.pruned b { color: #e03131; }
.pruned s { text-decoration-color: #e03131; }
.legend { color: #495057; font-size: 13px; max-width: 60em; }
button { margin-right: 6px; }
"""

# Folding needs no script (<details>); these buttons open or close all nodes at once, and
# the address ending in #all opens the page unfolded.
CHESS_SCRIPT = """
function fold(open) { document.querySelectorAll('details').forEach(d => d.open = open); }
function showPv() {
  document.querySelectorAll('details').forEach(
    d => d.open = d.parentElement.classList.contains('pv'));
}
document.addEventListener('DOMContentLoaded', () => { if (location.hash === '#all') fold(true); });
"""


def _move_number(board: chess.Board) -> str:
    return f"{board.fullmove_number}." if board.turn == chess.WHITE else \
        f"{board.fullmove_number}…"


def chess_page(board: chess.Board, search: SearchTrace, depth: int, algorithm: str) -> str:
    """The recorded chess search as an HTML page; values in centipawns from White's view.

    `algorithm` names the table row of `scripts/studies/alphabeta_table.py` the search is; the page
    shows its counts, which must be that row's.
    """
    root = search.root
    result = search.result
    counters = result.counters
    pv_nodes = search.principal_path()
    pv = {node.path for node in pv_nodes}
    pruned_total = sum(len(node.pruned) for node in search.nodes)

    # The principal variation in SAN.
    line_board, line = board.copy(), []
    for node in pv_nodes[1:]:
        line.append(f"{_move_number(line_board)} {line_board.san(node.move)}")
        line_board.push(node.move)

    def render(node: TracedNode, board: chess.Board, out: list[str], san: str,
               refutes: bool) -> None:
        """`node`'s list item, with `board` in its position, reached by `san`; `refutes`:
        the move caused its parent's cutoff."""
        classes = ["node", "max" if node.first_player else "min"]
        classes += ["leaf"] if node.is_leaf else []
        classes += ["pv"] if node.path in pv else []
        classes += ["cutoff"] if node.cutoff else []
        classes += ["refutes"] if refutes else []
        attrs = {"class": " ".join(classes), "data-order": node.order,
                 "data-san": san.split()[-1], "data-alpha": node.alpha, "data-beta": node.beta,
                 "data-value": node.value, "data-bound": node.bound or None,
                 "data-pruned": len(node.pruned) if node.cutoff else None}
        summary = (f'<span class="order">{node.order}</span>'
                   f'<span class="san">{escape(san)}</span>'
                   f'<span class="window">{escape(window_text(node, True))}</span>'
                   f'<span class="value">{escape(node_value_text(node, True))}</span>')
        if node.cutoff:
            kind = "β" if node.first_player else "α"  # MAX reached beta, MIN fell to alpha
            summary += f'<span class="cutmark">{kind}-cutoff</span>'
        out.append(f"<li{_attrs(attrs)}>")
        if node.is_leaf:
            out.append(f'<span class="line">{summary}</span></li>')
            return
        # Closed except along the principal variation; the root is always on it.
        out.append(f"<details{' open' if node.path in pv else ''}>"
                   f"<summary>{summary}</summary><ul>")
        for child in node.children:
            child_san = f"{_move_number(board)} {board.san(child.move)}"
            board.push(child.move)
            render(child, board, out, child_san, node.cutoff and child is node.children[-1])
            board.pop()
        out.append("</ul>")
        if node.cutoff:
            refuter = escape(board.san(node.children[-1].move))
            if node.pruned:
                names = " ".join(f"<s>{escape(board.san(move))}</s>" for move in node.pruned)
                plural = "s" if len(node.pruned) != 1 else ""
                out.append(f'<div class="pruned"><b>cutoff</b> after {refuter}: '
                           f"{len(node.pruned)} move{plural} pruned: {names}</div>")
            else:
                out.append(f'<div class="pruned"><b>cutoff</b> after {refuter}, the last '
                           "move: nothing left to prune</div>")
        out.append("</details></li>")

    tree: list[str] = []
    render(root, board.copy(), tree, "root", False)

    facts = [
        ("Positions visited", f"{counters.nodes:,}", "nodes"),
        ("Evaluations (leaves)", f"{counters.evaluations:,}", "evaluations"),
        ("Cutoffs", f"{counters.cutoffs:,}", "cutoffs"),
        ("Moves pruned", f"{pruned_total:,}", "pruned"),
    ]
    rows = "".join(f'<tr><th>{label}</th><td class="n" id="{key}">{value}</td></tr>'
                   for label, value, key in facts)
    best = board.san(result.best_move) if result.best_move else "none"
    rows += (f'<tr><th>Value (cp, White)</th><td class="n">{value_text(result.value, True)}'
             "</td></tr>")
    rows += f"<tr><th>Best move</th><td>{escape(best)}</td></tr>"
    rows += f"<tr><th>Principal variation</th><td>{escape(' '.join(line))}</td></tr>"
    counts = {"data-algorithm": algorithm, "data-depth": depth, "data-fen": board.fen(),
              "data-nodes": counters.nodes, "data-evaluations": counters.evaluations,
              "data-cutoffs": counters.cutoffs, "data-pruned": pruned_total}
    title = f"{algorithm}, depth {depth}"
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           f"<title>{escape(title)}</title>", f"<style>{CHESS_STYLE}</style>",
           f"<script>{CHESS_SCRIPT}</script>", "</head>", "<body>",
           f"<h1>{escape(title)}</h1>", '<div class="top">',
           f'<div class="board">{chess.svg.board(board, size=280)}</div>', "<div>",
           f"<p>FEN <code>{escape(board.fen())}</code></p>",
           f"<table{_attrs({'id': 'counts', **counts})}>{rows}</table>",
           f'<p class="legend">The same search as the row <b>{escape(algorithm)}</b> of '
           "<code>scripts/studies/alphabeta_table.py</code> for this position and depth, so its "
           "evaluations and cutoffs are the row's.</p>",
           '<p class="legend">Each line: <span class="order">7</span> the visit order, the '
           "move in SAN, the window (α, β) on entry and the value backed up, in centipawns "
           "from White's view (≤: at most, ≥: at least; #n: mate in n). White maximises, "
           "Black minimises. At the horizon a position gets its static evaluation, even a "
           "mate (only a game that ends above the horizon scores as mate). Green: the "
           "principal variation. A node whose value left its window shows a "
           '<span class="cutmark">cutoff</span>; under its children, the move that caused '
           "it and the moves it never searched, struck out.</p>",
           '<p><button onclick="fold(true)">Expand all</button>'
           '<button onclick="fold(false)">Collapse all</button>'
           '<button onclick="showPv()">Principal variation</button></p>',
           "</div>", "</div>", '<ul class="tree">', *tree, "</ul>", "</body>", "</html>"]
    return "\n".join(out) + "\n"
