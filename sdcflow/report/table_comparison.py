"""Several protections of one table side by side: every ``table_utility`` result of a
run (each measuring one protected version of a table: by the cell key method, by cell
suppression, by differential privacy...) as a row of the report's comparison, with the
protection that made it, its utility figures and its risk figure, and as a point of an
R-U map (Duncan, Keller-McNulty & Stokes 2001): the share of small cells published
exactly across (Shlomo, Tudor & Groom 2010), the share of the table's cell information
lost up (:mod:`sdcflow.kernels.tabular.table_utility`)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

PLUGIN = "table_utility"
DR_NAME = "small cells published exactly (%)"  # (their sizes differ between results)
IL_NAME = "cell information lost (%)"


@dataclass
class Alternative:
    """One protected version of a table, as the comparison shows it."""

    step: str  # the table_utility step
    table: str
    protection: list[str]  # "step (method: public parameters)" of the steps on the table
    figures: Mapping
    released: bool = False
    label: str = ""
    classes: list[str] = field(default_factory=list)

    @property
    def risk(self) -> float | None:
        risk = self.figures.get("small_cells_exact")
        value = risk.get("percent") if isinstance(risk, Mapping) else None
        return float(value) if isinstance(value, (int, float)) else None

    @property
    def loss(self) -> float | None:
        value = self.figures.get("loss_percent")
        return float(value) if isinstance(value, (int, float)) else None


def _protection(step) -> str:
    params = ", ".join(f"{k}={json.dumps(v, sort_keys=True, separators=(',', ':'))}"
                       if isinstance(v, (dict, list)) else f"{k}={v}"
                       for k, v in step.params.items())
    return f"{step.id} ({step.plugin}{': ' + params if params else ''})"


def alternatives(steps: Sequence, released_tables: Sequence[str] = ()) -> list[Alternative]:
    """The ``table_utility`` results among ``steps`` (the report's
    :class:`~sdcflow.report.build.StepView` list, in recipe order) that have a result,
    each with the method steps on its table listed before it; labelled by the table, or by
    the step where one table is measured twice."""
    out = []
    for i, step in enumerate(steps):
        if step.kind != "measure" or step.plugin != PLUGIN or step.table is None or \
                not isinstance(step.released_result, Mapping):
            continue
        methods = [_protection(s) for s in steps[:i]
                   if s.kind == "method" and s.table == step.table]
        by_size = step.released_result.get("by_size")
        # (in the order of size: a result read back has its keys in the order of text)
        classes = sorted(by_size, key=_lower_bound) if isinstance(by_size, Mapping) else []
        out.append(Alternative(step.id, step.table, methods, step.released_result,
                               step.table in released_tables, classes=classes))
    tables = [a.table for a in out]
    for a in out:
        a.label = a.table if tables.count(a.table) == 1 else a.step
    return out


def _lower_bound(label: str) -> float:
    """The smallest size of the class named ``label`` ("0", "3-4", "100+")."""
    try:
        return float(str(label).split("-")[0].rstrip("+"))
    except ValueError:
        return float("inf")


def dr_name(rows: Sequence[Alternative]) -> str:
    """The name of the risk figure: which cells are the small ones, when every result
    says the same."""
    smalls = {(a.figures.get("small_cells_exact") or {}).get("small") for a in rows}
    if len(smalls) != 1 or not isinstance(next(iter(smalls)), int):
        return DR_NAME
    small = next(iter(smalls))
    return f"cells of {'1' if small == 1 else f'1 to {small}'} published exactly (%)"


def ru_points(rows: Sequence[Alternative]) -> list[tuple[str, float, float]]:
    """(label, DR, IL) of the alternatives that have both figures."""
    return [(a.label, a.risk, a.loss) for a in rows if a.risk is not None and
            a.loss is not None]


def _share(value) -> object:
    return 100 * value if isinstance(value, (int, float)) else value


def comparison_table(rows: Sequence[Alternative]) -> tuple[list[str], list[list[object]]]:
    """The header and the rows (figures as numbers, for the report to format) of the
    comparison: per alternative its protection, cells suppressed and changed, the errors
    of the published cells, false zeros and positives, the information lost, the small
    cells published exactly, and the mean relative error of each class of cell size
    with a size (the classes of the first alternative)."""
    classes = [c for c in (rows[0].classes if rows else []) if c != "0"]
    header = ["table", "protection", "released", "cells suppressed (%)",
              "cells changed (%)", "L1", "mean abs. error", "mean rel. error (%)",
              "false zeros", "false positives", IL_NAME, dr_name(rows)]
    header += [f"rel. error (%), size {c}" for c in classes]
    body = []
    for a in rows:
        f = a.figures
        by_size = f.get("by_size") if isinstance(f.get("by_size"), Mapping) else {}
        body.append([a.label, "; ".join(a.protection) or "(none)",
                     "yes" if a.released else "", _share(f.get("share_suppressed")),
                     _share(f.get("share_changed")), f.get("l1"), f.get("mean_abs_error"),
                     _share(f.get("mean_rel_error")), f.get("false_zero"),
                     f.get("false_positive"),
                     a.loss, a.risk,
                     *(_share((by_size.get(c) or {}).get("mean_rel_error"))
                       for c in classes)])
    return header, body
