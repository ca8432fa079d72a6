"""ranking measure: score steps of one run ranked (Domingo-Ferrer & Torra 2001)."""

import pytest

from sdcflow import run, validate
from sdcflow.errors import RecipeError
from sdcflow.plugins import registry

PLUGIN = registry.get("ranking")


def rank(results, **params):
    params = registry.with_defaults(PLUGIN.params, {"candidates": list(results), **params})
    return PLUGIN.evaluate(None, params, None, original=None, results=results).summary


def test_by_hand():
    # seed 000's two scores of the rank swapping example (IL 39.22; DR 26.78 with DBRL
    # and PRL, 43.655 with RS-RL), and a third version with less IL and more DR
    results = {"generic": {"il": 39.22, "dr": 26.78, "score": 33.0},
               "rsrl": {"il": 39.22, "dr": 43.655, "score": 41.4375},
               "light": {"il": 10.0, "dr": 56.0, "score": 33.0}}
    s = rank(results)
    # generic and light tie on 33.0 (rank 1 both, listed order kept); rsrl is third
    assert s["order"] == ["generic", "light", "rsrl"] and s["best"] == "generic"
    assert [s["by_candidate"][c]["rank"] for c in results] == [1, 3, 1]
    # rsrl has the IL of generic and more DR: dominated; light is best on IL
    assert s["pareto"] == ["generic", "light"]
    assert rank(results, by="il")["order"] == ["light", "generic", "rsrl"]
    assert rank(results, by="dr")["best"] == "generic"


def test_refuses_a_step_that_is_not_a_score():
    with pytest.raises(ValueError, match="'risk' is not a score step"):
        rank({"a": {"il": 1, "dr": 2, "score": 1.5}, "risk": {"violations": 3}})


RECIPE = """
sdcflow: 1
name: ranking
seed: 7
data: {builtin: casc_census}
variables:
  AGI: {role: numeric, type: integer}
  FEDTAX: {role: numeric, type: integer}
  STATETAX: {role: numeric, type: integer}
steps:
  - {id: micro, method: microaggregation, params: {k: 3}}
  - {id: loss_micro, measure: information_loss}
  - {id: link_micro, measure: record_linkage}
  - {id: sc_micro, measure: score, params: {il: "loss_micro.composite", dr: "link_micro.percent"}}
  - {id: swap, method: rank_swap, input: original, params: {p: 15}}
  - {id: loss_swap, measure: information_loss}
  - {id: link_swap, measure: record_linkage}
  - {id: sc_swap, measure: score, params: {il: "loss_swap.composite", dr: "link_swap.percent"}}
  - {id: best, measure: ranking, params: {candidates: [sc_micro, sc_swap]}}
"""


def test_recipe_ranks_two_methods(write_recipe, tmp_path):
    result = run(write_recipe(RECIPE), tmp_path / "out", use_cache=False)
    best, micro, swap = (result.measures[k] for k in ("best", "sc_micro", "sc_swap"))
    # the ranking follows the two scores the run computed
    assert set(best["order"]) == {"sc_micro", "sc_swap"}
    low = min(("sc_micro", "sc_swap"), key=lambda k: result.measures[k]["score"])
    assert best["best"] == low and best["by_candidate"][low]["rank"] == 1
    assert best["by_candidate"]["sc_micro"]["il"] == micro["il"]
    assert best["by_candidate"]["sc_swap"]["dr"] == swap["dr"]
    # the branches differ: microaggregation and rank swapping give different scores
    assert micro["score"] != swap["score"]


def test_candidates_are_validated(write_recipe):
    text = RECIPE.replace("candidates: [sc_micro, sc_swap]", "candidates: [sc_micro, link_swap]")
    with pytest.raises(RecipeError) as info:
        validate(write_recipe(text))
    assert any("link_swap" in p.message and "score" in p.message
               for p in info.value.problems), info.value.problems
