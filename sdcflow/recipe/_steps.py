"""One step of a recipe checked and recorded: its id, its plugin (which exists and is of the
kind named), its table or input and the steps it comes after, its parameters against the
plugin's schema and its grid; the variants of its parameters. The variables it acts on
and the plugin's own checks follow along the data flow (:mod:`._flow`)."""

from __future__ import annotations

import keyword

from ..errors import Problem, did_you_mean, unique_problems
from ..plugins import registry
from ._model import ORIGINAL, Recipe, StepSpec
from ._schema import schema_problems, where


def disabled_steps(recipe: Recipe, steps: list) -> list[Problem]:
    """Record the steps written with ``enabled: false`` (``recipe.disabled``): they are
    checked against the schema only, and not planned or run. Their ids stay taken."""
    out = []
    ids = [s.get("id") if isinstance(s, dict) else None for s in steps]
    for i, spec in enumerate(steps):
        if not (isinstance(spec, dict) and spec.get("enabled") is False
                and isinstance(spec.get("id"), str)):
            continue
        sid = spec["id"]
        if ids.index(sid) != i:
            out.append(recipe.doc.problem(("steps", i, "id"), f"steps[{i}].id: '{sid}' is "
                                          f"already the id of steps[{ids.index(sid)}]"))
            continue
        recipe.disabled[sid] = i
    if steps and len(recipe.disabled) == len(steps):
        out.append(recipe.doc.problem(("steps",), "steps: every step is disabled "
                                      "(enabled: false); enable at least one"))
    return out


def disabled_use(recipe: Recipe, path: tuple, label: str, sid: str) -> Problem:
    """The error for a use of the results of a disabled step ``sid`` at ``path``."""
    return recipe.doc.problem(path, f"{label}: step '{sid}' is disabled (steps"
                              f"[{recipe.disabled[sid]}] has enabled: false); enable it or "
                              "remove this use of it")


def _step(recipe: Recipe, i: int, spec: dict, ids: list[str]) -> list[Problem]:
    doc = recipe.doc
    path = ("steps", i)
    out: list[Problem] = []
    sid = spec["id"]
    if sid == ORIGINAL:
        out.append(doc.problem(path + ("id",), f"steps[{i}].id: '{ORIGINAL}' is reserved for the"
                               " data as loaded"))
    if keyword.iskeyword(sid):
        out.append(doc.problem(path + ("id",), f"steps[{i}].id: '{sid}' is a reserved word, "
                               "which checks could not refer to; choose another id"))
    if ids.index(sid) != i:
        out.append(doc.problem(path + ("id",), f"steps[{i}].id: '{sid}' is already the id of "
                               f"steps[{ids.index(sid)}]"))
        # (steps are followed by id: a second step of the same id is not followed, lest
        # it be taken for the first)
        return out
    kind = "method" if "method" in spec else "measure"
    name = spec[kind]
    plugin = registry.get(name)
    if plugin is None:
        names = [p.name for p in registry.plugins(kind)]
        out.append(doc.problem(path + (kind,), f"steps[{i}]: unknown {kind} '{name}'"
                               f"{did_you_mean(name, names)} (see 'sdcflow methods')"))
        return out
    if plugin.kind != kind:
        out.append(doc.problem(path + (kind,), f"steps[{i}]: '{name}' is a {plugin.kind}; write "
                               f"'{plugin.kind}: {name}'"))
        return out
    params = spec.get("params", {})
    after = spec.get("after", [])
    step = StepSpec(id=sid, index=i, kind=kind, plugin_name=name,
                    params=params if isinstance(params, dict) else {},
                    input=spec.get("input"), after=[after] if isinstance(after, str) else after,
                    grid=spec.get("grid", {}), plugin=plugin, table=spec.get("table"))
    recipe.steps.append(step)
    if plugin.on_table and step.table is None:
        out.append(doc.problem(path, f"steps[{i}]: {name} works on a table: add "
                               f"'table: <id>' (tables: {', '.join(recipe.tables) or 'none'})"))
        step.ok = False
    elif step.table is not None and not plugin.on_table:
        out.append(doc.problem(path + ("table",), f"steps[{i}].table: {name} works on "
                               "records, not on a table"))
        step.ok = False
    elif step.table is not None and step.table not in recipe.tables:
        out.append(doc.problem(path + ("table",), f"steps[{i}].table: no table "
                               f"'{step.table}'{did_you_mean(step.table, recipe.tables)}"))
        step.ok = False
    elif step.table is not None and callable(getattr(plugin, "record_keys", None)) \
            and recipe.tables[step.table].source:
        # (a step that needs record keys, the cell key method: keys belong to records)
        out.append(doc.problem(path + ("table",), f"steps[{i}].table: {name} needs the "
                               f"records of table '{step.table}' (their keys make the cell "
                               "keys), but it is read as aggregated cells ('from')"))
        step.ok = False
    if step.table is not None and step.input is not None:
        out.append(doc.problem(path + ("input",), f"steps[{i}].input: a table step reads its "
                               "table, not a data step"))
    for ref_path, ref in ([(path + ("input",), step.input)] if step.input else []) + [
            (path + ("after", j) if isinstance(spec.get("after"), list) else path + ("after",), a)
            for j, a in enumerate(step.after)]:
        label = where(ref_path)
        if ref == sid:
            out.append(doc.problem(ref_path, f"{label}: a step cannot depend on itself"))
        elif ref in recipe.disabled:
            out.append(disabled_use(recipe, ref_path, label, ref))
        elif ref not in ids and not (ref == ORIGINAL and ref_path[-1] == "input"):
            out.append(doc.problem(ref_path, f"{label}: no step '{ref}'"
                                   f"{did_you_mean(ref, [*ids, ORIGINAL])}"))
    if not isinstance(params, dict):  # the schema has said so
        step.ok = False
        return out
    props = plugin.params.get("properties", {})
    swept = {k: v for k, v in step.grid.items() if k in props and k not in params}
    # parameters swept by the grid count as given (with their first value)
    first = {**params, **{k: v[0] for k, v in swept.items()}}
    param_problems = schema_problems(doc, first, plugin.params, path + ("params",))
    # (problems with a swept value are reported below, at the grid)
    swept_paths = [(*path, "params", k) for k in swept]
    out += [p for p in param_problems
            if not any(p.path[:len(sp)] == sp for sp in swept_paths)]
    for key, values in step.grid.items():
        gpath = (*path, "grid", key)
        if key not in props:
            out.append(doc.problem(gpath, f"steps[{i}].grid: '{key}' is not a parameter of "
                                   f"{name}{did_you_mean(key, props)}", key=True))
            continue
        if key in params:
            out.append(doc.problem(gpath, f"steps[{i}].grid: '{key}' is also set in params; "
                                   "give it in one place", key=True))
            continue
        for j, value in enumerate(values):
            for p in schema_problems(doc, {**first, key: value}, plugin.params,
                                     (*path, "params")):
                out.append(doc.problem((*gpath, j), f"steps[{i}].grid.{key}[{j}]: "
                                       f"{p.message.split(': ', 1)[-1]}"))
    if any(p.severity == "error" for p in out):
        step.ok = False
        return out
    variants = [first] + [{**first, k: v} for k, vs in swept.items() for v in vs[1:]]
    step.variants = [registry.with_defaults(plugin.params, v) for v in variants]
    ref = first.get("reference")
    if kind == "measure" and isinstance(ref, str) and ref != ORIGINAL:
        rpath = (*path, "params", "reference")
        if ref == sid:
            out.append(doc.problem(rpath, f"{where(rpath)}: a step cannot compare with itself"))
        elif ref in recipe.disabled:
            out.append(disabled_use(recipe, rpath, where(rpath), ref))
        elif ref not in ids:
            out.append(doc.problem(rpath, f"{where(rpath)}: no step '{ref}'"
                                   f"{did_you_mean(ref, [*ids, ORIGINAL])}"))
    # the variables it acts on and the plugin's own checks: along the data flow, once
    # every step is known (_flow.step_problems)
    step.ok = not any(p.severity == "error" for p in out)
    return unique_problems(out)
