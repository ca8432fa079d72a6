"""Release checks: expressions over the measures' results, evaluated per grid variant.

A check that evaluates to false fails (exit 3: nothing is released). A check that cannot
be evaluated because of the recipe (a result key that does not exist, a mapping compared
with a number) is a recipe mistake: it is reported at the check's position in the recipe
(exit 1), since no measure failed. A check that meets a missing value (a measure that
could not be computed) fails: what cannot be verified is not released.
"""

from __future__ import annotations

import ast

from ..constraints import ExprError
from ..errors import Problem, RecipeError
from ..plan import Plan, variant_label
from ..recipe import Recipe


class MissingValue(ValueError):
    """A value the check needs is missing (null) in a measure's result."""


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
                entry["passed"] = bool(check_value(check.expr.tree.body, env))
            except MissingValue as exc:
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
            if check.message and not entry["passed"]:
                entry["message"] = check.message
            out.append(entry)
    if problems:
        raise RecipeError(problems)
    return out


def expression_value(text: str, results: dict):
    """The value of an expression over measure results (``link.percent / 2``)."""
    from ..constraints import parse

    expr = parse(text, subscripts=True, condition=False)
    return check_value(expr.tree.body, results)


def check_value(node, env):
    """Evaluate a check expression over measure summaries (scalars, not arrays)."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return env[node.id]
    if isinstance(node, (ast.Attribute, ast.Subscript)):
        base = check_value(node.value, env)
        key = node.attr if isinstance(node, ast.Attribute) else node.slice.value
        if isinstance(base, dict):
            if key in base:
                return base[key]
            if str(key) in base:
                return base[str(key)]
            raise KeyError(f"no '{key}' in the result (it has: {', '.join(map(str, base))})")
        if isinstance(base, list) and isinstance(key, int):
            return base[key]
        raise TypeError(f"cannot look up '{key}' in {type(base).__name__}")
    if isinstance(node, ast.BoolOp):
        values = [check_value(v, env) for v in node.values]
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.UnaryOp):
        v = check_value(node.operand, env)
        return (not v) if isinstance(node.op, ast.Not) else (-v if isinstance(node.op, ast.USub)
                                                             else v)
    from ..constraints.expr import _BINOPS, _FUNCS

    if isinstance(node, ast.BinOp):
        return _BINOPS[type(node.op)](check_value(node.left, env), check_value(node.right, env))
    if isinstance(node, ast.Call):
        return _FUNCS[node.func.id](*(check_value(a, env) for a in node.args))
    if isinstance(node, ast.Compare):
        left = check_value(node.left, env)
        ops = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b,
               ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b,
               ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b,
               ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}
        for op, comp in zip(node.ops, node.comparators):
            right = [e.value for e in comp.elts] if isinstance(comp, (ast.List, ast.Tuple, ast.Set)) \
                else check_value(comp, env)
            if left is None or right is None:
                raise MissingValue("a value in the check is missing (null): the measure could "
                                   "not compute it")
            for side in (left, right):
                if isinstance(side, (dict, list)) and not isinstance(op, (ast.In, ast.NotIn)):
                    kind = "mapping" if isinstance(side, dict) else "list"
                    raise TypeError(f"a comparison needs numbers, but one side is a {kind}; "
                                    "pick one of its entries with '.name' or '[key]'")
            if not ops[type(op)](left, right):
                return False
            left = right
        return True
    raise ValueError(f"cannot evaluate {ast.unparse(node)}")
