"""Linked tables in recipes: ``{id, linked: [a, b]}`` protects tables that share cells
together (their cover table), audits them at once and releases each as it leaves it."""

import pandas as pd
import pytest

from sdcflow import run, validate
from sdcflow.errors import RecipeError

# the 15 people of tests/tabular/test_tabular_linked.py: protected one by one, their
# region x sex and region x age tables give r2's total (2 people) away together
PEOPLE = [("r1", "f", "m"), ("r1", "f", "y"), ("r1", "f", "y"), ("r1", "f", "y"),
          ("r1", "m", "o"), ("r1", "m", "y"), ("r1", "m", "y"), ("r2", "f", "y"),
          ("r2", "m", "y"), ("r3", "f", "o"), ("r3", "f", "o"), ("r3", "f", "y"),
          ("r3", "f", "y"), ("r3", "m", "m"), ("r3", "m", "o")]

RECIPE = """
    sdcflow: 1
    name: linked
    seed: 1
    data: {path: people.csv}
    variables:
      region: {role: key}
      sex: {role: key}
      age: {role: key}
      income: {role: numeric, type: continuous}
    tables:
      - {id: by_sex, dims: [region, sex]}
      - {id: by_age, dims: [region, age]}
      - {id: people, linked: [by_sex, by_age]}
    steps:
      - {id: primary, method: sensitivity_rules, table: people, params: {rules: [{freq: 3}]}}
      - {id: secondary, method: secondary_suppression, table: people}
      - {id: audit, measure: table_audit, table: people}
    checks: ["audit.unprotected == 0"]
    release: {tables: {by_sex: by_sex.csv, by_age: by_age.csv}}
"""


@pytest.fixture
def people(tmp_path):
    frame = pd.DataFrame(PEOPLE, columns=["region", "sex", "age"])
    frame["income"] = range(len(frame))
    frame.to_csv(tmp_path / "people.csv", index=False)


def test_linked_tables_are_protected_together(write_recipe, tmp_path, people):
    result = run(write_recipe(RECIPE), tmp_path / "out", use_cache=False)
    public = tmp_path / "out" / "public"
    by_sex = pd.read_csv(public / "by_sex.csv", dtype=str, keep_default_na=False)
    by_age = pd.read_csv(public / "by_age.csv", dtype=str, keep_default_na=False)
    assert len(by_sex) == 12 and len(by_age) == 16  # each table, its own cells only
    assert list(by_sex.columns)[:2] == ["region", "sex"]
    # the shared cells (region totals) are published or suppressed in both alike
    totals_sex = by_sex[by_sex.sex == "Total"].set_index("region")
    totals_age = by_age[by_age.age == "Total"].set_index("region")
    assert totals_sex[["freq", "status"]].equals(totals_age[["freq", "status"]])
    # r2's total (2 people) is sensitive, and no longer given away by r1's and r3's
    assert totals_sex.loc["r2", "status"] == "suppressed"
    assert not (totals_sex.loc["r1", "status"] == totals_sex.loc["r3", "status"]
                == "published")
    audit = result.measures["audit"]  # one audit over both tables' relations
    assert audit["passed"] is True and audit["unprotected"] == 0
    suppressed = (by_sex.status == "suppressed").sum() + (by_age.status == "suppressed").sum()
    shared = (totals_sex.status == "suppressed").sum()
    assert audit["suppressed"] == suppressed - shared
    primary = next(s.info for s in result.steps if s.node == "primary")
    assert primary["cells"] == 12 + 16 - 4  # the published cells, the shared ones once
    internal = pd.read_csv(tmp_path / "out" / "tables" / "by_sex.csv")
    assert set(internal["status"]) <= {"safe", "primary", "secondary"}


@pytest.mark.parametrize("change, message", [
    (("  - {id: people, linked: [by_sex, by_age]}",
      "  - {id: people, linked: [by_sex, by_ages]}"),
     "tables[2].linked: no table 'by_ages' (did you mean 'by_age'?)"),
    (("  - {id: by_age, dims: [region, age]}",
      "  - {id: by_age, dims: [region, age], response: income}"),
     "the tables differ in response"),
    (("  - {id: people, linked: [by_sex, by_age]}",
      "  - {id: people, linked: [by_sex, by_age], dims: [region]}"),
     "give 'linked' without 'dims' or 'from'"),
    (("  - {id: secondary, method: secondary_suppression, table: people}",
      "  - {id: secondary, method: secondary_suppression, table: by_sex}"),
     "'by_sex' is protected with its linked tables: give the step 'table: people'"),
    (("release: {tables: {by_sex: by_sex.csv, by_age: by_age.csv}}",
      "release: {tables: {people: people.csv}}"),
     "'people' links tables; release them instead: by_sex, by_age"),
    (("  - {id: people, linked: [by_sex, by_age]}",
      "  - {id: people, linked: [by_sex, by_age]}\n  - {id: again, linked: [by_sex, by_age]}"),
     "'by_sex' is already linked in 'people'"),
])
def test_linked_tables_are_checked(write_recipe, people, change, message):
    import textwrap

    text = textwrap.dedent(RECIPE).replace(*change)
    assert text != textwrap.dedent(RECIPE)
    with pytest.raises(RecipeError) as info:
        validate(write_recipe(text))
    assert any(message in p.message for p in info.value.problems), info.value.problems


def _released(tmp_path) -> tuple[pd.DataFrame, pd.DataFrame]:
    public = tmp_path / "out" / "public"
    return (pd.read_csv(public / "by_sex.csv", dtype={"freq": "Int64"}),
            pd.read_csv(public / "by_age.csv", dtype={"freq": "Int64"}))


def _consistent(by_sex: pd.DataFrame, by_age: pd.DataFrame) -> None:
    """Each table adds up, and both give every region the same total."""
    for frame, dim in ((by_sex, "sex"), (by_age, "age")):
        cells = frame.set_index(["region", dim])["freq"]
        for (region, code), value in cells.items():
            if region != "Total":
                continue
            assert value == sum(cells[(r, code)] for r in ("r1", "r2", "r3"))
        for region in ("r1", "r2", "r3", "Total"):
            inner = [cells[(region, c)] for c in frame[dim].unique() if c != "Total"]
            assert cells[(region, "Total")] == sum(inner)
    sex_totals = by_sex[by_sex.sex == "Total"].set_index("region")["freq"]
    age_totals = by_age[by_age.age == "Total"].set_index("region")["freq"]
    assert sex_totals.equals(age_totals)


def test_linked_tables_rounded_together(write_recipe, tmp_path, people):
    text = RECIPE.replace(
        """      - {id: primary, method: sensitivity_rules, table: people, params: {rules: [{freq: 3}]}}
      - {id: secondary, method: secondary_suppression, table: people}
""", "      - {id: round, method: controlled_rounding, table: people, params: {base: 3}}\n")
    result = run(write_recipe(text), tmp_path / "out", use_cache=False)
    by_sex, by_age = _released(tmp_path)
    assert (by_sex["freq"] % 3 == 0).all() and (by_age["freq"] % 3 == 0).all()
    _consistent(by_sex, by_age)
    info = next(s.info for s in result.steps if s.node == "round")
    assert info["cells"] == 12 + 16 - 4  # the published cells, the shared ones once


def test_linked_tables_adjusted_together(write_recipe, tmp_path, people):
    text = RECIPE.replace(
        "      - {id: secondary, method: secondary_suppression, table: people}\n",
        "      - {id: cta, method: controlled_adjustment, table: people}\n").replace(
        "params: {rules: [{freq: 3}]}", "params: {rules: [{freq: 3}], protection: {fixed: 1}}")
    result = run(write_recipe(text), tmp_path / "out", use_cache=False)
    by_sex, by_age = _released(tmp_path)
    assert set(by_sex["status"]) == set(by_age["status"]) == {"published"}
    _consistent(by_sex, by_age)
    # r2's total (2 people) is sensitive: published at least 1 away from 2
    assert abs(by_sex.set_index(["region", "sex"]).loc[("r2", "Total"), "freq"] - 2) >= 1
    info = next(s.info for s in result.steps if s.node == "cta")
    assert info["sensitive"] > 0 and info["optimal"] is True
