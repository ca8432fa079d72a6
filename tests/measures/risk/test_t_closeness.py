"""t_closeness measure (Li, Li & Venkatasubramanian 2007)."""

import numpy as np
from helpers import small_dataset

from sdcflow.data import Metadata, Variable
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

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


# Li et al. (2007), Figure 1: the disease hierarchy (height 3), finest level first
DISEASE_LEVELS = {
    "group": {"gastric ulcer": "stomach", "gastritis": "stomach", "stomach cancer": "stomach",
              "colitis": "colon", "colon cancer": "colon", "flu": "respiratory infection",
              "pneumonia": "respiratory infection", "bronchitis": "respiratory infection",
              "pulmonary edema": "vascular lung", "pulmonary embolism": "vascular lung"},
    "system": {"stomach": "digestive", "colon": "digestive",
               "respiratory infection": "respiratory", "vascular lung": "respiratory"},
    "all": {"digestive": "*", "respiratory": "*"},
}


def test_hierarchical_distance_with_a_declared_and_a_given_hierarchy():
    # the paper's Table 4 with the hierarchical distance; by hand from the paper's
    # extra / pos_extra / neg_extra formula (see tests/kernels/privacy/test_models.py):
    # class {gastric ulcer, gastritis, stomach cancer}: 4/9 (all moved across the root);
    # {gastritis, flu, bronchitis}: 1/27 + 1/27 + 2/9 = 8/27;
    # {bronchitis, pneumonia, stomach cancer}: 8/27 too.
    data = paper_table()
    data.variables["disease"] = data.variables["disease"].evolve(hierarchy=DISEASE_LEVELS)
    expected = [4 / 9] * 3 + [8 / 27] * 6
    declared = evaluate(data, sensitive=["disease"], distance="hierarchical", t=0.3)
    np.testing.assert_allclose(declared.per_record["t_closeness_disease"], expected,
                               rtol=1e-14)
    stats = declared.summary["sensitive"]["disease"]
    assert stats["distance"] == "hierarchical" and stats["above_t"] == 3
    assert abs(stats["max"] - 4 / 9) < 1e-14
    given = evaluate(paper_table(), sensitive=["disease"], distance="hierarchical",
                     hierarchy=DISEASE_LEVELS)
    np.testing.assert_allclose(given.per_record["t_closeness_disease"], expected, rtol=1e-14)


def test_hierarchical_checks():
    meta = Metadata({"zip": Variable("zip", "key", "categorical"),
                     "d": Variable("d", "sensitive", "categorical"),
                     "e": Variable("e", "sensitive", "categorical")})
    assert list(PLUGIN.check({"sensitive": ["d"], "distance": "hierarchical"}, meta)) == [
        (("sensitive", 0), ("'d' has no hierarchy: the hierarchical distance needs one "
                           "(declare 'hierarchy' on the variable or give the 'hierarchy' "
                           "parameter)"))]
    assert list(PLUGIN.check({"distance": "hierarchical", "hierarchy": DISEASE_LEVELS},
                             meta)) == [
        (("hierarchy",), ("one 'hierarchy' for 2 sensitive variables: name one in "
                         "'sensitive', or declare each variable's hierarchy"))]
    assert list(PLUGIN.check({"sensitive": ["d"], "hierarchy": DISEASE_LEVELS}, meta)) == [
        (("hierarchy",), "a hierarchy is used only with distance: hierarchical")]
    data = paper_table()
    params = {"sensitive": ["disease"], "distance": "hierarchical",
              "hierarchy": {"group": {"flu": "respiratory"}}}
    assert list(PLUGIN.check_data(params, data)) == [
        (("hierarchy",), ("values of 'disease' missing from its hierarchy: ['bronchitis', "
                         "'gastric ulcer', 'gastritis', 'pneumonia', 'stomach cancer']"))]


def test_conformance_hierarchical():
    check_method(PLUGIN, paper_table(), {"sensitive": ["disease"], "distance": "hierarchical",
                                         "hierarchy": DISEASE_LEVELS, "t": 0.3})
