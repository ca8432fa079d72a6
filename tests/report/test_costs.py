"""The utility cost of the report's summary (sdcflow.report.costs): what each method step
cost from its own result, and the released data against the original, in the unit that
was counted (records, or households for a step that acted once per household). The
expected values are counted by hand from the small inputs below."""

import pandas as pd

from sdcflow.data import Variable
from sdcflow.plugins.plain_words import values_changed
from sdcflow.report.costs import change_rows, data_changes, method_costs
from sdcflow.report.keys import plain_key


def test_a_per_household_step_counts_households():
    # the engine adds "households" to the info of a step that ran once per household
    info = {"changed": 21, "households": 1000}
    assert method_costs("global_recode", info) == ["values changed: 21 households"]
    assert values_changed(21, info) == ("21 households' values changed (of 1000 "
                                        "households; every member has the household's "
                                        "value).")
    assert method_costs("global_recode", {"changed": 10}) == ["values changed: 10 values"]
    assert values_changed(10, {"changed": 10}) == "10 values changed."
    # record swapping counts its households itself: "households" is its total there
    swap = {"households": 8324, "swapped_households": 2304, "swapped_records": 6658}
    assert method_costs("record_swap", swap) == ["households swapped: 2304",
                                                 "records swapped: 6658"]


def test_every_kind_of_cost_is_named():
    # recoding: values recoded and the ones made missing (sdcMicro's testdata: the 98
    # records aged 0 fall outside (0, 9])
    assert method_costs("global_recode", {"recoded": 4482, "outside_breaks": 98}) == [
        "values recoded into classes: 4482 values",
        "values made missing (outside the breaks): 98 values"]
    # full-domain generalisation: the records suppressed and the level each key reached
    assert method_costs("anonymize", {"suppressed_records": 65,
                                      "node": {"age": 5, "sex": 0}}) == [
        "records suppressed (their key values made missing): 65 records",
        "generalised to hierarchy level age 5, sex 0"]
    # suppression per variable, the variables without one left out
    assert method_costs("local_suppression", {"suppressions": {"a": 3, "b": 0, "c": 1},
                                              "total": 4}) == [
        "values suppressed: 4 values (a 3, c 1)"]
    assert method_costs("top_bottom_code", {"top": {"coded": 40}, "bottom": {"coded": 2}}) \
        == ["top-coded: 40 values", "bottom-coded: 2 values"]
    assert method_costs("noise", {"perturbed": 3240}) == ["values perturbed: 3240 values"]
    assert method_costs("mondrian", {"changed": {"age": 7, "sex": 0}}) == [
        "values generalised (to broader values, ranges or sets): 7 values (age 7)"]
    assert method_costs("sampling", {"records": 1944, "of": 20000, "unit": "household",
                                     "by_stratum": {"all": {"sampled": 832, "of": 8324}}}) \
        == [("records kept: 1944 of 20\u202f000 (whole households drawn); records removed: "
             "18\u202f056"), "households kept: 832 of 8324"]
    assert method_costs("remove_variables", {"removed": ["hid", "county"]}) == [
        "variables removed: hid and county"]
    # tables: cells, not values
    assert method_costs("cell_key", {"cells": 27, "changed": 11,
                                     "max_abs_perturbation": 5.0}) == [
        "table cells changed: 11 of 27", "largest change of a cell: 5"]
    assert method_costs("secondary_suppression", {"secondary": 4, "suppressed": 7}) == [
        "table cells suppressed (secondary): 4; in all 7"]
    # graphs: edges
    assert method_costs("edge_perturbation", {"perturbed": 8, "edges_before": 78,
                                              "edges_after": 78, "deleted": 8,
                                              "added": 8})[0] == "edges perturbed: 8"
    assert method_costs("anything", None) == []


def _variables(**levels):
    return {name: Variable(name=name, role=role, type="categorical", level=level)
            for name, (role, level) in levels.items()}


def test_released_against_original_counts_values_and_households():
    original = pd.DataFrame({"hid": [1, 1, 2, 3], "age": [10, 20, 30, 40],
                             "water": ["a", "a", "b", "c"], "income": [1.0, 2.0, 3.0, 10.0]})
    released = pd.DataFrame({"hid": [1, 1, 2, 3], "age": ["*", "*", "*", None],
                             "water": ["x", "x", "b", None], "income": [1.0, 2.0, 3.0, 6.0]})
    variables = _variables(hid=("household", "household"), age=("key", "record"),
                           water=("key", "household"), income=("numeric", "record"))
    variables["income"] = Variable(name="income", role="numeric", type="continuous")
    out = data_changes(original, released, variables, {"age": ["anon"],
                                                       "water": ["merge", "supp"]})
    rows = {r[0]: r for r in out["variables"]}
    assert out["records_removed"] == 0 and out["compared"]
    # age: 3 records generalised to "*", 1 made missing; 4 distinct values -> 1
    assert rows["age"][2:8] == ("records", 3, 1, 4, 1, True)
    assert rows["age"][9] == "*"
    # water is household-level: the two members of household 1 count once
    assert rows["water"][2:5] == ("households", 1, 1)
    # income: one value changed, |10 - 6| / 4 records = 1
    assert rows["income"][3] == 1 and rows["income"][8] == 1.0
    assert "hid" not in rows  # unchanged variables are not listed
    table = {r[0]: r for r in change_rows(out)}
    assert table["age"][4] == ("4 \u2192 1 distinct values, all \u201c*\u201d; generalised: "
                               "each original value released as one broader value")
    assert table["water"][1] == "merge, supp" and table["water"][2] == "1 households"


def test_a_sample_is_not_compared_value_by_value():
    original = pd.DataFrame({"a": [1, 2, 3, 4], "b": [1, 1, 1, 1]})
    released = pd.DataFrame({"a": [1, 2]})  # two records drawn, b removed
    out = data_changes(original, released, {}, {})
    assert out == {"variables": [], "records_removed": 2, "compared": False,
                   "variables_removed": ["b"]}


def test_result_keys_in_plain_words():
    # the abbreviations of Torra (2013)'s information loss table
    assert plain_key("C.mae") == "communalities (C) \u203a mean absolute error"
    assert plain_key("RF.mv_left_out") == ("variable-component correlations (RF) \u203a "
                                           "cells left out of the mean variation")
    assert plain_key("d1.q10") == "absolute deviation of a cell (d1) \u203a 10 % quantile"
    assert plain_key("violations.2") == "violations \u203a 2"


def test_suppression_alone_is_not_called_generalisation():
    # relat after anonymize's suppression: no value changed, one record made missing, and
    # the category it alone had is gone (3 -> 2 distinct values): fewer values, but none
    # was released as a broader one
    original = pd.DataFrame({"relat": ["1", "1", "2", "9"]})
    released = pd.DataFrame({"relat": ["1", "1", "2", None]})
    out = data_changes(original, released, _variables(relat=("key", "record")),
                       {"relat": ["anon"]})
    row = out["variables"][0]
    assert row[2:8] == ("records", 0, 1, 3, 2, False)
    assert change_rows(out)[0][4] == "3 \u2192 2 distinct values"


def test_a_dp_table_says_what_it_spent_and_its_largest_noise():
    # dp_table's result counted nothing in the report (census_table_comparison showed
    # "(its result counts nothing)"): every cell got noise, spending the step's epsilon
    info = {"mechanism": "discrete laplace", "epsilon": 1.0, "scales": [8.0], "slices": 8,
            "cells": 738, "max_abs_noise": 54, "rounding": "controlled"}
    assert method_costs("dp_table", info) == [
        "table cells given differentially private noise: 738; epsilon spent: 1",
        "largest noise on a cell: 54"]
    assert method_costs("dp_table", {"rho": 0.5, "cells": 9})[0].endswith("rho spent: 0.5")
