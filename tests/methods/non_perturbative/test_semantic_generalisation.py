"""semantic_generalisation: values replaced by their ancestor at a depth of the
taxonomy, or by the listed broader concept above them."""

import numpy as np
import pytest
from helpers import small_dataset

from sdcflow.data import Dataset
from sdcflow.data.taxonomy import resolve_taxonomy
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("semantic_generalisation")
# the shipped taxonomy: Occupation > Professional > Health professional > Nurse, ...
OCCUPATIONS, _ = resolve_taxonomy({"builtin": "occupations"}, None)
VALUES = ["Nurse", "Doctor", "Teacher", "Cook", None, "Sales manager", "Software engineer"]


def occupations(values=VALUES, **var):
    data = small_dataset(occupation=("key", "categorical", values))
    variables = {"occupation": data.variables["occupation"].evolve(
        taxonomy=var.get("taxonomy", OCCUPATIONS), hierarchy=var.get("hierarchy"))}
    return Dataset(data.frame, variables)


def generalise(data, **params):
    return PLUGIN.apply(data, registry.with_defaults(PLUGIN.params, params),
                        np.random.default_rng(0))


def test_depth_one_gives_the_broad_groups():
    # read off occupations.json: Nurse, Doctor, Teacher, Software engineer are under
    # Professional, Cook under Service worker, Sales manager under Manager
    result = generalise(occupations(), variable="occupation", depth=1)
    assert result.data.frame["occupation"].tolist()[:4] == \
        ["Professional", "Professional", "Professional", "Service worker"]
    assert result.data.frame["occupation"].isna().tolist()[4]
    assert result.data.frame["occupation"].tolist()[5:] == ["Manager", "Professional"]
    assert result.info["changed"] == 6
    # (every depth of the taxonomy, 0 to 3, so that partitions' counts add up)
    assert result.info["records_by_depth"] == {"0": 0, "1": 6, "2": 0, "3": 0}


def test_depth_two_keeps_shallower_values():
    result = generalise(occupations(), variable="occupation", depth=2)
    # Nurse -> Health professional; Cook and Sales manager are at depth 2 already
    assert result.data.frame["occupation"].tolist()[:4] == \
        ["Health professional", "Health professional", "Teaching professional", "Cook"]
    assert result.info["changed"] == 4


def test_listed_concepts():
    result = generalise(occupations(), variable="occupation",
                        concepts=["Health professional", "Professional"])
    # the nearest listed concept above each value: Nurse, Doctor -> Health professional;
    # Teacher, Software engineer -> Professional; Cook, Sales manager are kept
    out = result.data.frame["occupation"].tolist()
    assert out[:4] == ["Health professional", "Health professional", "Professional", "Cook"]
    assert out[5:] == ["Sales manager", "Professional"]


def test_check_method_and_the_taxonomy_is_kept():
    data = occupations()
    check_method(PLUGIN, data, {"variable": "occupation", "depth": 1})
    out = generalise(data, variable="occupation", depth=1).data.variables["occupation"]
    assert out.taxonomy == OCCUPATIONS


def test_a_hierarchy_serves_as_taxonomy():
    hierarchy = {"country": {"Lyon": "FR", "Paris": "FR", "Rome": "IT"},
                 "continent": {"FR": "Europe", "IT": "Europe"}}
    data = occupations(["Lyon", "Rome", "Paris"], taxonomy=None, hierarchy=hierarchy)
    check_method(PLUGIN, data, {"variable": "occupation", "depth": 1})
    result = generalise(data, variable="occupation", depth=1)
    assert result.data.frame["occupation"].tolist() == ["FR", "IT", "FR"]
    # the variable now carries the hierarchy as a taxonomy (its levels no longer apply)
    var = result.data.variables["occupation"]
    assert var.hierarchy is None and var.taxonomy["parents"]["FR"] == "Europe"


def test_values_outside_the_taxonomy_and_unknown_concepts():
    data = occupations(["Nurse", "Astronaut", "Cosmonaut"])
    params = registry.with_defaults(PLUGIN.params, {"variable": "occupation", "depth": 1})
    problems = [m for _, m in PLUGIN.check_data(params, data)]
    assert problems == [("'occupation' has values outside its taxonomy (2): 'Astronaut', "
                        "'Cosmonaut'")]
    params = {"variable": "occupation", "concepts": ["Professional", "Boss"]}
    found = list(PLUGIN.check(params, data.meta))
    assert found == [(("concepts", 1), ("'Boss' is not a concept of the taxonomy of "
                                       "'occupation'"))]


def test_no_taxonomy():
    data = small_dataset(occupation=("key", "categorical", ["a"]))
    found = [m for _, m in PLUGIN.check({"variable": "occupation", "depth": 1}, data.meta)]
    assert found == [("'occupation' has no taxonomy: declare one (variables.occupation."
                      "taxonomy) or a hierarchy (categories merged or recoded by "
                      "global_recode leave none)")]


def test_parents_round_trip():
    # what variables carry is child -> parent of every concept, the root's None
    assert OCCUPATIONS["parents"]["Nurse"] == "Health professional"
    assert OCCUPATIONS["parents"]["Occupation"] is None
    # the root, 5 broad groups, 3 fields of professionals, 18 occupations
    assert len(OCCUPATIONS["parents"]) == 27


@pytest.mark.parametrize("spec", [{"tree": {"A": ["b"]}}, {"parents": {"b": "A"}}])
def test_inline_forms_resolve_alike(spec):
    resolved, message = resolve_taxonomy(spec, None)
    assert message is None and resolved == {"parents": {"b": "A", "A": None}}
