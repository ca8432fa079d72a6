"""The recipe's tables as the workbench shows them: the table steps run by the engine
(the same plan, plugins and code as ``sdcflow run``, a partial run of the table steps and
the steps they need), each declared table as the run would release it, every cell with
its status, the rule that made it sensitive, its original and its published value, and
the interval the recipe's audit derives for a suppressed cell.

What it computes is written to a scratch folder of the project that only the workbench
writes (``.sdcflow-ui/tables/<recipe>/``): ``tables/ID.csv`` (the office's copy, as a
run's ``tables/``), ``public/ID.csv`` (the published table, as a run's ``public/``) and
``measures.json``. No web code here: :mod:`sdcflow.ui.pages.tables` shows it."""

from __future__ import annotations

import math
import os
import shutil
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ...data import write_table
from ...data.text import text_column
from ...engine.canonical import pretty_json
from ...engine.execution import execute
from ...engine.partial import Selection, partial_plan, selected_nodes
from ...recipe import Recipe, recipe_from_text, validate
from ...recipe.grid import chosen_variant
from ...recipe.tables import build, internal_frame, release_frame
from ...tabular import face
from ...tabular.linked import face_cells

SCRATCH = Path(".sdcflow-ui") / "tables"
MARK = ".written-by-sdcflow-ui"  # a folder holding it is the workbench's own
PRIMARY_METHOD = "sensitivity_rules"
# methods whose changed values the grid calls rounded, adjusted; any other change of a
# published value (cell key, differential privacy) is a perturbation
VALUE_METHODS = {"controlled_rounding": "rounded", "controlled_adjustment": "adjusted"}
STATUSES = ("safe", "primary", "secondary", "perturbed", "rounded", "adjusted",
            "unpublished")


@dataclass
class Cell:
    """One cell of a table as the grid shows it."""

    codes: tuple[str, ...]
    status: str
    freq: int
    value: float  # the original value (the office sees it; the run keeps it internal)
    published: float | None  # what the release publishes (None: suppressed)
    rule: str = ""
    lower: float | None = None  # the audit's interval (suppressed cells it lists)
    upper: float | None = None
    protected: bool | None = None


@dataclass
class TableView:
    """A declared table as the run leaves it: its dimensions (each code's depth below the
    total), its cells in table order, the steps that made it (``id``, ``plugin``) and
    the audit's verdict (None without an audit step that ran)."""

    id: str
    dims: list[str]
    codes: list[list[str]]
    depths: list[list[int]]
    cells: list[Cell]
    steps: list[tuple[str, str]] = field(default_factory=list)
    audit: dict | None = None
    source: str = ""  # the table its steps work on (a linked table: the linked group)
    table: object = field(default=None, repr=False)  # the Table itself

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(STATUSES, 0)
        for c in self.cells:
            out[c.status] = out.get(c.status, 0) + 1
        return out

    def grid(self, rows: str, cols: str | None, fixed: dict[str, str]) -> list[list[Cell]]:
        """The cells of the ``rows`` x ``cols`` plane (``cols`` None: one column), every
        other dimension at the code ``fixed`` gives it (default: its total)."""
        index = {c.codes: c for c in self.cells}
        r, k = self.dims.index(rows), self.dims.index(cols) if cols else None
        at = [fixed.get(d) if fixed.get(d) in codes else codes[-1]
              for d, codes in zip(self.dims, self.codes, strict=True)]
        out = []
        for rc in self.codes[r]:
            line = []
            for cc in (self.codes[k] if k is not None else [None]):
                key = list(at)
                key[r] = rc
                if k is not None:
                    key[k] = cc
                line.append(index[tuple(key)])
            out.append(line)
        return out


@dataclass
class TablesRun:
    """The tables of one computation: ``views`` by table id, the steps that ran
    (``ran``; ``complete``: all the table steps, not the primary rules only) and where
    the files went."""

    views: dict[str, TableView]
    ran: list[str]
    complete: bool
    out_dir: Path | None = None
    draft: str = ""


def table_steps(recipe: Recipe) -> list:
    """The recipe's steps on tables, in recipe order."""
    return [s for s in recipe.steps if s.table]


def declared_tables(recipe: Recipe) -> list[str]:
    """The tables a grid shows: those with dimensions of their own (a group of linked
    tables is shown through its tables)."""
    return [tid for tid, spec in recipe.tables.items() if spec.linked is None]


def run_tables(text: str, path: Path, project_root: Path, *, complete: bool = True,
               write: bool = True) -> TablesRun:
    """Run the table steps of recipe ``text`` (the draft of the recipe file ``path``) and
    the steps they need, in memory as ``sdcflow run`` does (no cache is read or written);
    ``complete=False`` runs the primary rules (``sensitivity_rules``) only. Raises
    :class:`~sdcflow.errors.RecipeError` for a recipe that does not validate and
    :class:`~sdcflow.errors.PluginError` for a step that fails."""
    recipe = recipe_from_text(text, path.name, path)
    validated = validate(recipe)
    plan = validated.plan
    wanted = [s.id for s in table_steps(recipe)
              if complete or s.plugin_name == PRIMARY_METHOD]
    nodes: list[str] = []
    store, measures = None, {}
    if wanted:
        nodes = selected_nodes(recipe, plan, Selection(select=tuple(wanted)))
        store, measures, _records, _ = execute(replace(validated,
                                                       plan=partial_plan(plan, nodes)))
    variant = chosen_variant(plan.variants, recipe.release.get("variant")) or 0
    node_of = plan.nodes_by_variant[variant]
    ran = [sid for sid in wanted if node_of.get(sid) in set(nodes)]
    views = {}
    for tid in declared_tables(recipe):
        views[tid] = _view(recipe, validated.data, tid, store, measures, node_of, ran)
    out = TablesRun(views, ran, complete, None, text)
    if write:
        out.out_dir = write_scratch(project_root, recipe, out)
    return out


def _view(recipe: Recipe, data, tid: str, store, measures: dict, node_of: dict,
          ran: list[str]) -> TableView:
    source = recipe.table_source(tid)
    steps = [s for s in recipe.steps if s.table == source and s.id in ran]
    if steps:
        whole = store.tables[node_of[steps[-1].id]]
    else:  # no step ran on it: the table as built from the data as loaded
        whole = build(recipe.tables[source], data)
    table = whole if source == tid else face(whole, recipe.tables[tid].dims)
    positions = (np.arange(table.n_cells) if source == tid
                 else face_cells(whole, recipe.tables[tid].dims))
    kinds = [s.plugin_name for s in steps]
    changed_as = next((VALUE_METHODS[k] for k in reversed(kinds) if k in VALUE_METHODS),
                      "perturbed")
    audit_step = next((s for s in reversed(steps) if s.plugin_name == "table_audit"), None)
    intervals: dict[str, dict] = {}
    verdict = None
    if audit_step is not None:
        result = measures.get(node_of[audit_step.id], {})
        intervals = {c["cell"]: c for c in result.get("cells", [])}
        verdict = {k: result.get(k) for k in ("passed", "suppressed", "unprotected")}
        verdict["listed"] = len(intervals)
        verdict["step"] = audit_step.id
    published = release_frame(table)
    cells = table.cells
    status = cells["status"].to_numpy(dtype=object)
    original = (cells["original_value"] if "original_value" in cells
                else cells["value"]).to_numpy(dtype=float)
    original_freq = (cells["original_freq"] if "original_freq" in cells
                     else cells["freq"]).to_numpy()
    rules = cells["rule"].to_numpy(dtype=object) if "rule" in cells else None
    pub = published["value"].to_numpy(dtype=float)
    whole_codes = whole.cells[whole.dims].to_numpy(dtype=object)
    code_columns = [text_column(cells[d]).to_numpy(dtype=object) for d in table.dims]
    out = []
    for i in range(table.n_cells):
        codes = tuple(column[i] for column in code_columns)
        shown = str(status[i])
        if shown == "safe" and not math.isnan(pub[i]) and not math.isclose(
                pub[i], original[i], rel_tol=1e-12, abs_tol=1e-12):
            shown = changed_as
        found = intervals.get(" x ".join(str(c) for c in whole_codes[positions[i]]))
        out.append(Cell(codes, shown, int(original_freq[i]), float(original[i]),
                        None if math.isnan(pub[i]) else float(pub[i]),
                        str(rules[i]) if rules is not None and shown in
                        ("primary", "adjusted") else "",
                        found["lower"] if found else None, found["upper"] if found else None,
                        found["protected"] if found else None))
    return TableView(tid, list(table.dims), [list(d.codes) for d in table.dimensions],
                     [[int(x) for x in d.depth] for d in table.dimensions], out,
                     [(s.id, s.plugin_name) for s in steps], verdict, source, table)


def scratch_dir(project_root: Path, recipe_name: str) -> Path:
    """The workbench's folder for the tables of recipe ``recipe_name``."""
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in recipe_name)
    return project_root / SCRATCH / (safe.strip(".") or "recipe")


def write_scratch(project_root: Path, recipe: Recipe, result: TablesRun) -> Path:
    """Write the tables of ``result`` into :func:`scratch_dir` (a new folder replacing
    the one the workbench wrote before; a folder it did not write is never replaced)."""
    target = scratch_dir(project_root, recipe.name)
    root = Path(project_root).resolve()
    existing = next(p for p in (target, *target.parents) if p.exists() or p == root)
    if not existing.resolve().is_relative_to(root) or target.is_symlink():
        raise OSError(f"{target} leads outside the project: it is left alone")
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists() and not (target / MARK).is_file():
        raise OSError(f"{target} was not written by the workbench: it is left alone")
    tmp = Path(tempfile.mkdtemp(prefix=".tables-", dir=target.parent))
    try:
        (tmp / MARK).write_text("written by sdcflow ui; replaced at each table run\n")
        (tmp / "tables").mkdir()
        (tmp / "public").mkdir()
        audits = {}
        for tid, view in result.views.items():
            write_table(internal_frame(view.table), tmp / "tables" / f"{tid}.csv", "csv")
            write_table(release_frame(view.table), tmp / "public" / f"{tid}.csv", "csv")
            if view.audit:
                audits[view.audit["step"]] = view.audit
        (tmp / "measures.json").write_text(pretty_json(
            {"ran": result.ran, "complete": result.complete, "audits": audits}))
        old = None
        if target.exists():
            old = target.with_name(target.name + ".old")
            if old.exists():
                shutil.rmtree(old)
            os.replace(target, old)
        os.replace(tmp, target)
        if old is not None:
            shutil.rmtree(old)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return target


__all__ = [
    "STATUSES",
    "Cell",
    "TableView",
    "TablesRun",
    "declared_tables",
    "run_tables",
    "scratch_dir",
    "table_steps",
]
