"""Every built-in method's declared outputs (Method.outputs: the metadata it leaves on
the variables it writes) against the metadata its apply() really produces, for the
parameters that change them: validation follows the types through the plan with these
declarations, so they cannot drift from the plugins."""

import numpy as np
import pandas as pd
import pytest
from helpers import ROOT

from sdcflow.data import Dataset, Variable, read_data
from sdcflow.plugins import registry
from sdcflow.plugins.testing import output_problems


def _data(n: int = 120, integer_weight: bool = False) -> Dataset:
    variables = {n: Variable(n, "key", "categorical") for n in ("urbrur", "water", "sex")}
    variables["relat"] = Variable("relat", "key", "ordinal",
                                  order=tuple(str(i) for i in range(1, 10)))
    variables["age"] = Variable("age", "key", "integer")
    variables["walls"] = Variable("walls", "pram", "categorical")
    for name in ("expend", "income", "savings"):
        variables[name] = Variable(name, "numeric", "continuous")
    variables["sampling_weight"] = Variable("sampling_weight", "weight",
                                            "integer" if integer_weight else "continuous")
    variables["roof"] = Variable("roof", "numeric", "integer")
    data, _, findings = read_data({"builtin": "testdata"}, ROOT, variables)
    assert not findings
    return Dataset(data.frame.iloc[:n].reset_index(drop=True), data.variables)


DATA = _data()
REGIONS = {"urbrur": {"1": "all", "2": "all"}}
HIERARCHY = Dataset(DATA.frame, {**DATA.variables, "urbrur": DATA.variables["urbrur"].evolve(
    hierarchy={"area": REGIONS["urbrur"]})})

CASES = {
    "global_recode": [
        {"variable": "age", "breaks": [0, 20, 40, 130]},
        {"variable": "age", "breaks": [0, 20, 40, 130], "labels": ["a", "b", "c"],
         "include_lowest": False},
        {"variable": "income", "width": 10000000},
        {"variable": "water", "groups": {"6-9": ["6", "7", "9"]}},
        # ordinal categories in a group that the data do not hold (relat 8 and 9 are
        # absent from the first 120 records): the order merges them all the same
        {"variable": "relat", "groups": {"8-9": ["8", "9"], "1-2": ["1", "2"]}},
        ("hierarchy", {"variable": "urbrur", "level": "area"}),
    ],
    "top_bottom_code": [
        {"variable": "age", "top": {"value": 60, "label": "60+"}},
        {"variable": "age", "top": {"value": 60, "label": "60+"},
         "bottom": {"value": 5, "label": "<5"}},
        {"variable": "age", "top": {"quantile": 0.9, "replace": "mean"}},
        {"variable": "age", "top": {"value": 60}},
        {"variable": "income", "bottom": {"quantile": 0.1}},
        # an ordinal by its declared order: stays ordinal, the order cut at the ends
        {"variable": "relat", "top": {"category": "5"}, "bottom": {"category": "2",
                                                                   "label": "1-2"}},
    ],
    "local_suppression": [{"k": 3, "variables": ["urbrur", "water", "sex", "age"]}],
    # ranges and sets become categorical text; an integer's mean continuous, its median
    # integer while whole; a hierarchy becomes the variable's taxonomy
    "mondrian": [{"k": 3}, {"k": 3, "variables": ["age", "income"], "representation": "mean"},
                 {"k": 3, "variables": ["age", "relat"], "representation": "median",
                  "l": 2, "sensitive": "walls", "strict": False},
                 ("hierarchy", {"k": 3, "variables": ["urbrur", "age"]})],
    # every key becomes category text (an integer age and an ordinal relat included)
    "anonymize": [{"targets": [{"k_anonymity": 3}], "suppression_limit": 0.05,
                   "variables": ["sex", "age", "relat"],
                   "hierarchies": {"sex": {"mask": True}, "age": {"width": 10},
                                   "relat": {"mask": True}}}],
    "microaggregation": [{"variables": ["income", "expend"]},
                         {"variables": ["age", "roof"], "aggregation": "median"},
                         {"variables": ["income", "relat", "water"]},
                         {"variables": ["income", "roof"], "algorithm": "fuzzy_c_means"},
                         {"variables": ["income", "roof"], "aggregation": "onestep"}],
    "microaggregation_gower": [{"variables": ["income", "roof", "relat", "water"]},
                               {"variables": ["roof"], "aggregation": "median",
                                "distance_variables": ["income", "sex"]}],
    "noise": [{"variables": ["income", "age"]},
              {"variables": ["income", "age"], "method": "uniform"}],
    "rounding": [{"variables": ["income", "age"], "base": 5},
                 {"variables": ["age"], "points": [0.5, 20.5, 40.5]},
                 {"variables": ["age", "income"], "vectors": [[20, 0], [40, 1e5]]},
                 {"variables": ["age"], "vectors": [[20.5], [40]]}],
    "distribution_distortion": [{"variables": ["income", "age"]},
                                {"variables": ["age"], "distribution": "empirical"}],
    "camouflage": [{"variables": ["income", "age"]},
                   {"variables": ["age"], "scale": "sd", "width": 0.5}],
    "ipso": [{"variables": ["income", "roof"], "predictors": ["urbrur"]}],
    "fuzzy_c_regression": [{"variables": ["income", "roof"], "predictors": ["age"]}],
    "multiple_imputation": [{"variables": ["income", "roof"],
                             "predictors": ["urbrur"]}],
    "shuffling": [{"variables": ["income", "roof"], "predictors": ["urbrur"]}],
    "lossy_compression": [{"variables": ["income", "age", "expend"]}],
    "pram": [{"variables": ["walls"]}],
    "rank_swap": [{"variables": ["income", "age"], "p": 5}],
    # (no household id here: every record is a household)
    "record_swap": [{"hierarchy": ["urbrur", "water"], "similar": [["sex"]],
                     "risk_variables": ["age"], "carry_along": ["relat", "income"]}],
    "resampling": [{"variables": ["income", "roof"]}],
    "mv_top_coding": [{"variables": ["income", "age"]},
                      {"variables": ["income", "age"], "estimator": "classical"}],
    "sampling": [{"fraction": 0.5}, ("integer weight", {"size": 7, "strata": ["urbrur"]})],
    "remove_variables": [{"variables": ["income"]}],
    "post_masking": [{"mask": {"method": "microaggregation",
                               "params": {"variables": ["income", "expend"]}}},
                     {"mask": {"method": "noise", "params": {"variables": ["income", "age"]}}}],
    # the hierarchy serves as a taxonomy, and leaves the variable as one
    "semantic_generalisation": [("hierarchy", {"variable": "urbrur", "depth": 0})],
    "semantic_microaggregation": [("hierarchy", {"variables": ["urbrur"], "k": 3})],
}
# documents stay categorical text (here codes, whose digits become intervals)
CASES["sanitise_text"] = [{"variable": "water"}, {"variable": "water", "numbers": "keep"}]
# table methods leave the records alone
TABLE_METHODS = {"controlled_adjustment", "controlled_rounding", "secondary_suppression",
                 "sensitivity_rules", "cell_key", "dp_table"}
# graph methods work on an edge list (two node variables), integer or text node labels
EDGES = {"source": "a", "target": "b"}
GRAPH_CASES = {
    "edge_perturbation": {**EDGES, "fraction": 0.3},
    "k_degree_anonymity": {**EDGES, "k": 2},
    "relabel_nodes": EDGES,
    "spatial_graph": EDGES,
    "supernode_generalisation": {**EDGES, "k": 2, "iterations": 50},
}
# query-log methods rebuild a log (users and their queries): their declared outputs are
# checked by check_method in tests/methods/perturbative/microaggregation/test_query_log_microaggregation.py
LOG_METHODS = {"query_log_microaggregation"}


def _runs():
    for name, cases in CASES.items():
        for i, case in enumerate(cases):
            which, params = case if isinstance(case, tuple) else ("", case)
            yield pytest.param(name, which, params, id=f"{name}-{i}{'-' + which if which else ''}")


def test_every_method_is_covered():
    assert {p.name for p in registry.plugins("method")} == \
        set(CASES) | TABLE_METHODS | set(GRAPH_CASES) | LOG_METHODS
    for name in TABLE_METHODS:
        assert registry.get(name).outputs({}, DATA.meta) == {}


@pytest.mark.parametrize("name, which, params", list(_runs()))
def test_apply_leaves_the_declared_metadata(name, which, params):
    plugin = registry.get(name)
    data = {"hierarchy": HIERARCHY, "integer weight": _data(integer_weight=True)}.get(which,
                                                                                     DATA)
    resolved = registry.with_defaults(plugin.params, params)
    assert not list(plugin.check(resolved, data.meta))
    result = plugin.apply(data, dict(resolved), np.random.default_rng(3))
    assert plugin.outputs(resolved, data.meta) is not None
    assert output_problems(plugin, data, resolved, result) == []


@pytest.mark.parametrize("name", sorted(GRAPH_CASES))
@pytest.mark.parametrize("kind", ["integer", "categorical"])
def test_graph_methods_leave_the_declared_metadata(name, kind):
    from helpers import small_dataset

    pairs = [(1, 2), (1, 3), (2, 3), (3, 4), (4, 5), (5, 6), (2, 6)]
    ends = [[x for x, _ in pairs], [y for _, y in pairs]]
    if kind == "categorical":
        ends = [[str(x) for x in side] for side in ends]
    data = small_dataset(a=("key", kind, ends[0]), b=("key", kind, ends[1]))
    plugin = registry.get(name)
    resolved = registry.with_defaults(plugin.params, GRAPH_CASES[name])
    assert not list(plugin.check(resolved, data.meta))
    result = plugin.apply(data, dict(resolved), np.random.default_rng(3))
    assert plugin.outputs(resolved, data.meta) is not None
    assert output_problems(plugin, data, resolved, result) == []


def test_group_merge_of_an_unobserved_ordinal_category():
    # docs/methods/non_perturbative.md: "an ordinal order is kept with the merged category
    # at its first member's place" -- whether or not the data hold every member
    plugin = registry.get("global_recode")
    params = registry.with_defaults(plugin.params, {"variable": "relat",
                                                    "groups": {"8-9": ["8", "9"]}})
    assert "9" not in set(DATA.frame["relat"].dropna())
    out = plugin.apply(DATA, params, np.random.default_rng(0)).data.variables["relat"]
    assert out.order == ("1", "2", "3", "4", "5", "6", "7", "8-9")


def test_a_drifting_declaration_is_caught():
    class Drifting(type(registry.get("noise"))):
        def outputs(self, params, meta):  # claims integer stays integer: it does not
            return {n: registry.Output(meta.variables[n]) for n in params["variables"]}

    plugin = Drifting()
    params = registry.with_defaults(plugin.params, {"variables": ["age"]})
    result = plugin.apply(DATA, params, np.random.default_rng(0))
    assert output_problems(plugin, DATA, params, result) == [
        "'age' is continuous after apply(); outputs() declares integer"]


def test_the_weight_stays_integer_only_when_the_data_allow():
    # 7 of 120 records, allocated to the strata: the factors N_h / n_h are not whole,
    # so the integer weight becomes continuous, as the declaration allows
    plugin = registry.get("sampling")
    data = _data(integer_weight=True)
    params = registry.with_defaults(plugin.params, {"size": 7, "strata": ["urbrur"]})
    out = plugin.outputs(params, data.meta)["sampling_weight"]
    assert out.types == ("continuous", "integer")
    result = plugin.apply(data, params, np.random.default_rng(0))
    assert result.data.variables["sampling_weight"].type in out.types
    assert pd.api.types.is_float_dtype(result.data.frame["sampling_weight"]) == (
        result.data.variables["sampling_weight"].type == "continuous")
