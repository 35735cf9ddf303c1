"""The search kernel's shape (engine/search/scout.py): `_search` reads step by step, each a flat block."""

from __future__ import annotations

import ast
from pathlib import Path

SCOUT = Path(__file__).resolve().parents[1] / "engine" / "search" / "scout.py"


def _search_kernel() -> ast.FunctionDef:
    tree = ast.parse(SCOUT.read_text(encoding="utf-8"))
    return next(node for node in tree.body
                if isinstance(node, ast.FunctionDef) and node.name == "_search")


def _is_elif(block: list[ast.stmt], parent: ast.If) -> bool:
    # An `elif` is an `if` alone in its parent's `else`, at the parent's indentation.
    return (len(block) == 1 and isinstance(block[0], ast.If)
            and block[0].col_offset == parent.col_offset)


def _deepest(block: list[ast.stmt], level: int) -> int:
    """The deepest level of the statements of ``block`` (at ``level``) and of those inside them."""
    deepest = level
    for statement in block:
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(statement, field, None)
            if not inner:
                continue
            elif_ = (field == "orelse" and isinstance(statement, ast.If)
                     and _is_elif(inner, statement))
            deepest = max(deepest, _deepest(inner, level if elif_ else level + 1))
        for handler in getattr(statement, "handlers", ()):
            deepest = max(deepest, _deepest(handler.body, level + 1))
    return deepest


def test_nesting_measure_counts_blocks_inside_blocks():
    function = ast.parse("def f():\n    a = 1\n    while a:\n        if a:\n            b = 2\n"
                         "        elif b:\n            c = 3\n        else:\n            if c:\n"
                         "                d = 4\n").body[0]
    assert _deepest(function.body, 0) == 3


def test_search_kernel_nests_no_deeper_than_four_levels():
    # The function's body is level 0, a block inside a block of level 0 is level 1, and so on.
    assert _deepest(_search_kernel().body, 0) <= 4
