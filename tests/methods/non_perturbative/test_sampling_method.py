"""sampling plugin: stratified subsamples with adjusted weights."""

import numpy as np
from helpers import small_dataset

from sdcflow import run
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("sampling")


def test_weights_are_adjusted_by_the_inverse_fraction(write_recipe, tmp_path):
    path = write_recipe("""
        sdcflow: 1
        name: s
        seed: 5
        data: {builtin: testdata}
        variables:
          urbrur: {role: strata}
          sex: {role: key}
          sampling_weight: {role: weight}
        steps:
          - {id: sample, method: sampling, params: {fraction: 0.1}}
          - {id: risk, measure: k_anonymity, params: {k: 2}}
        release: {path: s.csv}
    """)
    result = run(path, tmp_path / "out", use_cache=False)
    info = next(s.info for s in result.steps if s.node == "sample")
    # testdata: 646 urban and 3934 rural records; 10% of each, rounded
    assert info["by_stratum"] == {"1": {"sampled": 65, "of": 646},
                                  "2": {"sampled": 393, "of": 3934}}
    assert len(result.data) == 458 == result.measures["risk"]["records"]
    # the weights still add up to the population size (every weight is 100)
    assert result.data["sampling_weight"].sum() == 4580 * 100
    urban = result.data["urbrur"] == "1"
    np.testing.assert_allclose(result.data.loc[urban, "sampling_weight"], 100 * 646 / 65)


def test_simple_random_sample_of_a_size_is_reproducible():
    data = small_dataset(x=("key", "categorical", list("abcdefghij")),
                         w=("weight", "integer", [3] * 10))
    params = registry.with_defaults(PLUGIN.params, {"size": 4})
    a = PLUGIN.apply(data, params, np.random.default_rng(1))
    b = PLUGIN.apply(data, params, np.random.default_rng(1))
    assert a.data.frame.equals(b.data.frame) and len(a.data.frame) == 4
    # 3 x 10 / 4 = 7.5: the integer weight becomes continuous
    assert a.data.variables["w"].type == "continuous"
    assert a.data.frame["w"].tolist() == [7.5] * 4
    two = small_dataset(x=("key", "categorical", list("abcd")), w=("weight", "integer", [3] * 4))
    half = PLUGIN.apply(two, registry.with_defaults(PLUGIN.params, {"size": 2}),
                        np.random.default_rng(1))
    assert half.data.variables["w"].type == "integer"
    assert half.data.frame["w"].tolist() == [6, 6]


def test_size_larger_than_data():
    data = small_dataset(x=("key", "categorical", ["a", "b"]))
    assert list(PLUGIN.check_data({"size": 3}, data)) == [
        (("size",), "size = 3 is larger than the number of records (2)")]


def test_conformance(testdata):
    check_method(PLUGIN, testdata, {"fraction": 0.2})
