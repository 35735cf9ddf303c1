"""The search's parameters (engine/search/params.py): one declaration each, overrides, the SPSA step."""

from __future__ import annotations

import pytest

from engine.search import params


def test_a_new_parameter_is_one_declaration_from_which_its_slot_defaults_and_oracle_follow(
        tmp_path, monkeypatch):
    # The first of the two edits a new rule needs (the second is the rule reading
    # params[P.NEW_MARGIN]): its declaration in PARAMETERS. Everything else follows from it.
    import sys
    import types

    import engine.search.params as params

    code = open(params.__file__).read().replace(
        "PARAMETERS = (\n",
        'PARAMETERS = (\n    Parameter("NEW_MARGIN", (70, 140), NEVER, 10, 300, 10, prunes=True),\n', 1)
    assert "NEW_MARGIN" in code
    path = tmp_path / "params_with_a_new_parameter.py"
    path.write_text(code)
    added = types.ModuleType("params_with_a_new_parameter")
    added.__file__ = str(path)
    monkeypatch.setitem(sys.modules, added.__name__, added)
    exec(compile(code, str(path), "exec"), added.__dict__)
    assert added.NEW_MARGIN == 0 and added.NEW_MARGIN_DEPTHS == 2
    assert added.PARAMS == params.PARAMS + 2
    assert added.KERNEL_PARAMS[:2].tolist() == [70, 140]
    assert added.KERNEL_PARAMS[2:].tolist() == params.KERNEL_PARAMS.tolist()  # the rest moved
    for name in ("RAZOR", "TABLEBASE_MEN", "PVS"):
        assert getattr(added, name) == getattr(params, name) + 2
    assert added.without_pruning(added.KERNEL_PARAMS)[:2].tolist() == [params.NEVER] * 2


def test_parameter_overrides_set_declared_values_and_refuse_bad_ones():
    import engine.search.params as params

    tuned = params.with_overrides("RAZOR=310,560 SEE=90")
    assert tuned[params.RAZOR:params.RAZOR + 2].tolist() == [310, 560] and tuned[params.SEE] == 90
    assert (tuned[params.SEE + 1:] == params.KERNEL_PARAMS[params.SEE + 1:]).all()
    for bad in ("RAZR=3", "RAZOR=300", "SEE=ninety", "NULL_MOVE_DEPTH_DIVISOR=0"):
        with pytest.raises(ValueError):
            params.with_overrides(bad)
    assert params.with_overrides(f"NULL_MOVE_DEPTH={params.NEVER}")[params.NULL_MOVE_DEPTH] == params.NEVER
    assert params.tuned({"BRUDNO_PARAMS": "SEE=ninety"}) is params.KERNEL_PARAMS
    assert params.tuned({"BRUDNO_PARAMS": "SEE=90"})[params.SEE] == 90


def test_the_spsa_step_moves_values_towards_the_side_that_won_within_their_ranges():
    from scripts.matches import spsa

    parameters = spsa.tuned_parameters(["SEE", "RAZOR"])
    values = {"RAZOR": [300.0, 550.0], "SEE": [100.0]}
    signs = {"RAZOR": [1, -1], "SEE": [1]}
    plus = spsa.perturbed(values, signs, 2.0, parameters, +1)
    assert plus == {"RAZOR": [350.0, 500.0], "SEE": [120.0]}  # two steps of 25 and of 10
    won = spsa.update(values, signs, 0.5, 2.0, +2, parameters)
    assert won["RAZOR"][0] > 300 and won["RAZOR"][1] < 550 and won["SEE"][0] > 100
    capped = spsa.update(values, signs, 100.0, 2.0, +2, parameters)
    assert capped["SEE"] == [200]  # SEE's range ends at 200
    assert spsa.overrides(won) == f"RAZOR={round(won['RAZOR'][0])},{round(won['RAZOR'][1])} SEE={round(won['SEE'][0])}"
