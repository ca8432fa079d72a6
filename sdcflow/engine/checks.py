"""Release checks: expressions over the measures' results, evaluated per grid variant.

A check that evaluates to false fails (exit 3: nothing is released). A check that cannot
be evaluated because of the recipe (a result key that does not exist, a mapping compared
with a number) is a recipe mistake: it is reported at the check's position in the recipe
(exit 1), since no measure failed. A check that meets a missing value (a measure that
could not be computed) or arithmetic without a real result (a division by zero) fails:
what cannot be verified is not released. The expressions are evaluated exactly by
:mod:`sdcflow.constraints.checks`.
"""

from __future__ import annotations

from ..constraints import ExprError, parse
from ..constraints.checks import (
    Unverifiable,
    check_figures,
    check_value,
    expression_value,
    figure_text,
)
from ..errors import Problem, RecipeError
from ..recipe import Recipe
from ..recipe.plan import Plan, variant_label


def evaluate_checks(recipe: Recipe, plan: Plan, measures: dict, variants: list[int]) -> list[dict]:
    """Evaluate every check for each variant in ``variants``; one dict per evaluation.

    Raises :class:`RecipeError` (at the checks' positions) for checks that cannot be
    evaluated on these results."""
    out = []
    problems: list[Problem] = []
    for vi in variants:
        nodes = plan.nodes_by_variant[vi]
        label = variant_label(plan.variants[vi])
        for check in recipe.checks:
            env = {}
            for name in check.expr.names:
                head = name.split(".")[0]
                env[head] = measures.get(nodes[head], {})
            entry = {"check": check.text}
            if label:
                entry["variant"] = label
            try:
                entry["passed"] = bool(check_value(check.expr, env))
            except Unverifiable as exc:
                entry["passed"] = False
                entry["error"] = str(exc)
            except (KeyError, TypeError, ValueError, IndexError, ExprError) as exc:
                raw = recipe.doc.data["checks"][check.index]
                where = ("checks", check.index) + (() if isinstance(raw, str) else ("expr",))
                variant = f" (variant {label})" if label else ""
                problems.append(recipe.doc.problem(
                    where, f"checks[{check.index}]: cannot evaluate '{check.text}'{variant}: "
                    f"{str(exc).strip(chr(34) + chr(39))}"))
                continue
            figures = check_figures(check.expr, env)
            if figures:
                entry["figures"] = figures
            if check.message and not entry["passed"]:
                entry["message"] = check.message
            out.append(entry)
    if problems:
        raise RecipeError(problems)
    return out


def failure_text(check: dict) -> str:
    """One failed check (an entry of :func:`evaluate_checks`) as the command line and the
    report say it: the check with its threshold, the variant, the figures it compared,
    why it could not be decided, and the recipe's message, e.g.
    ``check failed: link.percent < 5 (link.percent = 32.08)``."""
    return f"check failed: {check_text(check)}"


def check_text(check: dict) -> str:
    """A check (an entry of :func:`evaluate_checks`) with its variant, the figures it
    compared and, when it failed, why: ``link.percent < 5 (link.percent = 32.08)``."""
    text = check["check"]
    if "variant" in check:
        text += f" [variant {check['variant']}]"
    figures = check.get("figures") or {}
    if figures:
        numbers = _numbers(check["check"]) + [v for v in figures.values()
                                              if isinstance(v, (int, float))]
        text += " (" + "; ".join(f"{name} = {figure_text(value, numbers)}"
                                 for name, value in figures.items()) + ")"
    if "error" in check:
        text += f" ({check['error']})"
    if "message" in check:
        text += f": {check['message']}"
    return text


def _numbers(text: str) -> list:
    """The constant numbers of a check (its thresholds)."""
    try:
        constants = parse(text, subscripts=True).constants.values()
    except ExprError:
        return []
    return [c for c in constants if not isinstance(c, bool)]


def unprotected_failures(recipe: Recipe, failures: list[dict]) -> list[str]:
    """For each released artefact no protection step acts on, whose release rests on
    risk checks that failed (``failures``: the failed check entries), a line saying so
    with the risk figures (docs/recipe-guide.md, "Release policy")."""
    policy = recipe.policy
    if policy is None:
        return []
    failed = {c["check"]: c for c in failures}
    out = []
    for label, texts in policy.vouching().items():
        bad = [failed[t] for t in texts if t in failed]
        if not bad:
            continue
        figures = "; ".join(f"{name} = {figure_text(value)}" for c in bad
                            for name, value in (c.get("figures") or {}).items())
        checks = ", ".join(f"'{c['check']}'" for c in bad)
        out.append(f"nothing protects {label} (no protection step acts on them): their "
                   f"release rests on the risk check {checks}, which failed"
                   + (f" ({figures})" if figures else ""))
    return out


__all__ = ["check_figures", "check_text", "check_value", "evaluate_checks",
           "expression_value", "failure_text", "figure_text", "unprotected_failures"]
