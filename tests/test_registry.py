"""The plugin registry (sdcflow.plugins.registry): built-ins and third-party entry points."""

import json
import os
import subprocess
import sys
import textwrap
from typing import ClassVar

import pytest
from helpers import small_dataset

from sdcflow.errors import RecipeError
from sdcflow.plugins import registry
from sdcflow.plugins.distribution import MapReduce, Rows
from sdcflow.plugins.registry import (
    Measure,
    Method,
    MethodResult,
    Plugin,
    TableMeasure,
    TableMethod,
    declaration_problems,
)
from sdcflow.recipe import recipe_from_text

PLUGIN_SOURCE = '''
import numpy as np
from sdcflow.plugins.registry import Method, MethodResult


class UniformNoise(Method):
    """Adds uniform noise of a given width to one numeric variable (test plugin)."""

    name = "uniform_noise"
    summary = "Add uniform noise of a given width (a third-party test plugin)."
    protects = True
    roles = ("numeric",)
    types = ("continuous",)
    params = {
        "type": "object", "additionalProperties": False, "required": ["variable"],
        "properties": {"variable": {"type": "string"},
                       "width": {"type": "number", "exclusiveMinimum": 0, "default": 1}},
    }

    def apply(self, data, params, rng):
        col = data.frame[params["variable"]]
        noisy = col + rng.uniform(-params["width"], params["width"], len(col))
        return MethodResult(data.with_columns({params["variable"]: noisy}), {})
'''


@pytest.fixture
def external_plugin(tmp_path):
    """A distribution outside the package, exposing a plugin through the entry point."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "extra_noise.py").write_text(PLUGIN_SOURCE)
    dist = site / "extra_noise-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: extra-noise\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[sdcflow.methods]\nuniform_noise = extra_noise:UniformNoise\n")
    env = dict(os.environ, PYTHONPATH=str(site))
    return env


def sdcflow_cli(args, env, cwd=None):
    return subprocess.run([sys.executable, "-m", "sdcflow.cli", *args], env=env, cwd=cwd, check=False,
                          capture_output=True, text=True, timeout=120)


def test_builtins_are_registered():
    names = {p.name: p.kind for p in registry.plugins()}
    assert names["global_recode"] == "method"
    assert names["top_bottom_code"] == "method"
    assert names["k_anonymity"] == "measure"
    assert names["constraints"] == "measure"
    assert [p.name for p in registry.plugins("measure")] == sorted(
        p.name for p in registry.plugins("measure"))


def test_every_builtin_declaration_is_well_formed():
    for plugin in registry.plugins():
        assert declaration_problems(plugin) == [], plugin.name


def test_every_builtin_says_what_it_is_to_the_release_policy():
    """Each built-in method says whether it protects, each measure whether it is a risk
    measure, in its own class (or a built-in base of it): none gets the base's default by
    omission, so the next plugin is decided, not forgotten."""
    bases = {Plugin, Method, Measure, TableMethod, TableMeasure}
    for plugin in registry.plugins():
        declared = {key for cls in type(plugin).__mro__ if cls not in bases
                    and cls.__module__.startswith("sdcflow.") for key in vars(cls)}
        attribute = "protects" if plugin.kind == "method" else "risk_measure"
        assert attribute in declared, plugin.name
    methods = registry.plugins("method")
    assert {p.name for p in methods if not p.protects} == {"relabel_nodes", "remove_variables"}
    assert {p.name for p in methods if p.keeps_risk} == {"relabel_nodes"}
    assert {p.name for p in methods if p.on_table and p.consistent_across_tables} == \
        {"cell_key"}
    measures = {p.name: p for p in registry.plugins("measure")}
    for name in ("k_anonymity", "individual_risk", "global_risk", "household_risk", "suda",
                 "l_diversity", "t_closeness", "record_linkage", "graph_reidentification"):
        assert measures[name].risk_measure, name
    for name in ("information_loss", "propensity", "constraints", "suppressions", "score",
                 "cell_key_utility", "graph_utility", "table_audit", "table_utility"):
        assert not measures[name].risk_measure, name
    # those whose results are functions of the frequencies of their variables' values
    assert {n for n, p in measures.items() if p.counts_combinations} == {
        "k_anonymity", "frequencies", "individual_risk", "global_risk", "household_risk",
        "model_risk", "reidentification_risk", "suda", "l_diversity", "t_closeness",
        "beta_likeness", "delta_presence"}


def test_a_method_that_does_not_say_it_protects_protects_nothing():
    class Scramble(Method):
        name = "scramble_test_plugin"
        summary = "A third-party method that does not declare protects."
        params: ClassVar[dict] = {"type": "object", "properties": {
            "variable": {"type": "string"}}}

        def apply(self, data, params, rng):
            return MethodResult(data, {})

    text = textwrap.dedent("""\
        sdcflow: 1
        name: scramble
        seed: 1
        data: {builtin: testdata}
        variables: {income: {role: numeric}}
        steps: [{id: s, method: scramble_test_plugin, params: {variable: income}}]
        release: {path: out.csv}
    """)
    registry.add(Scramble())
    try:
        with pytest.raises(RecipeError, match="nothing protects the released records"):
            recipe_from_text(text)
        Scramble.protects = True
        assert recipe_from_text(text).policy.artefacts["records"] == {
            "label": "the released records", "protected_by": ["s"]}
    finally:
        registry._plugins.pop("scramble_test_plugin")


def test_declaration_problems_are_found():
    class Bad(Method):
        name = ""
        summary = "two\nlines"
        roles = ("keyy",)
        params: ClassVar[dict] = {"type": "array"}

        def apply(self, data, params, rng):
            return MethodResult(data, {})

    problems = declaration_problems(Bad())
    assert "has no name" in problems
    assert "needs a one-line summary" in problems
    assert "params schema must describe an object" in problems
    assert "unknown roles: ['keyy']" in problems


def test_a_distribution_without_its_hooks_is_a_declaration_problem():
    # a plugin that declares a map-reduce fit must implement it; otherwise the Dask
    # engine would only find out on the cluster
    class Fitted(Method):
        name = "fitted"
        summary = "a fit declared, not written"
        params: ClassVar[dict] = {"type": "object"}
        distribution = Rows(rounds=1)

        def apply(self, data, params, rng):
            return MethodResult(data, {})

    how = Rows(rounds=1).describe()
    assert declaration_problems(Fitted()) == [
        f"declares {how} but does not implement partial",
        f"declares {how} but does not implement combine"]

    class Counted(Fitted):
        distribution = MapReduce()

        def partial(self, rnd, data, params, state, *, original=None):
            return 0

    how = MapReduce().describe()
    assert declaration_problems(Counted()) == [
        f"declares {how} but does not implement combine",
        f"declares {how} but does not implement finish"]


def test_plugin_outside_the_package_is_found(external_plugin):
    out = sdcflow_cli(["methods", "--format", "json"], external_plugin)
    assert out.returncode == 0, out.stderr
    plugins = {p["name"]: p for p in json.loads(out.stdout)}
    assert plugins["uniform_noise"]["kind"] == "method"
    assert plugins["uniform_noise"]["params"]["properties"]["width"]["default"] == 1


def test_external_plugin_runs_in_a_recipe_reproducibly(external_plugin, tmp_path):
    recipe = tmp_path / "noise.yaml"
    recipe.write_text(textwrap.dedent("""\
        sdcflow: 1
        name: noise
        seed: 7
        data: {builtin: testdata}
        variables:
          income: {role: numeric}
          sex: {role: key}
        steps:
          - {id: noise, method: uniform_noise, params: {variable: income, widht: 2}}
    """))
    bad = sdcflow_cli(["validate", str(recipe)], external_plugin)
    assert bad.returncode == 1
    assert "unknown key 'widht' (did you mean 'width'?)" in bad.stderr
    recipe.write_text(recipe.read_text().replace("widht", "width").replace(
        "params: {variable: income, width: 2}}",
        "params: {variable: income, width: 2}}\nrelease: {path: out.csv}"))
    hashes = []
    for out in ("a", "b"):
        run = sdcflow_cli(["run", str(recipe), "--out", str(tmp_path / out), "--no-cache"],
                          external_plugin)
        assert run.returncode == 0, run.stderr
        hashes.append((tmp_path / out / "public" / "out.csv").read_bytes())
    assert hashes[0] == hashes[1]
    # a different seed gives different noise
    recipe.write_text(recipe.read_text().replace("seed: 7", "seed: 8"))
    run = sdcflow_cli(["run", str(recipe), "--out", str(tmp_path / "c"), "--no-cache"],
                      external_plugin)
    assert run.returncode == 0 and (tmp_path / "c" / "public" / "out.csv").read_bytes() != hashes[0]


def test_broken_entry_point_is_reported_not_fatal(tmp_path):
    site = tmp_path / "site"
    dist = site / "broken-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[sdcflow.methods]\nbroken = no_such_module:X\n")
    out = sdcflow_cli(["methods"], dict(os.environ, PYTHONPATH=str(site)))
    assert out.returncode == 0
    assert "warning: entry point 'broken' (no_such_module:X)" in out.stdout
    assert "global_recode (method)" in out.stdout


class _Stratified(Method):
    """A stratified plugin that may not stratify by its own variables."""

    name = "stratified_example"
    default_roles = ("numeric",)
    stratified = True
    strata_conflict = "'{name}' is masked, so it cannot define strata"
    params: ClassVar[dict] = {"type": "object", "properties": {
        "variables": {"type": "array"}, "strata": registry.strata_param("Work within strata")}}

    def apply(self, data, params, rng):  # pragma: no cover - not run
        raise NotImplementedError


def test_stratified_plugins_share_strata_defaults_reads_and_checks():
    meta = small_dataset(x=("numeric", "continuous", [1.0, 2.0]),
                         region=("strata", "categorical", ["a", "b"])).meta
    plugin = _Stratified()
    assert plugin.params["properties"]["strata"]["description"] == (
        "Work within strata (default: the variables with role strata).")
    # strata default to the variables with role strata, and are read
    assert plugin.strata({}, meta) == ["region"]
    assert plugin.reads({}, meta) == {"x", "region"}
    assert plugin.strata({"strata": []}, meta) == []
    assert list(plugin.check_strata({"strata": ["nope", "x", "region"]}, meta)) == [
        (("strata", 0), "'nope' is not a declared variable"),
        (("strata", 1), "'x' is masked, so it cannot define strata")]
    # a plugin that is not stratified has no strata, whatever is declared
    assert registry.get("rounding").strata({}, meta) == []


def test_variables_param_schema():
    assert registry.variables_param("Masked.") == {
        "type": "array", "minItems": 1, "items": {"type": "string"}, "uniqueItems": True,
        "description": "Masked."}
    assert "uniqueItems" not in registry.variables_param("Masked.", unique=False)
