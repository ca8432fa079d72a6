"""The ``controlled_rounding`` table method in a recipe: the released table is rounded,
additive, and the office's copy keeps the original values."""

import pandas as pd
import pytest

from sdcflow import run
from sdcflow.errors import PluginError
from sdcflow.plugins import registry
from sdcflow.plugins.registry import declaration_problems
from sdcflow.plugins.testing import explain_problems

RECIPE = """
    sdcflow: 1
    name: rounding
    seed: 1
    data: {path: people.csv}
    variables:
      region: {role: key}
      sex: {role: key}
    tables:
      - {id: counts, dims: [region, sex]}
    steps:
      - {id: round, method: controlled_rounding, table: counts, params: {base: BASE}}
    release: {tables: {counts: counts.csv}}
"""


def people(tmp_path, counts: dict) -> None:
    rows = [{"region": r, "sex": s} for (r, s), n in counts.items() for _ in range(n)]
    pd.DataFrame(rows).to_csv(tmp_path / "people.csv", index=False)


def test_the_worked_example_is_released_rounded(write_recipe, tmp_path):
    # the 2 x 2 example worked by hand in tests/tabular/test_tabular_rounding.py:
    # (3, 8 | 11), (6, 4 | 10), (9, 12 | 21) to base 5 is (5, 5 | 10) twice, (10, 10 | 20)
    people(tmp_path, {("a", "f"): 3, ("a", "m"): 8, ("b", "f"): 6, ("b", "m"): 4})
    result = run(write_recipe(RECIPE.replace("BASE", "5")), tmp_path / "out", use_cache=False)
    public = pd.read_csv(tmp_path / "out" / "public" / "counts.csv", dtype={"freq": "Int64"})
    got = {(r.region, r.sex): r.freq for r in public.itertuples()}
    assert got == {("a", "f"): 5, ("a", "m"): 5, ("a", "Total"): 10,
                   ("b", "f"): 5, ("b", "m"): 5, ("b", "Total"): 10,
                   ("Total", "f"): 10, ("Total", "m"): 10, ("Total", "Total"): 20}
    assert (public["value"] == public["freq"]).all()  # no original count goes out
    assert set(public["status"]) == {"published"}
    info = next(s.info for s in result.steps if s.node == "round")
    assert info["distance"] == 12 and info["optimal"] is True
    assert (info["rounded_up"], info["rounded_down"], info["unchanged"]) == (3, 5, 1)
    # the office's copy: original counts beside the published ones
    internal = pd.read_csv(tmp_path / "out" / "tables" / "counts.csv")
    row = internal[(internal.region == "a") & (internal.sex == "m")].iloc[0]
    assert (row["freq"], row["value"], row["published_value"]) == (8, 8, 5)
    plugin = registry.get("controlled_rounding")
    assert "a total change of 12 (proven the least)" in plugin.explain({"base": 5}, info)
    assert declaration_problems(plugin) == []
    assert explain_problems(plugin, {"base": 5}, info) == []


def test_a_table_without_rounding_is_a_clear_error():
    # the three-dimensional table of test_tabular_rounding.py that has no rounding
    import itertools

    from sdcflow.tabular import table_from_cells

    rows = [{"x": f"x{i}", "y": f"y{j}", "z": f"z{k}", "freq": int((i + j + k) % 2 == 0)}
            for i, j, k in itertools.product(range(2), repeat=3)]
    table = table_from_cells(pd.DataFrame(rows), ["x", "y", "z"], value=None)
    with pytest.raises(PluginError, match="no controlled rounding to base 2.*three or more dimensions"):
        registry.get("controlled_rounding").apply(table, {"base": 2}, None)


def test_bad_parameters_are_refused(write_recipe, tmp_path):
    from sdcflow import validate
    from sdcflow.errors import RecipeError

    people(tmp_path, {("a", "f"): 3})
    with pytest.raises(RecipeError) as info:
        validate(write_recipe(RECIPE.replace("BASE", "0")))
    assert any("base" in p.message for p in info.value.problems), info.value.problems
