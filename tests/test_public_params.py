"""Which parameters a plugin publishes (sdcflow.plugins.registry: ``public_params``, ``public``,
``Measure.public_summary``): publication is opt-in, every built-in declares it, and the
parameters kept internal are the audited ones below."""

from typing import ClassVar

import pytest

from sdcflow.cli.describe import _example_params
from sdcflow.plugins import registry
from sdcflow.plugins.registry import (
    Measure,
    MeasureResult,
    Method,
    MethodResult,
    declaration_problems,
)

# The parameters each built-in keeps internal, and why (every other parameter is
# published). A change here is a decision: say its reason in the plugin and in the docs.
INTERNAL = {
    # a population register may not be public: its counts are data
    "anonymize": {"population_counts"},
    "delta_presence": {"population_counts"},
    # the column of the secret record keys (drawn keys come from the seed, internal too)
    "cell_key": {"record_key", "write_ptable"},
    # how much was perturbed or swapped, and which records were targeted, tells an
    # intruder which records moved (census practice keeps swap rates confidential)
    "edge_perturbation": {"fraction"},
    "record_swap": {"swaprate", "risk_variables", "k_anonymity", "risk", "risk_threshold"},
    # p bounds how far a rank-swapped value moved: the transparency attack's key
    "rank_swap": {"p"},
    "rank_swap_attack": {"p", "p_unit"},
    # the sensitivity rules' thresholds tell how small or dominated a suppressed cell is
    "sensitivity_rules": {"rules", "protection"},
    # the intruder's file as read: its records are data
    "schema_linkage": {"intruder_data"},
    # the sensitive terms and the recipe's own identifier patterns may name what they
    # hide (a list of persons' names, a regex of one file's case numbers); a spaCy model
    # is the office's own installation
    "sanitise_text": {"terms", "identifiers", "entities"},
    "text_residual": {"terms", "identifiers", "entities"},
}

# the classes a built-in plugin derives from that are not plugins themselves
BASES = {registry.Plugin, Method, Measure, registry.TableMethod, registry.TableMeasure}


def internal(plugin) -> set[str]:
    return set(plugin.params.get("properties", {})) - set(plugin.public_params)


def test_every_builtin_declares_what_it_publishes():
    # the plugin's own class (or a base class of sdcflow's own) says it: nothing is
    # published because it was forgotten, nothing kept internal by accident
    undeclared = []
    for plugin in registry.plugins():
        declared_in = next(c for c in type(plugin).__mro__ if "public_params" in vars(c))
        if declared_in in BASES:
            undeclared.append(plugin.name)
    assert undeclared == []


@pytest.mark.parametrize("plugin", registry.plugins(), ids=lambda p: p.name)
def test_the_internal_parameters_are_the_audited_ones(plugin):
    assert internal(plugin) == INTERNAL.get(plugin.name, set())


def test_a_plugin_that_declares_nothing_publishes_nothing():
    class Quiet(Method):
        name = "quiet"
        summary = "declares no public parameters"
        params: ClassVar[dict] = {"type": "object", "properties": {"width": {"type": "number"}}}

        def apply(self, data, params, rng):
            return MethodResult(data, {})

    assert Quiet().public({"width": 3}) == {}
    assert declaration_problems(Quiet()) == []


def test_publication_must_be_listed_by_name():
    class All(Method):
        name = "all"
        summary = "None used to mean every parameter"
        params: ClassVar[dict] = {"type": "object", "properties": {"rate": {"type": "number"}}}
        public_params = None

        def apply(self, data, params, rng):
            return MethodResult(data, {})

    assert declaration_problems(All()) == [
        ("public_params must list the names of the parameters that may be published (a "
         "tuple of names; () publishes none), not None")]

    class Stale(All):
        # a stale name would publish a parameter added later under it
        public_params = ("rate", "sample_rate")

    assert declaration_problems(Stale()) == [
        "public_params names ['sample_rate'], which are not parameters"]


def test_a_published_summary_does_not_repeat_an_internal_parameter():
    class Echo(Measure):
        name = "echo"
        summary = "repeats its parameters in its summary"
        params: ClassVar[dict] = {"type": "object", "properties": {
            "threshold": {"type": "number"}, "secret": {"type": "number"}}}
        public_params = ("threshold",)

        def evaluate(self, data, params, rng, *, original):
            return MeasureResult({})

    summary = {"threshold": 0.1, "secret": 7, "records": 20}
    assert Echo().public_summary(summary, {}) == {"threshold": 0.1, "records": 20}


def test_the_rank_swap_attack_publishes_nothing_that_tells_p():
    # rank_distance is floor(p n / 100) with n published: p again; the intersections are
    # bounded by it
    plugin = registry.get("rank_swap_attack")
    summary = {"p": 15, "p_unit": "percent", "rank_distance": {"x": 150},
               "intersection_sizes": {"1": 3, "301": 2}, "variables": ["x"], "records": 1000,
               "reference": "original", "scenarios": "all", "certain": 0.3, "linked": 1.0,
               "inconsistent": 0.0, "wrong_certain": 0}
    assert plugin.public_summary(summary, {}) == {
        "variables": ["x"], "records": 1000, "reference": "original", "scenarios": "all",
        "certain": 0.3, "linked": 1.0, "inconsistent": 0.0, "wrong_certain": 0}


def test_post_masking_publishes_its_inner_method_as_that_method_does():
    plugin = registry.get("post_masking")
    params = {"mask": {"method": "rank_swap", "params": {"variables": ["x"], "p": 5}},
              "variables": ["x"]}
    assert plugin.public(params) == {
        "mask": {"method": "rank_swap", "params": {"variables": ["x"]}}, "variables": ["x"]}
    unknown = {"mask": {"method": "nonesuch", "params": {"rate": 0.1}}}
    assert plugin.public(unknown) == {"mask": {"method": "nonesuch", "params": {}}}


@pytest.mark.parametrize("plugin", registry.plugins(), ids=lambda p: p.name)
def test_every_plugin_explains_itself_from_its_public_parameters(plugin):
    # the external report knows only the public parameters (and no method result)
    params = registry.with_defaults(plugin.params, _example_params(plugin))
    text = plugin.explain(plugin.public(params), None)
    assert isinstance(text, str) and text
    # (an internal parameter would show as a missing figure: "at most \u2014%")
    assert "None" not in text and "\u2014" not in text
