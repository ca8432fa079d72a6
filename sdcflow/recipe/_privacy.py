"""The recipe's privacy budget against its DP steps (:mod:`sdcflow.dp.budget`): a DP step
needs a budget, spends what the budget's model allows, and the steps together spend no
more than the budget, as OpenDP composes them. Sets ``recipe.privacy`` (budget, each
step's spend, the total) for the manifests, and gives each DP step the records of one
privacy unit (its ``privacy_unit_records``)."""

from __future__ import annotations

from ..errors import Problem
from ._model import Recipe
from ._schema import where


def _spend_path(step, measure: str) -> tuple:
    where_ = "grid" if measure in step.grid else "params"
    return (*step.path, where_, measure)


def privacy_problems(recipe: Recipe, broken: bool = False) -> list[Problem]:
    """What is wrong with the budget and the DP steps' spending (see the module);
    ``broken``: the budget has schema errors (reported already: nothing more is said)."""
    from ..dp.budget import Budget, composed
    from ..dp.steps import UNIT

    doc = recipe.doc
    spec = doc.data.get("privacy_budget") if isinstance(doc.data, dict) else None
    dp_steps = [s for s in recipe.steps
                if s.ok and getattr(s.plugin, "differentially_private", False)]
    out: list[Problem] = []
    for step in dp_steps:
        if UNIT in step.params:
            path = (*step.path, "params", UNIT)
            out.append(doc.problem(path, f"{where(path)}: set by sdcflow from "
                                   "privacy_budget (unit, max_records): do not give it"))
    if broken:
        return out
    if not isinstance(spec, dict):
        for step in dp_steps:
            measure = (step.plugin.spend_of(step.params) or ("epsilon", 0))[0]
            path = _spend_path(step, measure)
            out.append(doc.problem(path, f"{where(path)}: a differentially private step "
                                   "spends the recipe's privacy budget: declare it, e.g. "
                                   "privacy_budget: {epsilon: 1.0}"))
        return out
    out += _budget_shape(recipe, spec)
    if out:
        return out
    budget = Budget.from_recipe(spec)
    spent = {}
    for step in dp_steps:
        if step.plugin.spend_of(step.params) is None and not step.grid:
            continue  # (reported by the step's own check)
        worst = None
        for variant in step.variants or [step.params]:
            declared = step.plugin.spend_of(variant)
            if declared is None:
                continue
            measure, _ = declared
            path = _spend_path(step, measure)
            if not budget.allows(measure):
                out.append(doc.problem(path, f"{where(path)}: the privacy budget is pure "
                                       f"DP ({budget.describe()}): spend epsilon, or give "
                                       "the budget in rho or (epsilon, delta)"))
                break
            try:
                parts = step.plugin.dp_parts(variant, recipe, step)
            except (ValueError, KeyError) as exc:
                msg = exc.args[0] if exc.args else str(exc)
                out.append(doc.problem((*step.path,), f"steps[{step.index}]: {msg}"))
                break
            cal = step.plugin.calibrated(variant, parts, budget.d_in)
            if worst is None or cal.spent > worst[1].spent:
                worst = (path, cal)
        if worst is not None:
            spent[step.id] = worst
        step.params = {**step.params, UNIT: budget.d_in}
        step.variants = [{**v, UNIT: budget.d_in} for v in step.variants]
    if out:
        return out
    total = composed(budget, {sid: cal for sid, (_, cal) in spent.items()})
    if total["over"]:
        # the first step at which the running total exceeds the budget
        ids = list(spent)
        for k in range(1, len(ids) + 1):
            if composed(budget, {sid: spent[sid][1] for sid in ids[:k]})["over"]:
                path = spent[ids[k - 1]][0]
                break
        figures = ", ".join(f"{sid} {cal.measure} {cal.spent:.6g}"
                            for sid, (_, cal) in spent.items())
        total_text = ", ".join(f"{k} {v:.6g}" for k, v in total.items() if k != "over")
        out.append(doc.problem(path, f"{where(path)}: the DP steps spend {total_text} in "
                               f"all ({figures}), more than the recipe's privacy budget "
                               f"({budget.describe()})"))
        return out
    recipe.privacy = {
        "budget": budget.as_dict(),
        "steps": {sid: {cal.measure: cal.spent, "mechanism": f"discrete {cal.mechanism}"}
                  for sid, (_, cal) in spent.items()},
        "total": {k: v for k, v in total.items() if k != "over"},
        "accounting": "OpenDP " + _opendp_version(),
    }
    return out


def _budget_shape(recipe: Recipe, spec: dict) -> list[Problem]:
    doc = recipe.doc
    out = []
    if "epsilon" in spec and "rho" in spec:
        out.append(doc.problem(("privacy_budget", "rho"), "privacy_budget: give epsilon "
                               "(pure or, with delta, approximate DP) or rho (zCDP), not both"))
    elif "epsilon" not in spec and "rho" not in spec:
        out.append(doc.problem(("privacy_budget",), "privacy_budget: give epsilon or rho"))
    unit = spec.get("unit", "person")
    if unit == "household":
        if not any(v.role == "household" for v in recipe.variables.values()):
            out.append(doc.problem(("privacy_budget", "unit"), "privacy_budget.unit: "
                                   "household needs a variable with role household"))
        if "max_records" not in spec:
            out.append(doc.problem(("privacy_budget", "unit"), "privacy_budget: a household "
                                   "unit needs max_records (the most records of one "
                                   "household the DP steps use)"))
    elif "max_records" in spec:
        out.append(doc.problem(("privacy_budget", "max_records"), "privacy_budget."
                               "max_records: only with unit household (a person is one "
                               "record)"))
    return out


def _opendp_version() -> str:
    from importlib.metadata import version

    return version("opendp")
