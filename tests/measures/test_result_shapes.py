"""Every built-in measure's declared result (Measure.result_shape) against its real
summary, for parameters that change the shape: the declarations cannot drift from what
the measures return, since validation checks the recipe's checks against them."""

import json

import numpy as np
import pytest
from helpers import ROOT

from sdcflow.constraints import Constraint
from sdcflow.data import Dataset, Variable, read_data
from sdcflow.engine import canonical_json
from sdcflow.plugins import registry
from sdcflow.plugins.results import conformance


def _variables(weight: bool = True) -> dict:
    out = {n: Variable(n, "key", "categorical") for n in ("urbrur", "water", "sex", "relat")}
    out["age"] = Variable("age", "key", "integer")
    out["walls"] = Variable("walls", "sensitive", "categorical")
    for name in ("expend", "income", "savings"):
        out[name] = Variable(name, "numeric", "continuous")
    out["ori_hid"] = Variable("ori_hid", "household", "categorical")
    if weight:
        out["sampling_weight"] = Variable("sampling_weight", "weight", "continuous")
    return out


def _head(n: int, weight: bool = True) -> Dataset:
    data, _, findings = read_data({"builtin": "testdata"}, ROOT, _variables(weight))
    assert not findings
    constraints = (Constraint.from_recipe({"id": "positive", "expr": "income >= 0"}),
                   Constraint.from_recipe({"id": "exists", "domain": ["walls"]}))
    return Dataset(data.frame.iloc[:n].reset_index(drop=True), data.variables, constraints)


ORIGINAL = _head(200)
UNWEIGHTED = _head(200, weight=False)


def _protected(original: Dataset) -> Dataset:
    """Noise on the numeric variables, a few key values suppressed, a few categories
    changed (a fixed generator: the same data on every run)."""
    rng = np.random.default_rng(7)
    frame = original.frame.copy()
    for name in ("expend", "income", "savings"):
        x = frame[name].to_numpy(dtype=float)
        frame[name] = x + rng.normal(0, 0.1 * np.nanstd(x), len(x))
    frame.loc[::17, "water"] = None
    frame.loc[::13, "urbrur"] = frame["urbrur"].iloc[::13].map({"1": "2", "2": "1"})
    frame.loc[::11, "walls"] = "2"
    return Dataset(frame, original.variables, original.constraints)


PROTECTED = _protected(ORIGINAL)

NUMERIC = ["income", "expend"]
CASES = {
    "k_anonymity": [{}, {"k": 3}, {"k": [2, 5], "strata": ["urbrur"]}],
    "frequencies": [{}, ("unweighted", {})],
    "individual_risk": [{}, {"threshold": 0.1, "method": "exact"}, ("unweighted", {})],
    "global_risk": [{}, {"threshold": 0.01}, ("unweighted", {})],
    "household_risk": [{}, {"threshold": 0.5}],
    "l_diversity": [{"sensitive": ["walls"]}, {"sensitive": ["walls", "income"], "l": 2},
                    {"sensitive": ["walls"], "l": 2, "c": 3}],
    "suda": [{"variables": ["urbrur", "water", "sex"]},
             {"variables": ["urbrur", "water", "sex", "relat"], "max_size": 2,
              "threshold": 1, "dis_fraction": 0.2}],
    "suppressions": [{}, {"variables": ["water", "urbrur"]}],
    "constraints": [{}, {"constraints": ["exists"]}],
    "information_loss": [{"variables": NUMERIC}, {"variables": ["income"]}],
    "interval_disclosure": [{"variables": NUMERIC}, {"variables": NUMERIC, "kind": "rank"},
                            {"variables": NUMERIC, "kind": "rank", "p": [1, 2.5, 10]}],
    "categorical_information_loss": [{"variables": ["urbrur", "water", "walls"]},
                                     {"variables": ["urbrur", "age"], "K": 1}],
    "clustering_agreement": [{"variables": NUMERIC, "clusters": 3, "restarts": 1}],
    "propensity": [{"variables": ["income", "urbrur"]},
                   {"variables": NUMERIC, "interactions": True, "squares": True}],
    "rank_swap_attack": [{"variables": NUMERIC, "p": 5},
                         {"variables": NUMERIC, "p": 5, "scenarios": "prefixes",
                          "strata": ["urbrur"]},
                         {"variables": NUMERIC, "p": 5, "scenarios": "subsets"}],
    "microaggregation_attack": [{"variables": NUMERIC},
                                {"variables": NUMERIC, "scenarios": "prefixes",
                                 "strata": ["urbrur"]},
                                {"attack": "rerun", "groups": [["income"], ["expend",
                                                                            "savings"]]},
                                {"attack": "nearest", "variables": NUMERIC}],
    "record_linkage": [{"variables": NUMERIC},
                       {"variables": NUMERIC, "method": "mahalanobis", "scenarios": "prefixes"},
                       {"variables": NUMERIC, "method": "weighted", "weights": {"income": 2},
                        "scenarios": "subsets"},
                       {"variables": NUMERIC, "method": "probabilistic"}],
    "learned_linkage": [{"variables": NUMERIC, "max_records": 40, "time_limit": 10},
                        {"variables": NUMERIC, "max_records": 40, "form": "bilinear",
                         "time_limit": 10}],
    "t_closeness": [{"sensitive": ["walls"]},
                    {"sensitive": ["walls", "income"], "t": 0.1, "distance": "equal"},
                    {"sensitive": ["walls"], "distance": "hierarchical", "t": 0.1,
                     "hierarchy": {"kind": {"2": "built", "3": "built", "9": "other"}}}],
    "beta_likeness": [{"sensitive": ["walls"]}, {"sensitive": ["walls", "income"], "beta": 1}],
    "reidentification_risk": [{}, {"variables": ["urbrur", "sex"], "threshold": 0.2}],
    # a population of 4 x 1000 over urbrur x sex (codes 1, 2 both), far more than the data
    "delta_presence": [{"variables": ["urbrur", "sex"], "delta_max": 0.1,
                        "population_counts": {"columns": ["urbrur", "sex"],
                                              "rows": [["1", "1"], ["1", "2"], ["2", "1"],
                                                       ["2", "2"]],
                                              "counts": [1000] * 4}}],
    "d_risk": [{"variables": NUMERIC}, {"variables": ["income"], "k": 0.5}],
    "d_risk_rmd": [{"variables": NUMERIC}, {"variables": NUMERIC, "k": 0.5, "k2": 0.01}],
    "model_risk": [{"variables": ["urbrur", "water", "sex"]},
                   {"variables": ["urbrur", "water", "sex"], "method": "CE",
                    "interactions": [["urbrur", "sex"]], "bound": 2},
                   ("unweighted", {"variables": ["urbrur", "sex"]})],
    "fuzzy_clustering_loss": [{"variables": NUMERIC, "clusters": 3, "restarts": 1}],
    "classification_loss": [{"target": "sex", "variables": ["income", "urbrur"]},
                            {"target": "walls", "variables": NUMERIC},
                            {"target": "sex", "variables": NUMERIC, "positive": "2",
                             "false_negative": 5}],
    "decision_loss": [{"flag": "income > mean(income)"},
                      {"flag": "income > 100000 and urbrur == '1'", "false_positive": 0.5}],
    "subdomain_information_loss": [{"subdomains": ["urbrur"], "variables": NUMERIC},
                                   {"subdomains": ["urbrur", "sex"], "variables": ["income"],
                                    "min_records": 60}],
    "dp_histogram": [{"variable": "water", "categories": ["1", "2", "3"], "epsilon": 1.0}],
    "dp_mean": [{"variable": "income", "lower": 0, "upper": 1000, "rho": 0.5}],
}
# score and ranking combine other results and table_audit measures a table: they are
# checked on what the engine gives them (test_engine_results_conform below);
# camouflage_widths measures the bounds a camouflage step adds (checked in
# tests/measures/utility/test_camouflage_widths_measure.py) and partial_linkage needs an
# identifier kept in both files, which these data lack (checked in
# tests/measures/linkage/test_partial_linkage_measure.py); cell_key_utility measures a
# table perturbed by cell_key (checked in tests/methods/tabular/test_cell_key_method.py);
# table_utility a protected table (tests/measures/utility/test_table_utility_measure.py);
# the query-log measures compare two logs of users and queries (their shapes checked by
# check_method in tests/methods/perturbative/microaggregation/test_query_log_microaggregation.py)
ENGINE_ONLY = {"score", "ranking", "table_audit", "camouflage_widths", "partial_linkage",
               "cell_key_utility", "query_log_linkage", "query_log_utility", "table_utility"}
# schema_linkage needs an identifier and an intruder's file (its summary's shape: the
# conformance test of tests/measures/linkage/test_schema_linkage_measure.py)
ENGINE_ONLY |= {"schema_linkage"}
# text_residual reads a column of documents, which these data lack (its shape is checked
# by check_method in tests/measures/risk/test_text_residual.py)
ENGINE_ONLY |= {"text_residual"}
# graph measures compare two edge lists (see test_graph_summaries_have_the_declared_shape)
EDGES = {"source": "a", "target": "b"}
GRAPH_CASES = {
    "graph_reidentification": [EDGES, {**EDGES, "attacks": ["degree"]}],
    "graph_utility": [EDGES, {**EDGES, "eigenvalues": 0}],
}


def _runs():
    for name, cases in CASES.items():
        for case in cases:
            which, params = case if isinstance(case, tuple) else ("weighted", case)
            yield pytest.param(name, which, params, id=f"{name}-{which}-{json.dumps(params)}")


def test_every_measure_is_covered():
    assert {p.name for p in registry.plugins("measure")} == \
        set(CASES) | ENGINE_ONLY | set(GRAPH_CASES)


@pytest.mark.parametrize("name, params", [(n, p) for n, cases in GRAPH_CASES.items()
                                          for p in cases])
def test_graph_summaries_have_the_declared_shape(name, params):
    from helpers import small_dataset

    def edges(pairs):
        return small_dataset(a=("key", "categorical", [str(x) for x, _ in pairs]),
                             b=("key", "categorical", [str(y) for _, y in pairs]))

    original = edges([(1, 2), (1, 3), (2, 3), (3, 4), (4, 5)])
    released = edges([(1, 2), (2, 3), (3, 4), (4, 5), (1, 5)])
    plugin = registry.get(name)
    resolved = registry.with_defaults(plugin.params, params)
    result = plugin.evaluate(released, resolved, np.random.default_rng(1), original=original)
    summary = json.loads(canonical_json(result.summary))
    assert conformance(plugin.result_shape(resolved, released.meta), summary) == []


@pytest.mark.parametrize("name, which, params", list(_runs()))
def test_the_summary_has_the_declared_shape(name, which, params):
    plugin = registry.get(name)
    resolved = registry.with_defaults(plugin.params, params)
    original = ORIGINAL if which == "weighted" else UNWEIGHTED
    protected = PROTECTED if which == "weighted" else _protected(UNWEIGHTED)
    if name == "learned_linkage":  # an exact program: on few records
        original = Dataset(original.frame.iloc[:40], original.variables, original.constraints)
        protected = Dataset(protected.frame.iloc[:40], protected.variables,
                            protected.constraints)
    result = plugin.evaluate(protected, resolved, np.random.default_rng(1), original=original)
    summary = json.loads(canonical_json(result.summary))  # as measures.json holds it
    shape = plugin.result_shape(resolved, protected.meta)
    assert shape is not None
    assert conformance(shape, summary) == []


def test_a_drifting_declaration_is_caught():
    # the summary of k_anonymity for k = 2, 3 checked against a declaration for 2, 5
    plugin = registry.get("k_anonymity")
    summary = plugin.evaluate(ORIGINAL, registry.with_defaults(plugin.params, {"k": [2, 3]}),
                              None, original=ORIGINAL).summary
    shape = plugin.result_shape(registry.with_defaults(plugin.params, {"k": [2, 5]}),
                                ORIGINAL.meta)
    problems = conformance(shape, json.loads(canonical_json(summary)))
    assert "summary.violations has the keys 2, 3, declared 2, 5" in problems


ENGINE_RECIPE = """
sdcflow: 1
name: t
seed: 1
data: {builtin: testdata}
variables:
  urbrur: {role: key}
  water: {role: key}
  sex: {role: key}
  income: {role: numeric}
tables:
  - {id: inc, dims: [urbrur, water], response: income}
steps:
  - {id: primary, method: sensitivity_rules, table: inc, params: {rules: [{freq: 30}]}}
  - {id: secondary, method: secondary_suppression, table: inc, params: {algorithm: heuristic}}
  - {id: audit, measure: table_audit, table: inc, params: {cells: 3}}
  - {id: kanon, method: local_suppression, params: {k: 3}}
  - {id: risk, measure: k_anonymity}
  - {id: supp, measure: suppressions}
  - {id: sc, measure: score, params: {il: "supp.total / 10", dr: "risk.percent[3]"}}
  - {id: sc2, measure: score, params: {il: "supp.total / 20", dr: "risk.percent[3]"}}
  - {id: order, measure: ranking, params: {candidates: [sc, sc2]}}
"""


def test_engine_results_conform(write_recipe, tmp_path):
    """What the engine records for every measure step (score with the results it
    combines, table_audit on its table) has the shape declared for the step's
    parameters and the metadata the plan says it sees."""
    from sdcflow import run, validate

    path = write_recipe(ENGINE_RECIPE)
    result = run(path, tmp_path / "out", use_cache=False)
    plan = validate(path).plan
    for ps in plan.steps:
        if ps.kind == "measure":
            shape = ps.step.plugin.result_shape(ps.params, ps.meta)
            assert conformance(shape, result.measures[ps.node]) == [], ps.node
    assert result.measures["audit"]["cells"]  # (the audit lists cells: their shape counts)


def test_measures_pairing_records_are_those_that_call_same_records():
    # the measures that refuse different records at run time (reference.same_records)
    # are those validation checks the records of
    import inspect

    pairing = {p.name for p in registry.plugins("measure")
               if "same_records(" in inspect.getsource(type(p))}
    assert pairing == {p.name for p in registry.plugins("measure") if p.pairs_records}
    # 8, then camouflage_widths, microaggregation_attack, d_risk, d_risk_rmd,
    # fuzzy_clustering_loss, classification_loss and decision_loss, then text_residual
    assert len(pairing) == 16
