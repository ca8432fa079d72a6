"""clustering_agreement measure (seed 000, section 4, "Specific Information Loss Measure")."""

import numpy as np
import pytest
from helpers import small_dataset

import sdcflow
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("clustering_agreement")


def evaluate(data, original, seed=0, **params):
    params = registry.with_defaults(PLUGIN.params, params)
    return PLUGIN.evaluate(data, params, np.random.default_rng(seed), original=original)


def _blobs():
    rng = np.random.default_rng(1)
    centres = np.array([[0, 0], [10, 0], [0, 10]], float)
    truth = np.repeat(np.arange(3), 30)
    x = centres[truth] + rng.normal(scale=0.5, size=(90, 2))
    return x, truth


def test_identical_data_agree_perfectly(testdata):
    s = evaluate(testdata, testdata).summary
    assert s["rand"] == s["jaccard"] == s["adjusted_rand"] == 1.0
    assert s["mantaras"] == 0.0 and s["il_rand"] == 0.0 and s["il_mantaras"] == 0.0
    assert s["clusters"] == 15 and s["records_used"] == 4580


def _two_columns(values):
    return small_dataset(a=("numeric", "continuous", values[:, 0]),
                         b=("numeric", "continuous", values[:, 1]))


def test_small_shift_keeps_the_clusters_and_mixing_breaks_them():
    x, _ = _blobs()
    before = _two_columns(x)
    s = evaluate(_two_columns(x + [0.1, 0.0]), before, clusters=3).summary
    assert s["adjusted_rand"] == 1.0 and s["mantaras"] == 0.0
    # records 0..29 form one blob, 30..59 another: exchange the values of half of each, so
    # the protected clusters are {0..14, 45..59} and {15..29, 30..44}
    mixed = x.copy()
    mixed[:15], mixed[30:45] = x[30:45], x[:15]
    s = evaluate(_two_columns(mixed), before, clusters=3).summary
    # u: 30 30 30; v: 30 30 30 with the two first clusters split 15/15 across:
    # together in both = 4 C(15,2) + C(30,2) = 4*105 + 435 = 855, in each = 3 * 435 = 1305
    assert s["pairs"]["together_both"] == 855
    assert s["wallace_original_to_protected"] == pytest.approx(855 / 1305)
    assert s["adjusted_rand"] < 0.6 and s["mantaras"] > 0.2
    assert s["il_rand"] == pytest.approx(1 - s["rand"])


def test_records_with_missing_values_are_left_out():
    x, _ = _blobs()
    a = x[:, 0].copy()
    a[5] = np.nan
    before = small_dataset(a=("numeric", "continuous", a), b=("numeric", "continuous", x[:, 1]))
    result = evaluate(before, before, clusters=3)
    assert result.summary["records_used"] == 89
    assert result.per_record["cluster_original"][5] == -1


def test_too_many_clusters_is_a_finding():
    data = small_dataset(a=("numeric", "continuous", [1.0, 2.0]))
    params = registry.with_defaults(PLUGIN.params, {})
    assert [p for p, _ in PLUGIN.check_data(params, data)] == [("clusters",)]


def test_refuses_different_records():
    a = small_dataset(x=("numeric", "continuous", [1.0, 2.0, 3.0]))
    b = small_dataset(x=("numeric", "continuous", [1.0, 2.0]))
    with pytest.raises(ValueError, match="records differ"):
        evaluate(b, a, clusters=2)


def test_conformance(testdata):
    check_method(PLUGIN, testdata, {"clusters": 5})


def test_recipe_microaggregation_of_casc_census(write_recipe, tmp_path):
    # seed 000's table clusters microaggregated Census files with c = 15; here MDAV with
    # k = 3 on five variables: the partitions agree less than perfectly
    path = write_recipe("""
        sdcflow: 1
        name: cl
        seed: 3
        data: {builtin: casc_census}
        variables:
          AGI: {role: numeric, type: integer}
          FEDTAX: {role: numeric, type: integer}
          PTOTVAL: {role: numeric, type: integer}
          TAXINC: {role: numeric, type: integer}
          INTVAL: {role: numeric, type: integer}
        steps:
          - id: micro
            method: microaggregation
            params: {k: 3, variables: [AGI, FEDTAX, PTOTVAL, TAXINC, INTVAL]}
          - {id: cl, measure: clustering_agreement}
        """)
    first = sdcflow.run(path, tmp_path / "a", use_cache=False).measures["cl"]
    again = sdcflow.run(path, tmp_path / "b", use_cache=False).measures["cl"]
    assert first == again
    assert first["records_used"] == 1080 and first["clusters"] == 15
    assert 0.5 < first["rand"] < 1 and 0 < first["adjusted_rand"] < 1
    assert 0 < first["mantaras"] < 1
    assert first["jaccard"] <= first["rand"]
