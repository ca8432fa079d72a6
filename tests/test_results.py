"""Result shapes (sdcflow.plugins.results): what a measure declares its summary contains, and
the comparison of a real summary with the declaration."""

from sdcflow.plugins.results import (
    ANY,
    COUNT,
    FLAG,
    NAMES,
    NUMBER,
    TEXT,
    Keyed,
    ListOf,
    Null,
    Record,
    Text,
    by_values,
    by_variable,
    conformance,
    record,
)

K = record(variables=NAMES, violations=by_values("k", [2, 3, 5], COUNT),
           percent=by_values("k", [2.0, 3, 5], NUMBER.with_null()))


def test_a_conforming_summary():
    summary = {"variables": ["age"], "violations": {"2": 1, "3": 4, "5": 9},
               "percent": {"2": 0.5, "3": None, "5": 2}}
    assert conformance(K, summary) == []


def test_every_difference_is_named_with_its_place():
    summary = {"variables": "age", "violations": {"2": 1.5, "3": 4},
               "percent": {"2": "x", "3": 1, "5": 2}, "extra": 1}
    assert conformance(K, summary) == [
        "summary.variables is the text 'age', declared a list",
        "summary.violations has the keys 2, 3, declared 2, 3, 5",
        "summary.violations.2 is 1.5, declared a whole number",
        "summary.percent.2 is the text 'x', declared a number",
        "summary.extra is not declared",
    ]


def test_missing_keys_nulls_and_booleans():
    shape = Record({"n": COUNT, "ok": FLAG}, {"why": TEXT})
    assert conformance(shape, {"ok": 1}) == ["summary has no 'n', which is declared",
                                             "summary.ok is the number 1, declared true/false"]
    assert conformance(shape, {"n": True, "ok": True}) == [
        "summary.n is true/false, declared a count"]
    assert conformance(shape, {"n": 1, "ok": False, "why": "x"}) == []
    assert conformance(Null("no weight"), None) == []
    assert conformance(Null("no weight"), {"min": 1}) == [
        "summary is a mapping, declared always null here (no weight)"]
    assert conformance(NUMBER, None) == ["summary is null, declared a number"]
    assert conformance(ANY, {"a": [1]}) == []


def test_keys_unknown_before_the_data_and_lists():
    shape = record(by_stratum=Keyed(COUNT, "stratum"), cells=ListOf(record(v=NUMBER)))
    assert conformance(shape, {"by_stratum": {"a": 1, "b": 2}, "cells": [{"v": 1}]}) == []
    assert conformance(shape, {"by_stratum": {}, "cells": [{"v": "1"}]}) == [
        "summary.cells[0].v is the text '1', declared a number"]
    assert conformance(Text(("given", "estimated")), "other") == [
        "summary is 'other', declared one of ['given', 'estimated']"]


def test_descriptions_used_in_messages():
    assert by_variable(["age", "sex"]).describe() == "a mapping by variable (age, sex)"
    assert by_values("k", [2, 3.0]).keys == ("2", "3")  # keys as measures.json has them
    assert Keyed(COUNT, "stratum").describe() == "a mapping by stratum"
    assert by_variable([f"v{i}" for i in range(10)]).describe() == \
        "a mapping by variable (v0, v1, v2, v3, v4, v5, v6, v7, ... (10 in all))"
