"""record_linkage measure (DBRL and PRL, seed 003 and seed 000)."""

import itertools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helpers import small_dataset

from sdcflow import run
from sdcflow.kernels.linkage.coordinates import standardize
from sdcflow.kernels.linkage.distance_linkage import nearest_links
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("record_linkage")
ROOT = Path(__file__).resolve().parents[3]

# seed 000, "Rank swapping: Example I": original and protected file (p = 2)
SEED_X = [[8, 9, 1, 3], [6, 7, 10, 2], [10, 3, 4, 1], [7, 1, 2, 6], [9, 4, 6, 4],
          [2, 2, 8, 8], [1, 10, 3, 9], [4, 8, 7, 10], [5, 5, 5, 5], [3, 6, 9, 7]]
SEED_Y = [[10, 10, 3, 5], [5, 5, 8, 1], [8, 4, 2, 2], [9, 2, 4, 4], [7, 3, 5, 6],
          [4, 1, 10, 10], [3, 9, 1, 7], [2, 6, 9, 8], [6, 7, 6, 3], [1, 8, 7, 9]]


def dataset(rows, typ="integer"):
    cols = list(zip(*rows, strict=True))
    return small_dataset(**{f"V{j + 1}": ("numeric", typ, list(col))
                            for j, col in enumerate(cols)})


def evaluate(data, original, **params):
    params = registry.with_defaults(PLUGIN.params, params)
    return PLUGIN.evaluate(data, params, np.random.default_rng(0), original=original)


def test_hand_computed_four_records():
    # corners of a square; protected 2 and 3 moved next to each other's corner
    original = dataset([[0, 0], [10, 0], [0, 10], [10, 10]], "continuous")
    protected = dataset([[1, 0], [9, 1], [10, 9], [0, 9]], "continuous")
    result = evaluate(protected, original)
    assert result.summary["correct"] == 2 and result.summary["percent"] == 50.0
    assert result.per_record["linked"].tolist() == [0, 1, 3, 2]
    assert result.per_record["correct"].tolist() == [True, True, False, False]


def test_identical_files_give_100_percent():
    # (Mahalanobis COV: the differences are all 0, the most telling, not dropped)
    data = dataset([[1, 5], [2, 3], [7, 1], [4, 4], [9, 9]])
    for method in ("strongest", "distance", "mahalanobis", "weighted", "kernel",
                   "probabilistic"):
        result = evaluate(data, data, method=method, tolerance=0.0)
        assert result.summary["percent"] == 100.0, method
    result = evaluate(data, data, method="mahalanobis", covariance="cov0")
    assert result.summary["percent"] == 100.0


def test_seed_example_nested_scenarios():
    # seed 000, "Rank swapping: Example II" table, scenarios {V1}, {V1, V2}, {V1, V2, V3},
    # {V1, ..., V4}. PRL: 0 in each (PLD = 0), reproduced.
    original, protected = dataset(SEED_X), dataset(SEED_Y)
    # (values agreeing within 0.1 sd, about 0.3: equal values, on these integers)
    prl = evaluate(protected, original, method="probabilistic", scenarios="prefixes",
                   tolerance=0.1)
    assert [s["correct"] for s in prl.summary["by_scenario"]] == [0, 0, 0, 0]
    assert prl.summary["percent"] == 0.0
    # the default tries tolerances 0.05, 0.1, 0.2 and 0.5 and keeps the most successful:
    # within 0.5 sd (about 1.5: values 1 apart agree) PRL links some records
    strong = evaluate(protected, original, method="probabilistic", scenarios="prefixes")
    assert strong.summary["by_tolerance"] == {"0.05": 0.0, "0.1": 0.0, "0.2": 0.0,
                                              "0.5": 10.0}
    assert strong.summary["tolerance"] == 0.5 and strong.summary["percent"] > 0
    # DBRL, Euclidean on standardised values, ties 1/t: 0, 2, 5.5, 6 (average 3.375 of
    # 10 records: 33.75%). The seed prints 0, 2, 4, 1 (average 17.5 = DLD); the first two
    # agree. The last two cannot come from a Euclidean linkage: with four variables, six
    # protected records (of x_1, x_2, x_3, x_6, x_7, x_9) have their own original as
    # unique nearest neighbour (and linking the other way, originals to protected
    # records, five do); the variables are permutations of 1..10, so no standardisation
    # changes this: at least 5 links, not 1.
    dbrl = evaluate(protected, original, method="distance", scenarios="prefixes")
    assert [s["correct"] for s in dbrl.summary["by_scenario"]] == [0, 2, 5.5, 6]
    assert [s["variables"] for s in dbrl.summary["by_scenario"]] == [
        ["V1"], ["V1", "V2"], ["V1", "V2", "V3"], ["V1", "V2", "V3", "V4"]]
    assert dbrl.summary["correct"] == pytest.approx(3.375)
    assert dbrl.summary["percent"] == pytest.approx(33.75)
    unique_own = dbrl.per_record["correct"] & (dbrl.per_record["ties"] == 1)
    assert np.flatnonzero(unique_own).tolist() == [0, 1, 2, 5, 6, 8]


def test_the_seed_figures_match_a_manhattan_linkage_with_optimistic_ties():
    # What does give 0, 2, 4, 1: linking each *original* record to the protected records
    # at the smallest *Manhattan* distance and counting a success whenever its own record
    # is among the tied nearest. Documented here (not implemented: the measure follows
    # seed 003's Euclidean distance) so the discrepancy above has an explanation.
    x, y = np.array(SEED_X, float), np.array(SEED_Y, float)
    found = []
    for k in range(1, 5):
        d = np.abs(x[:, None, :k] - y[None, :, :k]).sum(axis=2)
        found.append(sum(bool(d[i, i] == d[i].min()) for i in range(10)))
    assert found == [0, 2, 4, 1]


def test_subsets_average_every_subset_of_each_size():
    original, protected = dataset(SEED_X), dataset(SEED_Y)
    result = evaluate(protected, original, method="distance", scenarios="subsets")
    zo, zp = standardize(np.array(SEED_X, float), np.array(SEED_Y, float))
    expected = {}
    for size in range(1, 5):
        counts = [nearest_links(zp[:, list(s)], zo[:, list(s)]).credit.sum()
                  for s in itertools.combinations(range(4), size)]
        expected[str(size)] = float(np.mean(counts))
        assert result.summary["by_size"][str(size)]["scenarios"] == len(counts)
        assert result.summary["by_size"][str(size)]["correct"] == pytest.approx(
            expected[str(size)])
    assert result.summary["correct"] == pytest.approx(np.mean(list(expected.values())))


def test_subsets_are_itertools_combinations():
    # the scenario helper of the measures enumerates the same subsets
    from sdcflow.measures.linkage.record_linkage import scenario_sets

    assert scenario_sets(3, "subsets") == [s for k in (1, 2, 3)
                                          for s in itertools.combinations(range(3), k)]
    assert scenario_sets(3, "prefixes") == [(0,), (0, 1), (0, 1, 2)]


def test_weighted_and_mahalanobis():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(200, 2))
    y = x + np.column_stack([rng.normal(scale=2, size=200), rng.normal(scale=1e-5, size=200)])
    original = small_dataset(a=("numeric", "continuous", x[:, 0]),
                             b=("numeric", "continuous", x[:, 1]))
    protected = small_dataset(a=("numeric", "continuous", y[:, 0]),
                              b=("numeric", "continuous", y[:, 1]))
    plain = evaluate(protected, original, method="distance").summary["percent"]
    # all the weight on the nearly untouched variable b links (almost) everything
    heavy = evaluate(protected, original, method="weighted", weights={"a": 0}).summary
    assert heavy["weights"] == {"a": 0.0, "b": 1.0}
    assert heavy["percent"] > plain and heavy["percent"] == 100
    maha = evaluate(protected, original, method="mahalanobis", covariance="cov0").summary
    assert maha["mahalanobis_rank"] == 2 and "pseudo-inverse" in maha["covariance"]
    # the covariance of the differences weighs b (moved by 1e-5) by far the most: every
    # record links, as with the weights above
    cov = evaluate(protected, original, method="mahalanobis").summary
    assert cov["covariance"].startswith("cov:") and cov["percent"] == 100
    assert evaluate(protected, original).summary["percent"] == 100  # strongest


def test_missing_values_are_not_linked():
    original = dataset([[1.0, 2.0], [3.0, 1.0], [5.0, 9.0]], "continuous")
    protected = dataset([[1.0, 2.0], [None, 1.0], [5.0, 9.0]], "continuous")
    result = evaluate(protected, original)
    assert result.summary["not_linked"] == 1 and result.summary["correct"] == 2
    assert result.per_record["linked"].isna().tolist() == [False, True, False]


def test_refuses_different_records():
    with pytest.raises(ValueError, match="records differ"):
        evaluate(dataset([[1, 2]]), dataset([[1, 2], [3, 4]]))


def test_checks():
    meta = dataset([[1, 2]]).meta
    found = list(PLUGIN.check({"method": "distance", "weights": {"V1": 2}}, meta))
    assert any("only with method: weighted" in m for _, m in found)
    found = list(PLUGIN.check({"method": "weighted", "weights": {"zz": 2}}, meta))
    assert any("'zz' is not one of the linkage variables" in m for _, m in found)
    many = small_dataset(**{f"v{i}": ("numeric", "continuous", [1.0]) for i in range(13)})
    found = list(PLUGIN.check({"scenarios": "subsets"}, many.meta))
    assert any("8191 linkages" in m for _, m in found)


def test_kernel_dbrl():
    # the kernel arithmetic is checked by hand in the kernels' tests; here: degree 1
    # ((1 + <a, b>)^1) is the Euclidean distance, so the links are the distance method's
    original = dataset([[0, 0], [10, 0], [0, 10], [10, 10], [5, 5]], "continuous")
    protected = dataset([[1, 0], [9, 1], [10, 9], [0, 9], [5, 4]], "continuous")
    one = evaluate(protected, original, method="kernel", degree=1)
    plain = evaluate(protected, original)
    assert one.summary["correct"] == plain.summary["correct"]
    assert one.per_record["linked"].tolist() == plain.per_record["linked"].tolist()
    assert one.summary["degree"] == 1 and one.summary["method"] == "kernel"
    two = evaluate(protected, original, method="kernel", scenarios="prefixes")
    assert two.summary["degree"] == 2 and len(two.summary["by_scenario"]) == 2


def test_mahalanobis_cov():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(60, 2))
    y = x + rng.normal(scale=0.3, size=(60, 2))
    original, protected = dataset(x.tolist(), "continuous"), dataset(y.tolist(), "continuous")
    cov0 = evaluate(protected, original, method="mahalanobis", covariance="cov0").summary
    cov = evaluate(protected, original, method="mahalanobis").summary
    assert cov0["covariance"].startswith("cov0") and cov["covariance"].startswith("cov:")
    assert cov["mahalanobis_rank"] == 2
    # the noise is independent of the values and the same on both variables: the
    # differences' covariance is about 0.09 I, so COV is nearly the Euclidean linkage
    # on the raw values (here standardised with the original's sd, near 1)
    plain = evaluate(protected, original).summary
    assert abs(cov["correct"] - plain["correct"]) <= 3


def microaggregated_casc(size, k, columns=None):
    """The CASC Census file (its first ``columns`` variables) and its MDAV
    microaggregation (k) in groups of ``size`` variables taken in file order."""
    from sdcflow.data import Dataset, Variable

    frame = pd.read_csv(ROOT / "sdcflow" / "data" / "datasets" / "CASCrefmicrodata.csv")
    frame = frame.select_dtypes("number").astype(float).iloc[:, :columns]
    cols = list(frame.columns)
    original = Dataset(frame, {c: Variable(c, "numeric", "continuous") for c in cols})
    method = registry.get("microaggregation")
    params = registry.with_defaults(method.params, {
        "k": k, "algorithm": "mdav",
        "groups": [cols[i:i + size] for i in range(0, len(cols), size)]})
    protected = method.apply(original, params, np.random.default_rng(0)).data
    return protected, original


def test_the_default_is_the_strongest_attack_on_a_microaggregated_file():
    # MDAV (k = 3) of the CASC Census file in groups of 4 variables: the pooled
    # covariance (COV0, the old default of method mahalanobis) links 69.6 % where the
    # Euclidean distance links 99.1 % and the covariance of the differences 99.2 %. The
    # default links as the strongest of them; method mahalanobis defaults to COV.
    protected, original = microaggregated_casc(4, 3)
    default = evaluate(protected, original).summary
    assert default["method"] == "strongest"
    by = default["by_method"]
    assert by["mahalanobis_cov0"] == pytest.approx(69.6, abs=0.1)
    assert by["distance"] == pytest.approx(99.1, abs=0.1)
    assert by["mahalanobis_cov"] == pytest.approx(99.2, abs=0.1)
    assert default["percent"] == max(by.values()) and default["strongest"] == "mahalanobis_cov"
    maha = evaluate(protected, original, method="mahalanobis").summary
    assert maha["percent"] == by["mahalanobis_cov"]
    # in groups of 6 with k = 10 the order of Euclidean and COV turns (50.3 and 79.8 %),
    # which is why no single distance is the default
    protected, original = microaggregated_casc(6, 10)
    other = evaluate(protected, original).summary
    assert other["by_method"]["distance"] == pytest.approx(50.3, abs=0.1)
    assert other["percent"] == pytest.approx(79.8, abs=0.1)


def test_probabilistic_linkage_tries_several_tolerances():
    # the first six CASC variables, MDAV (k = 3) in two groups of three: values agreeing
    # within 0.1 sd (the old default) link 47.4 % of the records, within 0.2 sd 68.8 %;
    # the default keeps the most successful of 0.05, 0.1, 0.2 and 0.5
    protected, original = microaggregated_casc(3, 3, columns=6)
    strong = evaluate(protected, original, method="probabilistic").summary
    assert strong["by_tolerance"]["0.1"] == pytest.approx(47.4, abs=0.1)
    assert strong["by_tolerance"]["0.2"] == pytest.approx(68.8, abs=0.1)
    assert strong["tolerance"] == 0.2 and strong["percent"] == strong["by_tolerance"]["0.2"]
    one = evaluate(protected, original, method="probabilistic", tolerance=0.1).summary
    assert one["percent"] == strong["by_tolerance"]["0.1"] and "by_tolerance" not in one


def test_strongest_takes_the_best_attack_per_scenario():
    # each scenario's figure is the largest of the three linkages on its variables
    original, protected = dataset(SEED_X), dataset(SEED_Y)
    best = evaluate(protected, original, scenarios="prefixes").summary
    runs = [evaluate(protected, original, scenarios="prefixes", **extra).summary
            for extra in ({"method": "distance"}, {"method": "mahalanobis"},
                          {"method": "mahalanobis", "covariance": "cov0"})]
    for i, scenario in enumerate(best["by_scenario"]):
        assert scenario["correct"] == max(r["by_scenario"][i]["correct"] for r in runs)
    assert "strongest of distance, mahalanobis_cov, mahalanobis_cov0" in \
        PLUGIN.explain({}, best)


@pytest.mark.parametrize("method", ["strongest", "distance", "mahalanobis", "weighted",
                                    "kernel", "probabilistic"])
def test_conformance(testdata, method):
    check_method(PLUGIN, testdata, {"method": method})


RECIPE = """
sdcflow: 1
name: linkage
seed: 3
data: {builtin: casc_census}
variables:
  AGI: {role: numeric, type: integer}
  FEDTAX: {role: numeric, type: integer}
  PTOTVAL: {role: numeric, type: integer}
  STATETAX: {role: numeric, type: integer}
steps:
  - {id: raw, measure: record_linkage}
  - {id: micro, method: microaggregation, params: {k: 5}}
  - {id: dbrl, measure: record_linkage, params: {scenarios: prefixes}}
  - {id: prl, measure: record_linkage, params: {method: probabilistic}}
"""


def test_recipe(write_recipe, tmp_path):
    result = run(write_recipe(RECIPE), tmp_path / "out", use_cache=False)
    raw = result.measures["raw"]
    assert raw["percent"] == 100.0  # no two CASC records agree on these four variables
    dbrl, prl = result.measures["dbrl"], result.measures["prl"]
    # MDAV with k = 5 on the four variables together: the records of a group share one
    # protected record (the centroid), which links to one original, so at most one link
    # per group is correct: at most 1080 / 5 = 216
    full = dbrl["by_scenario"][-1]
    assert full["variables"] == ["AGI", "FEDTAX", "PTOTVAL", "STATETAX"]
    assert 0 < full["correct"] <= 216
    # the average over the nested scenarios (1, 2, 3, 4 known variables)
    assert dbrl["correct"] == pytest.approx(np.mean([s["correct"] for s in dbrl["by_scenario"]]))
    assert prl["percent"] < raw["percent"]
    assert set(prl["em"]["m"]) == {"AGI", "FEDTAX", "PTOTVAL", "STATETAX"}
    assert len(result.per_record["dbrl"]) == 1080
