"""Loading and validating a recipe: the schema first, then the semantic checks (plugins
exist, parameters fit their plugin's schema, variables exist and have the roles and types
the method accepts, ids are unique, references resolve, expressions parse), then the data
(columns exist, values fit their types, constraints hold), then the plan (no cycles).
Every problem is collected; :class:`RecipeError` reports them all at once."""

from __future__ import annotations

import hashlib
import json
import keyword
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .. import registry
from ..constraints import Constraint, ExprError, parse
from ..data import Dataset, Variable, read_data
from ..errors import Problem, RecipeError, unique_problems
from ..suggest import did_you_mean
from ._flow import add_shapes, follow, result_problems, step_problems
from ._households import household_consistency, household_declarations
from ._model import ORIGINAL, CheckSpec, Recipe, StepSpec, TableSpec
from ._release import release_problems
from ._schema import recipe_schema, schema_problems, where
from ._yaml import YamlDocument, load_yaml


@dataclass
class Validated:
    """A recipe that passed every check, with its data and its plan."""

    recipe: Recipe
    data: Dataset | None
    source: dict
    plan: object  # sdcflow.plan.Plan
    warnings: list[Problem]


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError, RuntimeError):  # (RuntimeError: a symlink loop, Python 3.11)
        return str(path)


def load_recipe(path: str | Path) -> Recipe:
    """Read and check a recipe file (schema and semantics, not the data).

    Raises :class:`RecipeError` listing every problem found."""
    recipe, problems = _check_file(Path(path))
    if recipe is None or any(p.severity == "error" for p in problems):
        raise RecipeError(problems)
    return recipe


def recipe_from_text(text: str, file: str = "<recipe>", path: Path | None = None) -> Recipe:
    """Check recipe ``text`` as :func:`load_recipe` does (``path`` anchors relative paths)."""
    recipe, problems = _check_text(text, file, path or Path(file))
    if recipe is None or any(p.severity == "error" for p in problems):
        raise RecipeError(problems)
    return recipe


def _check_file(path: Path) -> tuple[Recipe | None, list[Problem]]:
    display = _display(path)
    try:
        mode = path.stat().st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):  # reading a pipe would block
            return None, [Problem(display, None, None, "cannot read recipe: not a regular"
                                  " file (a pipe, socket or device)")]
        raw = path.read_bytes()
    except OSError as exc:
        return None, [Problem(display, None, None, f"cannot read recipe: {exc.strerror or exc}")]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        return None, [Problem(display, line, col, "the recipe is not UTF-8 text "
                              f"(byte 0x{raw[exc.start]:02x})")]
    return _check_text(text, display, path)


def _check_text(text: str, file: str, path: Path) -> tuple[Recipe | None, list[Problem]]:
    """Schema and semantic checks; returns the recipe (None if unusable) and all problems."""
    doc = load_yaml(text, file)
    problems = list(doc.problems)
    if any(p.severity == "error" for p in problems):
        return None, problems
    if not isinstance(doc.data, dict):
        return None, problems + [doc.problem((), "a recipe is a mapping of sections "
                                                 "(sdcflow, name, seed, data, ...)")]
    recipe = Recipe(path=path, doc=doc, sha256=hashlib.sha256(text.encode()).hexdigest(),
                    text=text)
    schema = schema_problems(doc, doc.data, recipe_schema())
    problems += schema
    if any(p.path[:1] == ("sdcflow",) for p in schema):
        return None, problems  # another format version: the rest cannot be read as v1
    problems += _semantic(recipe, [p.path for p in schema])
    recipe.warnings = [p for p in problems if p.severity == "warning"]
    return recipe, problems


def _semantic(recipe: Recipe, bad: list[tuple]) -> list[Problem]:
    """Checks beyond the schema. Parts of the recipe with schema errors (``bad`` paths)
    are skipped, and references to them are not reported again."""
    doc: YamlDocument = recipe.doc
    data = doc.data
    out: list[Problem] = []

    def broken(path: tuple, skip: tuple = ()) -> bool:
        """A schema error at ``path``, inside it (except under ``skip``), or above it (an
        error of the whole recipe, e.g. a missing section, breaks none of its parts)."""
        n = len(path)
        for b in bad:
            if b[:n] == path and not (skip and b[n:n + len(skip)] == skip):
                return True
            if b and path[:len(b)] == b:
                return True
        return False

    def section(key: str, kind: type):
        value = data.get(key)
        return value if isinstance(value, kind) and not (broken((key,)) and
                                                        (key,) in bad) else None

    recipe.name = data["name"] if not broken(("name",)) and "name" in data else "recipe"
    recipe.seed = data["seed"] if not broken(("seed",)) and "seed" in data else 0
    recipe.data = data["data"] if "data" in data and not broken(("data",)) else {}
    recipe.release = section("release", dict) or {}
    if broken(("release",)):
        recipe.release = {}

    # variables
    weights = []
    unusable: set[str] = set()  # declared, but with schema errors: not reported again
    for name, spec in (section("variables", dict) or {}).items():
        path = ("variables", name)
        if broken(path):
            unusable.add(name)
            continue
        var = Variable.from_recipe(name, spec)
        recipe.variables[name] = var
        if var.order is not None and var.type != "ordinal":
            out.append(doc.problem(path + ("order",), f"variables.{name}: 'order' is only for "
                                   f"ordinal variables (this one is {var.type})"))
        if var.order is not None and len(set(var.order)) != len(var.order):
            out.append(doc.problem(path + ("order",), f"variables.{name}: the order repeats a "
                                   "category"))
        if var.role == "weight":
            weights.append(name)
            if not var.is_numeric:
                out.append(doc.problem(path + ("type",), f"variables.{name}: a weight must be "
                                       f"integer or continuous, not {var.type}"))
        if var.hierarchy is not None and var.is_numeric:
            out.append(doc.problem(path + ("hierarchy",), f"variables.{name}: a hierarchy needs"
                                   " a categorical or ordinal variable"))
    if len(weights) > 1:
        out.append(doc.problem(("variables", weights[1]), f"variables: only one weight "
                               f"variable is allowed, found {', '.join(weights)}", key=True))
    out += household_declarations(recipe)
    declared = list(recipe.variables)
    recipe.unusable = unusable

    # constraints
    seen_ids: dict[str, int] = {}
    for i, spec in enumerate(section("constraints", list) or []):
        path = ("constraints", i)
        if broken(path):
            if isinstance(spec, dict) and isinstance(spec.get("id"), str):
                recipe.unusable_constraints.add(spec["id"])
            continue
        if spec["id"] in seen_ids:
            out.append(doc.problem(path + ("id",), f"constraint id '{spec['id']}' is used twice"))
        seen_ids[spec["id"]] = i
        try:
            constraint = Constraint.from_recipe(spec)
        except ExprError as exc:
            field = exc.field
            col = f" (column {exc.offset + 1})" if exc.offset is not None else ""
            out.append(doc.problem(path + (field,), f"constraints[{i}].{field}: {exc}{col}"))
            recipe.unusable_constraints.add(spec["id"])
            continue
        undeclared = [n for n in sorted(constraint.variables) if n not in recipe.variables]
        for name in undeclared:
            if name not in unusable:
                out.append(doc.problem(path, f"constraint '{constraint.id}' uses '{name}', which"
                                       f" is not a declared variable{did_you_mean(name, declared)}"))
        if undeclared:
            recipe.unusable_constraints.add(constraint.id)
        else:
            recipe.constraints.append(constraint)
            recipe.constraint_index[constraint.id] = i

    # tables
    for i, spec in enumerate(section("tables", list) or []):
        path = ("tables", i)
        if broken(path):
            continue
        if spec["id"] in recipe.tables:
            out.append(doc.problem(path + ("id",), f"tables[{i}].id: '{spec['id']}' is used "
                                   "twice"))
            continue
        table = TableSpec(id=spec["id"], index=i, dims=list(spec["dims"]),
                          response=spec.get("response"), weight=spec.get("weight"),
                          total=spec.get("total", "Total"), source=spec.get("from"))
        for j, name in enumerate(table.dims):
            var = recipe.variables.get(name)
            if var is None and name not in unusable:
                out.append(doc.problem(path + ("dims", j), f"tables[{i}].dims: '{name}' is not "
                                       f"a declared variable{did_you_mean(name, declared)}"))
        if len(set(table.dims)) != len(table.dims):
            out.append(doc.problem(path + ("dims",), f"tables[{i}].dims: a variable is given "
                                   "twice"))
        for field, roles in (("response", None), ("weight", ("weight",))):
            name = spec.get(field)
            if name is None:
                continue
            var = recipe.variables.get(name)
            if var is None:
                if name not in unusable:
                    out.append(doc.problem(path + (field,), f"tables[{i}].{field}: '{name}' is "
                                           f"not a declared variable"
                                           f"{did_you_mean(name, declared)}"))
            elif not var.is_numeric:
                out.append(doc.problem(path + (field,), f"tables[{i}].{field}: '{name}' must "
                                       f"be integer or continuous, not {var.type}"))
            elif roles and var.role not in roles:
                out.append(doc.problem(path + (field,), f"tables[{i}].{field}: '{name}' has "
                                       f"role {var.role}, not weight"))
        recipe.tables[table.id] = table
    release_tables = recipe.release.get("tables", {})
    for tid in release_tables:
        if tid not in recipe.tables:
            out.append(doc.problem(("release", "tables", tid), f"release.tables: no table "
                                   f"'{tid}'{did_you_mean(tid, recipe.tables)}", key=True))

    # steps
    steps = section("steps", list) or []
    ids = [s.get("id") if isinstance(s, dict) else None for s in steps]
    for i, spec in enumerate(steps):
        if broken(("steps", i), skip=("params",)):
            continue
        out += _step(recipe, i, spec, ids)
    by_id = {s.id: s for s in recipe.steps}
    measures = [s.id for s in recipe.steps if s.kind == "measure"]
    for step in recipe.steps:
        if step.kind != "measure" or not step.ok:
            continue
        resolved = registry.with_defaults(step.plugin.params, step.params)
        for used in step.plugin.results_from(resolved):
            rpath = (*step.path, "params")
            if used == step.id:
                out.append(doc.problem(rpath, f"{where(rpath)}: a measure cannot use its own "
                                       "result"))
            elif used not in by_id:
                out.append(doc.problem(rpath, f"{where(rpath)}: '{used}' is not a step"
                                       f"{did_you_mean(used, measures)}"))
            elif by_id[used].kind != "measure":
                out.append(doc.problem(rpath, f"{where(rpath)}: '{used}' is a method; only the "
                                       "results of measure steps can be used"))

    # every step against the variables as they are at that step
    variants, cycles = follow(recipe)
    out += cycles + step_problems(recipe, variants)
    add_shapes(recipe, variants)

    # checks
    for i, check in enumerate(section("checks", list) or []):
        if broken(("checks", i)):
            continue
        text = check if isinstance(check, str) else check["expr"]
        path = ("checks", i) if isinstance(check, str) else ("checks", i, "expr")
        try:
            expr = parse(text, subscripts=True)
        except ExprError as exc:
            out.append(doc.problem(path, f"checks[{i}]: {exc}"))
            continue
        for name in sorted(expr.names):
            head = name.split(".")[0]
            if head not in ids:
                out.append(doc.problem(path, f"checks[{i}]: '{head}' is not a step"
                                       f"{did_you_mean(head, measures)}"))
            elif head in by_id and by_id[head].kind != "measure":
                out.append(doc.problem(path, f"checks[{i}]: '{head}' is a method; checks read "
                                       "the results of measure steps"))
        recipe.checks.append(CheckSpec(text, expr, i, None if isinstance(check, str)
                                       else check.get("message"), path))

    out += result_problems(recipe, variants)

    # release
    release = recipe.release
    out += release_problems(recipe)
    if "from" in release and release["from"] != ORIGINAL and release["from"] not in ids:
        out.append(doc.problem(("release", "from"), f"release.from: no step "
                               f"'{release['from']}'{did_you_mean(release['from'], ids)}"))
    grid_steps = [s for s in recipe.steps if s.grid]
    if "path" in release:
        suffix = Path(release["path"]).suffix.lower()
        by_suffix = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}.get(suffix)
        if by_suffix is None and "format" not in release:
            out.append(doc.problem(("release", "path"), f"release.path: '{release['path']}' "
                                   "needs a .csv or .parquet extension, or release.format"))
        elif by_suffix and release.get("format", by_suffix) != by_suffix:
            out.append(doc.problem(("release", "format"), f"release.format: "
                                   f"{release['format']} does not fit the file name "
                                   f"'{release['path']}'"))
        if grid_steps and "variant" not in release:
            out.append(doc.problem(("release",), "release: the steps sweep a grid, so say "
                                   "which variant to release with release.variant, e.g. "
                                   f"{{{_example_variant(grid_steps)}}}"))
    if "variant" in release:
        if not grid_steps:
            out.append(doc.problem(("release", "variant"), "release.variant: no step has a grid"))
        else:
            out += _check_variant(recipe, grid_steps)
    return out


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
    if step.table is not None and step.input is not None:
        out.append(doc.problem(path + ("input",), f"steps[{i}].input: a table step reads its "
                               "table, not a data step"))
    for ref_path, ref in ([(path + ("input",), step.input)] if step.input else []) + [
            (path + ("after", j) if isinstance(spec.get("after"), list) else path + ("after",), a)
            for j, a in enumerate(step.after)]:
        label = where(ref_path)
        if ref == sid:
            out.append(doc.problem(ref_path, f"{label}: a step cannot depend on itself"))
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
        elif ref not in ids:
            out.append(doc.problem(rpath, f"{where(rpath)}: no step '{ref}'"
                                   f"{did_you_mean(ref, [*ids, ORIGINAL])}"))
    # the variables it acts on and the plugin's own checks: along the data flow, once
    # every step is known (_flow.step_problems)
    step.ok = not any(p.severity == "error" for p in out)
    return unique_problems(out)


def _example_variant(grid_steps: list[StepSpec]) -> str:
    step = grid_steps[0]
    key, values = next(iter(step.grid.items()))
    return f"{key}: {json.dumps(values[0])}"


def _check_variant(recipe: Recipe, grid_steps: list[StepSpec]) -> list[Problem]:
    doc = recipe.doc
    variant = recipe.release["variant"]
    known = {}
    for s in grid_steps:
        for param, values in s.grid.items():
            known.setdefault(param, []).append((s.id, values))
            known[f"{s.id}.{param}"] = [(s.id, values)]
    out = []
    for key, value in variant.items():
        if key not in known:
            out.append(doc.problem(("release", "variant", key), f"release.variant: '{key}' is not"
                                   f" a grid parameter{did_you_mean(key, known)}", key=True))
        elif len(known[key]) > 1:
            out.append(doc.problem(("release", "variant", key), f"release.variant: '{key}' is "
                                   "swept by several steps; write it as step.param", key=True))
        elif value not in known[key][0][1]:
            out.append(doc.problem(("release", "variant", key), f"release.variant.{key}: {value!r}"
                                   f" is not one of the grid values {known[key][0][1]}"))
    return out


def validate(recipe: Recipe | str | Path, *, data: bool = True,
             progress: Callable[[float], None] | None = None) -> Validated:
    """Check a recipe completely: schema, semantics, and (with ``data``) its data and plan.

    Raises :class:`RecipeError` listing every problem; returns the validated recipe,
    its data and plan otherwise. ``progress`` (if given) hears the fraction of reading
    and checking the data done, now and then."""
    from ..plan import PlanError, build_plan

    if isinstance(recipe, Recipe):
        problems: list[Problem] = list(recipe.warnings)
    else:
        recipe, problems = _check_file(Path(recipe))
        if recipe is None:
            raise RecipeError(problems)
    doc = recipe.doc
    dataset, source = None, {}
    if data and recipe.data:
        # reading is most of it; the checks on the data below are the rest
        reading = (lambda f: progress(0.9 * f)) if progress is not None else None
        dataset, source, findings = read_data(recipe.data, recipe.base_dir, recipe.variables,
                                              reading)
        data_file = _data_display(recipe)
        for f in findings:
            if f.path is None:
                problems.append(Problem(data_file, None, None, f.message))
            else:
                in_file = f.path[0] == "variables" and not f.key  # a problem with values
                message = f"{f.message} in {data_file}" if in_file else f.message
                problems.append(doc.problem(f.path, message, key=f.key))
        if dataset is not None:
            dataset.constraints = tuple(recipe.constraints)
            problems += _input_constraints(recipe, dataset, data_file)
            problems += household_consistency(recipe, dataset, data_file)
            from ..tables import size_problems

            for spec in recipe.tables.values():
                problems += [doc.problem((*spec.path, "dims"), message)
                             for message in size_problems(spec, dataset)]
            for step in recipe.steps:
                # (a step that sees values or records changed by earlier steps is
                # checked on its data when it runs)
                if not step.ok or not step.sees_loaded_data:
                    continue
                for p in step.variants:
                    for ppath, message in step.plugin.check_data(p, dataset):
                        full = (*step.path, "params", *ppath)
                        if ppath and ppath[0] not in step.params and ppath[0] not in step.grid \
                                and ppath[0] in p:
                            message += f" (the default {ppath[0]} is {json.dumps(p[ppath[0]])})"
                        problems.append(doc.problem(full, f"{where(full)}: {message}"))
        if progress is not None:
            progress(1.0)
    plan = None
    if not any(p.severity == "error" for p in problems):
        try:
            plan = build_plan(recipe, list(recipe.variables))
        except PlanError as exc:
            problems += exc.problems
    errors = [p for p in problems if p.severity == "error"]
    if errors:
        raise RecipeError(unique_problems(problems))
    return Validated(recipe, dataset, source, plan, [p for p in problems if p.severity == "warning"])


def _data_display(recipe: Recipe) -> str:
    """How messages name the data file: relative to the working directory if possible."""
    if "builtin" in recipe.data:
        return f"shipped data set '{recipe.data['builtin']}'"
    return _display(recipe.base_dir / recipe.data["path"])


def _input_constraints(recipe: Recipe, dataset: Dataset, data_file: str) -> list[Problem]:
    out = []
    for c in recipe.constraints:
        path = ("constraints", recipe.constraint_index[c.id])
        field = {"domain": "domain", "conditional": "if"}.get(c.kind, "expr")
        result = c.violations(dataset.frame)
        if not result["applicable"]:
            out.append(recipe.doc.problem((*path, field), f"constraint '{c.id}' cannot be "
                                          f"checked on the data: {result['reason']}"))
        elif result["violations"]:
            records = ", ".join(map(str, result["first_records"]))
            more = " ..." if result["violations"] > len(result["first_records"]) else ""
            noun = "record" if result["violations"] == 1 else "records"
            undefined = (f"; in {result['undefined']} of them it has no value: "
                         f"{result['reason']}") if result.get("undefined") else ""
            out.append(recipe.doc.problem(
                path,
                f"the data violate constraint '{c.id}' in {result['violations']} {noun} "
                f"({noun} {records}{more} of {data_file}){undefined}",
                severity="warning" if c.enforce == "warn" else "error"))
    return out



