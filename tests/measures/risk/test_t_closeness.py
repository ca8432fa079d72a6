"""t_closeness measure (Li, Li & Venkatasubramanian 2007)."""

import numpy as np
from helpers import small_dataset

from sdcflow import registry
from sdcflow.data import Metadata, Variable
from sdcflow.testing import check_method

PLUGIN = registry.get("t_closeness")


def evaluate(data, **params):
    params = registry.with_defaults(PLUGIN.params, params)
    return PLUGIN.evaluate(data, params, np.random.default_rng(0), original=data)


def paper_table():
    # Li et al. (2007), tables 3-4: three ZIP-code classes of three records, salary in
    # thousands and a disease
    return small_dataset(
        zip=("key", "categorical", ["476**"] * 3 + ["4790*"] * 3 + ["476**"[:3] + "*"] * 3),
        salary=("sensitive", "integer", [3, 4, 5, 6, 8, 11, 7, 9, 10]),
        disease=("sensitive", "categorical", ["gastric ulcer", "gastritis", "stomach cancer",
                                              "gastritis", "flu", "bronchitis", "bronchitis",
                                              "pneumonia", "stomach cancer"]),
    )


def test_paper_example_with_both_distances():
    # salary (auto -> ordered): 0.375, 1/6 (the paper's figures) and 17/72 (by hand);
    # disease (auto -> equal), 6 distinct diseases, q = (bronchitis 2, flu 1, gastric ulcer 1,
    # gastritis 2, pneumonia 1, stomach cancer 2) / 9. Class 1 {gastric ulcer, gastritis,
    # stomach cancer}: 1/2 (|1/3-1/9| + |1/3-2/9| + |1/3-2/9| + 2/9 + 1/9 + 1/9) = 4/9;
    # classes 2 {gastritis, flu, bronchitis} and 3 {bronchitis, pneumonia, stomach cancer}
    # likewise hold one value of count 1 and two of count 2: 4/9
    result = evaluate(paper_table(), t=0.3)
    pr = result.per_record
    np.testing.assert_allclose(pr["t_closeness_salary"], [0.375] * 3 + [1 / 6] * 3
                               + [17 / 72] * 3, rtol=1e-14)
    np.testing.assert_allclose(pr["t_closeness_disease"], [4 / 9] * 9,
                               rtol=1e-14)
    s = result.summary
    assert s["classes"] == 3 and s["records"] == 9
    assert s["sensitive"]["salary"]["distance"] == "ordered"
    assert s["sensitive"]["disease"]["distance"] == "equal"
    assert abs(s["sensitive"]["salary"]["max"] - 0.375) < 1e-14
    # t = 0.3: salary class 1 only is farther (3 records), disease all 9
    assert s["sensitive"]["salary"]["above_t"] == 3
    assert s["sensitive"]["disease"]["above_t"] == 9
    assert (s["above_t"], s["above_t_percent"]) == (9, 100.0)


def test_equal_distance_on_a_number():
    # distance: equal treats the salaries as 9 unrelated categories: each class holds 3 of
    # 9 -> 1/2 (3 * 2/9 + 6 * 1/9) = 2/3 for every class
    result = evaluate(paper_table(), sensitive=["salary"], distance="equal")
    np.testing.assert_allclose(result.per_record["t_closeness_salary"], [2 / 3] * 9)
    assert "above_t" not in result.summary


def test_checks():
    meta = Metadata({"a": Variable("a", "key", "categorical"),
                     "s": Variable("s", "sensitive", "categorical")})
    assert list(PLUGIN.check({"distance": "ordered"}, meta)) == [
        (("distance",), ("'s' is categorical: its values have no order, so the ordered "
                         "distance does not apply (use distance: equal)"))]
    assert list(PLUGIN.check({}, meta)) == []
    assert list(PLUGIN.check({"sensitive": ["a"]}, meta)) == [
        (("sensitive", 0), ("'a' is a key variable; a sensitive variable must not be one of "
                           "the keys"))]


def test_conformance(testdata):
    check_method(PLUGIN, testdata, {"sensitive": ["income", "expend"], "t": 0.2})
