"""What the report shows, gathered from a run: the steps with their results in the
order they ran, the risk before and after, the utility cost, the tables and the data
before and after. The internal report gets everything; the external one only what the
public manifest holds (public parameters, published measures, the released data and
tables), so that nothing disclosive can reach it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import pandas as pd

from .headline import risk_figures, utility_figures


@dataclass
class StepView:
    """One step of the recipe as the report describes it; ``results`` holds one
    ``(variant label, info or summary)`` per instance ("" without a grid; the result is
    None where it is not published)."""

    id: str
    kind: str  # "method" or "measure"
    plugin: str
    params: dict
    results: list[tuple[str, object]]
    writes: list[str] = field(default_factory=list)
    table: str | None = None
    released_result: object = None  # the result of the released (or first) variant

    @property
    def explanation(self) -> str:
        from ..plugins.registry import get

        plugin = get(self.plugin)
        if plugin is None:
            return ""
        return plugin.explain(self.params, self.released_result)


@dataclass
class ReportData:
    """Everything :func:`sdcflow.report.render_report` draws."""

    recipe_name: str
    external: bool
    status: str  # "released", "preview" (passed, not written), "failed" or "measures"
    about: list[tuple[str, str]]
    checks: list[dict]
    steps: list[StepView]
    measures: dict  # node -> summary (external: step id -> public summary)
    original: pd.DataFrame | None
    released: pd.DataFrame | None
    variables: dict  # name -> sdcflow.recipe Variable
    value_labels: dict  # name -> {code: label}
    tables: dict  # table id -> (frame, dims, external?)
    risk: list[tuple[str, object, object]]  # (figure, before, after)
    utility: list[tuple[str, object]]
    ru: list[tuple[str, float, float]] = field(default_factory=list)
    ru_axes: tuple[str, str] = ("disclosure risk (DR)", "information loss (IL)")
    released_variant: str | None = None
    recipe_text: str | None = None
    # the signable document (sdcflow.report.signoff, .failed)
    recipe_version: str | None = None  # the recipe's ``version:``
    recipe_sha256: str | None = None  # the recipe file's (internal) or public form's hash
    run_date: str | None = None  # YYYY-MM-DD, or None: only in the run's run.json
    would_release: list[tuple[str, str]] = field(default_factory=list)  # (file, holding)
    # the released data against the original (internal report, microdata released):
    # see sdcflow.report.costs.data_changes
    changes: dict | None = None

    def method_steps(self) -> list[StepView]:
        """The method steps of the released (or first) variant, in the order they ran."""
        return [s for s in self.steps if s.kind == "method"]


def risk_before_after(measure_steps: list[tuple[str, str, Mapping, str]]
                      ) -> list[tuple[str, object, object]]:
    """Rows (figure, before, after) from the risk measures ``(plugin, step id, summary,
    when)`` in the order they ran, ``when`` being "before" (the measure read only the
    original data), "after" (it read the released data) or "" (in between): each
    figure's first value before and last value after."""
    rows: dict[str, list] = {}
    for plugin, _sid, summary, when in measure_steps:
        if when not in ("before", "after"):
            continue
        for label, value in risk_figures(plugin, summary):
            row = rows.setdefault(label, [None, None])
            if when == "before" and row[0] is None:
                row[0] = value
            elif when == "after":
                row[1] = value
    return [(label, b, a) for label, (b, a) in rows.items()]


def utility_cost(measure_steps: list[tuple[str, str, Mapping, str]]
                 ) -> list[tuple[str, object]]:
    """The utility figures of the measures that read the released data (the last of
    each)."""
    out: dict[str, object] = {}
    for plugin, _sid, summary, when in measure_steps:
        if when == "after":
            for label, value in utility_figures(plugin, summary):
                out[label] = value
    return list(out.items())
