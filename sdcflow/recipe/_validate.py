"""Validating a recipe completely: the schema and the semantic checks (plugins exist,
parameters fit their plugin's schema, variables exist and have the roles and types the
method accepts, ids are unique, references resolve, expressions parse: :mod:`._load`),
then the data (columns exist, values fit their types, constraints hold), then the plan
(no cycles). Every problem is collected; :class:`RecipeError` reports them all at once."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from ..data import Dataset, read_data
from ..data.recipe_files import allowed_roots
from ..errors import Problem, RecipeError, unique_problems
from ._graph_release import node_file_problems
from ._households import household_consistency
from ._load import _check_file, _display, loaded_with
from ._model import Recipe
from ._schema import where
from ._stat_release import stat_label_problems


@dataclass
class Validated:
    """A recipe that passed every check, with its data and its plan."""

    recipe: Recipe
    data: Dataset | None
    source: dict
    plan: object  # sdcflow.recipe.plan.Plan
    warnings: list[Problem]


def validate(recipe: Recipe | str | Path, *, data: bool = True,
             progress: Callable[[float], None] | None = None,
             allow_paths: Iterable[str | Path] = ()) -> Validated:
    """Check a recipe completely: schema, semantics, and (with ``data``) its data and plan.

    Raises :class:`RecipeError` listing every problem; returns the validated recipe,
    its data and plan otherwise. ``progress`` (if given) hears the fraction of reading
    and checking the data done, now and then. The files the recipe names are read from
    its folder and from ``allow_paths`` (:mod:`sdcflow.data.recipe_files`; a loaded
    recipe keeps what it was loaded with)."""
    from .plan import PlanError, build_plan

    if isinstance(recipe, Recipe):
        problems: list[Problem] = list(recipe.warnings)
        loaded_with(recipe, allow_paths)
    else:
        recipe, problems = _check_file(Path(recipe), allowed_roots(allow_paths))
        if recipe is None:
            raise RecipeError(problems)
    doc = recipe.doc
    dataset, source = None, {}
    # the Dask engine reads its partitions on the workers: they are checked as they are read
    dask = ((doc.data or {}).get("execution") or {}).get("engine") == "dask" \
        if isinstance(doc.data, dict) else False
    if data and recipe.data and not dask:
        # reading is most of it; the checks on the data below are the rest
        reading = (lambda f: progress(0.9 * f)) if progress is not None else None
        dataset, source, findings = read_data(recipe.data, recipe.files, recipe.variables,
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
            problems += node_file_problems(recipe, dataset)
            problems += stat_label_problems(recipe, source)
            from .tables import cell_count, size_problems

            for spec in recipe.tables.values():
                problems += [doc.problem((*spec.path, "dims"), message)
                             for message in size_problems(spec, dataset)]
            for step in recipe.steps:  # (a table's size, as built from the loaded data)
                spec = recipe.tables.get(step.table) if step.ok and step.table else None
                if spec is None or spec.source or not callable(
                        getattr(step.plugin, "check_cells", None)):
                    continue
                cells = cell_count(spec, dataset)
                for p in step.variants:
                    for ppath, message in step.plugin.check_cells(p, cells):
                        full = (*step.path, "params", *ppath)
                        problems.append(doc.problem(full, f"{where(full)}: {message}"))
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
    if plan is not None and dask:
        from ._distribution import distribution_problems

        problems += distribution_problems(recipe, plan)
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
