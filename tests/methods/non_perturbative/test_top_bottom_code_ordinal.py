"""top_bottom_code on ordinal variables by their declared order: the categories above the
top category (below the bottom one) are recoded to it, optionally under a label (top
and bottom coding of variables that can be ranked, continuous or categorical ordinal:
Domingo-Ferrer & Torra 2001; Torra, "Masking methods", 2013). Expected values by hand."""

import numpy as np
import pandas as pd
import pytest
from helpers import small_dataset
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow import run, validate
from sdcflow.data import Variable
from sdcflow.errors import PluginError, RecipeError
from sdcflow.kernels.non_perturbative.top_bottom import clip_categories, coded_order
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("top_bottom_code")
ORDER = ("0-17", "18-39", "40-64", "65-74", "75-84", "85+")


def ages(values):
    data = small_dataset(agegroup=("key", "ordinal", values))
    data.variables["agegroup"] = Variable("agegroup", "key", "ordinal", order=ORDER)
    return data


def released(out) -> list:
    return [None if pd.isna(v) else v for v in out.data.frame["agegroup"]]


def code(data, **params):
    return PLUGIN.apply(data, params, np.random.default_rng(0))


def test_kernel_by_hand():
    # positions 0 1 2 3 4 5 and a missing one, clipped to [1, 3]: 1 1 2 3 3 3, missing
    clipped, below, above = clip_categories(np.array([0, 1, 2, 3, 4, 5, np.nan]), 1, 3)
    assert clipped[:6].tolist() == [1, 1, 2, 3, 3, 3] and np.isnan(clipped[6])
    assert (below, above) == (1, 2)
    assert coded_order(ORDER, 1, 3) == ("18-39", "40-64", "65-74")
    assert coded_order(ORDER, None, 3, None, "65+") == ("0-17", "18-39", "40-64", "65+")
    assert coded_order(ORDER, 1, None, "<40") == ("<40", "40-64", "65-74", "75-84", "85+")


def test_top_category_takes_those_above_it():
    data = ages(["0-17", "85+", "65-74", "75-84", None, "40-64"])
    out = code(data, variable="agegroup", top={"category": "65-74"})
    assert released(out) == ["0-17", "65-74", "65-74", "65-74", None,
                                                   "40-64"]
    var = out.data.variables["agegroup"]
    assert var.type == "ordinal" and var.order == ("0-17", "18-39", "40-64", "65-74")
    # two records moved down (85+ and 75-84); 65-74 itself unchanged
    assert out.info == {"top": {"category": "65-74", "coded": 2, "replaced_by": "65-74"}}


def test_labels_name_the_merged_end_categories():
    data = ages(["0-17", "85+", "65-74", "75-84", "18-39", "40-64"])
    out = code(data, variable="agegroup", top={"category": "65-74", "label": "65+"},
               bottom={"category": "18-39", "label": "<40"})
    assert released(out) == ["<40", "65+", "65+", "65+", "<40",
                                                   "40-64"]
    assert out.data.variables["agegroup"].order == ("<40", "40-64", "65+")
    # top: 85+ and 75-84 moved, 65-74 renamed; bottom: 0-17 moved, 18-39 renamed
    assert out.info == {"top": {"category": "65-74", "coded": 3, "replaced_by": "65+"},
                        "bottom": {"category": "18-39", "coded": 2, "replaced_by": "<40"}}
    assert PLUGIN.outputs({"variable": "agegroup", "top": {"category": "65-74",
                                                            "label": "65+"}},
                          data.meta)["agegroup"].variable.order == (
        "0-17", "18-39", "40-64", "65+")


def test_conformance():
    data = ages(["0-17", "85+", "65-74", "75-84", None, "40-64"] * 3)
    check_method(PLUGIN, data, {"variable": "agegroup", "top": {"category": "40-64"}})
    check_method(PLUGIN, data, {"variable": "agegroup", "top": {"category": "65-74",
                                                                  "label": "65+"},
                                "bottom": {"category": "18-39"}})


def test_problems_are_named():
    meta = ages(["0-17"]).meta
    found = list(PLUGIN.check({"variable": "agegroup", "top": {"category": "18-39"},
                               "bottom": {"category": "40-64"}}, meta))
    assert found == [(("bottom", "category"), ("the bottom category '40-64' comes after "
                                               "the top category '18-39' in the order"))]
    found = list(PLUGIN.check({"variable": "agegroup",
                               "top": {"category": "75-84", "label": "40-64"}}, meta))
    assert found == [(("top", "label"), ("the label '40-64' is another category of "
                                         "'agegroup' that stays"))]
    numbers = small_dataset(age=("key", "integer", [1, 2])).meta
    found = list(PLUGIN.check({"variable": "age", "top": {"category": "2"}}, numbers))
    assert found and found[0][0] == ("top", "category") and "'age' is integer" in found[0][1]


def test_from_a_recipe_and_an_order_the_data_decide(write_recipe, tmp_path):
    (tmp_path / "ages.csv").write_text("age,income\n3,0\n25,1200\n47,2500\n70,1800\n"
                                       "91,3100\n52,900\n", encoding="utf-8")
    recipe = """
        sdcflow: 1
        name: ordinal-top
        seed: 1
        data: {path: ages.csv}
        variables:
          age: {role: key, type: integer}
          income: {role: numeric}
        steps:
          - {id: decades, method: global_recode, params: {variable: age, width: 20}}
          - {id: top, method: top_bottom_code, params: {variable: age, top: %s}}
    """
    result = run(write_recipe(recipe % '{category: "60-79", label: "60+"}'), write=False,
                 use_cache=False)
    assert result.data["age"].tolist() == ["0-19", "20-39", "40-59", "60+", "60+", "40-59"]
    # the intervals are known only when the recode has run: the unknown category is
    # found then, before the step runs, naming the step
    with pytest.raises(PluginError, match=r"step 'top'.*'60-70' is not a category of 'age'"):
        run(write_recipe(recipe % '{category: "60-70"}'), write=False, use_cache=False)
    with pytest.raises(RecipeError, match="not a category"):
        validate(write_recipe(recipe.replace("type: integer", "type: ordinal, order: [a, b]")
                              .replace("          - {id: decades, method: global_recode, "
                                       "params: {variable: age, width: 20}}\n", "")
                              % "{category: c}"))


@settings(max_examples=30, deadline=None)
@given(values=st.lists(st.one_of(st.none(), st.sampled_from(ORDER)), min_size=1,
                       max_size=30),
       low=st.one_of(st.none(), st.integers(0, 5)), high=st.one_of(st.none(), st.integers(0, 5)))
def test_invariants(values, low, high):
    if low is not None and high is not None and low > high:
        low, high = high, low
    params = {"variable": "agegroup"}
    if low is not None:
        params["bottom"] = {"category": ORDER[low]}
    if high is not None:
        params["top"] = {"category": ORDER[high]}
    if len(params) == 1:
        params["top"] = {"category": ORDER[-1]}
        high = 5
    out = code(ages(values), **params)
    got = released(out)
    order = out.data.variables["agegroup"].order
    for before, after in zip(values, got):
        if before is None:
            assert after is None  # missing stays missing
            continue
        i = ORDER.index(before)
        # order kept: the released category is the original clipped to [low, high]
        expected = min(max(i, low if low is not None else 0), high if high is not None else 5)
        assert after == ORDER[expected] and after in order
    assert list(order) == list(ORDER[low or 0:(5 if high is None else high) + 1])
