"""beta_likeness measure (Cao & Karras 2012, basic beta-likeness)."""

import numpy as np
from helpers import small_dataset

from sdcflow.data import Metadata, Variable
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("beta_likeness")


def evaluate(data, **params):
    params = registry.with_defaults(PLUGIN.params, params)
    return PLUGIN.evaluate(data, params, np.random.default_rng(0), original=data)


def table():
    # key k: class x (4 records) and y (6 records); sensitive s: overall a 4, b 4, c 2 of
    # 10 -> p = (.4, .4, .2). Class x: a, a, c, c -> q = (.5, 0, .5): gains .25 and 1.5;
    # class y: a, a, b, b, b, b -> q = (1/3, 2/3, 0): b gains (2/3 - .4)/.4 = 2/3.
    return small_dataset(k=("key", "categorical", list("xxxxyyyyyy")),
                         s=("sensitive", "categorical", list("aaccaabbbb")))


def test_by_hand():
    result = evaluate(table(), beta=1)
    np.testing.assert_allclose(result.per_record["beta_likeness_s"],
                               [1.5] * 4 + [2 / 3] * 6, rtol=1e-14)
    stats = result.summary["sensitive"]["s"]
    assert abs(stats["max"] - 1.5) < 1e-14
    assert abs(stats["mean"] - (4 * 1.5 + 6 * 2 / 3) / 10) < 1e-14
    # beta = 1: class x (4 records) gains more
    assert stats["above_beta"] == 4
    assert (result.summary["above_beta"], result.summary["above_beta_percent"]) == (4, 40.0)
    assert result.summary["classes"] == 2
    # beta = 1.5: a class exactly at beta satisfies it
    assert evaluate(table(), beta=1.5).summary["above_beta"] == 0


def test_one_class_gains_nothing_and_missing_values_are_left_out():
    data = small_dataset(k=("key", "categorical", ["x"] * 4),
                         s=("sensitive", "categorical", ["a", "b", None, "b"]))
    assert evaluate(data).per_record["beta_likeness_s"].tolist() == [0.0] * 4


def test_checks():
    meta = Metadata({"k": Variable("k", "key", "categorical")})
    assert list(PLUGIN.check({}, meta)) == [
        ((), ("no sensitive variables: declare variables with role 'sensitive' or name them "
              "in 'sensitive'"))]


def test_conformance(testdata):
    check_method(PLUGIN, testdata, {"sensitive": ["income"], "beta": 2})
