"""The semantic checks of a recipe, beyond its schema: variables and their declarations,
constraints (ids unique, expressions parse, variables declared), tables, steps and the
measure results they use, every step along the data flow, checks, and the release
(references resolve, file formats, the grid variant to release). Parts with schema errors
are skipped."""

from __future__ import annotations

import json
from pathlib import Path

from ..constraints import Constraint, ExprError, parse
from ..data import Variable
from ..data.node_attributes import resolve_nodes
from ..data.stat_files import STAT_SUFFIXES
from ..data.taxonomy import resolve_taxonomy
from ..errors import Problem, did_you_mean
from ..plugins import registry
from ._flow import add_shapes, follow, result_problems, step_problems
from ._graph_release import graph_release_problems
from ._households import household_declarations
from ._model import ORIGINAL, CheckSpec, Recipe, StepSpec, TableSpec
from ._policy import release_policy
from ._privacy import privacy_problems
from ._release import release_problems
from ._schema import where
from ._stat_release import stat_name_problems
from ._steps import _step, disabled_steps, disabled_use
from ._yaml import YamlDocument


def _taxonomy(recipe: Recipe, name: str, var: Variable, path: tuple) -> list[Problem]:
    """Read and check a variable's taxonomy; the variable then carries it resolved."""
    if var.is_numeric:
        return [recipe.doc.problem(path + ("taxonomy",), f"variables.{name}: a taxonomy needs "
                                   "a categorical variable")]
    resolved, message = resolve_taxonomy(var.taxonomy, recipe.files)
    if message is not None:
        recipe.variables[name] = var.evolve(taxonomy=None)
        # (a taxonomy read from a file: what is wrong is in that file)
        at = path + ("taxonomy", *[k for k in ("file",) if k in var.taxonomy])
        return [recipe.doc.problem(at, f"variables.{name}: {message}")]
    recipe.variables[name] = var.evolve(taxonomy=resolved)
    return []


def _nodes(recipe: Recipe, name: str, var: Variable, path: tuple) -> list[Problem]:
    """Read and check a node variable's attribute file; the variable then carries it
    resolved."""
    if var.type not in ("categorical", "integer"):
        message = f"node labels must be categorical or integer, not {var.type}"
        resolved = None
    else:
        resolved, message = resolve_nodes(var.nodes, recipe.files, var.type)
    recipe.variables[name] = var.evolve(nodes=resolved)
    if message is None:
        return []
    # (what is wrong with a file of the right kind of variable is in that file)
    at = path + ("nodes", "file") if var.type in ("categorical", "integer") else path + (
        "nodes",)
    return [recipe.doc.problem(at, f"variables.{name}.nodes: {message}")]


def _table_file(recipe: Recipe, table: TableSpec) -> list[Problem]:
    """Read and check a table's aggregated cells file; the table then carries them."""
    from ..data.recipe_files import RecipeFileError
    from ..tabular.cells_file import read_cells
    from .tables import hierarchy_of

    if any(d not in recipe.variables for d in table.dims):
        return []  # (reported at the dimension)
    meta = recipe.meta()
    hierarchies = {d: h for d in table.dims if (h := hierarchy_of(meta, d, table.total))}
    try:
        table.cells = read_cells(recipe.files, table.source, table.dims, hierarchies,
                                 table.total, (*table.path, "from"))
    except RecipeFileError as exc:
        return [recipe.doc.problem(exc.where, f"tables[{table.index}].from: {exc.message}")]
    return []


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
    recipe.version = data["version"] if not broken(("version",)) and isinstance(
        data.get("version"), str) else None
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
        if var.taxonomy is not None:
            wrong = _taxonomy(recipe, name, var, path)
            out += wrong
            if wrong:  # (the steps using it are not checked again against a taxonomy)
                unusable.add(name)
        if var.nodes is not None:
            out += _nodes(recipe, name, var, path)
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
        if "linked" in spec:  # the cover table of linked tables: see _linked_tables
            if "dims" in spec or "from" in spec:
                out.append(doc.problem(path + ("linked",), f"tables[{i}]: a table of linked "
                                       "tables takes its variables from them: give 'linked' "
                                       "without 'dims' or 'from'"))
                continue
            recipe.tables[spec["id"]] = TableSpec(id=spec["id"], index=i, dims=[],
                                                  linked=list(spec["linked"]))
            continue
        if "dims" not in spec:
            out.append(doc.problem(path, f"tables[{i}]: give 'dims' (the table's variables) "
                                   "or 'linked' (tables to protect together)"))
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
        if table.source is not None and not broken(path + ("from",)):
            out += _table_file(recipe, table)
    out += linked_tables(recipe, doc)
    release_tables = recipe.release.get("tables", {})
    for tid in release_tables:
        if tid not in recipe.tables:
            out.append(doc.problem(("release", "tables", tid), f"release.tables: no table "
                                   f"'{tid}'{did_you_mean(tid, recipe.tables)}", key=True))

    # steps
    steps = section("steps", list) or []
    ids = [s.get("id") if isinstance(s, dict) else None for s in steps]
    out += disabled_steps(recipe, steps)
    for i, spec in enumerate(steps):
        if broken(("steps", i), skip=("params",)) or recipe.disabled.get(spec.get("id")) == i:
            continue
        out += _step(recipe, i, spec, ids)
    out += linked_use(recipe, doc)
    # parameters that name files (a plugin's ``read_files``), read relative to the
    # recipe: the step then carries what they hold
    for step in recipe.steps:
        read_files = getattr(step.plugin, "read_files", None) if step.ok else None
        if callable(read_files):
            before = step.params
            step.params, found = read_files(step.params, recipe.files)
            # the variants (which the data checks see) carry what was read too
            read = {k: v for k, v in step.params.items() if k not in before}
            step.variants = [{**v, **read} for v in step.variants]
            for ppath, message in found:
                fpath = (*step.path, "params", *ppath)
                out.append(doc.problem(fpath, f"{where(fpath)}: {message}"))
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
            elif used in recipe.disabled:
                out.append(disabled_use(recipe, rpath, where(rpath), used))
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
            if head in recipe.disabled:
                out.append(disabled_use(recipe, path, f"checks[{i}]", head))
            elif head not in ids:
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
    out += graph_release_problems(recipe, variants)
    out += stat_name_problems(recipe, variants)
    if release.get("from") in recipe.disabled:
        out.append(disabled_use(recipe, ("release", "from"), "release.from", release["from"]))
    elif "from" in release and release["from"] != ORIGINAL and release["from"] not in ids:
        out.append(doc.problem(("release", "from"), f"release.from: no step "
                               f"'{release['from']}'{did_you_mean(release['from'], ids)}"))
    grid_steps = [s for s in recipe.steps if s.grid]
    if "path" in release:
        suffix = Path(release["path"]).suffix.lower()
        by_suffix = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet",
                     **STAT_SUFFIXES}.get(suffix)
        if by_suffix is None and "format" not in release:
            out.append(doc.problem(("release", "path"), f"release.path: '{release['path']}' "
                                   "needs a .csv, .parquet, .sav, .zsav, .dta or .xpt"
                                   " extension, or release.format"))
        elif by_suffix and release.get("format", by_suffix) != by_suffix:
            out.append(doc.problem(("release", "format"), f"release.format: "
                                   f"{release['format']} does not fit the file name "
                                   f"'{release['path']}'"))
        if grid_steps and "variant" not in release:
            out.append(doc.problem(("release",), "release: the steps sweep a grid, so say "
                                   "which variant to release with release.variant, e.g. "
                                   f"{{{_example_variant(grid_steps)}}}"))
    if "variant" in release:
        off = [(key, sid) for key in release["variant"]
               if (sid := _disabled_sweep(recipe, key)) is not None]
        out += [disabled_use(recipe, ("release", "variant", key), "release.variant", sid)
                for key, sid in off]
        if not grid_steps and not off:
            out.append(doc.problem(("release", "variant"), "release.variant: no step has a grid"))
        elif grid_steps:
            out += _check_variant(recipe, grid_steps, {key for key, _ in off})
    # the privacy budget the DP steps spend (sdcflow.recipe._privacy)
    out += privacy_problems(recipe, broken(("privacy_budget",)))
    # what protects each released artefact, and what the artefacts give away together
    # (judged on a recipe without other errors: a broken step protects nothing)
    if not any(p.severity == "error" for p in out):
        out += release_policy(recipe, variants)
    return out


def _example_variant(grid_steps: list[StepSpec]) -> str:
    step = grid_steps[0]
    key, values = next(iter(step.grid.items()))
    return f"{key}: {json.dumps(values[0])}"


def _disabled_sweep(recipe: Recipe, key: str) -> str | None:
    """The disabled step whose grid ``key`` of ``release.variant`` names (``param`` or
    ``step.param``), if any."""
    written = recipe.doc.data.get("steps")
    head, _, param = key.partition(".")
    for sid, i in recipe.disabled.items():
        grid = written[i].get("grid")
        if sid == head and param or isinstance(grid, dict) and key in grid:
            return sid
    return None


def _check_variant(recipe: Recipe, grid_steps: list[StepSpec], skip: set = frozenset()
                   ) -> list[Problem]:
    doc = recipe.doc
    variant = recipe.release["variant"]
    known = {}
    for s in grid_steps:
        for param, values in s.grid.items():
            known.setdefault(param, []).append((s.id, values))
            known[f"{s.id}.{param}"] = [(s.id, values)]
    out = []
    for key, value in variant.items():
        if key in skip:
            continue  # (it names a disabled step's grid: said already)
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


def linked_tables(recipe, doc) -> list:
    """Complete each table of linked tables (``linked: [a, b, ...]``): its dimensions are
    all their variables (their cover table, :mod:`sdcflow.tabular.linked`), its
    response, weight and total theirs, which must agree; the linked tables must be
    built from the data and belong to one group only."""
    out = []
    owner: dict[str, str] = {}
    for spec in list(recipe.tables.values()):
        if spec.linked is None:
            continue
        path = (*spec.path, "linked")
        members = []
        for j, tid in enumerate(spec.linked):
            member = recipe.tables.get(tid)
            if member is None:
                out.append(doc.problem((*path, j), f"tables[{spec.index}].linked: no table "
                                       f"'{tid}'{did_you_mean(tid, recipe.tables)}"))
            elif member.linked is not None:
                out.append(doc.problem((*path, j), f"tables[{spec.index}].linked: '{tid}' "
                                       "is itself a table of linked tables"))
            elif member.source is not None:
                out.append(doc.problem((*path, j), f"tables[{spec.index}].linked: '{tid}' is "
                                       "read from a file; linked tables are built from the "
                                       "data (their cover table needs the records)"))
            elif tid in owner:
                out.append(doc.problem((*path, j), f"tables[{spec.index}].linked: '{tid}' is "
                                       f"already linked in '{owner[tid]}'"))
            else:
                owner[tid] = spec.id
                members.append(member)
        if len(set(spec.linked)) < 2:
            out.append(doc.problem(path, f"tables[{spec.index}].linked: name at least two "
                                   "different tables"))
        if len(members) != len(spec.linked):
            continue
        for field in ("response", "weight", "total"):
            values = {getattr(m, field) for m in members}
            if len(values) > 1:
                out.append(doc.problem(path, f"tables[{spec.index}].linked: the tables "
                                       f"differ in {field} ({', '.join(sorted(map(str, values)))}"
                                       "): linked tables share their cells"))
            else:
                setattr(spec, field, values.pop())
        spec.dims = list(dict.fromkeys(d for m in members for d in m.dims))
        spec.faces = [list(m.dims) for m in members]
    return out


def linked_use(recipe, doc) -> list:
    """A linked table is protected with the others, through the steps on their table of
    linked tables, and released as it leaves it: no step of its own; the cover table
    itself (with its unpublished cells) is not released."""
    out = []
    group = {tid: spec.id for spec in recipe.tables.values() if spec.linked
             for tid in spec.linked}
    for step in recipe.steps:
        if step.table in group:
            out.append(doc.problem((*step.path, "table"), f"steps[{step.index}].table: "
                                   f"'{step.table}' is protected with its linked tables: "
                                   f"give the step 'table: {group[step.table]}'"))
            step.ok = False
    for tid in recipe.release.get("tables", {}):
        spec = recipe.tables.get(tid)
        if spec is not None and spec.linked:
            out.append(doc.problem(("release", "tables", tid), f"release.tables: '{tid}' "
                                   "links tables; release them instead: "
                                   f"{', '.join(spec.linked)}", key=True))
    return out
