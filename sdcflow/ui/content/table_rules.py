"""The primary rules of a table as the Tables page edits them: the ``rules`` of a
``sensitivity_rules`` step read into form fields, and form fields made back into rules
(checked by the parser the step itself uses, :func:`sdcflow.tabular.parse_rule`), and the
table steps added or changed through :class:`~sdcflow.ui.editing.recipe_edit.RecipeDocument`.

The form shows one rule of each kind in its plain form: minimum frequency ``{freq: n}``,
(n,k)-dominance ``{dominance: {n, k}}``, the p% rule ``{p_percent: p}``, the pq rule
``{pq: {p, q}}`` and ``{zero: null}``. Rules the form cannot show (a second dominance
rule, a rule with options such as ``safety_range`` or ``reference``) are kept as
written."""

from __future__ import annotations

from collections.abc import Mapping

from ...errors import SdcflowError
from ...tabular import parse_rule
from ..editing.recipe_edit import RecipeDocument

PRIMARY = "sensitivity_rules"
SECONDARY = "secondary_suppression"
AUDIT = "table_audit"
KINDS = ("freq", "dominance", "p_percent", "pq", "zero")


class RuleInputError(SdcflowError):
    """Form input that makes no rule (the message says which field and why)."""


def _plain(rule) -> str | None:
    """The kind of a rule the form shows, or None for one it keeps as written."""
    if not isinstance(rule, Mapping) or len(rule) != 1:
        return None
    (kind, args), = rule.items()
    if kind in ("freq", "p_percent") and isinstance(args, (int, float)) \
            and not isinstance(args, bool):
        return kind
    if kind in ("dominance", "pq") and isinstance(args, Mapping) and set(args) == (
            {"n", "k"} if kind == "dominance" else {"p", "q"}):
        return kind
    if kind == "zero" and args in (None, {}):
        return kind
    return None


def rule_fields(rules: list) -> tuple[dict, list]:
    """(fields, kept): the form's fields for ``rules`` (``freq``, ``dom_n``, ``dom_k``,
    ``p_percent``, ``pq_p``, ``pq_q``, ``zero``; absent when the rule is not given) and
    the rules the form keeps as written."""
    fields: dict = {}
    kept = []
    for rule in rules or []:
        kind = _plain(rule)
        if kind is None or (kind == "dominance" and "dom_n" in fields) or (
                kind in ("freq", "p_percent") and kind in fields) or (
                kind == "pq" and "pq_p" in fields) or (kind == "zero" and "zero" in fields):
            kept.append(rule)
            continue
        args = rule[kind]
        if kind == "dominance":
            fields["dom_n"], fields["dom_k"] = args["n"], args["k"]
        elif kind == "pq":
            fields["pq_p"], fields["pq_q"] = args["p"], args["q"]
        elif kind == "zero":
            fields["zero"] = True
        else:
            fields[kind] = args
    return fields, kept


def _number(form: Mapping, name: str, label: str, integer: bool):
    text = str(form.get(name, "") or "").strip()
    if not text:
        return None
    try:
        value = int(text) if integer else float(text)
    except ValueError:
        raise RuleInputError(f"{label}: {text!r} is not {'a whole' if integer else 'a'} "
                             "number") from None
    if not integer and value.is_integer():
        value = int(value)
    return value


def _pair(form: Mapping, kind: str, *parts: tuple[str, str, bool]) -> dict | None:
    """The rule ``{kind: {a, b}}`` of two fields (``(key, field, integer)`` each), None
    when both are blank."""
    values = {key: _number(form, name, f"{kind} {key}", integer) for key, name, integer in parts}
    given = [v is not None for v in values.values()]
    if any(given) and not all(given):
        raise RuleInputError(f"the {kind} rule needs both {' and '.join(values)}")
    return {kind: values} if all(given) else None


def rules_from_form(form: Mapping, kept: list) -> list:
    """The rules the form asks for (blank fields: no such rule), then ``kept``; raises
    :class:`RuleInputError` for a field that is not a number or a rule the parser
    refuses, and when no rule is left."""
    freq = _number(form, "freq", "minimum frequency", True)
    p = _number(form, "p_percent", "p% rule", False)
    asked = [None if freq is None else {"freq": freq},
             _pair(form, "dominance", ("n", "dom_n", True), ("k", "dom_k", False)),
             None if p is None else {"p_percent": p},
             _pair(form, "pq", ("p", "pq_p", False), ("q", "pq_q", False)),
             {"zero": None} if str(form.get("zero", "")) in ("on", "true", "1") else None]
    rules = [rule for rule in asked if rule is not None] + list(kept)
    if not rules:
        raise RuleInputError("give at least one rule")
    for rule in rules:
        try:
            parse_rule(rule)
        except (TypeError, ValueError) as exc:
            raise RuleInputError(f"{next(iter(rule))}: {exc}") from None
    return rules


def step_on(doc: RecipeDocument, table: str, plugin: str) -> dict | None:
    """The first step running ``plugin`` on ``table``, or None."""
    for step in doc.steps():
        if isinstance(step, dict) and step.get("table") == table and \
                plugin in (step.get("method"), step.get("measure")):
            return step
    return None


def _after_table_steps(doc: RecipeDocument, table: str) -> int:
    """The position after the last step on ``table`` (the end when there is none)."""
    steps = doc.steps()
    last = [i for i, s in enumerate(steps) if isinstance(s, dict) and s.get("table") == table]
    return last[-1] + 1 if last else len(steps)


def set_rules(doc: RecipeDocument, table: str, rules: list) -> str:
    """Make ``rules`` the rules of the table's ``sensitivity_rules`` step (added after the
    table's steps when it has none, before its other steps); returns the step's id."""
    step = step_on(doc, table, PRIMARY)
    if step is not None:
        params = dict(step.get("params") or {})
        params["rules"] = rules
        doc.update_step(step["id"], params=params)
        return step["id"]
    first = [i for i, s in enumerate(doc.steps()) if isinstance(s, dict)
             and s.get("table") == table]
    return doc.add_step({"id": f"primary_{table}", "method": PRIMARY, "table": table,
                         "params": {"rules": rules}}, first[0] if first else None)


def set_secondary(doc: RecipeDocument, table: str, algorithm: str, cost: str) -> str:
    """Set the algorithm and cost of the table's ``secondary_suppression`` step (added
    after its steps when it has none); returns the step's id."""
    if algorithm not in ("optimal", "heuristic") or cost not in ("unit", "frequency",
                                                                  "value"):
        raise RuleInputError("algorithm is optimal or heuristic; cost is unit, frequency "
                             "or value")
    step = step_on(doc, table, SECONDARY)
    if step is not None:
        params = dict(step.get("params") or {})
        params.update(algorithm=algorithm, cost=cost)
        doc.update_step(step["id"], params=params)
        return step["id"]
    return doc.add_step({"id": f"secondary_{table}", "method": SECONDARY, "table": table,
                         "params": {"algorithm": algorithm, "cost": cost}},
                        _after_table_steps(doc, table))


def add_audit(doc: RecipeDocument, table: str) -> str:
    """A ``table_audit`` step on the table after its steps (its id; the existing one's
    when there is one)."""
    step = step_on(doc, table, AUDIT)
    if step is not None:
        return step["id"]
    return doc.add_step({"id": f"audit_{table}", "measure": AUDIT, "table": table},
                        _after_table_steps(doc, table))
