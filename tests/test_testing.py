"""The plugin conformance suite, sdcflow.plugins.testing.check_method: it passes a well-behaved
plugin and names what is wrong with a faulty one."""

import itertools
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest
from helpers import small_dataset

from sdcflow.plugins.registry import Measure, MeasureResult, Method, MethodResult, Output
from sdcflow.plugins.results import COUNT, by_variable, record
from sdcflow.plugins.testing import check_method

DATA = small_dataset(x=("numeric", "continuous", [1.0, 2.0, 3.0, 4.0]),
                     y=("numeric", "continuous", [5.0, 6.0, 7.0, 8.0]))


class AddNoise(Method):
    """Adds noise to x: deterministic under the step's generator."""

    name = "add_noise_example"
    summary = "Noise on x."
    params: ClassVar[dict] = {"type": "object", "properties": {
        "variables": {"type": "array", "items": {"type": "string"}, "default": ["x"]}}}

    def apply(self, data, params, rng):
        x = data.frame["x"].to_numpy(float) + rng.standard_normal(len(data))
        return MethodResult(data.with_columns({"x": pd.Series(x, index=data.frame.index)}),
                            {"changed": len(data)})


def failures_of(plugin) -> str:
    with pytest.raises(AssertionError) as info:
        check_method(plugin, DATA, {})
    return str(info.value)


def test_a_well_behaved_method_passes():
    check_method(AddNoise(), DATA, {})


def test_randomness_outside_the_generator_is_caught():
    counter = itertools.count()

    class Unseeded(AddNoise):
        def apply(self, data, params, rng):
            return super().apply(data, params, np.random.default_rng(next(counter)))

    assert "not deterministic for the same generator seed" in failures_of(Unseeded())


def test_changing_the_input_or_an_undeclared_column_is_caught():
    class InPlace(AddNoise):
        def apply(self, data, params, rng):
            data.frame.loc[0, "x"] = -1.0
            return MethodResult(data, {})

    class Undeclared(AddNoise):
        def apply(self, data, params, rng):
            y = data.frame["y"] * 2
            return MethodResult(data.with_columns({"y": y}), {})

    assert "modified in place" in failures_of(InPlace())
    assert "changed column 'y', which writes() does not declare" in failures_of(Undeclared())


def test_a_broken_declaration_and_unserialisable_info_are_caught():
    class BadSchema(AddNoise):
        params: ClassVar[dict] = {"type": "object", "properties": {"k": {"type": "nope"}}}

    class BadInfo(AddNoise):
        def apply(self, data, params, rng):
            return MethodResult(super().apply(data, params, rng).data, {"when": object()})

    assert "declaration: invalid params schema" in failures_of(BadSchema())
    assert "info is not JSON-serialisable" in failures_of(BadInfo())


def test_a_measure_needs_one_per_record_row_per_record():
    class Short(Measure):
        name = "short_example"
        summary = "Too few rows."

        def evaluate(self, data, params, rng, *, original):
            return MeasureResult({"n": np.int64(len(data))}, pd.DataFrame({"v": [1.0]}))

    assert "per_record does not have one row per record" in failures_of(Short())


def test_declared_outputs_are_compared_with_the_metadata_left():
    class Rounds(AddNoise):
        """Declares that x stays as it is, but makes it ordinal text."""

        def outputs(self, params, meta):
            return {"x": Output(meta.variables["x"])}

        def apply(self, data, params, rng):
            text = data.frame["x"].astype(int).astype(str)
            var = data.variables["x"].evolve(type="ordinal", order=("1", "2", "3", "4"))
            return MethodResult(data.with_columns({"x": text}, [var]), {})

    class Forgets(AddNoise):
        def outputs(self, params, meta):
            return {}

    assert "'x' is ordinal after apply(); outputs() declares continuous" in failures_of(Rounds())
    assert "outputs() does not declare 'x', which the method writes" in failures_of(Forgets())
    # (a method that declares nothing is not compared: AddNoise passes)


def test_a_summary_is_compared_with_its_declared_shape():
    class Counts(Measure):
        name = "counts_example"
        summary = "Counts records."

        def result_shape(self, params, meta):
            return record(records=COUNT, by_variable=by_variable(["x", "y"]))

        def evaluate(self, data, params, rng, *, original):
            return MeasureResult({"records": len(data), "by_variable": {"x": 1.5},
                                  "extra": True})

    failures = failures_of(Counts())
    assert "result_shape(): summary.by_variable has the keys x, declared x, y" in failures
    assert "result_shape(): summary.extra is not declared" in failures
