"""rounding plugin (seed 000 "Rounding")."""

import numpy as np
import pandas as pd
from helpers import small_dataset

from sdcflow import run
from sdcflow.data.io import builtin_path
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("rounding")


def apply(data, **params):
    return PLUGIN.apply(data, registry.with_defaults(PLUGIN.params, params),
                        np.random.default_rng(0))


def data():
    return small_dataset(age=("key", "integer", [0, 2, 3, 17, 18, None]),
                         income=("numeric", "continuous", [1249.0, 1250, -1250, 0.4, None, 5e5]),
                         w=("weight", "continuous", [1.0] * 6))


def test_conformance(testdata):
    check_method(PLUGIN, testdata, {"base": {"income": 1000, "age": 5}})
    check_method(PLUGIN, testdata, {"variables": ["savings"], "points": [0, 1e6, 5e6]})


def test_integer_base_keeps_integers_by_hand():
    out = apply(data(), variables=["age", "income"], base=5)
    frame = out.data.frame
    # 2.5 would be a tie; 2 -> 0, 3 -> 5, 17 -> 15, 18 -> 20
    assert frame["age"].tolist()[:5] == [0, 0, 5, 15, 20] and frame["age"].isna().iloc[5]
    assert str(frame["age"].dtype) == "Int64" and out.data.variables["age"].type == "integer"
    assert frame["income"].tolist()[:4] == [1250, 1250, -1250, 0]
    assert out.info["variables"]["age"] == {"base": 5.0, "changed": 4, "max_change": 2.0}
    assert out.info["changed"] == 4 + 2


def test_fractional_base_makes_integers_continuous():
    out = apply(data(), variables=["age"], base=2.5)
    assert out.data.frame["age"].tolist()[:5] == [0, 2.5, 2.5, 17.5, 17.5]
    assert out.data.variables["age"].type == "continuous"


def test_base_mapping_names_the_variables():
    params = {"base": {"income": 1000, "age": 10}}
    assert PLUGIN.variables(params, data().meta) == ["income", "age"]
    assert PLUGIN.named_variables(params) == [(("base", "income"), "income"),
                                              (("base", "age"), "age")]
    out = apply(data(), **params).data.frame
    # 1249 and 1250 -> 1000; -1250 -> -1000; 5e5 stays
    assert out["income"].tolist()[:4] == [1000, 1000, -1000, 0] and out["income"][5] == 5e5
    assert out["age"].tolist()[:5] == [0, 0, 0, 20, 20]


def test_points():
    # 1249 and 1250 are nearer 1000 than 0; -1250 is below the first point; 5e5 above the last
    out = apply(data(), variables=["income"], points=[0, 1000, 10_000])
    assert out.data.frame["income"].tolist()[:4] == [1000, 1000, 0, 0]
    assert out.data.frame["income"].iloc[5] == 10_000
    # 9.5 is half-way between 1 and 18: 17 -> 18 but 2, 3 -> 1
    out = apply(data(), points={"age": [1, 18, 65]})
    assert out.data.frame["age"].tolist()[:5] == [1, 1, 1, 18, 18]
    assert out.data.variables["age"].type == "integer"
    assert out.info["variables"]["age"]["points"] == [1.0, 18.0, 65.0]


def test_default_variables_are_the_numeric_role():
    out = apply(data(), base=100)
    assert set(out.info["variables"]) == {"income"}
    assert out.data.frame["w"].tolist() == [1.0] * 6


def test_checks():
    meta = data().meta
    found = dict(PLUGIN.check({"variables": ["age", "income"], "base": {"age": 5, "w": 1}},
                              meta))
    assert found == {("base",): "no base is given for 'income'",
                     ("base", "w"): "'w' is not among the variables rounded"}
    found = list(PLUGIN.check({"points": {"age": [1, 5, 5]}}, meta))
    assert found == [(("points", "age"), "the rounding points must be strictly increasing")]


def test_schema_needs_exactly_one_rule():
    import jsonschema

    validator = jsonschema.Draft202012Validator(PLUGIN.params)
    assert not validator.is_valid({"variables": ["x"]})
    assert not validator.is_valid({"base": 5, "points": [1, 2]})
    assert not validator.is_valid({"base": 0})
    assert validator.is_valid({"base": {"x": 0.5}})
    assert validator.is_valid({"points": [3]})


def test_recipe_casc_rounding(write_recipe, tmp_path):
    path = write_recipe("""
        sdcflow: 1
        name: t
        seed: 1
        data: {builtin: casc_census}
        variables:
          INTVAL: {role: numeric, type: integer}
          FEDTAX: {role: numeric, type: integer}
        steps:
          - {id: round, method: rounding, params: {base: {INTVAL: 100, FEDTAX: 1000}}}
        release: {path: out.csv}
        """)
    result = run(path, tmp_path / "out", use_cache=False)
    original = pd.read_csv(builtin_path("casc_census"))
    assert (result.data["INTVAL"] % 100 == 0).all() and (result.data["FEDTAX"] % 1000 == 0).all()
    assert (result.data["INTVAL"] - original["INTVAL"]).abs().max() <= 50
    # ties go up: floor(x / 100 + 1/2) * 100
    expected = np.floor(original["INTVAL"] / 100 + 0.5) * 100
    assert result.data["INTVAL"].tolist() == expected.astype(int).tolist()
    info = next(s.info for s in result.steps if s.node == "round")
    assert info["variables"]["INTVAL"]["changed"] == int((original["INTVAL"] % 100 != 0).sum())
    assert str(result.data["INTVAL"].dtype) == "Int64"


def test_multivariate_rounding_by_hand():
    data = small_dataset(age=("key", "integer", [12, 30, 41, 70, None]),
                         income=("numeric", "continuous", [0.0, 900, 3000, 1500, 2500]))
    points = [[10, 0], [40, 1000], [40, 3000], [70, 1000]]
    out = apply(data, variables=["age", "income"], vectors=points)
    frame = out.data.frame
    # squared distances by hand: (30, 900) -> 100 + 810000 to (10, 0), 100 + 10000 to
    # (40, 1000): (40, 1000); (70, 1500): 250000 to (70, 1000), 900 + 250000 to (40, 1000);
    # (None, 2500) on income only: 3000 is nearest
    assert frame["age"].tolist()[:4] == [10, 40, 40, 70] and frame["age"].isna().iloc[4]
    assert frame["income"].tolist() == [0, 1000, 3000, 1000, 3000]
    assert str(frame["age"].dtype) == "Int64" and out.data.variables["age"].type == "integer"
    # changed: ages 12, 30, 41 and incomes 900, 1500, 2500; every record moves
    assert out.info == {"changed": 6, "records_changed": 5, "vectors": 4,
                        "variables": {"age": {"changed": 3, "max_change": 10.0},
                                      "income": {"changed": 3, "max_change": 500.0}}}


def test_multivariate_rounding_checks_and_conformance(testdata):
    check_method(PLUGIN, testdata, {"variables": ["income", "expend"],
                                    "vectors": [[0, 0], [5e5, 5e5], [1e6, 2e5]]})
    meta = data().meta
    assert dict(PLUGIN.check({"variables": ["age", "income"], "vectors": [[1, 2], [3]]},
                             meta)) == {
        ("vectors", 1): "a rounding vector has 1 value(s), not one for each of the 2 variables"}
    assert dict(PLUGIN.check({"vectors": [[1]]}, meta)) == {
        ("variables",): ("multivariate rounding needs 'variables': the order of the values "
                         "of each rounding vector")}
    out = apply(data(), variables=["age"], vectors=[[0.5], [20]])
    assert out.data.variables["age"].type == "continuous"
    import jsonschema

    validator = jsonschema.Draft202012Validator(PLUGIN.params)
    assert not validator.is_valid({"vectors": [[1]], "base": 5})
    assert not validator.is_valid({"vectors": []})
    assert validator.is_valid({"variables": ["x"], "vectors": [[1], [2]]})


def test_recipe_casc_multivariate_rounding(write_recipe, tmp_path):
    path = write_recipe("""
        sdcflow: 1
        name: t
        seed: 1
        data: {builtin: casc_census}
        variables:
          AGI: {role: numeric, type: integer}
          FEDTAX: {role: numeric, type: integer}
        steps:
          - id: round
            method: rounding
            params:
              variables: [AGI, FEDTAX]
              vectors: [[0, 0], [20000, 2000], [50000, 8000], [100000, 20000]]
        release: {path: out.csv}
        """)
    result = run(path, tmp_path / "out", use_cache=False)
    original = pd.read_csv(builtin_path("casc_census"))[["AGI", "FEDTAX"]].to_numpy(float)
    points = np.array([[0, 0], [20000, 2000], [50000, 8000], [100000, 20000]], dtype=float)
    # every record is the rounding vector nearest to it (brute force over the 4 points)
    nearest = points[((original[:, None, :] - points[None]) ** 2).sum(axis=2).argmin(axis=1)]
    assert result.data[["AGI", "FEDTAX"]].to_numpy(float).tolist() == nearest.tolist()
