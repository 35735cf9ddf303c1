"""The search's parameters, each declared once, with their ranges for a tuner of games.

Every number a rule of the search reads is a `Parameter` in PARAMETERS: its value, the value that
switches its rule off, and the range and step a tuner of games may try. From that list follow each
parameter's slot in the `params` array (a module constant of its name: the kernel reads
``params[P.RAZOR + depth - 1]``), the array's length and defaults (KERNEL_PARAMS) and the tests'
no-pruning oracle (`without_pruning`). Numba freezes module globals when it compiles, so the values
travel as that array: a tuner changes them with no recompile. A new rule with a parameter is two
edits: its declaration here and the rule that reads it (tests/test_parameters.py adds one).
The rules that set a node's depth are in engine/search/depth_rules.py; the time rules, which read the
array in Python, in engine/search/timeman.py. This module needs numpy only: the UCI loop imports it at
once, before the kernels load.
"""

from __future__ import annotations

import functools
import os
import sys
from dataclasses import dataclass

import numpy as np

MAX_DEPTH = 100  # the deepest iteration
NEVER = 1 << 30  # a depth, count or margin no search reaches: the value that switches a rule off


@dataclass(frozen=True)
class Parameter:
    """A number of the search. A tuple value is one number per remaining depth from 1 on, in
    consecutive slots (NAME for depth 1, NAME + 1 for depth 2, ...), and NAME_DEPTHS its length."""

    name: str
    value: int | tuple[int, ...]
    off: int  # switches its rule off (equal to ``value`` where it is no rule's switch)
    low: int = 0  # the range and step a tuner may try (step 0: not tuned)
    high: int = 0
    step: int = 0
    prunes: bool = False  # a pruning rule: off in `without_pruning`

    @property
    def values(self) -> tuple[int, ...]:
        return self.value if isinstance(self.value, tuple) else (self.value,)


PARAMETERS = (
    # Quiescence.
    Parameter("RECAPTURES_AFTER", 4, NEVER, 2, 8, 1, prunes=True),  # plies, then only recaptures
    Parameter("DELTA", 200, NEVER, 100, 400, 25, prunes=True),  # a capture this short of alpha ends them
    # Before the moves: razoring (below alpha by this, by depth: quiescence first), reverse
    # futility (above beta by this a ply, up to a depth), null move (from a depth; a reduction of
    # BASE plies, one more per DIVISOR of depth, up to EVAL_MAX more by EVAL_DIVISOR above beta),
    # internal iterative reduction (from a depth, a node without a table move).
    Parameter("RAZOR", (300, 550), NEVER, 150, 800, 25, prunes=True),
    Parameter("REVERSE_FUTILITY", 90, NEVER, 50, 150, 5, prunes=True),
    Parameter("REVERSE_FUTILITY_DEPTH", 6, 0, 3, 9, 1, prunes=True),
    Parameter("NULL_MOVE_DEPTH", 2, NEVER, 1, 4, 1, prunes=True),
    Parameter("NULL_MOVE_BASE", 3, 3, 2, 4, 1),
    Parameter("NULL_MOVE_DEPTH_DIVISOR", 4, 4, 3, 8, 1),
    Parameter("NULL_MOVE_EVAL_MAX", 3, 3, 0, 4, 1),
    Parameter("NULL_MOVE_EVAL_DIVISOR", 200, 200, 100, 400, 25),
    # 1: no null move where the table's upper bound already says the node fails low.
    Parameter("NULL_MOVE_TABLE_GUARD", 1, 0),
    Parameter("IIR_DEPTH", 4, NEVER, 3, 8, 1, prunes=True),
    # Singular extension (from a depth): the table's move searched a ply deeper when every other
    # move stays SINGULAR_MARGIN a ply below the table's score at half the depth; a ply shallower
    # when they do not but the table's score is at least beta; the node fails high when they reach
    # beta themselves (multi-cut).
    Parameter("SINGULAR_DEPTH", 6, NEVER, 4, 10, 1, prunes=True),
    Parameter("SINGULAR_MARGIN", 2, 2, 1, 8, 1),
    # Off the PV, the table's move searched two plies deeper when every other move stays this
    # much below the singular bound.
    Parameter("DOUBLE_EXTENSION", 25, NEVER, 5, 100, 5),
    # Correction history (engine/search/history.py): the static score moved by what searches found
    # it off by, for the same pawns (hundredths of the pawn table's entry) and the same other men
    # of each side.
    Parameter("CORRECTION_PAWN", 100, 0, 0, 200, 10),
    Parameter("CORRECTION_OTHER", 50, 0, 0, 200, 10),
    # "Improving" (the static score above the one two plies back, four if that node was in check):
    # a node that is searches IMPROVING_LATE_MOVES hundredths more quiet moves before late-move
    # pruning and reduces its late moves IMPROVING_REDUCTION plies less; one that is not searches
    # NOT_IMPROVING_LATE_MOVES hundredths fewer and reduces a move it reduces at all
    # NOT_IMPROVING_REDUCTION plies more.
    Parameter("IMPROVING_LATE_MOVES", 0, 0, 0, 100, 10),
    Parameter("NOT_IMPROVING_LATE_MOVES", 33, 0, 0, 60, 5),
    Parameter("IMPROVING_REDUCTION", 0, 0, 0, 2, 1),
    Parameter("NOT_IMPROVING_REDUCTION", 1, 0, 0, 2, 1),
    # In the move loop: futility (static score this short of alpha, by depth), late-move pruning
    # (quiet moves searched before the rest are pruned, by depth), SEE pruning (captures losing
    # more than this a ply, up to a depth), late-move reductions (from a depth and a move number).
    Parameter("FUTILITY", (160, 320), NEVER, 80, 500, 20, prunes=True),
    Parameter("LATE_MOVES", (6, 10, 16, 24, 34, 46), NEVER, 3, 60, 1, prunes=True),
    Parameter("SEE", 100, NEVER, 50, 200, 10, prunes=True),
    Parameter("SEE_DEPTH", 3, 0, 1, 6, 1, prunes=True),
    Parameter("LMR_DEPTH", 3, NEVER, 2, 5, 1),
    Parameter("LMR_MOVES", 3, NEVER, 2, 6, 1),
    Parameter("LMR_BASE", 75, 75, 25, 125, 5),  # hundredths: the table's constant term
    Parameter("LMR_DIVISOR", 190, 190, 120, 300, 10),  # hundredths: log(depth) log(moves) / this
    # The history tables (engine/search/history.py). A cut-off moves every table by
    # min(16 d² + 128 (d - 1), HISTORY_BONUS) (0: the butterfly entries only, by min(d², 400)).
    # CONTINUATION 1: the continuation history one, two and four plies back is read (in the quiet
    # move's score) and written. A late quiet move is reduced a ply less per HISTORY_LMR of its
    # score, more for a bad one (two plies at most either way); at depths to
    # HISTORY_PRUNING_DEPTH a quiet move whose score is below -HISTORY_PRUNING a ply is pruned.
    Parameter("HISTORY_BONUS", 2048, 0, 1024, 4096, 128),
    Parameter("CONTINUATION", 1, 0),
    Parameter("HISTORY_LMR", 8000, NEVER, 4000, 16000, 500),
    Parameter("HISTORY_PRUNING", 4000, NEVER, 1000, 8000, 250, prunes=True),
    Parameter("HISTORY_PRUNING_DEPTH", 3, 0, 1, 5, 1, prunes=True),
    # The root: the aspiration window (cp) from a depth on, widened up to a limit.
    Parameter("ASPIRATION", 30, 30, 10, 60, 5),
    Parameter("ASPIRATION_DEPTH", 4, NEVER, 2, 8, 1),
    Parameter("ASPIRATION_LIMIT", 1000, 1000, 300, 2000, 100),
    # Time (engine/search/timeman.py): a clock without `movestogo` is shared out as if MOVES_TO_GO moves
    # were left; the soft limit (start no new iteration after it) is SOFT_SHARE hundredths of a
    # move's share, times SETTLED_SCALE hundredths while the best move stays put (more as it
    # changes or the score falls). A move's share counts INCREMENT_SHARE hundredths of the
    # increment: above 100, the clock kept in reserve late in a game shrinks towards a few
    # increments.
    Parameter("MOVES_TO_GO", 20, 20, 10, 40, 2),
    Parameter("INCREMENT_SHARE", 150, 150, 50, 200, 10),
    Parameter("SOFT_SHARE", 70, 70, 40, 150, 5),
    Parameter("SETTLED_SCALE", 60, 60, 30, 100, 5),
    # Whole techniques, on in play, off for the techniques table (scripts/studies/alphabeta_table.py).
    Parameter("TABLE_READS", 1, 0),  # 0: no node reads the table (scores or moves)
    Parameter("KILLERS_AND_HISTORY", 1, 0),  # 0: quiet cut-offs are not recorded
    Parameter("QUIESCENCE_PLIES", NEVER, 0),  # 0: the static evaluation at the horizon
    Parameter("PVS", 1, 0),  # 0: a PV node searches every move with the full window
)
# Set for each search by engine/search/root.py (prepare): not tuned, never switched off.
SETTINGS = ("TABLEBASE_MEN", "TABLEBASE_DEPTH", "CHESS960", "NETWORK")

SLOTS: dict[str, int] = {}  # each parameter's first slot, then each setting's
for _parameter in PARAMETERS:
    SLOTS[_parameter.name] = sum(len(p.values) for p in PARAMETERS[:PARAMETERS.index(_parameter)])
    if isinstance(_parameter.value, tuple):
        globals()[f"{_parameter.name}_DEPTHS"] = len(_parameter.values)
for _setting in SETTINGS:
    SLOTS[_setting] = sum(len(p.values) for p in PARAMETERS) + SETTINGS.index(_setting)
globals().update(SLOTS)
PARAMS = len(SLOTS) + sum(len(p.values) - 1 for p in PARAMETERS)
KERNEL_PARAMS = np.zeros(PARAMS, dtype=np.int64)
for _parameter in PARAMETERS:
    _slot = SLOTS[_parameter.name]
    KERNEL_PARAMS[_slot:_slot + len(_parameter.values)] = _parameter.values


def default(name: str) -> int | tuple[int, ...]:
    """The value PARAMETERS declares for ``name``."""
    return next(p.value for p in PARAMETERS if p.name == name)


OVERRIDES = "BRUDNO_PARAMS"  # the environment variable a tuner sets (scripts/matches/spsa.py)


def with_overrides(text: str, kernel_params: np.ndarray = KERNEL_PARAMS) -> np.ndarray:
    """A copy of ``kernel_params`` with the values of ``text`` ("RAZOR=300,550 SEE=90": each
    parameter's name and all its values, within its range or its off value); ValueError naming
    what is wrong, and nothing changed."""
    out = kernel_params.copy()
    for item in text.split():
        name, _, values = item.partition("=")
        parameter = next((p for p in PARAMETERS if p.name == name), None)
        if parameter is None:
            raise ValueError(f"no search parameter {name!r}")
        try:
            numbers = [int(v) for v in values.split(",")]
        except ValueError:
            raise ValueError(f"{item!r}: the values must be integers") from None
        if len(numbers) != len(parameter.values):
            raise ValueError(f"{name} takes {len(parameter.values)} value(s), not {len(numbers)}")
        if parameter.step and not all(parameter.low <= n <= parameter.high or n == parameter.off
                                      for n in numbers):
            raise ValueError(f"{name} must be within {parameter.low}..{parameter.high} "
                             f"(or {parameter.off}: its rule off)")
        out[SLOTS[name]:SLOTS[name] + len(numbers)] = numbers
    return out


def tuned(environ: dict[str, str] | None = None) -> np.ndarray:
    """The parameters a search starts from: the declared ones, with what the BRUDNO_PARAMS
    environment variable overrides (a tuner's; an invalid value is reported on stderr, where it
    cannot disturb UCI, and the declared values are kept)."""
    text = (os.environ if environ is None else environ).get(OVERRIDES, "")
    if not text:
        return KERNEL_PARAMS
    try:
        return with_overrides(text)
    except ValueError as error:
        print(f"brudno: {OVERRIDES} ignored: {error}", file=sys.stderr)
        return KERNEL_PARAMS


@functools.cache
def active() -> np.ndarray:
    """The parameters of this process's searches and clock: `tuned`, read once."""
    return tuned()


def without_pruning(kernel_params: np.ndarray) -> np.ndarray:
    """A copy of ``kernel_params`` with every pruning rule of the kernel switched off (each by its
    `Parameter.off`): razoring, reverse futility, null move, internal iterative reduction, the
    singular extension (and its multi-cut), futility, late-move, SEE and delta pruning, and the
    recaptures-only rule of deep quiescence.
    With reductions of zero too, the kernel searches the plain alpha-beta tree with quiescence
    (the tests' oracle: its value is plain negamax's)."""
    off = kernel_params.copy()
    for parameter in PARAMETERS:
        if parameter.prunes:
            slot = SLOTS[parameter.name]
            off[slot:slot + len(parameter.values)] = parameter.off
    return off
