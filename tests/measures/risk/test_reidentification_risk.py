"""reidentification_risk measure (prosecutor risk 1/|class|, as ARX reports it)."""

import numpy as np
from helpers import small_dataset

from sdcflow.data import Metadata
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("reidentification_risk")


def evaluate(data, **params):
    params = registry.with_defaults(PLUGIN.params, params)
    return PLUGIN.evaluate(data, params, np.random.default_rng(0), original=data)


def test_by_hand():
    # classes on (a, b): (x, 1) x3, (x, 2) x1, (y, 1) x2, (missing, 1) x2 (a missing value
    # is a category of its own): risks 1/3, 1, 1/2, 1/2; the average over the 8 records is
    # 4 classes / 8 = (3/3 + 1 + 2/2 + 2/2) / 8 = 0.5; above 0.4: 1 + 2 + 2 = 5 records
    data = small_dataset(a=("key", "categorical", ["x", "x", "x", "x", "y", "y", None, None]),
                         b=("key", "categorical", ["1", "1", "1", "2", "1", "1", "1", "1"]))
    result = evaluate(data, threshold=0.4)
    np.testing.assert_allclose(result.per_record["reidentification_risk"],
                               [1 / 3] * 3 + [1, 0.5, 0.5, 0.5, 0.5])
    assert result.summary == {"variables": ["a", "b"], "records": 8, "classes": 4,
                              "average": 0.5, "max": 1.0, "threshold": 0.4,
                              "above_threshold": 5, "above_threshold_percent": 62.5}
    # a risk exactly at the threshold is not above it
    assert evaluate(data, threshold=0.5).summary["above_threshold"] == 1
    # one key only: a (x 4, y 2, missing 2): 3 classes / 8
    assert evaluate(data, variables=["a"]).summary["average"] == 3 / 8


def test_no_keys():
    assert list(PLUGIN.check({}, Metadata({}))) == [
        (("variables",), "no key variables: declare variables with role 'key'")]


def test_conformance(testdata):
    check_method(PLUGIN, testdata, {"threshold": 0.2})
