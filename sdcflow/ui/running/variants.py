"""The variants of a recipe side by side: what the Compare page shows.

The draft is run by the engine exactly as ``sdcflow run`` runs it (:func:`sdcflow.engine.run`),
into a scratch output folder of the project that only the workbench writes
(``.sdcflow-ui/compare/NAME``). With grids (:mod:`sdcflow.recipe.grid`) every variant is run; the
``score`` steps give the R-U map (:mod:`sdcflow.report.rumap`) and its ranking, and each
measure step the risk and utility figures the report's headline shows
(:func:`sdcflow.report.headline.risk_figures`, ``utility_figures``). The first row is the
original data: the figures of the measure steps on ``input: original``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ...errors import CheckFailed
from ...recipe.grid import chosen_variant, variant_label
from ...report.headline import risk_figures, utility_figures
from ...report.rumap import ru_points, ru_ranking
from ..editing.recipe_edit import RecipeDocument

SCRATCH = Path(".sdcflow-ui") / "compare"
ORIGINAL_ROW = "original data"


@dataclass
class Row:
    """One row of the comparison: the original data or one variant."""

    label: str
    release: dict | None = None  # the value of release.variant that picks it (grids only)
    figures: dict = field(default_factory=dict)  # figure label -> value
    ranking: list[str] | None = None  # DR, IL, score, rank, Pareto (score steps only)
    released: bool = False
    variant: int | None = None  # its number in the grid's order (grids only)


@dataclass
class Comparison:
    """The rows, the figure columns (risk first), the R-U points and the run's verdict."""

    rows: list[Row]
    columns: list[str]
    points: list[tuple[str, float, float]]
    axes: tuple[str, str]
    grid: bool
    failures: list[str]
    out_dir: Path | None
    unchosen: bool = False  # a grid without release.variant: run as a sweep (no release)


def release_choice(assignments: dict) -> dict:
    """The ``release.variant`` mapping that picks the variant of ``assignments``
    ({step id: {param: value}}): ``{param: value}`` for one gridded step, else
    ``{step.param: value}`` (as :func:`sdcflow.recipe.grid.chosen_variant` reads it)."""
    if len(assignments) == 1:
        return dict(next(iter(assignments.values())))
    return {f"{sid}.{param}": value for sid, values in sorted(assignments.items())
            for param, value in sorted(values.items())}


def scratch_dir(project_root: Path, recipe_name: str) -> Path:
    return project_root / SCRATCH / recipe_name


def run_draft(draft: str, recipe_path: Path, project_root: Path,
              note: Callable[[str], None] = lambda line: None) -> Comparison:
    """Run ``draft`` (the text of the recipe at ``recipe_path``) into the scratch folder
    and compare its variants; a failed check still compares (the run says which failed)."""
    from ...engine import run
    from ...recipe import recipe_from_text

    sweep = sweep_text(draft, recipe_path.name)
    recipe = recipe_from_text(sweep or draft, recipe_path.name, recipe_path)
    out = scratch_dir(project_root, recipe.name)
    failures: list[str] = []
    try:
        result = run(recipe, out, progress=note)
    except CheckFailed as exc:
        if exc.result is None:
            raise
        result, failures = exc.result, list(exc.failures)
    comparison = compare(result, failures)
    comparison.unchosen = sweep is not None
    return comparison


def sweep_text(draft: str, source: str) -> str | None:
    """A grid without ``release.variant`` may not release (the recipe is refused until a
    variant is chosen): the draft without the release's files, which runs every variant
    and releases none; None when the draft has no such grid."""
    doc = RecipeDocument.parse(draft, source)
    release = doc.get(["release"])
    gridded = any(isinstance(s, dict) and s.get("grid") for s in doc.steps())
    if not gridded or not isinstance(release, dict) or release.get("variant"):
        return None
    for key in ("path", "tables"):
        if key in release:
            doc.delete(["release", key])
    return doc.text()


def compare(result, failures: list[str] = ()) -> Comparison:
    """The comparison of a run's result (:class:`sdcflow.engine.RunResult`)."""
    plan = result.validated.plan
    recipe = result.validated.recipe
    measures = result.measures
    plugins = {s.id: s.plugin_name for s in recipe.steps if s.kind == "measure"}
    on_original = {s.id for s in recipe.steps if s.kind == "measure" and s.input == "original"}
    risk_labels: list[str] = []
    other_labels: list[str] = []

    def figures_of(nodes: dict, wanted) -> dict:
        out: dict = {}
        for sid, node in nodes.items():
            if sid not in plugins or not wanted(sid) or node not in measures:
                continue
            for labels, found in ((risk_labels, risk_figures(plugins[sid], measures[node])),
                                  (other_labels, utility_figures(plugins[sid], measures[node]))):
                for label, value in found:
                    out[label] = value  # (the last step of a figure: the data at the end)
                    if label not in labels:
                        labels.append(label)
        return out

    original = Row(ORIGINAL_ROW, figures=figures_of(plan.nodes_by_variant[0],
                                                    lambda sid: sid in on_original))
    grid = len(plan.variants) > 1
    chosen = chosen_variant(plan.variants, recipe.release.get("variant"))
    ranking = {r[0]: r[1:] for r in ru_ranking(measures)}
    rows = [original] if original.figures else []
    for i, assignments in enumerate(plan.variants):
        label = variant_label(assignments) if grid else "the recipe"
        row = Row(label, release_choice(assignments) if grid else None,
                  figures_of(plan.nodes_by_variant[i], lambda sid: sid not in on_original),
                  ranking.get(label), released=i == chosen, variant=i if grid else None)
        rows.append(row)
    points = ru_points(measures) if grid else []
    named = {(v["dr_expr"], v["il_expr"]) for v in measures.values()
             if isinstance(v, dict) and {"dr_expr", "il_expr"} <= set(v)}
    axes = ("disclosure risk (DR)", "information loss (IL)")
    if len(named) == 1:  # (the report's rule: named by the one pair of expressions)
        dr_expr, il_expr = next(iter(named))
        axes = (f"disclosure risk: {dr_expr}", f"information loss: {il_expr}")
    return Comparison(rows, risk_labels + other_labels, points, axes, grid, list(failures),
                      result.out_dir)


def ru_picture(comparison: Comparison) -> str:
    """The report's R-U map of the variants (SVG; '' with fewer than two points)."""
    from ...report.figures import ru_map

    if len(comparison.points) < 2:
        return ""
    released = next((r.label for r in comparison.rows if r.released and r.release), None)
    return ru_map(comparison.points, released=released, dr_name=comparison.axes[0],
                  il_name=comparison.axes[1])
