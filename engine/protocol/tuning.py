"""The tuning build: the search's tuned parameters as UCI options, for a tuner that sets options.

With TUNE on, every parameter of engine/search/params.py that has a step becomes a spin option over its
range (a tuple-valued one gives an option per depth slot: RAZOR_1, RAZOR_2), and setting one
changes what the search uses through the same path as the BRUDNO_PARAMS variable
(params.with_overrides). OpenBench's SPSA sends each of its inputs as `setoption name N value V`:
`python -m engine spsa-inputs` prints those inputs (docs/openbench.md). TUNE is off in play, so
that a GUI does not show thirty knobs; a branch to be tuned turns it on in its source.
"""

from __future__ import annotations

import os

from engine.search import params

TUNE = False

R_END = 0.002  # r_end: the customary value (OpenBench takes any positive one)


def option_names(parameter: params.Parameter) -> list[str]:
    """The UCI option names of ``parameter``: its name, or NAME_1.. for each depth slot."""
    if isinstance(parameter.value, tuple):
        return [f"{parameter.name}_{i}" for i in range(1, len(parameter.value) + 1)]
    return [parameter.name]


def tuned_parameters() -> list[params.Parameter]:
    return [p for p in params.PARAMETERS if p.step > 0]


def slots() -> dict[str, tuple[params.Parameter, int]]:
    """Each option name's parameter and its index among the parameter's values."""
    return {name: (parameter, index) for parameter in tuned_parameters()
            for index, name in enumerate(option_names(parameter))}


def spins() -> list[tuple[str, int, int, int, str]]:
    """The spin options of the tuning build, as (name, default, min, max, help): the defaults are
    the values the search starts from."""
    current = params.active()
    return [(name, int(current[params.SLOTS[p.name] + i]), p.low, p.high,
             f"search parameter {p.name} (engine/search/params.py)")
            for name, (p, i) in slots().items()]


def set_value(name: str, value: int) -> None:
    """Makes the search use ``value`` for the option ``name``: the change is written into
    BRUDNO_PARAMS (whose text `params.tuned` reads) and params.active's cache is dropped, so that
    searches, the clock and helper processes started later all see it."""
    parameter, index = slots()[name]
    current = params.active()
    slot = params.SLOTS[parameter.name]
    values = [int(v) for v in current[slot:slot + len(parameter.values)]]
    values[index] = value
    overrides = {item.partition("=")[0]: item
                 for item in os.environ.get(params.OVERRIDES, "").split()}
    overrides[parameter.name] = f"{parameter.name}={','.join(map(str, values))}"
    text = " ".join(overrides.values())
    params.with_overrides(text)  # raises ValueError (and changes nothing) if it is out of range
    os.environ[params.OVERRIDES] = text
    params.active.cache_clear()


def c_end(parameter: params.Parameter) -> float:
    """The perturbation at the end of an SPSA run: one step of the parameter, where
    scripts/spsa.py's c_k = 2 / k^0.101 ends after a couple of thousand iterations."""
    return float(parameter.step)


def spsa_inputs() -> list[str]:
    """OpenBench's SPSA input lines, `name, int, value, min, max, c_end, r_end`, one an option."""
    current = params.active()
    return [f"{name}, int, {int(current[params.SLOTS[p.name] + i])}, {p.low}, {p.high}, "
            f"{c_end(p)}, {R_END}" for name, (p, i) in slots().items()]
