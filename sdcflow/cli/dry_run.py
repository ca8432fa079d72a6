"""``sdcflow run --dry-run``: validate (schema, semantics, the data and each plugin's data
checks), plan, check that the output directory may be written, and say what a run would
compute and write, without computing or writing anything."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from ..recipe import Recipe, Validated, as_recipe, validate


def _variant_text(variant: dict) -> str:
    """``age10.width=5, kanon.k=3`` for a grid variant ``{step: {param: value}}``."""
    return ", ".join(f"{step}.{param}={json.dumps(value)}"
                     for step, values in sorted(variant.items())
                     for param, value in sorted(values.items()))


def would_write(validated: Validated, chosen: int | None) -> list[str]:
    """The files a run would write into its output directory (paths relative to it), as
    :func:`sdcflow.engine.runner._write_outputs` writes them."""
    from ..engine.outputs import MANIFEST
    from ..engine.runner import HOUSEHOLD_IDS, PUBLIC

    recipe = validated.recipe
    release = recipe.release or {}
    files = []
    if chosen is not None:
        if "path" in release:
            files.append(f"{PUBLIC}/{Path(release['path']).as_posix()}")
        files += [f"{PUBLIC}/{Path(p).as_posix()}" for p in release.get("tables", {}).values()]
        files += [f"{PUBLIC}/{MANIFEST}", f"{PUBLIC}/report.html"]
        if release.get("pdf"):
            files.append(f"{PUBLIC}/report.pdf")
    files += would_write_not_released(validated)
    if chosen is not None:
        files += [f"tables/{tid}.csv" for tid in release.get("tables", {})]
        households = [n for n, v in recipe.variables.items() if v.role == "household"]
        if len(households) == 1 and "path" in release \
                and release.get("household_ids", "replace") != "keep":
            files.append(HOUSEHOLD_IDS)
    return files


def would_write_not_released(validated: Validated) -> list[str]:
    """The files a run whose checks fail writes into its output directory (no
    ``public/``), as :func:`sdcflow.engine.runner.not_released` writes them."""
    from ..engine.outputs import MANIFEST, RUN_LOG

    pdf = ["report.pdf"] if (validated.recipe.release or {}).get("pdf") else []
    return [MANIFEST, "measures.json", "report.html", *pdf, RUN_LOG]


def dry_run(recipe: Recipe | str | Path, out_dir: str | Path | None = None, *,
            allow_paths: Iterable[str | Path] = ()) -> tuple[str, dict]:
    """What ``sdcflow run`` would do: the steps in execution order (one line per grid
    variant of a step), the output directory and the files it would hold. Raises what a
    run raises before its first step (:class:`~sdcflow.errors.RecipeError`,
    :class:`~sdcflow.errors.OutputError`); writes nothing (no cache, no output)."""
    from ..engine.outputs import check_target, earlier_release
    from ..engine.runner import CACHE_DIR, default_out_dir
    from ..recipe.grid import chosen_variant

    recipe = as_recipe(recipe, allow_paths)
    validated = validate(recipe)
    plan = validated.plan
    target = check_target(Path(out_dir) if out_dir is not None else default_out_dir(recipe),
                          recipe.name)
    chosen = chosen_variant(plan.variants, (recipe.release or {}).get("variant"))
    files = would_write(validated, chosen)
    steps = []
    lines = [f"dry run of {recipe.name}: nothing is computed or written", "",
             (f"would run {len(plan.steps)} step{'s' if len(plan.steps) != 1 else ''} "
              "in this order:")]
    for i, ps in enumerate(plan.steps, 1):
        variant = _variant_text(ps.variant)
        deps = ", ".join(ps.deps) if ps.deps else "original data"
        lines.append(f"{i:>3}. {ps.node:<24} {ps.kind} {ps.step.plugin_name}"
                     + (f" [variant {variant}]" if variant else "") + f" <- {deps}")
        steps.append(ps.as_dict())
    lines += recipe.skipped_lines()
    if len(plan.variants) > 1:
        which = (f"variant {chosen + 1} ({_variant_text(plan.variants[chosen])})"
                 if chosen is not None else "no variant (release.variant chooses none)")
        lines.append(f"{len(plan.variants)} grid variants; the release would hold {which}")
    if recipe.checks:
        lines += ["", "checks that must pass before anything is released:"]
        lines += [f"  {c.text}" for c in recipe.checks]
    lines += ["", f"if every check passes, would write into {target}:"]
    lines += [f"  {name}" for name in files]
    release = recipe.release or {}
    if chosen is None or not ("path" in release or release.get("tables")):
        lines.append("  (no data released: measures and reports only)")
    failed = would_write_not_released(validated)
    withdrawn = earlier_release(target, recipe.name)
    if recipe.checks:
        lines += ["if a check fails (exit 3), would release nothing and write only:"]
        lines += [f"  {name}" for name in failed]
        if withdrawn:
            lines.append("  and withdraw the earlier release there: " + ", ".join(withdrawn))
    lines.append(f"and cache the steps' results in {recipe.base_dir / CACHE_DIR}")
    data = {"dry_run": True, "recipe": recipe.name, "out": str(target), "steps": steps,
            "variants": plan.variants, "released_variant": chosen, "files": files,
            "checks": [c.text for c in recipe.checks],
            "if_not_released": {"files": failed, "withdrawn": withdrawn}}
    if recipe.disabled:
        data["skipped"] = recipe.disabled_steps()
    return "\n".join(lines), data
