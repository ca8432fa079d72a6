"""decision_loss measure: a condition's decisions on the protected data against the
original, false positives and false negatives weighted apart."""

import numpy as np
import pytest
from helpers import small_dataset

from sdcflow.data import Metadata, Variable
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("decision_loss")


def evaluate(data, original, **params):
    params = registry.with_defaults(PLUGIN.params, params)
    return PLUGIN.evaluate(data, params, np.random.default_rng(0), original=original)


def dataset(t, p):
    return small_dataset(t=("numeric", "continuous", t), p=("numeric", "continuous", p))


def test_sensor_alarm_by_hand():
    # alarm: t > 90 and p < 2. Original alarms: records 1, 2 (t 95, 91; p 1, 1.5).
    # Protected: record 1 still alarms; record 2's t fell to 89 (a false negative);
    # record 4's t rose to 92 with p 1.9 (a false positive); record 5 is missing t
    original = dataset([95.0, 91, 80, 88, 99], [1.0, 1.5, 1, 1.9, 3])
    protected = dataset([96.0, 89, 81, 92, None], [1.0, 1.5, 1, 1.9, 3])
    r = evaluate(protected, original, flag="t > 90 and p < 2", false_positive=1,
                 false_negative=20)
    s = r.summary
    assert s["undecided"] == 1 and s["records"] == 4
    assert (s["true_positives"], s["false_positives"], s["false_negatives"],
            s["true_negatives"]) == (1, 1, 1, 1)
    assert s["loss"] == (1 * 1 + 20 * 1) / 4 and s["symmetric_loss"] == 0.5
    assert r.per_record["flagged_original"].tolist() == [True, True, False, False, False]
    assert r.per_record["flagged_protected"].tolist()[:4] == [True, False, False, True]
    assert r.per_record["flagged_protected"].isna().tolist() == [False] * 4 + [True]
    same = evaluate(original, original, flag="t > 90 and p < 2").summary
    assert same["loss"] == 0.0 and same["undecided"] == 0


def test_condition_without_a_value_is_undecided():
    # t / (p - 1) has no value where p = 1: those records are undecided
    original = dataset([4.0, 6, 2], [1.0, 2, 3])
    protected = dataset([4.0, 6, 2], [2.0, 2, 1])
    s = evaluate(protected, original, flag="t / (p - 1) > 3").summary
    assert s["undecided"] == 2 and s["records"] == 1
    assert s["true_positives"] == 1


def test_checks():
    meta = Metadata({"t": Variable("t", "numeric", "continuous")})
    assert next(iter(PLUGIN.check({"flag": "t >"}, meta)))[0] == ("flag",)
    found = list(PLUGIN.check({"flag": "tt > 1"}, meta))
    assert found == [(("flag",), "'tt' is not a declared variable (did you mean 't'?)")]
    assert list(PLUGIN.check({"flag": "t > 1"}, meta)) == []
    assert PLUGIN.reads({"flag": "t > mean(t)"}, meta) == {"t"}


def test_text_variable_in_an_order_comparison_is_a_clear_error():
    original = small_dataset(c=("key", "categorical", ["a", "b"]))
    with pytest.raises(ValueError, match="cannot be evaluated on the reference data"):
        evaluate(original, original, flag="c > 3")


def test_conformance(testdata):
    check_method(PLUGIN, testdata, {"flag": "income > 100000", "false_negative": 5})


def test_public_summary_holds_no_count_of_the_original():
    original = dataset([95.0, 91, 80], [1.0, 1.5, 1])
    s = evaluate(original, original, flag="t > 90").summary
    public = PLUGIN.public_summary(s, registry.with_defaults(PLUGIN.params, {"flag": "t > 90"}))
    assert "true_positives" not in public and "false_negative_rate" not in public
    assert public["loss"] == 0.0 and public["flag"] == "t > 90"
    params = registry.with_defaults(PLUGIN.params, {"flag": "t > 90"})
    assert "loss of 0 per record" in PLUGIN.explain(params, public)
    assert "records flagged that the original does not flag" in PLUGIN.explain(params, s)
