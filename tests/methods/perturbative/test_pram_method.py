"""pram plugin: matrices (given, default, invariant), validation messages, missing values,
strata, the seed-004 walls example and a recipe end to end (seed 004_149321b221e875f3.txt,
"PRAM Example"; seed 000, "PRAM")."""

import numpy as np
import pandas as pd
import pytest
from helpers import ROOT, small_dataset

from sdcflow import run, validate
from sdcflow.data import Dataset, Variable, read_data
from sdcflow.data.text import TEXT
from sdcflow.errors import RecipeError
from sdcflow.kernels.perturbative.pram import expected_changes
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("pram")

# seed 004, "PRAM Example": sdcMicro's transition matrix for walls, as printed (rows 2
# and 3 sum to 0.999999996 and 0.999999992 because of the printed rounding)
SEED_WALLS = {
    "2": {"2": 0.976466014, "3": 0.0149648, "9": 0.008569182},
    "3": {"2": 0.005411079, "3": 0.9944792, "9": 0.000109713},
    "9": {"2": 0.206174522, "3": 0.0073003, "9": 0.786525178},
}
WALLS_FREQ = {"2": 1203, "3": 3327, "9": 50}  # walls in sdcMicro's testdata


def normalised(matrix):
    return {a: {b: v / sum(row.values()) for b, v in row.items()} for a, row in matrix.items()}


def params(**given):
    return registry.with_defaults(PLUGIN.params, given)


def apply(data, seed=0, **given):
    return PLUGIN.apply(data, params(**given), np.random.default_rng(seed))


def sample(n=3000, seed=1, missing=0.05):
    rng = np.random.default_rng(seed)
    walls = rng.choice(["2", "3", "9"], n, p=[0.3, 0.6, 0.1]).astype(object)
    walls[rng.random(n) < missing] = None
    return small_dataset(
        walls=("pram", "categorical", list(walls)),
        roof=("pram", "categorical", rng.choice(["a", "b", "c", "d"], n)),
        region=("strata", "categorical", rng.choice(["n", "s"], n, p=[0.7, 0.3])),
    )


def as_array(nested, cats):
    return np.array([[nested[a][b] for b in cats] for a in cats])


def freq(col, cats):
    return np.array([(col == c).sum() for c in cats], dtype=float)


def test_conformance():
    data = sample(400)
    check_method(PLUGIN, data)
    check_method(PLUGIN, data, {"variables": ["walls"], "strata": [], "invariant": False,
                                "spread": "frequency"})
    check_method(PLUGIN, data, {"matrix": {"walls": normalised(SEED_WALLS)}})


def test_default_is_invariant_and_reports_the_matrix_per_stratum():
    data = sample()
    result = apply(data)
    info = result.info
    assert info["invariant"] == {"walls": True, "roof": True} and info["alpha"] == 0.5
    frame = data.frame
    for name, cats in (("walls", ["2", "3", "9"]), ("roof", ["a", "b", "c", "d"])):
        by_stratum = info["transition_matrix"][name]["by_stratum"]
        assert set(by_stratum) == {"n", "s"}
        for region, nested in by_stratum.items():
            P = as_array(nested, cats)
            t = freq(frame.loc[frame["region"] == region, name], cats)
            assert np.allclose(P.sum(axis=1), 1, atol=1e-12)  # Markov
            assert np.allclose(t @ P, t, atol=1e-9)  # invariant within the stratum
        changed = (result.data.frame[name] != frame[name]) & frame[name].notna()
        assert info["changed"][name] == int(changed.sum())


def test_retention_without_invariance_keeps_values_with_that_probability():
    data = sample(60_000, seed=3, missing=0.0)
    info = apply(data, seed=4, retention=0.9, invariant=False, strata=[],
                 variables=["roof"]).info
    P = as_array(info["transition_matrix"]["roof"], ["a", "b", "c", "d"])
    assert np.allclose(np.diag(P), 0.9) and np.allclose(P[0, 1:], 0.1 / 3)
    # expected 10% changed; within 6 sigma of the binomial
    n = 60_000
    assert abs(info["changed"]["roof"] - 0.1 * n) <= 6 * np.sqrt(n * 0.1 * 0.9)
    assert info["expected_changed"]["roof"] == pytest.approx(0.1 * n)
    assert info["retention"] == 0.9 and info["invariant"] == {"roof": False}


def test_missing_values_stay_missing_and_are_never_a_target():
    data = sample(5000, seed=5, missing=0.2)
    out = apply(data, retention=0.0, invariant=False).data.frame
    before = data.frame["walls"]
    assert (out["walls"].isna() == before.isna()).all()
    # retention 0: every non-missing value changes category
    kept = before.notna()
    assert (out.loc[kept, "walls"] != before[kept]).all()
    assert set(out.loc[kept, "walls"]) == {"2", "3", "9"}


def test_seed_004_walls_matrix_changes_the_expected_number_of_values():
    # seed 004 printed 59 changes (1.29%) with this matrix; the expectation is
    # sum_i t_i (1 - P_ii) = 57.35 (sd 7.37). Our run with the same matrix lands within
    # 6 sd of it, and so does sdcMicro's 59.
    data, _, _ = read_data({"builtin": "testdata"}, ROOT,
                           {"walls": Variable("walls", "pram", "categorical")})
    assert data.frame["walls"].value_counts().to_dict() == WALLS_FREQ
    matrix = normalised(SEED_WALLS)
    result = apply(data, seed=2019, matrix={"walls": matrix})
    mean, var = expected_changes(as_array(matrix, ["2", "3", "9"]),
                                 np.array(list(WALLS_FREQ.values()), dtype=float))
    assert result.info["expected_changed"]["walls"] == pytest.approx(57.35, abs=0.01)
    assert abs(result.info["changed"]["walls"] - mean) <= 6 * np.sqrt(var)
    assert abs(59 - mean) <= 6 * np.sqrt(var)
    # a given matrix is used as is (not made invariant), as sdcMicro does
    assert result.info["invariant"] == {"walls": False}
    assert result.info["transition_matrix"]["walls"] == matrix
    # over 100 runs the mean number of changes is within 6 standard errors
    runs = [apply(data, seed=s, matrix={"walls": matrix}).info["changed"]["walls"]
            for s in range(100)]
    assert abs(np.mean(runs) - mean) <= 6 * np.sqrt(var / 100)


def test_given_matrix_is_validated_with_clear_messages():
    data = sample(300)
    bad = {"walls": {"2": {"2": 0.9, "3": 0.2}, "3": {"3": 1.1, "9": -0.1},
                     "9": {"9": 1}},
           "regio": {"n": {"n": 1}}}
    found = list(PLUGIN.check(params(matrix=bad), data.meta))
    assert found == [
        (("matrix", "walls", "2"),
         "the row of '2' in the matrix of 'walls' sums to 1.1, not 1 (tolerance 1e-09)"),
        (("matrix", "walls", "3", "9"),
         "negative probability -0.1 of '3' -> '9' in the matrix of 'walls'"),
        (("matrix", "regio"),
         "'regio' is not one of the variables post-randomised (walls, roof)"),
    ]
    # the printed seed matrix is off by 4e-9 and 8e-9: refused at 1e-9
    found = list(PLUGIN.check(params(matrix={"walls": SEED_WALLS}), data.meta))
    assert [p for p, _ in found] == [("matrix", "walls", "2"), ("matrix", "walls", "3")]
    assert "sums to 0.999999996, not 1" in found[0][1]
    # data checks: a category without a row, an unknown category
    missing_row = {"walls": {"2": {"2": 1}, "3": {"3": 0.5, "7": 0.5}}}
    nines = int((data.frame["walls"] == "9").sum())
    assert list(PLUGIN.check_data(params(matrix=missing_row), data)) == [
        (("matrix", "walls"), (f"category '9' of 'walls' ({nines} records) has no row in "
                               "the matrix")),
        (("matrix", "walls", "3"), ("unknown category '7' in the matrix of 'walls': not in "
                                    "the data (2, 3, 9) nor declared")),
    ]


def test_ordinal_matrix_categories_must_be_in_the_order():
    data = Dataset(pd.DataFrame({"edu": pd.Series(["low", "high"] * 5, dtype=TEXT)}),
                   {"edu": Variable("edu", "pram", "ordinal", order=("low", "high"))})
    found = list(PLUGIN.check(params(matrix={"edu": {"low": {"mid": 1}}}), data.meta))
    assert found == [(("matrix", "edu", "low"),
                      "unknown category 'mid': 'edu' is ordinal with categories low, high")]
    out = apply(data, matrix={"edu": {"low": {"high": 1}, "high": {"high": 1}}})
    assert (out.data.frame["edu"] == "high").all() and out.info["changed"]["edu"] == 5


def test_checks_without_variables_or_with_bad_strata():
    meta = small_dataset(x=("key", "categorical", ["a"])).meta
    assert list(PLUGIN.check(params(), meta)) == [
        (("variables",), "no variables: name them or declare variables with role pram")]
    meta = sample(10).meta
    assert list(PLUGIN.check(params(strata=["walls", "zone"]), meta)) == [
        (("strata", 0), "'walls' is post-randomised, so it cannot define strata"),
        (("strata", 1), "'zone' is not a declared variable")]


def test_per_stratum_with_a_given_matrix_uses_it_everywhere():
    data = sample(2000, seed=8)
    matrix = {"2": {"3": 1}, "3": {"2": 1}, "9": {"9": 1}}
    result = apply(data, matrix={"walls": matrix}, variables=["walls"])
    before, after = data.frame["walls"], result.data.frame["walls"]
    swap = {"2": "3", "3": "2", "9": "9"}
    assert (after[before.notna()] == before[before.notna()].map(swap)).all()
    assert result.info["transition_matrix"]["walls"]["2"] == {"2": 0.0, "3": 1.0, "9": 0.0}


def test_frequency_spread_moves_values_towards_frequent_categories():
    data = sample(50_000, seed=9, missing=0.0)
    info = apply(data, seed=1, variables=["walls"], strata=[], invariant=False,
                 spread="frequency", retention=0.5).info
    P = as_array(info["transition_matrix"]["walls"], ["2", "3", "9"])
    t = freq(data.frame["walls"], ["2", "3", "9"])
    assert P[0, 1] / P[0, 2] == pytest.approx(t[1] / t[2])
    assert np.allclose(P.sum(axis=1), 1)


def test_deterministic_for_a_seed():
    data = sample(3000)
    a = apply(data, seed=5).data.frame
    b = apply(data, seed=5).data.frame
    c = apply(data, seed=6).data.frame
    assert a.equals(b) and not a.equals(c)


def test_recipe_end_to_end(write_recipe, tmp_path):
    path = write_recipe("""
        sdcflow: 1
        name: pram
        seed: 11
        data: {builtin: testdata}
        variables:
          walls: {role: pram}
          roof: {role: pram}
          urbrur: {role: key}
        steps:
          - id: pram_walls
            method: pram
            params:
              variables: [walls]
              matrix:
                walls:
                  "2": {"2": 0.9, "3": 0.1}
                  "3": {"3": 0.95, "2": 0.05}
                  "9": {"9": 1}
          - id: pram_roof
            method: pram
            params: {variables: [roof], strata: [urbrur]}
        release: {path: out.csv}
        """)
    result = run(path, tmp_path / "out", use_cache=False)
    walls = next(s.info for s in result.steps if s.node == "pram_walls")
    # expected changes: 1203 * 0.1 + 3327 * 0.05 = 286.65, sd ~ 15.4
    assert walls["expected_changed"] == {"walls": pytest.approx(286.65)}
    assert abs(walls["changed"]["walls"] - 286.65) <= 6 * np.sqrt(
        1203 * 0.09 + 3327 * 0.05 * 0.95)
    assert (result.data["walls"] == "9").sum() == 50  # row 9 keeps every value
    roof = next(s.info for s in result.steps if s.node == "pram_roof")
    assert roof["invariant"] == {"roof": True} and roof["strata"] == 2
    assert set(result.data["roof"]) <= {"2", "4", "5", "6", "9"}


# ------------------------------------------------------------- scheme sdcmicro vs fixed


def test_scheme_sdcmicro_draws_each_retention_from_u_pd_1_per_stratum():
    # sdcMicro 5.8.1, R/pram.R: per stratum and category P_ii ~ U(pd, 1), the rest of the
    # row spread evenly, then alpha P Q + (1 - alpha) I with the stratum's frequencies
    data = sample(4000, seed=12)
    result = apply(data, seed=3, scheme="sdcmicro", pd=0.6, alpha=0.7, variables=["roof"])
    info = result.info
    assert info["scheme"] == "sdcmicro" and info["pd"] == 0.6 and info["alpha"] == 0.7
    assert "retention" not in info and info["invariant"] == {"roof": True}
    cats = ["a", "b", "c", "d"]
    drawn = info["drawn_retention"]["roof"]["by_stratum"]
    frame = data.frame
    for region in ("n", "s"):
        d = np.array([drawn[region][c] for c in cats])
        assert ((d >= 0.6) & (d <= 1)).all()
        # the reported matrix is exactly the invariant construction from that draw
        P = np.repeat(((1 - d) / 3)[:, None], 4, axis=1)
        np.fill_diagonal(P, d)
        t = freq(frame.loc[frame["region"] == region, "roof"], cats)
        Q = (P * t[:, None]).T / (t @ P)[:, None]
        expected = 0.7 * P @ Q + 0.3 * np.eye(4)
        got = as_array(info["transition_matrix"]["roof"]["by_stratum"][region], cats)
        np.testing.assert_allclose(got, expected, rtol=1e-12)
        assert np.allclose(t @ got, t)  # invariant within the stratum
    # a new draw for every stratum, as sdcMicro
    assert drawn["n"] != drawn["s"]
    # the step's generator alone decides: same seed, same release
    again = apply(data, seed=3, scheme="sdcmicro", pd=0.6, alpha=0.7, variables=["roof"])
    assert again.data.frame.equals(result.data.frame)


def test_scheme_fixed_keeps_every_category_with_the_same_retention():
    data = sample(500, seed=13)
    info = apply(data, seed=1, variables=["roof"], strata=[], invariant=False,
                 retention=0.7).info
    assert info["scheme"] == "fixed" and info["retention"] == 0.7 and "pd" not in info
    P = as_array(info["transition_matrix"]["roof"], ["a", "b", "c", "d"])
    assert np.allclose(np.diag(P), 0.7) and np.allclose(P[0, 1:], 0.1)


SCHEME_MIX = ("scheme sdcmicro draws each category's retention from U(pd, 1), spreads the "
              "rest uniformly and is always invariant: 'retention', 'spread' and "
              "'invariant: false' belong to scheme fixed")
PD_ALONE = ("'pd' is sdcMicro's lower bound of a random retention: give it with scheme: "
            "sdcmicro, or 'retention' (the same for every category) with scheme fixed")


def pram_recipe(params_text: str) -> str:
    return f"""
        sdcflow: 1
        name: pram
        seed: 1
        data: {{builtin: testdata}}
        variables:
          walls: {{role: pram}}
        steps:
          - {{id: p, method: pram, params: {params_text}}}
        """


@pytest.mark.parametrize("params_text, message", [
    ("{scheme: sdcmicro, retention: 0.9}", SCHEME_MIX),
    ("{scheme: sdcmicro, invariant: false}", SCHEME_MIX),
    ("{scheme: sdcmicro, spread: frequency}", SCHEME_MIX),
    ("{pd: 0.9}", PD_ALONE),
    ("{scheme: fixed, pd: 0.9}", PD_ALONE),
])
def test_scheme_parameters_are_not_mixed(write_recipe, params_text, message):
    with pytest.raises(RecipeError) as info:
        validate(write_recipe(pram_recipe(params_text)))
    assert [p.message for p in info.value.problems] == [f"steps[0].params: {message}"]


def test_scheme_sdcmicro_through_a_recipe(write_recipe):
    result = run(write_recipe(pram_recipe("{scheme: sdcmicro, pd: 0.9, invariant: true}")),
                 write=False, use_cache=False)
    info = next(s for s in result.manifest["steps"] if s["id"] == "p")["info"]
    assert info["scheme"] == "sdcmicro" and info["pd"] == 0.9
    assert all(0.9 <= v <= 1 for v in info["drawn_retention"]["walls"].values())
