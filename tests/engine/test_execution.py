"""Executing steps (sdcflow.engine.execution): what a plugin sees, and what its output
may not contain."""

import textwrap

import pandas as pd
import pytest

from sdcflow import run
from sdcflow.cli import main
from sdcflow.data.io import builtin_path
from sdcflow.plugins import registry
from sdcflow.plugins.registry import MethodResult


def test_a_step_sees_only_the_columns_it_declares(write_recipe, tmp_path, monkeypatch):
    seen = {}
    plugin = registry.get("top_bottom_code")
    real = type(plugin).apply

    def spy(self, data, params, rng):
        seen["columns"] = list(data.frame.columns)
        seen["variables"] = sorted(data.variables)
        return real(self, data, params, rng)

    monkeypatch.setattr(type(plugin), "apply", spy)
    path = write_recipe("""
        sdcflow: 1
        name: see
        seed: 1
        data: {builtin: testdata}
        variables: {income: {role: numeric}, expend: {role: numeric}, sex: {role: key}}
        steps: [{id: tb, method: top_bottom_code, params: {variable: income,
                 top: {value: 5}}}]
    """)
    run(path, write=False, use_cache=False)
    # what the step sees is what its fingerprint holds: nothing else can change its result
    assert seen == {"columns": ["income"], "variables": ["income"]}


def infinite(self, data, params, rng):
    out = data.frame[["income"]].copy()
    out.loc[out.index[:7], "income"] = float("inf")
    return MethodResult(data.with_columns({"income": out["income"]}), {})


def blanked(self, data, params, rng):
    out = data.frame["income"].copy()
    out.iloc[[2, 4]] = float("nan")
    return MethodResult(data.with_columns({"income": out}), {})


@pytest.mark.parametrize("apply, message", [
    (infinite, ("step 'tb': top_bottom_code made 7 values (records 1, 2, 3, 4, 5 and 2 more) "
                "of 'income' infinite")),
    (blanked, "step 'tb': top_bottom_code made 2 values (records 3, 5) of 'income' missing"),
])
def test_infinite_or_newly_missing_values_are_refused(write_recipe, tmp_path, capsys,
                                                      monkeypatch, apply, message):
    monkeypatch.setattr(type(registry.get("top_bottom_code")), "apply", apply)
    path = write_recipe(textwrap.dedent("""
        sdcflow: 1
        name: inf
        seed: 1
        data: {builtin: testdata}
        variables: {income: {role: numeric}}
        steps: [{id: tb, method: top_bottom_code, params: {variable: income,
                 top: {value: 5}}}]
        release: {path: out.csv}
    """))
    assert main(["run", str(path), "--out", str(tmp_path / "out"), "--no-cache"]) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("engine", ["memory", "dask"])
@pytest.mark.parametrize("step, message", [
    # local suppression makes age missing; projected microaggregation needs complete
    # values (its check_data refuses them: validation only saw the loaded, complete data)
    (("{id: micro, method: microaggregation, params: {variables: [age, income], k: 3, "
      "algorithm: projected}}"), "'age' has 40 missing values"),
    # k larger than the records: validation skips steps that see changed data
    ("{id: micro, method: microaggregation, params: {variables: [age], k: 5000}}",
     "k = 5000 is larger than the number of records"),
])
def test_data_checks_run_on_the_data_a_step_receives(write_recipe, tmp_path, capsys, step,
                                                     message, engine):
    """A step after steps that changed the data gets its plugin's data checks when it
    runs: the plugin's message, exit 1, nothing written, instead of an internal error
    from inside a kernel."""
    if engine == "dask":
        pytest.importorskip("distributed")
        data = tmp_path / "parts"
        data.mkdir()
        pd.read_csv(builtin_path("testdata")).to_parquet(data / "part-0.parquet")
        source = "{path: parts}\nexecution: {engine: dask, workers: 1}"
    else:
        source = "{builtin: testdata}"
    path = write_recipe(textwrap.dedent("""
        sdcflow: 1
        name: after
        seed: 1
        data: SOURCE
        variables:
          urbrur: {role: key}
          water: {role: key}
          sex: {role: key}
          age: {role: key, type: integer}
          income: {role: numeric}
        steps:
          - {id: ls, method: local_suppression, params: {k: 3}}
          - STEP
        release: {path: out.csv}
    """).replace("SOURCE", source).replace("STEP", step))
    assert main(["run", str(path), "--out", str(tmp_path / "out"), "--no-cache"]) == 1
    err = capsys.readouterr().err
    assert "step 'micro': on the data it receives from earlier steps" in err
    assert message in err and "Traceback" not in err and "unexpectedly" not in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("workers", [1, 2])
def test_a_step_that_reads_no_column_sees_its_records(write_recipe, workers):
    # a measure of no variable read 0 records when the steps that wrote its view's columns
    # had not run yet (they are not its dependencies: it reads none of their columns);
    # the records it sees are those of the step that last changed them: 4,580 loaded,
    # 458 after a 10% sample, whatever ran before
    path = write_recipe("""
        sdcflow: 1
        name: rows
        seed: 1
        data: {builtin: testdata}
        variables: {income: {role: numeric}, expend: {role: numeric}}
        steps:
          - {id: m, method: microaggregation, params: {variables: [income, expend], k: 3}}
          - {id: before, measure: suppressions}
          - {id: s, method: sampling, params: {fraction: 0.1}}
          - {id: n, method: noise, params: {variables: [income]}}
          - {id: after, measure: suppressions, params: {reference: s}}
    """)
    result = run(path, write=False, use_cache=False, workers=workers)
    assert result.measures["before"]["total"] == 0
    assert len(result.data) == 458
    assert result.measures["after"]["total"] == 0
