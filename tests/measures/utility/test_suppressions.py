"""suppressions measure."""

import numpy as np
import pytest
from helpers import small_dataset

from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("suppressions")


def test_counts_values_missing_now_but_not_before():
    before = small_dataset(a=("key", "categorical", ["x", None, "y", "z"]),
                           b=("key", "integer", [1, 2, 3, 4]))
    after = small_dataset(a=("key", "categorical", [None, None, "y", None]),
                          b=("key", "integer", [1, None, 3, 4]))
    params = registry.with_defaults(PLUGIN.params, {})
    result = PLUGIN.evaluate(after, params, np.random.default_rng(0), original=before)
    assert result.summary["suppressions"] == {"a": 2, "b": 1}
    assert result.summary["total"] == 3
    assert result.summary["percent"] == {"a": 50.0, "b": 25.0}


def test_refuses_different_records():
    a = small_dataset(a=("key", "categorical", ["x", "y"]))
    b = small_dataset(a=("key", "categorical", ["x"]))
    with pytest.raises(ValueError, match="records differ"):
        PLUGIN.evaluate(b, {}, None, original=a)


def test_conformance(testdata):
    check_method(PLUGIN, testdata, {})
