"""Gathering :class:`~sdcflow.report.build.ReportData` from a validated recipe and the
result of its run (in memory or on Dask)."""

from __future__ import annotations

from ..recipe.plan import variant_label
from .build import ReportData, StepView, risk_before_after, utility_cost
from .costs import data_changes
from .rumap import ru_points


def _key(k) -> tuple:
    try:
        return (0, float(k), "")
    except (TypeError, ValueError):
        return (1, 0.0, str(k))


def canonical(value):
    """``value`` with every mapping's keys in one order (numbers by value, then text), so
    that a result read back from the cache (JSON, keys sorted as text) is shown exactly as
    one just computed."""
    if isinstance(value, dict):
        return {k: canonical(value[k]) for k in sorted(value, key=_key)}
    if isinstance(value, list):
        return [canonical(v) for v in value]
    return value


def _label(node: str) -> str:
    return node[node.index("[") + 1:-1] if "[" in node else ""


def _when(ps, final: dict) -> str:
    """"before" when a measure read only the original data, "after" when it read the
    data as released, else "". A measure of a table reads the table as the step before
    it left it: the protected one, or the one built from the original data."""
    if ps.step.table:
        return "after" if ps.table_input else "before"
    reads = ps.reads if ps.reads is not None else set(ps.view)
    reads = [c for c in reads if c in ps.view]
    if all(ps.view[c] == "original" for c in reads):
        return "before"
    if all(ps.view[c] == final.get(c) for c in reads):
        return "after"
    return ""


def _rewires_edges(steps: list[StepView]) -> bool:
    from ..methods.graphs._graph_method import GraphMethod
    from ..plugins.registry import get

    return any(isinstance(get(s.plugin), GraphMethod) for s in steps if s.kind == "method")


def report_data(validated, result, *, released_ok: bool, external: bool = False,
                chosen: int | None = None, preview: bool = False,
                run_date: str | None = None) -> ReportData:
    """The report of a run; ``external``: only what the public manifest holds;
    ``preview``: the run wrote nothing (its checks passed, but nothing was released);
    ``run_date``: the date the report shows (default: ``SOURCE_DATE_EPOCH``'s, else none,
    see :mod:`sdcflow.report.signoff`)."""
    from ..data.stat_files import labels_for_release
    from ..recipe.tables import internal_frame, release_frame
    from .failed import would_release
    from .signoff import pinned_date

    recipe, plan = validated.recipe, validated.plan
    release = recipe.release
    if chosen is None and not external:
        from ..recipe.plan import chosen_variant

        chosen = chosen_variant(plan.variants, release.get("variant"))
    variant = chosen if chosen is not None else 0
    manifest = result.public_manifest if external else result.manifest
    if getattr(result, "partial", None):  # --select/--until: part of the steps ran
        status = "partial"
    elif not released_ok:
        status = "failed"
    elif chosen is None or not result.publishes:
        status = "measures"
    else:
        status = "preview" if preview else "released"

    records = {r.node: r for r in result.steps}
    in_variant = plan.nodes_by_variant[variant]
    final = plan.release_view(variant, release.get("from")) if plan.variants else {}
    public_steps = {s["id"]: s for s in manifest["steps"]} if external else {}
    published = manifest["measures"] if external else {}
    steps: list[StepView] = []
    timeline = []
    for spec in recipe.steps:
        nodes = [ps for ps in plan.steps if ps.step.id == spec.id]
        if external:
            if spec.id not in public_steps:
                continue
            entry = public_steps[spec.id]
            result_of = published.get(spec.id) if spec.kind == "measure" else None
            result_of = canonical(result_of)
            results = [("", result_of)]
            params = entry["params"]
            released_result = result_of
        else:
            results = []
            for ps in nodes:
                record = records.get(ps.node)
                value = (result.measures.get(ps.node) if spec.kind == "measure"
                         else (record.info if record is not None else None))
                results.append((_label(ps.node), canonical(value)))
            mine = in_variant.get(spec.id)
            record = records.get(mine) if mine else None
            params = record.params if record is not None else dict(spec.params or {})
            released_result = next((v for (lab, v), ps in zip(results, nodes)
                                    if ps.node == mine), results[0][1] if results else None)
        ps_mine = next((ps for ps in nodes if ps.node == in_variant.get(spec.id)), None)
        writes = sorted(ps_mine.writes or ()) if ps_mine is not None and \
            spec.kind == "method" else []
        steps.append(StepView(spec.id, spec.kind, spec.plugin_name, params, results, writes,
                              spec.table, released_result))
        if spec.kind == "measure" and ps_mine is not None and (chosen is not None or
                                                                len(plan.variants) <= 1):
            timeline.append((spec.plugin_name, spec.id, released_result,
                             _when(ps_mine, final)))

    # the external report names the recipe by its public form's hash (the file's would
    # give the seed away: sdcflow.engine.public_recipe)
    digest = (f"public sha256 {manifest['recipe']['public_sha256'][:16]}" if external
              else f"sha256 {manifest['recipe']['sha256'][:16]}")
    about = [("sdcflow", manifest["sdcflow"]), ("recipe", f"{recipe.name} ({digest})")]
    version = None if external else recipe.version
    if version:
        about.append(("recipe version", version))
    # (the external report is part of the release, whose bytes never depend on a date)
    run_date = None if external else run_date or pinned_date()
    if run_date:
        about.append(("run date", run_date))
    if not external:
        # a run with --set: the recipe text below is the file's, these values replaced it
        # (internal only: an overridden seed or unpublished parameter stays internal)
        about += [("--set", f"{o.path}={o.value!r}") for o in recipe.overrides]
        about += [("seed", str(manifest["seed"])),
                  ("input", (f"{manifest['input'].get('file', '')} "
                             f"({manifest['input'].get('records', '?')} records)"))]
    # (the external report: as far as the variant's parameters are published)
    released_variant = None
    if chosen is not None and len(plan.variants) > 1:
        released_variant = manifest["variant"] if external else \
            variant_label(plan.variants[chosen])
    if released_variant:
        about.append(("released variant" if released_ok else "variant (not released)",
                      released_variant))

    tables = {}
    for tid, table in (getattr(result, "tables", None) or {}).items():
        frame = release_frame(table) if external else internal_frame(table)
        for d, dim in enumerate(table.dimensions):  # each code's level, as published
            frame[f"level_{dim.name}"] = dim.depth[table.codes[:, d]].astype("int64")
        tables[tid] = (frame, list(table.dims))

    measures = {sid: canonical(published[sid]) for sid in published} if external else \
        {node: canonical(summary) for node, summary in result.measures.items()}
    points = ru_points(measures)
    axes = ("disclosure risk (DR)", "information loss (IL)")
    # the axes named by the scores' expressions when they all share them (score steps of
    # several alternatives read several measures: no one expression names their axes)
    named = {(v["dr_expr"], v["il_expr"]) for v in measures.values() if isinstance(v, dict)
             and {"dr_expr", "il_expr"} <= set(v)}
    if len(named) == 1:
        dr_expr, il_expr = next(iter(named))
        axes = (f"disclosure risk: {dr_expr}", f"information loss: {il_expr}")
    labels = labels_for_release(recipe.variables, validated.source)["value_labels"]
    original = None if external or validated.data is None else validated.data.frame
    released = result.data if not external or "path" in release else None
    changes = None
    # (a graph's records are its edges, rewired by its methods: their costs are counted
    # in edges by the steps themselves, not row by row)
    if original is not None and released is not None and not _rewires_edges(steps):
        writers: dict[str, list[str]] = {}
        for step in steps:
            for name in step.writes:
                writers.setdefault(name, []).append(step.id)
        changes = data_changes(original, released, recipe.variables, writers)
    return ReportData(
        recipe_name=recipe.name, external=external, status=status, about=about,
        checks=list(manifest["checks"] if external else result.checks), steps=steps,
        measures=measures,
        original=original,
        # the external report shows records only where the records are published: a
        # recipe that releases tables alone must not show counts of its microdata
        released=released,
        variables=dict(recipe.variables), value_labels=labels, tables=tables,
        risk=risk_before_after(timeline), utility=utility_cost(timeline), ru=points,
        ru_axes=axes, released_variant=released_variant,
        recipe_text=None if external else recipe.text, changes=changes,
        recipe_version=version,
        recipe_sha256=manifest["recipe"]["public_sha256" if external else "sha256"],
        run_date=run_date,
        would_release=would_release(recipe, result) if not released_ok else [])
