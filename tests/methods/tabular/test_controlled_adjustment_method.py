"""The ``controlled_adjustment`` table method in a recipe, after ``sensitivity_rules``:
every cell published, the sensitive one out of its interval, the totals additive."""

import numpy as np
import pandas as pd
import pytest
from helpers import ROOT

from sdcflow import run
from sdcflow.errors import PluginError
from sdcflow.plugins import registry
from sdcflow.plugins.registry import declaration_problems
from sdcflow.plugins.testing import explain_problems
from sdcflow.tabular import table_from_cells


@pytest.fixture
def seed_table():
    """Torra's (2013) profession x town salaries (seed 000's table), as the shipped
    recipe reads them."""
    cells = pd.read_csv(ROOT / "recipes" / "data" / "profession_town.csv",
                        dtype={"profession": str, "town": str})
    return table_from_cells(cells, ["profession", "town"], contributions=["top1", "top2"])

RECIPE = """
    sdcflow: 1
    name: adjustment
    seed: 1
    data: {path: people.csv}
    variables:
      region: {role: key}
      sex: {role: key}
    tables:
      - {id: counts, dims: [region, sex]}
    steps:
      - {id: primary, method: sensitivity_rules, table: counts,
         params: {rules: [{freq: 3}], protection: {fixed: 2}}}
      - {id: cta, method: controlled_adjustment, table: counts}
      - {id: audit, measure: table_audit, table: counts}
    checks: ["audit.unprotected == 0"]
    release: {tables: {counts: counts.csv}}
"""


def test_the_sensitive_cell_is_published_out_of_its_interval(write_recipe, tmp_path):
    # rows a = (2, 8 | 10), b = (6, 4 | 10): (a, f) = 2 has fewer than 3 people; with
    # protection 2 it must be published as 0 or at least 4. As in the 2 x 2 example
    # worked by hand in tests/tabular/test_tabular_adjustment.py, its row and column
    # need another changed cell each, and those one more: 4 cells changed by 2, total 8
    counts = {("a", "f"): 2, ("a", "m"): 8, ("b", "f"): 6, ("b", "m"): 4}
    rows = [{"region": r, "sex": s} for (r, s), n in counts.items() for _ in range(n)]
    pd.DataFrame(rows).to_csv(tmp_path / "people.csv", index=False)
    result = run(write_recipe(RECIPE), tmp_path / "out", use_cache=False)
    public = pd.read_csv(tmp_path / "out" / "public" / "counts.csv", dtype={"freq": "Int64"})
    got = {(r.region, r.sex): r.freq for r in public.itertuples()}
    assert set(public["status"]) == {"published"}  # nothing suppressed
    assert abs(got[("a", "f")] - 2) >= 2
    for region in ("a", "b", "Total"):  # every total still adds up
        assert got[(region, "f")] + got[(region, "m")] == got[(region, "Total")]
    for sex in ("f", "m", "Total"):
        assert got[("a", sex)] + got[("b", sex)] == got[("Total", sex)]
    info = next(s.info for s in result.steps if s.node == "cta")
    assert info["sensitive"] == 1 and info["change"] == 8 and info["changed"] == 4
    assert info["integer"] is True and info["optimal"] is True
    internal = pd.read_csv(tmp_path / "out" / "tables" / "counts.csv")
    row = internal[(internal.region == "a") & (internal.sex == "f")].iloc[0]
    assert (row["status"], row["value"], row["rule"]) == ("adjusted", 2, "freq(3)")
    assert result.measures["audit"]["passed"] is True
    plugin = registry.get("controlled_adjustment")
    assert "the 1 sensitive cells were moved" in plugin.explain({}, info)
    assert declaration_problems(plugin) == []
    assert explain_problems(plugin, {}, info) == []


def test_after_secondary_suppression_it_is_refused(seed_table):
    from sdcflow.tabular import FrequencyRule, apply_rules, secondary_suppression

    table = secondary_suppression(apply_rules(seed_table, [FrequencyRule(2)])).table
    plugin = registry.get("controlled_adjustment")
    params = registry.with_defaults(plugin.params, {})
    with pytest.raises(PluginError, match="replaces secondary suppression"):
        plugin.apply(table, params, None)


def test_seed_table_magnitudes(seed_table):
    # Torra's (2013) profession x town salaries: (P3, M2) = 22 (one contributor) moved
    # by at least its protection level, relative weights, totals additive
    import numpy as np

    from sdcflow.tabular import FrequencyRule, apply_rules, set_protection

    table = set_protection(apply_rules(seed_table, [FrequencyRule(2)]), percent=50)
    plugin = registry.get("controlled_adjustment")
    params = registry.with_defaults(plugin.params, {"weights": "inverse_value"})
    out = plugin.apply(table, params, None)
    cell = table.index("P3", "M2")
    assert abs(out.data.values[cell] - 22) >= 11 - 1e-9
    assert np.allclose(table.relations @ out.data.values, 0)
    assert out.info["integer"] is False and out.info["sensitive"] == 1


def test_a_perturbed_magnitude_table_releases_no_frequencies(seed_table):
    # rounded or adjusted, a magnitude table's values change and its numbers of
    # contributors do not: published exactly, the count 1 of (P3, M2) would say that its
    # value is one person's salary. The release has none; the office's table keeps them
    from sdcflow.recipe.tables import internal_frame, release_frame

    assert seed_table.response is not None
    assert release_frame(seed_table)["freq"].notna().all()  # (nothing changed yet)
    rounded = seed_table.with_values(np.round(seed_table.cells["value"].to_numpy() / 10) * 10)
    published = release_frame(rounded)
    assert published["freq"].isna().all() and published["value"].notna().all()
    assert internal_frame(rounded)["freq"].notna().all()
