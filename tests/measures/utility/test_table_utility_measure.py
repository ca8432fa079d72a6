"""The table_utility measure on tables protected by the cell key method and by cell
suppression, one table of eight records protected both ways; expected values by hand (the
cell key table is the one worked out by hand in tests/methods/tabular/test_cell_key_method.py)."""

import json

import pytest
from helpers import CELL_KEY_RECORDS

from sdcflow import run, validate
from sdcflow.errors import PluginError, RecipeError
from sdcflow.plugins import registry
from sdcflow.plugins.testing import result_problems

DATA = CELL_KEY_RECORDS
CELL_KEY = "{D: 2, V: 1.05, js: 1, mono: [true, true, false, true], record_key: rkey}"
UTILITY = "{size_classes: [3, 5]}"


def write(tmp_path, steps: str, release: str = "{tables: {gh: gh.csv}, measures: [u_ck]}"):
    (tmp_path / "data.csv").write_text(DATA, encoding="utf-8")
    path = tmp_path / "recipe.yaml"
    path.write_text("\n".join([
        "sdcflow: 1", "name: compare", "seed: 7", "data: {path: data.csv}", "variables:",
        "  g: {role: key}", "  h: {role: key}", "  rkey: {role: identifier, type: continuous}",
        "tables:", "  - {id: gh, dims: [g, h]}", "  - {id: gh_supp, dims: [g, h]}",
        "steps:", *(f"  {line.strip()}" for line in steps.strip().splitlines()),
        f"release: {release}", ""]), encoding="utf-8")
    return path


BOTH = f"""
    - {{id: ck, method: cell_key, table: gh, params: {CELL_KEY}}}
    - {{id: u_ck, measure: table_utility, table: gh, params: {UTILITY}}}
    - {{id: primary, method: sensitivity_rules, table: gh_supp, params: {{rules: [{{freq: 3}}]}}}}
    - {{id: secondary, method: secondary_suppression, table: gh_supp}}
    - {{id: u_supp, measure: table_utility, table: gh_supp, params: {UTILITY}}}
"""


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("compare")
    path = write(tmp, BOTH)
    return run(path, tmp / "out", use_cache=False), tmp / "out"


def test_the_cell_key_table_by_hand(compared):
    result, _ = compared
    got = result.measures["u_ck"]
    plugin = registry.get("table_utility")
    assert result_problems(plugin, None, plugin_params(UTILITY), got) == []
    # originals (A x, A y, A Total, B x, B y, B Total, Total x, Total y, Total Total)
    # 1, 2, 3, 4, 1, 5, 5, 3, 8 published 2, 2, 2, 4, 2, 5, 3, 3, 9
    assert (got["cells"], got["suppressed"], got["changed"], got["l1"]) == (9, 0, 5, 6)
    assert got["false_zero"] == 0 and got["false_positive"] == 0
    by = got["by_size"]
    # 1-2: errors 1, 0, 1 (relative 1, 0, 1); 3-4: 1, 0, 0 (1/3, 0, 0); 5+: 0, 2, 1
    # (0, 2/5, 1/8)
    assert by["1-2"]["mean_abs_error"] == pytest.approx(2 / 3)
    assert by["1-2"]["mean_rel_error"] == pytest.approx(2 / 3)
    assert by["3-4"]["mean_rel_error"] == pytest.approx(1 / 9)
    assert by["5+"]["mean_rel_error"] == pytest.approx((0.4 + 0.125) / 3)
    assert got["loss_percent"] == pytest.approx(100 * (1 + 1 / 3 + 1 + 0.4 + 0.125) / 9)
    # the two cells of 1 are both published as 2: none exactly
    assert got["small_cells_exact"] == {"small": 1, "cells": 2, "exact": 0, "percent": 0.0}


def test_the_suppressed_table_by_hand(compared):
    result, _ = compared
    got = result.measures["u_supp"]
    # freq 3 suppresses A x (1), A y (2), B y (1); one more cell, B x (4), protects them
    # (each row and column of the 2 x 2 inner cells then has two suppressions)
    assert (got["cells"], got["suppressed"], got["published"]) == (9, 4, 5)
    assert got["l1"] == 0 and got["changed"] == 0 and got["mean_abs_error"] == 0
    assert got["loss_percent"] == pytest.approx(100 * 4 / 9)
    assert got["by_size"]["1-2"] == {"cells": 3, "suppressed": 3, "exact": 0,
                                     "mean_abs_error": None, "max_abs_error": None,
                                     "mean_rel_error": None}
    assert got["by_size"]["3-4"]["suppressed"] == 1
    assert got["small_cells_exact"]["percent"] == 0.0


def test_published_figures_hold_no_sizes_of_cells(compared):
    _, out = compared
    public = json.loads((out / "public" / "manifest.json").read_text())["measures"]
    assert set(public) == {"u_ck"}
    figures = public["u_ck"]
    # no number of cells per original size (beside a suppressed table they would narrow
    # down the suppressed cells' values), the errors per size class are there
    assert set(figures["by_size"]["1-2"]) == {"mean_abs_error", "max_abs_error",
                                              "mean_rel_error"}
    assert figures["small_cells_exact"] == {"small": 1, "percent": 0.0}
    assert figures["l1"] == 6 and figures["suppressed"] == 0


def test_inner_cells_only(tmp_path):
    steps = f"""
        - {{id: ck, method: cell_key, table: gh, params: {CELL_KEY}}}
        - {{id: u_ck, measure: table_utility, table: gh, params: {{cells: inner}}}}
    """
    result = run(write(tmp_path, steps), tmp_path / "out", use_cache=False)
    got = result.measures["u_ck"]
    # A x 1 -> 2, A y 2 -> 2, B x 4 -> 4, B y 1 -> 2
    assert got["cells"] == 4 and got["l1"] == 2 and got["changed"] == 2


def test_a_table_nothing_protected_is_measured_as_it_is(tmp_path):
    # (not released: an unprotected table would be refused)
    steps = "- {id: u, measure: table_utility, table: gh_supp}"
    result = run(write(tmp_path, steps, release="{}"), tmp_path / "out", use_cache=False)
    got = result.measures["u"]
    assert got["l1"] == 0 and got["loss_percent"] == 0
    assert got["small_cells_exact"]["percent"] == 100.0


def test_bad_parameters_are_refused(tmp_path):
    for params, message in (("{size_classes: [5, 3]}", "must increase"),
                            ("{size_classes: [1]}", "size_classes"),
                            ("{small: 0}", "small"),
                            ("{cells: margins}", "cells")):
        steps = f"""
            - {{id: ck, method: cell_key, table: gh, params: {CELL_KEY}}}
            - {{id: u_ck, measure: table_utility, table: gh, params: {params}}}
        """
        with pytest.raises(RecipeError, match=message):
            validate(write(tmp_path, steps))


def test_a_negative_magnitude_is_refused_with_a_clear_message():
    import numpy as np
    import pandas as pd

    from sdcflow.tabular.table import table_from_cells

    cells = pd.DataFrame({"g": ["A", "B"], "freq": [1, 1], "value": [-5.0, 5.0]})
    table = table_from_cells(cells, ["g"])
    with pytest.raises(PluginError, match="non-negative"):
        registry.get("table_utility").evaluate(table, plugin_params("{}"),
                                               np.random.default_rng(0))


def plugin_params(text: str) -> dict:
    import yaml

    from sdcflow.plugins.registry import with_defaults

    return with_defaults(registry.get("table_utility").params, yaml.safe_load(text))


def test_a_dp_table_against_the_office_copy(tmp_path):
    # table_utility reads what dp_table keeps of the original (original_value,
    # original_freq): its L1, changes and false zeros are those of the office's copy of
    # the table (tables/gh.csv: value = original, published_value = released)
    import pandas as pd

    steps = """
        - {id: dp, method: dp_table, table: gh, params: {epsilon: 1}}
        - {id: u_dp, measure: table_utility, table: gh}
    """
    path = write(tmp_path, steps, release="{tables: {gh: gh.csv}, measures: [u_dp]}")
    path.write_text(path.read_text().replace("seed: 7\n", "seed: 7\nprivacy_budget: "
                                                         "{epsilon: 1}\n"))
    result = run(path, tmp_path / "out", use_cache=False)
    got = result.measures["u_dp"]
    office = pd.read_csv(tmp_path / "out" / "tables" / "gh.csv")
    o, p = office["value"], office["published_value"]
    assert got["cells"] == len(office) == 9 and got["suppressed"] == 0
    assert got["l1"] == (p - o).abs().sum()
    assert got["changed"] == int((p != o).sum())
    assert got["false_zero"] == int(((p == 0) & (o > 0)).sum())
    ones = office["freq" if "original_freq" not in office else "original_freq"] == 1
    assert got["small_cells_exact"]["exact"] == int((ones & (p == o)).sum())


def test_the_dask_engine_gives_the_same_figures(compared, tmp_path):
    pytest.importorskip("distributed")
    result, _ = compared
    path = write(tmp_path, BOTH)
    dask = run(path, tmp_path / "out", engine="dask", workers=1)
    assert dask.measures["u_ck"] == result.measures["u_ck"]
    assert dask.measures["u_supp"] == result.measures["u_supp"]
