"""Validation along the data flow: each step is checked against the variables as they
are *at that step* (:func:`sdcflow.recipe.plan.follow_data`: the types the methods before it
gave them, the variables removed), a measure that pairs records with its reference
against the steps that changed the records, and the release checks and ``score``
expressions against the results the measures declare (:mod:`sdcflow.plugins.results`). Every
grid variant is followed; a problem found in some variants only names them."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from ..data import Metadata
from ..errors import Problem, declare_numeric, did_you_mean
from ..plugins.registry import with_defaults
from ._households import step_household_problems
from ._model import ORIGINAL, Recipe, StepSpec
from ._result_checks import expression_problems
from ._schema import where

_TYPE_PHRASE = {"ordinal": "ordinal text", "categorical": "categorical text"}


@dataclass
class Variant:
    """One combination of grid values, followed through the steps."""

    label: str  # e.g. "k=2" (empty without grids)
    params: dict  # step id -> resolved parameters
    flow: object  # sdcflow.recipe.plan.Flow
    shapes: dict = field(default_factory=dict)  # measure step id -> declared shape or None


def follow(recipe: Recipe) -> tuple[list[Variant], list[Problem]]:
    """Every grid variant of the recipe, followed through its steps, and the problems
    that stop the data flow from being followed (a cycle through ``input``); then each
    step is taken to see the variables as declared. (With too many variants, which the
    plan reports, only the first is followed.)"""
    from .plan import (
        MAX_VARIANTS,
        Flow,
        PlanError,
        follow_data,
        grid_variants,
        loaded_state,
        variant_label,
    )

    assignments = grid_variants(recipe)
    if len(assignments) > MAX_VARIANTS:
        assignments = assignments[:1]
    columns = list(recipe.variables)
    out, problems = [], []
    for assignment in assignments:
        params = {s.id: {**with_defaults(s.plugin.params, s.params), **assignment.get(s.id, {})}
                  for s in recipe.steps}
        try:
            flow = follow_data(recipe, params, columns)
        except PlanError as exc:
            problems = exc.problems
            start = loaded_state(recipe, columns)
            flow = Flow({s.id: start for s in recipe.steps},
                        {s.id: start for s in recipe.steps}, {})
        out.append(Variant(variant_label(assignment) if len(assignments) > 1 else "", params,
                           flow))
    return out, problems


def add_shapes(recipe: Recipe, variants: list[Variant]) -> None:
    """What each measure step without problems declares its result contains, in each
    variant (None: not declared)."""
    declared = recipe.meta()
    for variant in variants:
        for step in recipe.steps:
            if step.kind == "measure" and step.ok:
                meta = variant.flow.before[step.id].metadata(declared)
                variant.shapes[step.id] = step.plugin.result_shape(variant.params[step.id],
                                                                   meta)


class _Collector:
    """Problems by the variants they occur in; a problem of some variants only says so."""

    def __init__(self, recipe: Recipe, variants: list[Variant]):
        self.recipe = recipe
        self.labels = [v.label for v in variants]
        self.found: dict[tuple, list[int]] = {}

    def add(self, variant: int, path: tuple, message: str, severity: str = "error") -> None:
        seen = self.found.setdefault((path, message, severity), [])
        if variant not in seen:
            seen.append(variant)

    def problems(self, among: list[int] | None = None) -> list[Problem]:
        total = len(among if among is not None else self.labels)
        out = []
        for (path, message, severity), variants in self.found.items():
            if len(variants) < total:
                shown = "; ".join(self.labels[v] for v in variants[:3])
                more = f" and {len(variants) - 3} more" if len(variants) > 3 else ""
                message += f" (in variant{'s' if len(variants) > 1 else ''} {shown}{more})"
            out.append(self.recipe.doc.problem(path, message, severity=severity))
        return out


# ---------------------------------------------------------------------------------------
# steps
# ---------------------------------------------------------------------------------------

def step_problems(recipe: Recipe, variants: list[Variant]) -> list[Problem]:
    """The variables each step acts on (declared, still there, of a role and type its
    plugin accepts), the plugin's own checks against the metadata at that step, and the
    records a measure pairs with its reference. Marks the steps with errors not ``ok``."""
    collector = _Collector(recipe, variants)
    declared = recipe.meta()
    done: dict[tuple, list[tuple]] = {}  # the same step, params and metadata: same findings
    for vi, variant in enumerate(variants):
        for step in recipe.steps:
            if not step.ok:
                continue
            state = variant.flow.before[step.id]
            params = variant.params[step.id]
            key = (step.id, json.dumps(params, sort_keys=True, default=str), _signature(state))
            if key not in done:
                meta = state.metadata(declared)
                done[key] = _one_step(recipe, step, params, state, meta)
            for path, message, severity in done[key]:
                collector.add(vi, path, message, severity)
            for path, message in _records(recipe, step, params, variant.flow):
                collector.add(vi, path, message)
            if step.sees_loaded_data and not _as_loaded(step, params, state, declared):
                step.sees_loaded_data = False
    out = collector.problems()
    failed = {p.path[1] for p in out if p.severity == "error" and p.path[:1] == ("steps",)}
    for step in recipe.steps:
        if step.index in failed or _uses_unusable(recipe, step):
            step.ok = False
    return out


def _uses_unusable(recipe: Recipe, step: StepSpec) -> bool:
    """Whether the step acts on a variable whose declaration has errors of its own (a
    broken taxonomy, a schema error): reported there, the step is not checked further,
    not even on the data."""
    if not recipe.unusable or not step.ok:
        return False
    named = {n for _, n in step.plugin.named_variables(with_defaults(step.plugin.params,
                                                                    step.params))}
    return bool(named & recipe.unusable) if named else True


def _as_loaded(step: StepSpec, params: dict, state, declared: Metadata) -> bool:
    """Whether the step sees the records, and the columns it reads, as loaded."""
    if state.records != ORIGINAL:
        return False
    reads = step.plugin.reads(params, state.metadata(declared)) if step.table is None else None
    columns = state.columns if reads is None else [c for c in reads if c in state.columns]
    return all(state.columns[c].producer == ORIGINAL for c in columns)


def _signature(state) -> tuple:
    cols = tuple((c, col.types, col.changed_by,
                  None if col.variable is None else (col.variable.type, col.variable.order,
                                                     json.dumps([col.variable.hierarchy,
                                                                 col.variable.taxonomy],
                                                                sort_keys=True, default=str)))
                 for c, col in state.columns.items())
    return cols, tuple(sorted(state.removed.items()))


def _one_step(recipe: Recipe, step: StepSpec, params: dict, state, meta: Metadata
              ) -> list[tuple]:
    plugin = step.plugin
    path = step.path
    props = plugin.params.get("properties", {})
    swept = {k for k in step.grid if k in props and k not in step.params}
    out: list[tuple] = []
    named = {tuple(p): n for p, n in plugin.named_variables(params)}
    for name in plugin.variables(params, meta):
        ppath = next((p for p, n in named.items() if n == name), ())
        full = (*path, "grid" if ppath and ppath[0] in swept else "params", *ppath)
        out += _fits(recipe, plugin, name, full, state)
    relevant = set(named.values()) & recipe.unusable if named else recipe.unusable
    if any(s == "error" for _, _, s in out) or relevant:
        return out
    out += step_household_problems(step, params, meta)
    changed = {n: col for n in [*plugin.variables(params, meta), *state.columns]
               if (col := state.columns.get(n)) is not None and col.changed_by}
    findings = [(f, "error") for f in plugin.check(params, meta)] + \
        [(f, "warning") for f in plugin.warnings(params, meta)]
    for (ppath, message), severity in findings:
        full = (*path, "params", *ppath)
        made = [f"'{n}' is {_phrase(col.variable.type)} at this step (made so by step "
                f"'{col.changed_by}')" for n, col in changed.items() if f"'{n}'" in message]
        for n in changed:  # its declaration is not what to fix: an earlier step made it so
            message = message.replace(f": {declare_numeric(n)}", "")
        text = f"{'; '.join(made)}: {message}" if made else message
        out.append((full, f"{where(full)}: {text}", severity))
    return out


def _phrase(type_: str) -> str:
    return _TYPE_PHRASE.get(type_, type_)


def _fits(recipe: Recipe, plugin, name: str, full: tuple, state) -> list[tuple]:
    """Problems with a variable a step acts on: not declared, removed, of a role or type
    the plugin does not accept (at this step); a warning when the data may give it a
    type the plugin does not accept."""
    label = where(full)
    declared = recipe.variables.get(name)
    if declared is None:
        if name in recipe.unusable:
            return []
        return [(full, (f"{label}: '{name}' is not a declared variable"
                       f"{did_you_mean(name, recipe.variables)}"), "error")]
    col = state.columns.get(name)
    if col is None:
        by = state.removed.get(name)
        if by is None:
            return []
        return [(full, f"{label}: '{name}' was removed by step '{by}' before this step",
                 "error")]
    var = col.variable or declared
    out = []
    if plugin.roles is not None and var.role not in plugin.roles:
        out.append((full, (f"{label}: {plugin.name} does not accept '{name}' (role {var.role});"
                          f" accepted roles: {', '.join(plugin.roles)}"), "error"))
    if plugin.types is None:
        return out
    fitting = [t for t in col.types or (var.type,) if t in plugin.types]
    if not fitting and col.changed_by:
        out.append((full, (f"{label}: '{name}' is {_phrase(var.type)} at this step (made so by "
                          f"step '{col.changed_by}'); {plugin.name} accepts "
                          f"{', '.join(plugin.types)}"), "error"))
    elif not fitting:
        hint = ""
        if var.type in ("categorical", "ordinal") and {"integer", "continuous"} & set(
                plugin.types):
            hint = f"; {declare_numeric(name)}"
        out.append((full, (f"{label}: {plugin.name} does not accept '{name}' (type {var.type});"
                          f" accepted types: {', '.join(plugin.types)}{hint}"), "error"))
    elif len(fitting) < len(col.types):
        others = [t for t in col.types if t not in fitting]
        out.append((full, (f"{label}: '{name}' may be {' or '.join(others)} at this step (made "
                          f"so by step '{col.changed_by}'), which {plugin.name} does not "
                          f"accept; it stays {' or '.join(fitting)} only if the data allow"),
                    "warning"))
    return out


def _records(recipe: Recipe, step: StepSpec, params: dict, flow) -> list[tuple]:
    """A measure that pairs record i of its data with record i of its reference, where a
    step changed the records on one side only."""
    if step.kind != "measure" or not getattr(step.plugin, "pairs_records", False):
        return []
    ref = params.get("reference", ORIGINAL)
    if ref == ORIGINAL:
        theirs, where_ref = ORIGINAL, "the original data"
    elif ref in flow.after:
        theirs, where_ref = flow.after[ref].records, f"the data after step '{ref}'"
    else:
        return []  # (an unknown reference is reported with the step)
    mine = flow.before[step.id].records
    if mine == theirs:
        return []
    plugins = {s.id: s.plugin_name for s in recipe.steps}
    given = "reference" in step.params
    path = (*step.path, "params", "reference") if given else (*step.path, step.kind)
    label = where(path) if given else f"steps[{step.index}]"
    start = f"{label}: {step.plugin_name} compares each record with the same record of " \
            f"{where_ref}, but step "
    if mine != ORIGINAL and theirs == ORIGINAL:
        text = (f"{start}'{mine}' ({plugins.get(mine)}) changed the records before this step: "
                f"measure before it, or compare with the data after it (reference: {mine})")
    else:
        sees = "as loaded" if mine == ORIGINAL else f"of step '{mine}'"
        text = (f"{start}'{theirs}' ({plugins.get(theirs)}) changed the records there, and "
                f"this step sees the records {sees}")
    return [(path, text)]


# ---------------------------------------------------------------------------------------
# checks and expressions over results
# ---------------------------------------------------------------------------------------

def result_problems(recipe: Recipe, variants: list[Variant]) -> list[Problem]:
    """The release checks (for the variants the engine checks: the released one, or all)
    and the measures' expressions over other results (``score``'s IL and DR, every
    variant), against the declared result shapes."""
    from .plan import chosen_variant, grid_variants

    kinds = {s.id: s for s in recipe.steps}
    out: list[Problem] = []
    chosen = chosen_variant(grid_variants(recipe), recipe.release.get("variant")) \
        if len(variants) > 1 else 0
    checked = [chosen] if chosen is not None and chosen < len(variants) else \
        list(range(len(variants)))
    collector = _Collector(recipe, variants)
    for check in recipe.checks:
        heads = sorted({name.split(".")[0] for name in check.expr.names})
        undeclared = [h for h in heads if h in kinds and kinds[h].ok
                      and kinds[h].kind == "measure"
                      and all(v.shapes.get(h) is None for v in variants)]
        for head in undeclared:
            out.append(recipe.doc.problem(
                check.path, f"checks[{check.index}]: {kinds[head].plugin_name} does not declare "
                f"what its result contains, so '{head}' is checked only when the recipe runs",
                severity="warning"))
        for vi in checked:
            for message in expression_problems(check.expr.tree.body, variants[vi].shapes):
                collector.add(vi, check.path, f"checks[{check.index}]: {message}")
    out += collector.problems(checked)
    out += _expression_params(recipe, variants)
    return out


def _expression_params(recipe: Recipe, variants: list[Variant]) -> list[Problem]:
    from ..constraints import ExprError, parse

    collector = _Collector(recipe, variants)
    for vi, variant in enumerate(variants):
        for step in recipe.steps:
            if step.kind != "measure" or not step.ok:
                continue
            for name, text in step.plugin.expressions(variant.params[step.id]).items():
                try:
                    expr = parse(text, subscripts=True, condition=False)
                except ExprError:
                    continue  # (the plugin's own check reports it)
                path = (*step.path, "params", name)
                for message in expression_problems(expr.tree.body, variant.shapes,
                                                   number=True):
                    collector.add(vi, path, f"{where(path)}: {message}")
    return collector.problems()
