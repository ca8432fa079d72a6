"""mondrian: key values replaced by their Mondrian group's range, set, common ancestor,
mean or median (LeFevre, DeWitt & Ramakrishnan 2006), with the loss in info; bad input
reported in the project's format; a recipe on testdata checked by k_anonymity."""

import numpy as np
import pytest
from helpers import ROOT, small_dataset

import sdcflow
from sdcflow.data import Dataset
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("mondrian")


def patients(**extra) -> Dataset:
    """The "Patients" table of LeFevre et al. 2006."""
    return small_dataset(age=("key", "integer", [25, 25, 26, 27, 27, 28]),
                         sex=("key", "categorical", ["M", "F", "M", "M", "F", "M"]),
                         zip=("key", "integer", [53711, 53712, 53711, 53710, 53712, 53711]),
                         disease=("sensitive", "categorical",
                                  ["flu", "hepatitis", "bronchitis", "broken arm", "aids",
                                   "hang nail"]), **extra)


def apply(data, **params):
    return PLUGIN.apply(data, registry.with_defaults(PLUGIN.params, params),
                        np.random.default_rng(0))


def test_ranges_and_sets_of_the_patients_table():
    # every key spans its range at the top: age (declared first) is cut at its median 26;
    # no half can be cut again with k = 2 (see the kernel tests)
    result = apply(patients())
    out = result.data.frame
    assert out["age"].tolist() == ["[25-26]"] * 3 + ["[27-28]"] * 3
    assert out["sex"].tolist() == ["{F,M}"] * 6
    assert out["zip"].tolist() == ["[53711-53712]"] * 3 + ["[53710-53712]"] * 3
    assert out["disease"].tolist() == patients().frame["disease"].tolist()
    info = result.info
    # NCP: age 1/3, sex 2 of 2 categories -> 1, zip 3/4 (by hand from Xu et al. 2006)
    assert info["ncp_by_variable"] == {"age": 0.333333, "sex": 1.0, "zip": 0.75}
    assert info["ncp"] == round((1 / 3 + 1 + 3 / 4) / 3, 6)
    assert info["partitions"] == 2 and info["smallest_partition"] == 3
    assert info["discernibility"] == 18
    # 6 records in 2 groups; LeFevre et al.'s C_AVG divides by k = 2
    assert info["average_class_size"] == 3.0
    assert info["normalized_average_class_size"] == 1.5
    assert info["changed"] == {"age": 6, "sex": 6, "zip": 6}
    var = result.data.variables["age"]
    assert var.type == "categorical" and var.order is None


def test_means_and_medians():
    # groups {25, 25, 26} and {27, 27, 28}
    out = apply(patients(), representation="mean").data
    assert np.allclose(out.frame["age"].to_numpy(float), [76 / 3] * 3 + [82 / 3] * 3)
    assert out.variables["age"].type == "continuous"
    out = apply(patients(), representation="median").data
    assert out.frame["age"].tolist() == [25] * 3 + [27] * 3
    assert out.variables["age"].type == "integer"  # whole medians stay integer
    assert apply(patients(), representation="median").info["changed"]["age"] == 2


def test_l_diversity_is_kept():
    data = small_dataset(age=("key", "integer", [1, 2, 3, 4]),
                         d=("sensitive", "categorical", ["a", "a", "b", "b"]))
    # {1,2} | {3,4} would give each group one value of d: with l = 2 no cut
    assert apply(data, k=1).info["partitions"] == 4
    out = apply(data, k=1, l=2, sensitive="d")
    assert out.info["partitions"] == 1
    assert out.data.frame["age"].tolist() == ["[1-4]"] * 4


def test_a_hierarchy_generalises_to_common_ancestors():
    hierarchy = {"country": {"Lyon": "FR", "Paris": "FR", "Rome": "IT", "Milan": "IT"},
                 "continent": {"FR": "Europe", "IT": "Europe"}}
    data = small_dataset(town=("key", "categorical",
                               ["Lyon", "Paris", "Rome", "Milan", "Lyon", "Lyon"]))
    data = Dataset(data.frame, {"town": data.variables["town"].evolve(hierarchy=hierarchy)})
    # the root Europe -> FR (4 records) | IT (2); FR -> Lyon (3) | Paris (1): not allowable
    out = apply(data, k=2)
    assert out.data.frame["town"].tolist() == ["FR", "FR", "IT", "IT", "FR", "FR"]
    # NCP: FR covers 2 of 4 leaves, IT 2 of 4 -> 1/2 for every record
    assert out.info["ncp"] == 0.5
    # the hierarchy becomes the variable's taxonomy (its values are concepts at any level)
    var = out.data.variables["town"]
    assert var.hierarchy is None and var.taxonomy["parents"]["FR"] == "Europe"
    check_method(PLUGIN, data, {"k": 2})


def test_ordinal_categories_in_their_order():
    data = small_dataset(edu=("key", "ordinal", ["low", "mid", "high", "low", "low", "high"]))
    data = Dataset(data.frame, {"edu": data.variables["edu"].evolve(
        order=("low", "mid", "high"))})
    # order low < mid < high: the median (3rd of 6) is low: {low x 3} | {mid, high, high};
    # 3 records cannot be cut with k = 2. The set is listed in the declared order.
    out = apply(data, k=2).data.frame["edu"].tolist()
    assert out == ["low", "{mid,high}", "{mid,high}", "low", "low", "{mid,high}"]


@pytest.mark.parametrize("params", [{}, {"representation": "mean"},
                                    {"representation": "median", "k": 3},
                                    {"l": 2, "sensitive": "disease", "strict": False}])
def test_check_method(params):
    check_method(PLUGIN, patients(), params)


def _data_problems(data, **params):
    return [m for _, m in PLUGIN.check_data(registry.with_defaults(PLUGIN.params, params),
                                            data)]


def test_bad_input_is_reported():
    meta = patients().meta
    assert list(PLUGIN.check({"l": 2}, meta)) == [
        (("sensitive",), "l-diversity needs both 'l' and 'sensitive'")]
    assert list(PLUGIN.check({"l": 2, "sensitive": "age"}, meta)) == [
        (("sensitive",), "'age' is a key variable; the sensitive one must not be")]
    assert list(PLUGIN.check({"l": 2, "sensitive": "dizease"}, meta)) == [
        (("sensitive",), "'dizease' is not a declared variable")]
    assert _data_problems(patients(), k=7) == [
        "k = 7 is larger than the number of records (6)"]
    assert _data_problems(patients(), k=2, l=7, sensitive="disease") == [
        "'disease' has 6 distinct values: no group can hold l = 7"]
    holes = small_dataset(age=("key", "integer", [1, None, 3]))
    assert _data_problems(holes) == [
        ("'age' has 1 missing values: Mondrian partitions complete key values "
         "(suppress after it)")]
    empty = small_dataset(age=("key", "integer", []))
    assert _data_problems(empty) == ["the data have no records to partition"]


def test_recipe_on_testdata():
    # recipes/testdata_mondrian.yaml: 3-anonymous and 2-diverse on walls without a
    # single suppression (the original has 1,087 records violating 3-anonymity, as
    # sdcMicro reports for testdata)
    result = sdcflow.run(ROOT / "recipes" / "testdata_mondrian.yaml", write=False,
                         use_cache=False)
    assert all(c["passed"] for c in result.checks)
    assert result.measures["risk_original"]["violations"]["3"] == 1087
    assert result.measures["risk"]["violations"]["3"] == 0
    assert result.measures["ldiv"]["below_l"] == 0
    sizes = result.data.groupby(["urbrur", "water", "sex", "age", "relat"]).size()
    assert sizes.min() >= 3
