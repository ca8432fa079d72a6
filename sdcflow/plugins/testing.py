"""A conformance suite for plugin authors, in the spirit of scikit-learn's
``check_estimator``: ``check_method(MyMethod(), data, params)`` runs the checks every
sdcflow plugin must pass and raises one ``AssertionError`` listing every failure."""

from __future__ import annotations

import json

import jsonschema
import numpy as np
import pandas as pd

from ..data import Dataset, storage_problems
from ..engine.canonical import canonical_json
from .registry import (
    Measure,
    MeasureResult,
    Method,
    MethodResult,
    Plugin,
    declaration_problems,
    with_defaults,
)
from .results import conformance


def check_method(plugin: Plugin, data: Dataset, params: dict | None = None, *,
                 seed: int = 12345) -> None:
    """Check that ``plugin`` is a well-behaved sdcflow method or measure on ``data``.

    Checked: the declaration (name, kind, one-line summary, a valid JSON Schema for its
    parameters, known roles and types); ``params`` (with defaults) valid against it; the
    variables it names exist; the run is deterministic for a given generator; the input
    is left unchanged; a method returns a :class:`MethodResult` that changes only the
    columns it declares (and keeps the records unless it declares ``writes() is None``),
    holds them as the storage conventions of :mod:`sdcflow.data.dataset` say (text,
    ``Int64``, ``float64``), with JSON-serialisable ``info``, and the metadata it leaves
    on the variables it writes are those its :meth:`~sdcflow.plugins.registry.Method.outputs`
    declares; a measure returns a :class:`MeasureResult` with a JSON-serialisable summary
    of the shape its :meth:`~sdcflow.plugins.registry.Measure.result_shape` declares and a
    per-record table of the right length. (A plugin that declares no outputs or result
    shape is not checked on them.)"""
    failures: list[str] = []
    failures += [f"declaration: {p}" for p in declaration_problems(plugin)]
    if failures:  # (a broken schema cannot validate the params)
        raise AssertionError(_report(plugin, failures))
    params = with_defaults(plugin.params, params or {})
    try:
        jsonschema.Draft202012Validator(plugin.params).validate(params)
    except jsonschema.ValidationError as exc:
        failures.append(f"params do not fit the plugin's own schema: {exc.message}")
    if failures:
        raise AssertionError(_report(plugin, failures))
    meta = data.meta
    for name in plugin.variables(params, meta):
        if name not in data.variables:
            failures.append(f"variables(): '{name}' is not a variable of the data")
    failures += [f"check(): {'.'.join(map(str, p))}: {m}" for p, m in plugin.check(params, meta)]
    failures += [f"check_data(): {m}" for _, m in plugin.check_data(params, data)]
    failures += [f"the test data: {p}" for p in storage_problems(data.frame, data.variables)]
    if failures:
        raise AssertionError(_report(plugin, failures))

    before = data.frame.copy(deep=True)
    first = _call(plugin, data, params, seed)
    second = _call(plugin, data, params, seed)
    if not data.frame.equals(before):
        failures.append("the input data were modified in place")
    if isinstance(plugin, Method):
        failures += _check_method_result(plugin, data, params, first, second)
        if isinstance(first, MethodResult):
            failures += output_problems(plugin, data, params, first)
    elif isinstance(plugin, Measure):
        failures += _check_measure_result(data, first, second)
        if isinstance(first, MeasureResult):
            failures += result_problems(plugin, data.meta, params, first.summary)
    else:
        failures.append("is neither a Method nor a Measure")
    if not failures:
        result = first.info if isinstance(first, MethodResult) else first.summary
        failures += explain_problems(plugin, params, json.loads(canonical_json(result)))
    if failures:
        raise AssertionError(_report(plugin, failures))


def explain_problems(plugin: Plugin, params: dict, result: dict | None) -> list[str]:
    """What is wrong with the plugin's plain words for the report
    (:meth:`~sdcflow.plugins.registry.Plugin.explain`): it must give a sentence for its result as
    the report reads it (from JSON) and for no result (the external report)."""
    out = []
    for label, value in (("its result", result), ("no result (external report)", None)):
        try:
            text = plugin.explain(dict(params), value)
        except Exception as exc:  # noqa: BLE001 (any failure is the finding)
            out.append(f"explain() with {label} raised {type(exc).__name__}: {exc}")
            continue
        if not isinstance(text, str) or not text.strip():
            out.append(f"explain() with {label} gave no sentence: {text!r}")
    return out


def _call(plugin, data, params, seed):
    rng = np.random.default_rng(seed)
    if isinstance(plugin, Method):
        return plugin.apply(data, dict(params), rng)
    return plugin.evaluate(data, dict(params), rng, original=data)


def _check_method_result(plugin, data, params, first, second) -> list[str]:
    out = []
    if not isinstance(first, MethodResult):
        return [f"apply() returned {type(first).__name__}, not MethodResult"]
    writes = plugin.writes(params, data.meta)
    frame = first.data.frame
    if writes is not None:
        # (a method that rebuilds the records from every column it writes may change
        # their number: the engine's rule, sdcflow.engine.output_checks.rebuilds_records)
        rebuilds = set(data.frame.columns) <= set(writes) and \
            plugin.changes_records(params, data.meta)
        if len(frame) != len(data.frame) and not rebuilds:
            out.append("apply() changed the number of records but writes() is not None")
        for col in data.frame.columns:
            if col not in writes and col in frame and not frame[col].reset_index(drop=True).equals(
                    data.frame[col].reset_index(drop=True)):
                out.append(f"apply() changed column '{col}', which writes() does not declare")
        for col in writes:
            if col not in frame.columns:
                out.append(f"apply() did not return the declared column '{col}'")
            elif col not in first.data.variables:
                out.append(f"apply() returned no variable metadata for '{col}'")
    written = first.data.variables if writes is None else {
        c: v for c, v in first.data.variables.items() if c in writes}
    out += [f"apply(): {p}" for p in storage_problems(frame, written)]
    if not frame.equals(second.data.frame):
        out.append("apply() is not deterministic for the same generator seed")
    try:
        json.dumps(first.info, allow_nan=False)
    except (TypeError, ValueError) as exc:
        out.append(f"info is not JSON-serialisable: {exc}")
    return out


def _check_measure_result(data, first, second) -> list[str]:
    out = []
    if not isinstance(first, MeasureResult):
        return [f"evaluate() returned {type(first).__name__}, not MeasureResult"]
    try:  # as the engine writes it (NumPy scalars as numbers, NaN as null)
        a, b = canonical_json(first.summary), canonical_json(second.summary)
        if a != b:
            out.append("evaluate() is not deterministic for the same generator seed")
    except (TypeError, ValueError) as exc:
        out.append(f"summary is not JSON-serialisable: {exc}")
    if first.per_record is not None:
        if not isinstance(first.per_record, pd.DataFrame):
            out.append("per_record must be a pandas DataFrame or None")
        elif len(first.per_record) != len(data.frame):
            out.append("per_record does not have one row per record")
    return out


def output_problems(plugin: Method, data: Dataset, params: dict,
                    result: MethodResult) -> list[str]:
    """Where the metadata ``apply()`` left on the variables differ from what
    ``outputs()`` declares (empty when they agree, or when nothing is declared)."""
    meta = data.meta
    declared = plugin.outputs(params, meta)
    if declared is None:
        return []
    writes = plugin.writes(params, meta)
    # (a method may write new variables, e.g. camouflage's bounds)
    written = [n for n in (data.variables if writes is None else sorted(writes))
               if n in data.variables or n in result.data.variables]
    out = [f"outputs() does not declare '{n}', which the method writes" for n in written
           if n not in declared]
    for name, output in declared.items():
        if name not in written:
            out.append(f"outputs() declares '{name}', which the method does not write")
            continue
        got = result.data.variables.get(name)
        if got is None:
            continue  # (reported with the columns)
        want = output.variable
        if got.type not in output.types:
            out.append(f"'{name}' is {got.type} after apply(); outputs() declares "
                       f"{' or '.join(output.types)}")
        if output.order_from_data:
            if got.order is None or not set(want.order or ()) <= set(got.order):
                out.append(f"'{name}' has the order {got.order} after apply(); outputs() "
                           f"declares one decided by the data, with {list(want.order or ())}")
        elif _order(got) != _order(want):
            out.append(f"'{name}' has the order {_order(got)} after apply(); outputs() "
                       f"declares {_order(want)}")
        if got.evolve(type=want.type, order=want.order) != want:
            fields = [f for f in ("role", "labels", "hierarchy", "missing")
                      if getattr(got, f) != getattr(want, f)]
            out.append(f"the {', '.join(fields)} of '{name}' after apply() differ from "
                       "outputs()")
    return out


def _order(var) -> list | None:
    return None if var.order is None else list(var.order)


def result_problems(plugin: Measure, meta, params: dict, summary: dict) -> list[str]:
    """Where ``summary`` (as written to measures.json) differs from the shape
    ``result_shape()`` declares (empty when it conforms, or when nothing is declared)."""
    shape = plugin.result_shape(params, meta)
    if shape is None:
        return []
    try:
        value = json.loads(canonical_json(summary))
    except (TypeError, ValueError):
        return []  # (reported as not JSON-serialisable)
    return [f"result_shape(): {p}" for p in conformance(shape, value)]


def _report(plugin, failures) -> str:
    lines = "\n".join(f"  - {f}" for f in failures)
    return f"plugin {getattr(plugin, 'name', plugin)!r} failed {len(failures)} check(s):\n{lines}"
