"""top_bottom_code plugin (seed 004, "Top- and Bottom Coding")."""

import numpy as np
from helpers import small_dataset

from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("top_bottom_code")


def code(data, **params):
    return PLUGIN.apply(data, params, np.random.default_rng(0))


def test_top_code_at_value_with_tail_mean():
    data = small_dataset(income=("numeric", "continuous", [1.0, 2, 3, 10, 20, None]))
    out = code(data, variable="income", top={"value": 5, "replace": "mean"})
    assert out.data.frame["income"].tolist()[:5] == [1, 2, 3, 15, 15]
    assert np.isnan(out.data.frame["income"].iloc[5])
    assert out.info == {"top": {"threshold": 5.0, "coded": 2, "replaced_by": 15.0}}


def test_quantile_threshold_uses_r_type_7():
    data = small_dataset(x=("numeric", "continuous", [1.0, 2, 3, 4, 5]))
    out = code(data, variable="x", top={"quantile": 0.75})
    # R: quantile(1:5, 0.75) = 4
    assert out.data.frame["x"].tolist() == [1, 2, 3, 4, 4]


def test_bottom_and_top_together_keep_integers():
    data = small_dataset(age=("key", "integer", [0, 5, 50, 90, 99]))
    out = code(data, variable="age", bottom={"value": 1}, top={"value": 85})
    assert out.data.frame["age"].tolist() == [1, 5, 50, 85, 85]
    assert str(out.data.frame["age"].dtype) == "Int64"
    assert out.data.variables["age"].type == "integer"


def test_integer_becomes_continuous_when_mean_is_fractional():
    data = small_dataset(age=("key", "integer", [1, 2, 90, 91]))
    out = code(data, variable="age", top={"value": 85, "replace": "mean"})
    assert out.data.frame["age"].tolist() == [1, 2, 90.5, 90.5]
    assert out.data.variables["age"].type == "continuous"


def test_inverted_thresholds_are_refused():
    params = {"variable": "x", "top": {"value": 1}, "bottom": {"value": 5}}
    assert [m for _, m in PLUGIN.check(params, None)] == [
        "the bottom threshold is above the top threshold"]


def test_conformance(testdata):
    check_method(PLUGIN, testdata, {"variable": "income", "top": {"quantile": 0.99}})


def test_top_coding_with_a_label_makes_ordinal_text():
    data = small_dataset(age=("key", "integer", [1, 50, 86, 99, None]))
    out = code(data, variable="age", top={"value": 85, "label": "85+"},
               bottom={"value": 2, "label": "<2"})
    assert out.data.frame["age"].tolist()[:4] == ["<2", "50", "85+", "85+"]
    assert out.data.variables["age"].type == "ordinal"
    assert out.data.variables["age"].order == ("<2", "50", "85+")
    assert out.info["top"] == {"threshold": 85.0, "coded": 2, "replaced_by": "85+"}


def test_quantile_of_a_column_without_values_codes_nothing_and_warns_nothing():
    # the quantile of no values is undefined (NumPy warns "All-NaN slice" and gives NaN):
    # nothing is beyond an undefined threshold, and the manifest says so with null
    import warnings

    data = small_dataset(x=("numeric", "continuous", [None, None, None]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = code(data, variable="x", top={"quantile": 0.9}, bottom={"quantile": 0.1})
    assert out.data.frame["x"].isna().all()
    assert out.info == {"bottom": {"threshold": None, "coded": 0, "replaced_by": None},
                        "top": {"threshold": None, "coded": 0, "replaced_by": None}}
    labelled = code(data, variable="x", top={"quantile": 0.9, "label": "high"})
    assert labelled.data.variables["x"].type == "ordinal"
    assert labelled.data.variables["x"].order == ("high",)
    assert labelled.info == {"top": {"threshold": None, "coded": 0, "replaced_by": "high"}}
