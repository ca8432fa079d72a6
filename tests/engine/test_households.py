"""Households through whole runs: household-level variables stay the same for every
member under every method, household ids are replaced in the release, and the risk
measures give the household (hierarchical) risk."""

import json
import textwrap

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow import run
from sdcflow.cli import main
from sdcflow.data import Dataset
from sdcflow.data.households import collapse, expand, household_units
from sdcflow.engine import step_rng
from sdcflow.plugins import registry

HOUSEHOLD_LEVEL = ["region", "walls", "water", "rent"]


def survey(households: int = 150, seed: int = 5) -> pd.DataFrame:
    """A household survey: household-level region, walls, water and rent repeated for
    every member; record-level sex, age and income."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 6, households)
    hid = np.repeat(np.arange(1, households + 1) * 7, sizes)  # ids 7, 14, ...
    per_household = {
        "region": rng.choice(["N", "S", "E", "W"], households),
        "walls": rng.choice(["brick", "wood", "mud"], households, p=[0.5, 0.3, 0.2]),
        "water": rng.choice(["pipe", "well", "river"], households),
        "rent": np.round(rng.lognormal(6, 0.5, households), 2),
    }
    n = int(sizes.sum())
    frame = pd.DataFrame({"hid": hid})
    for name, values in per_household.items():
        frame[name] = np.repeat(values, sizes)
    frame["sex"] = rng.choice(["1", "2"], n)
    frame["age"] = rng.integers(0, 90, n)
    frame["income"] = np.round(rng.lognormal(7, 1, n), 2)
    frame["weight"] = np.repeat(rng.uniform(50, 150, households).round(1), sizes)
    return frame


HEAD = """
sdcflow: 1
name: hh
seed: 11
data: {path: survey.csv}
variables:
  hid: {role: household}
  region: {role: key, level: household}
  walls: {role: pram, level: household}
  water: {role: key, level: household}
  rent: {role: numeric, level: household}
  sex: {role: key}
  age: {role: key, type: integer}
  income: {role: numeric}
  weight: {role: weight}
"""


@pytest.fixture
def write(tmp_path):
    def _write(steps: str, release: str = "release: {path: out.csv}", frame=None) -> str:
        (frame if frame is not None else survey()).to_csv(tmp_path / "survey.csv",
                                                          index=False)
        path = tmp_path / "r.yaml"
        path.write_text(HEAD + "steps:\n" + textwrap.indent(textwrap.dedent(steps), "  ")
                        + release + "\n")
        return path
    return _write


def constant_within_households(data: pd.DataFrame, ids: pd.Series) -> dict[str, int]:
    """For each household-level column, the number of households where it varies."""
    out = {}
    for name in HOUSEHOLD_LEVEL:
        if name in data:
            varies = data.assign(_h=ids.to_numpy()).groupby("_h", dropna=False)[name].nunique(
                dropna=False)
            out[name] = int((varies > 1).sum())
    return out


def test_a_household_level_variable_that_differs_within_a_household_is_refused(write,
                                                                               capsys):
    frame = survey()
    frame.loc[1, "water"] = "other"  # record 2 is in the first household
    path = write("- {id: risk, measure: k_anonymity, params: {k: 2}}\n", frame=frame)
    assert main(["validate", str(path)]) == 1
    err = capsys.readouterr().err
    assert "column 'water' is declared household-level (level: household) but differs " \
           "between members of 1 household (hid 7; records 1 (line 2), 2 (line 3)" in err


def test_a_household_level_variable_needs_the_household_id(write, capsys):
    path = write("- {id: risk, measure: k_anonymity, params: {k: 2}}\n")
    path.write_text(path.read_text().replace("  hid: {role: household}\n", ""))
    assert main(["validate", str(path)]) == 1
    assert "a household-level variable needs the household id: declare it with role " \
           "household" in capsys.readouterr().err


def test_pram_runs_once_per_household_as_selecthouseholddata_then_merge(write, tmp_path):
    path = write("- {id: pr, method: pram, params: {variables: [walls]}}\n")
    result = run(path, write=False, use_cache=False)
    frame = survey()
    # the definition: PRAM on the household file (one record per household, with the
    # step's own generator), merged back onto the members
    units, count = household_units(frame["hid"].astype(str))
    plugin = registry.get("pram")
    loaded = __import__("sdcflow").validate(path).data
    once = Dataset(collapse(loaded.frame[["walls"]], units, count),
                   {"walls": loaded.variables["walls"]})
    params = next(s.params for s in result.steps if s.node == "pr")
    expected = plugin.apply(once, dict(params), step_rng(11, "pr")).data.frame
    assert result.data["walls"].tolist() == expand(expected, units)["walls"].tolist()
    assert constant_within_households(result.data, frame["hid"]) == {
        "region": 0, "walls": 0, "water": 0, "rent": 0}
    info = next(s.info for s in result.steps if s.node == "pr")
    assert info["households"] == count == 150


@pytest.mark.parametrize("step", [
    "- {id: m, method: noise, params: {variables: [rent], k: 0.2}}\n",
    "- {id: m, method: rank_swap, params: {variables: [rent], p: 10}}\n",
    "- {id: m, method: microaggregation, params: {variables: [rent], k: 3}}\n",
    ("- {id: m, method: top_bottom_code, params: {variable: rent, "
     "top: {quantile: 0.9, replace: mean}}}\n"),
    "- {id: m, method: rounding, params: {variables: [rent], base: 10}}\n",
    "- {id: m, method: global_recode, params: {variable: region, groups: {NS: [N, S]}}}\n",
])
def test_every_method_keeps_household_level_variables_constant(write, step):
    path = write(step)
    result = run(path, write=False, use_cache=False)
    assert constant_within_households(result.data, survey()["hid"]) == {
        "region": 0, "walls": 0, "water": 0, "rent": 0}
    assert not result.data.equals(survey())


def test_rank_swapping_households_keeps_the_household_distribution(write):
    path = write("- {id: m, method: rank_swap, params: {variables: [rent], p: 10}}\n")
    result = run(path, write=False, use_cache=False)
    frame = survey()
    first = ~frame["hid"].duplicated()
    # swapped between households: the multiset of household rents is kept
    assert sorted(result.data["rent"][first]) == sorted(frame["rent"][first])


def test_local_suppression_spreads_to_the_household_and_reaches_k(write):
    path = write("""\
        - id: ls
          method: local_suppression
          params: {variables: [region, water, sex, age], k: 3, alpha: 0.5,
                   importance: {age: 1, sex: 2, region: 3}}
        - {id: risk, measure: k_anonymity, params: {variables: [region, water, sex, age],
           k: [3], alpha: 0.5}}
        """, "checks: [\"risk.violations[3] == 0\"]\nrelease: {path: out.csv}")
    result = run(path, write=False, use_cache=False)
    frame = survey()
    assert constant_within_households(result.data, frame["hid"]) == {
        "region": 0, "walls": 0, "water": 0, "rent": 0}
    assert result.data["water"].isna().sum() > 0  # some household water was suppressed
    assert result.measures["risk"]["violations"] == {"3": 0}


def test_sampling_draws_whole_households(write):
    path = write("- {id: s, method: sampling, params: {fraction: 0.3}}\n")
    result = run(path, write=False, use_cache=False)
    frame = survey()
    sizes = frame.groupby("hid").size()
    mapping = result.household_ids.set_index("released")["original"]
    drawn = result.data.groupby("hid").size()
    # every household drawn comes with all its members; 30% of the 150 households
    assert len(drawn) == 45
    for released_id, size in drawn.items():
        assert sizes[int(mapping[released_id])] == size
    # the weights are multiplied by 150 / 45 households
    originals = frame.set_index("hid")["weight"].groupby(level=0).first()
    kept = result.data.groupby("hid")["weight"].first()
    for released_id, w in kept.items():
        assert w == pytest.approx(originals[int(mapping[released_id])] * 150 / 45)


AGE10 = "- {id: age10, method: global_recode, params: {variable: age, breaks: [0, 29, 59, 99]}}\n"


def test_household_ids_are_replaced_by_new_numbers(write, tmp_path):
    path = write("- {id: risk, measure: k_anonymity, params: {k: 2}}\n" + AGE10)
    result = run(path, tmp_path / "out", use_cache=False)
    frame = survey()
    released = pd.read_csv(result.public_dir / "out.csv", dtype={"hid": str})
    # 1 .. 150 in the order of a digest of each household's released records (nothing
    # drawn from the seed, which a search would find from them; not in the order of
    # appearance, which gives back ids that ran 1 .. H down the original file), the same
    # for every member of a household
    first = released["hid"].drop_duplicates().astype(int).tolist()
    assert sorted(first) == list(range(1, 151)) and first != list(range(1, 151))
    assert (released.groupby(frame["hid"])["hid"].nunique() == 1).all()
    assert (released["hid"].astype(int) != frame["hid"]).mean() > 0.9
    # the mapping is internal only, and the manifests say what happened
    mapping = pd.read_csv(tmp_path / "out" / "household-ids.csv", dtype=str)
    assert len(mapping) == 150 and mapping["released"].is_unique
    full = json.loads((tmp_path / "out" / "manifest.json").read_text())
    public = json.loads((result.public_dir / "manifest.json").read_text())
    assert full["household_ids"] == {"variable": "hid", "replaced": True, "households": 150}
    assert public["household_ids"] == {"variable": "hid", "replaced": True}
    assert not (result.public_dir / "household-ids.csv").exists()


def test_household_ids_can_be_kept(write):
    path = write("- {id: risk, measure: k_anonymity, params: {k: 2}}\n" + AGE10,
                 "release: {path: out.csv, household_ids: keep}")
    result = run(path, write=False, use_cache=False)
    assert result.data["hid"].astype(int).tolist() == survey()["hid"].tolist()
    assert result.household_ids is None


@pytest.mark.parametrize("step, message", [
    ("- {id: n, method: noise, params: {variables: [rent, income]}}\n",
     "noise would write household-level 'rent' and record-level 'income' in one step"),
    ("- {id: p, method: pram, params: {variables: [walls], strata: [sex]}}\n",
     ("pram acts on household-level 'walls' once per household, but also reads "
      "record-level 'sex'")),
    ("- {id: s, method: sampling, params: {fraction: 0.5, strata: [sex]}}\n",
     "whole households are drawn, so the strata must be the same for every member"),
])
def test_steps_that_mix_levels_are_refused(write, capsys, step, message):
    path = write(step)
    assert main(["validate", str(path)]) == 1
    assert message in capsys.readouterr().err


def test_global_risk_gives_the_household_risk(write):
    path = write("""\
        - {id: overall, measure: global_risk, params: {variables: [region, water, sex, age]}}
        - {id: hh, measure: household_risk, params: {variables: [region, water, sex, age]}}
        """, release="")
    result = run(path, write=False, use_cache=False)
    overall, hh = result.measures["overall"], result.measures["hh"]
    # the hierarchical figures of measure_risk(..., hid), as household_risk computes them
    assert overall["household"]["expected_reidentifications"] == pytest.approx(
        hh["expected_reidentifications"])
    assert overall["household"]["households"] == hh["households"] == 150
    # a household is re-identified if any member is: at least the records' own risk
    assert overall["household"]["expected_reidentifications"] >= \
        overall["expected_reidentifications"]


STEPS = {
    "pram": "- {{id: s{i}, method: pram, params: {{variables: [walls]}}}}\n",
    "noise": "- {{id: s{i}, method: noise, params: {{variables: [rent], k: 0.1}}}}\n",
    "swap": "- {{id: s{i}, method: rank_swap, params: {{variables: [rent], p: 5}}}}\n",
    "micro": "- {{id: s{i}, method: microaggregation, params: {{variables: [rent], k: 3}}}}\n",
    "recode": ("- {{id: s{i}, method: global_recode, params: {{variable: region, "
               "groups: {{NS: [N, S]}}}}}}\n"),
    "suppress": ("- {{id: s{i}, method: local_suppression, params: {{variables: [region, "
                 "water, sex], k: 2, alpha: 0.5}}}}\n"),
    "sample": "- {{id: s{i}, method: sampling, params: {{fraction: 0.8}}}}\n",
    "income": "- {{id: s{i}, method: noise, params: {{variables: [income], k: 0.1}}}}\n",
}


@settings(max_examples=25)
@given(chain=st.lists(st.sampled_from(sorted(STEPS)), min_size=1, max_size=4,
                      unique=True),
       seed=st.integers(0, 2**32))
def test_any_chain_of_methods_keeps_households_consistent(tmp_path_factory, chain, seed):
    tmp = tmp_path_factory.mktemp("chain")
    survey(60, seed % 1000).to_csv(tmp / "survey.csv", index=False)
    steps = "".join(STEPS[name].format(i=i) for i, name in enumerate(chain))
    path = tmp / "r.yaml"
    path.write_text(HEAD.replace("seed: 11", f"seed: {seed}") + "steps:\n" +
                    textwrap.indent(steps, "  ") + "release: {path: out.csv}\n")
    result = run(path, write=False, use_cache=False)
    # released ids replace the originals one for one, so they group the same records
    assert constant_within_households(result.data, result.data["hid"]) == {
        "region": 0, "walls": 0, "water": 0, "rent": 0}
