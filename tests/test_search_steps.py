"""The search kernel's shape: `_search` (engine/search/scout.py) and `quiescence`
(engine/search/quiescence.py) read step by step,
each a flat block, and its helpers (every function of engine/ too) take records, not fields."""

from __future__ import annotations

import ast
import re
from pathlib import Path

SEARCH = Path(__file__).resolve().parents[1] / "engine" / "search"
SCOUT = SEARCH / "scout.py"
QUIESCENCE = SEARCH / "quiescence.py"


def _function(module: Path, name: str) -> ast.FunctionDef:
    tree = ast.parse(module.read_text(encoding="utf-8"))
    return next(node for node in tree.body
                if isinstance(node, ast.FunctionDef) and node.name == name)


def _steps(module: Path, function: ast.FunctionDef) -> list[str]:
    """The step numbers named by the comments inside ``function`` (`# Step 5.`, `# Step Q4a.`)."""
    lines = module.read_text(encoding="utf-8").splitlines()[function.lineno - 1:function.end_lineno]
    return [match.group(1) for line in lines
            for match in [re.search(r"# Steps? (Q?\d+)", line)] if match]


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


def test_search_and_quiescence_nest_no_deeper_than_four_levels():
    # The function's body is level 0, a block inside a block of level 0 is level 1, and so on.
    assert _deepest(_function(SCOUT, "_search").body, 0) <= 4
    assert _deepest(_function(QUIESCENCE, "quiescence").body, 0) <= 4


def test_quiescence_is_its_own_module_and_holds_every_quiescence_step():
    tree_steps = _steps(SCOUT, _function(SCOUT, "_search"))
    quiescence_steps = _steps(QUIESCENCE, _function(QUIESCENCE, "quiescence"))
    assert not [step for step in tree_steps if step.startswith("Q")]
    assert [int(step) for step in tree_steps if step.isdigit()][:2] == [1, 2]
    assert {f"Q{i}" for i in range(1, 7)} <= set(quiescence_steps)
    assert all(step.startswith("Q") for step in quiescence_steps)


def test_no_function_of_the_engine_takes_more_than_eight_arguments():
    # The kernels (the board, the evaluation, the network, the node, the move walk, the tables)
    # take records whole, never their fields one by one; the Python around them as well.
    engine = SEARCH.parent
    modules = sorted(engine.rglob("*.py"))
    assert engine / "board" / "bitboards.py" in modules
    for module in modules:
        tree = ast.parse(module.read_text(encoding="utf-8"))
        for function in ast.walk(tree):
            if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                arguments = function.args
                count = (len(arguments.posonlyargs) + len(arguments.args)
                         + len(arguments.kwonlyargs))
                assert count <= 8, f"{module.relative_to(engine)}: {function.name}"