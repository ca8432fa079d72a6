"""Parameters that would exhaust memory or time, or make a method's output infinite, are
refused when the recipe is validated, at the parameter's position (sdcflow.plugins.limits and
each plugin's schema, check and check_data). Before, ``width: 1e-300`` ended in a
MemoryError during the run, ``noise k: 1e308`` released infinite values, ``t: 10**9``
ran for days."""

import math
import shutil

import numpy as np
import pandas as pd
import pytest
from helpers import ROOT, small_dataset

from sdcflow import validate
from sdcflow.data import Dataset, Variable
from sdcflow.errors import RecipeError
from sdcflow.plugins import registry

TESTDATA_RECIPE = """\
sdcflow: 1
name: bounds
seed: 1
data: {{builtin: testdata}}
variables:
  urbrur: {{role: key, type: categorical}}
  water: {{role: key, type: categorical}}
  sex: {{role: key, type: categorical}}
  age: {{role: key, type: integer}}
  relat: {{role: key, type: categorical}}
  walls: {{role: pram, type: categorical}}
  expend: {{role: numeric, type: continuous}}
  income: {{role: numeric, type: continuous}}
  savings: {{role: numeric, type: continuous}}
steps:
  - {step}
"""
STEP_LINE = 16  # the line of the step in TESTDATA_RECIPE

# testdata: income from 2897.48 to 1e8 (4580 records, none missing)
CASES = [
    # (1e8 - 2897.48) / 1e-300 = 9.9997e307 intervals
    ("{id: s, method: global_recode, params: {variable: income, width: 1e-300}}", "width",
     ("width 1e-300 would cut the values of 'income' (2897.48 to 1e+08) into 1e+308 "
     "intervals, more than the limit of 1,000,000")),
    # noise variance 1e308 x (1e8 - 2897.48)^2 overflows
    ("{id: s, method: noise, params: {variables: [income], k: 1e308}}", "k",
     ("k = 1e+308 makes the noise on 'income' (variance up to k x 1e+16, the squared range "
     "of its values) infinite or beyond the range of 64-bit floats")),
    (("{id: s, method: noise, params: {variables: [income, expend], method: correlated, "
     "k: 1e300}}"), "k", "k = 1e+300 makes the noise on 'income'"),
    ("{id: s, method: noise, params: {method: romm, romm_lambda: 1e7}}", "romm_lambda",
     "10000000.0 is greater than the maximum of 1000000.0"),
    # 1e8 / 1e-305 = 1e313 > 1.8e308
    ("{id: s, method: rounding, params: {variables: [income], base: 1e-305}}", "base",
     ("base 1e-305 is too small for the values of 'income' (up to 1e+08): their multiples "
     "of it are beyond the range of 64-bit floats")),
    # 10**9 samples x 4580 values
    ("{id: s, method: resampling, params: {variables: [income], t: 1000000000}}", "t",
     ("t = 1000000000 bootstrap samples of every value of income would draw "
     "4,580,000,000,000 random numbers, more than the limit of 1,000,000,000")),
    ("{id: s, method: local_suppression, params: {importance: {age: 101}}}",
     "importance.age", "101 is greater than the maximum of 100"),
    ("{id: s, method: local_suppression, params: {costs: {age: 1e300}}}",
     "costs.age", "1e+300 is greater than the maximum of 1e+100"),
    (("{id: s, method: microaggregation, params: {variables: [income, expend], "
     "algorithm: fuzzy, fuzziness: 1.0000001}}"), "fuzziness",
     "1.0000001 is less than the minimum of 1.1"),
    # 2 (k-means++ and Lloyd) x 10**9 restarts x 4580 records x 15 clusters
    (("{id: s, measure: clustering_agreement, params: {variables: [income, expend], "
     "restarts: 1000000000}}"), "restarts",
     ("1000000000 restarts with 15 clusters on 4580 records compute 137,400,000,000,000 "
     "distances, more than the limit of 10,000,000,000")),
    # 4580 records x 4579 candidates (all: 4 x 100000 nearest) x 3 weights
    (("{id: s, measure: learned_linkage, params: {variables: [income, expend, savings], "
     "max_records: 5000, neighbours: 100000}}"), "neighbours",
     ("4580 records with 4579 candidate originals each and 3 distance parameters make a "
     "program of 62,915,460 coefficients, more than the limit of 50,000,000")),
    ("{id: s, measure: rank_swap_attack, params: {variables: [income], p: 1000}}", "p",
     "p = 1000 is a percentage of the values: at most 100"),
    (("{id: s, measure: rank_swap_attack, params: {variables: [income], p: 10000, "
     "p_unit: records}}"), "p", "p = 10000 records is more than the 4580 records"),
]


@pytest.mark.parametrize("step, field, message", CASES,
                         ids=[c[0].split("method: ")[-1].split("measure: ")[-1].split(",")[0]
                              for c in CASES])
def test_absurd_parameters_are_refused_at_validation(write_recipe, step, field, message):
    path = write_recipe(TESTDATA_RECIPE.format(step=step))
    with pytest.raises(RecipeError) as info:
        validate(path)
    found = [str(p) for p in info.value.problems]
    for problem in found:  # (noise: one problem per variable)
        where, text = problem.split(": ", 1)
        assert where.startswith(f"{path}:{STEP_LINE}:"), found
        assert text.startswith(f"steps[0].params.{field}: "), found
    assert message in found[0], found


@pytest.mark.parametrize("params, messages", [
    ("{rules: [{freq: {n: 3, safety_range: 1e308}}, {dominance: {n: 1, k: 500}}]}",
     [("steps[0].params.rules[0]: invalid rule: safety_range must be a number from 0 to "
      "1000, not 1e+308"),
      "steps[0].params.rules[1]: invalid rule: k must be a percentage in (0, 100)"]),
    ("{rules: [{freq: 3}], protection: {percent: 1e308}}",
     ["steps[0].params.protection.percent: 1e+308 is greater than the maximum of 1000"]),
])
def test_table_rules_and_protection_are_checked_at_validation(write_recipe, tmp_path, params,
                                                              messages):
    # the rules' ranges were checked only when the step ran (exit 1 without a position);
    # protections of 1e308 made the suppression program infeasible, margin costs of 1e308
    # its costs infinite
    shutil.copytree(ROOT / "recipes" / "data", tmp_path / "data")
    text = (ROOT / "recipes" / "tables_profession_town.yaml").read_text(encoding="utf-8")
    text = text.replace("params: {rules: [{freq: 3}, {dominance: {n: 1, k: 50}}]}",
                        f"params: {params}")
    text = text.replace("params: {cost: unit}", "params: {cost: unit, margin_cost: 1e16}")
    with pytest.raises(RecipeError) as info:
        validate(write_recipe(text))
    found = sorted(str(p).split(": ", 1)[1] for p in info.value.problems)
    assert found == sorted(messages + [("steps[1].params.margin_cost: 1e+16 is greater than "
                                       "the maximum of 1000000000000000.0")])


def test_a_table_with_too_many_cells_is_refused_at_validation(write_recipe):
    path = write_recipe("""
        sdcflow: 1
        name: big-table
        seed: 1
        data: {builtin: testdata}
        variables:
          income: {role: key}
          expend: {role: key}
        tables:
          - {id: t, dims: [income, expend]}
        steps:
          - {id: audit, measure: table_audit, table: t}
        """)
    with pytest.raises(RecipeError) as info:
        validate(path)
    (problem,) = info.value.problems
    # every distinct income (and the total) times every distinct expend (and the total)
    assert str(problem).startswith(f"{path}:9:") and "tables[0].dims: income x expend make " \
        in str(problem) and "cells, more than the limit of 1,000,000" in str(problem)


def _categorical_columns(count: int, records: int = 3) -> Dataset:
    return small_dataset(**{f"v{i}": ("key", "categorical", ["a", "b", "c"][:records])
                            for i in range(count)})


def test_all_m_combinations_are_bounded():
    # 20 keys, all sets of 10: C(20, 10) = 184,756 suppression passes
    data = _categorical_columns(20)
    plugin = registry.get("local_suppression")
    params = registry.with_defaults(plugin.params, {"all_m": [{"size": 10, "k": 2}]})
    assert list(plugin.check(params, data.meta)) == [
        (("all_m",), ("the combinations of 20 key variables make 184,756 suppression "
                     "passes, more than the limit of 10,000"))]


def test_ctbil_tables_are_bounded():
    # sum over t = 1..10 of C(20, t) = 616,665 contingency tables
    data = _categorical_columns(20)
    plugin = registry.get("categorical_information_loss")
    params = registry.with_defaults(plugin.params, {"K": 10})
    assert sum(math.comb(20, t) for t in range(1, 11)) == 616_665
    assert [m for _, m in plugin.check(params, data.meta)] == [
        ("K = 10: the sets of at most K of 20 variables make 616,665 contingency tables, "
        "more than the limit of 10,000")]


@pytest.mark.parametrize("name, params", [("pram", {"variables": ["v"]}),
                                          ("categorical_information_loss",
                                           {"variables": ["v"]})])
def test_category_cross_tabulations_are_bounded(name, params):
    # 8000 categories: 8000 x 8000 = 64,000,000 cells (80,001 with the missing value)
    values = [f"c{i}" for i in range(8000)]
    data = Dataset(pd.DataFrame({"v": pd.Series(values, dtype="str")}),
                   {"v": Variable("v", "pram", "categorical")})
    plugin = registry.get(name)
    found = [m for _, m in plugin.check_data(registry.with_defaults(plugin.params, params),
                                             data)]
    assert len(found) == 1 and "'v' has 8000 categories" in found[0]
    assert "more than the limit of 50,000,000" in found[0]


def test_fuzzy_neighbours_are_bounded():
    # 100,000 records, k = 3: 1000 neighbours each make 100,000,000 distances
    data = small_dataset(x=("numeric", "continuous", np.arange(100_000.0)))
    plugin = registry.get("microaggregation")
    params = registry.with_defaults(plugin.params, {"variables": ["x"], "algorithm": "fuzzy",
                                                    "neighbours": 1000})
    assert list(plugin.check_data(params, data)) == [
        (("neighbours",), ("1000 neighbours for each of 100000 records make 100,000,000 "
                          "distances, more than the limit of 50,000,000"))]


def test_a_width_below_the_precision_of_the_values_is_refused():
    # around 1e17 consecutive floats are 16 apart: limits 1 apart would coincide
    data = small_dataset(x=("numeric", "continuous", [1e17, 1e17 + 64]))
    plugin = registry.get("global_recode")
    params = registry.with_defaults(plugin.params, {"variable": "x", "width": 1})
    (found,) = plugin.check_data(params, data)
    assert found[0] == ("width",) and "below the precision of 64-bit floats" in found[1]


def test_whole_values_beyond_int64_make_an_integer_variable_continuous():
    # top coding age with 1e19 raised "cannot safely cast non-equivalent float64 to int64"
    data = small_dataset(age=("key", "integer", [10, 20, 90]))
    plugin = registry.get("top_bottom_code")
    params = registry.with_defaults(plugin.params, {"variable": "age",
                                                    "top": {"value": 50, "replace": 1e19}})
    result = plugin.apply(data, params, np.random.default_rng(1))
    assert result.data.variables["age"].type == "continuous"
    assert result.data.frame["age"].tolist() == [10.0, 20.0, 1e19]
