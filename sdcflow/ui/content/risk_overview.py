"""The risks of the original data, before any method: what the Risk page shows.

The figures come from the very measure plugins a recipe uses (``k_anonymity``,
``individual_risk``, ``household_risk``, ``suda``), run by the engine on a recipe made of
the draft's data, variables and constraints and those measures on ``input: original``; so
a risk shown here is what ``sdcflow run`` reports for the same step. Each measure takes the
parameters of the draft's own step of that measure when it has one (e.g. sdcMicro's
``alpha``), k-anonymity is counted for k = 2, 3 and 5 at least. A measure the data do not
allow (SUDA on too many keys, household risk without households) is left out with the
validator's reason.

Derived here, from the measures' per-record results only: the equivalence classes (distinct
key combinations) that violate k-anonymity, the records above risk thresholds (with the
``individual_risk`` measure's own comparison) and the rarest key combinations."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ...data.text import text_column
from ...errors import RecipeError
from ...measures.risk.individual_risk import above_threshold
from ...report import figures
from ...report.order import MISSING
from ..editing.recipe_edit import RecipeDocument

MEASURES = ("k_anonymity", "individual_risk", "household_risk", "suda")
K_VALUES = (2, 3, 5)
THRESHOLDS = (0.1, 0.2, 0.5)
RAREST = 12  # key combinations listed
# the sections of the draft the risk recipe keeps: what the data and variables are
KEPT = ("sdcflow", "name", "version", "description", "seed", "data", "variables",
        "constraints")


@dataclass
class RiskOverview:
    """The risk figures of the original data (summaries as the measures report them)."""

    measures: dict                  # measure name -> its summary
    params: dict                    # measure name -> the parameters it ran with
    classes: dict                   # k (text) -> key combinations violating k-anonymity
    above: dict                     # threshold -> {above_threshold, ..._percent}
    rarest: list[dict]              # the rarest key combinations, rarest first
    keys: list[str] = field(default_factory=list)  # their variables (strata last)
    pictures: dict = field(default_factory=dict)  # name -> SVG text
    left_out: dict = field(default_factory=dict)  # measure name -> why it was not run


def _steps_of(doc: RecipeDocument, measure: str) -> list[dict]:
    return [s for s in doc.steps() if isinstance(s, dict) and s.get("measure") == measure]


def recipe_step(doc: RecipeDocument, measure: str) -> str | None:
    """The id of the draft's step computing ``measure`` on the original data, if any."""
    for step in _steps_of(doc, measure):
        if step.get("input") == "original":
            return str(step.get("id"))
    return None


def risk_params(doc: RecipeDocument, measure: str) -> dict:
    """The parameters the page runs ``measure`` with: those of the draft's step of that
    measure on the original data, else of its first step of that measure (the recipe's
    settings, e.g. ``alpha``), else none (the plugin's defaults); k-anonymity for k = 2, 3
    and 5 besides the recipe's k."""
    steps = _steps_of(doc, measure)
    steps.sort(key=lambda s: s.get("input") != "original")
    params = dict(steps[0].get("params") or {}) if steps else {}
    if measure == "k_anonymity":
        given = params.get("k", [])
        given = given if isinstance(given, list) else [given]
        params["k"] = sorted({*K_VALUES, *(k for k in given if isinstance(k, int))})
    return params


def has_households(doc: RecipeDocument) -> bool:
    return any(isinstance(v, dict) and v.get("role") == "household"
               for v in doc.variables().values())


def risk_steps(doc: RecipeDocument) -> list[dict]:
    """The measure steps of the risk recipe (household risk only with households)."""
    wanted = [m for m in MEASURES if m != "household_risk" or has_households(doc)]
    steps = []
    for measure in wanted:
        step = {"id": measure, "measure": measure, "input": "original"}
        params = risk_params(doc, measure)
        if params:
            step["params"] = params
        steps.append(step)
    return steps


def risk_recipe_text(doc: RecipeDocument, steps: list[dict]) -> tuple[str, dict[int, str]]:
    """The risk recipe as YAML text (JSON values, one section or step a line) and the
    line of each step (by measure), to tell which step a problem is about."""
    lines = [f"{key}: {json.dumps(doc.get([key]))}" for key in KEPT
             if doc.get([key]) is not None]
    lines.append("steps:")
    where = {}
    for step in steps:
        lines.append(f"  - {json.dumps(step)}")
        where[len(lines)] = step["measure"]
    return "\n".join(lines) + "\n", where


def data_stamp(doc: RecipeDocument, recipe_path: Path) -> list:
    """What the data file is now (path, size, time of change), for the cache key: the
    file named by ``data.path`` (a built-in data set never changes)."""
    data = doc.get(["data"])
    name = data.get("path") if isinstance(data, dict) else None
    if not isinstance(name, str):
        return []
    path = recipe_path.parent / name
    try:
        stat = path.stat()
    except OSError:
        return [name]
    return [name, stat.st_size, stat.st_mtime_ns]


def _key(parts: list) -> str:
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()


def draft_key(draft: str, recipe_path: Path) -> str:
    """The key of a computation on the whole ``draft``: its text and its data file's
    state."""
    try:
        stamp = data_stamp(RecipeDocument.parse(draft, recipe_path.name), recipe_path)
    except RecipeError:
        stamp = []
    return _key([draft, stamp, str(recipe_path)])


def cache_key(draft: str, recipe_path: Path) -> str:
    """The key of the overview of ``draft``: the risk recipe made of it (so an edit of
    its steps, checks or release keeps the key) and its data file's state."""
    try:
        doc = RecipeDocument.parse(draft, recipe_path.name)
        return _key([risk_recipe_text(doc, risk_steps(doc))[0], data_stamp(doc, recipe_path),
                     str(recipe_path)])
    except RecipeError:
        return draft_key(draft, recipe_path)


def _run_measures(doc: RecipeDocument, recipe_path: Path, note: Callable[[str], None]):
    """Validate and execute the risk recipe; a measure step the validator refuses is
    left out (with its messages) and the rest run."""
    from ...engine.execution import execute
    from ...recipe import recipe_from_text, validate

    steps = risk_steps(doc)
    left_out: dict[str, str] = {}
    while steps:
        text, where = risk_recipe_text(doc, steps)
        try:
            recipe = recipe_from_text(text, recipe_path.name, recipe_path)
            note("reading the data")
            validated = validate(recipe, progress=lambda f: note(
                f"reading the data: {100 * f:.0f}%"))
        except RecipeError as exc:
            refused: dict[str, list[str]] = {}
            for p in exc.problems:
                if p.severity == "error" and p.line in where:
                    refused.setdefault(where[p.line], []).append(p.message)
            if not refused or "k_anonymity" in refused:
                raise
            left_out.update({m: "; ".join(msgs) for m, msgs in refused.items()})
            steps = [s for s in steps if s["measure"] not in refused]
            continue
        note("computing the measures")
        _, measures, records, per_record = execute(
            validated, None, lambda line: note(line), workers=1)
        params = {r.node: r.params for r in records}
        return validated, measures, per_record, params, left_out
    raise RecipeError([])  # (never: k_anonymity is always among the steps)


def compute(draft: str, recipe_path: Path, note: Callable[[str], None] = lambda line: None
            ) -> RiskOverview:
    """The risk overview of ``draft`` (the recipe text at ``recipe_path``); raises
    :class:`RecipeError` when its data or variables are not usable."""
    doc = RecipeDocument.parse(draft, recipe_path.name)
    validated, measures, per_record, params, left_out = _run_measures(doc, recipe_path, note)
    frame = validated.data.frame
    kanon = measures["k_anonymity"]
    fk = per_record["k_anonymity"]["fk"].to_numpy(dtype=float)
    Fk = per_record["k_anonymity"]["Fk"].to_numpy(dtype=float)
    # (with strata, the stratum is part of every record's key, as the measure counts)
    keys = list(kanon["variables"]) + list(kanon.get("strata") or [])
    combos = _combinations(frame, keys)
    overview = RiskOverview(measures=measures, params=params, left_out=left_out,
                            classes={k: int(combos[fk < int(k)].nunique())
                                     for k in kanon["violations"]},
                            above={}, rarest=_rarest(keys, combos, fk, Fk), keys=keys)
    if "individual_risk" in measures:
        risk = per_record["individual_risk"]["risk"].to_numpy(dtype=float)
        overview.above = {t: above_threshold(risk, {"threshold": t}) for t in THRESHOLDS}
        dist = measures["individual_risk"].get("distribution") or {}
        overview.pictures["individual_risk"] = figures.risk_distribution(
            tuple(dist.get("edges", ())), tuple(dist.get("records", ())))
        if "household_risk" in measures:
            hh = per_record["household_risk"]["household_risk"].to_numpy(dtype=float)
            edges = np.asarray(dist.get("edges", ()), dtype=float)
            if edges.size:
                counts, _ = np.histogram(np.clip(hh, edges[0], edges[-1]), bins=edges)
                overview.pictures["household_risk"] = figures.risk_distribution(
                    tuple(edges.tolist()), tuple(int(c) for c in counts),
                    title="records by the risk of their household")
    if "suda" in measures:
        bands = measures["suda"].get("dis_score_bands") or {}
        overview.pictures["dis"] = figures.frequency_bars(
            "DIS-SUDA score", list(bands), list(bands.values()), None)
    return overview


def _combinations(frame: pd.DataFrame, keys: list[str]) -> pd.Series:
    """Each record's key combination as one text (missing values as sdcflow's MISSING)."""
    parts = [text_column(frame[k]).fillna(MISSING) for k in keys]
    combo = parts[0].astype(object)
    for part in parts[1:]:
        combo = combo + "\x1f" + part.astype(object)
    return combo


def _rarest(keys: list[str], combos: pd.Series, fk: np.ndarray, Fk: np.ndarray
            ) -> list[dict]:
    """The key combinations of the smallest ``fk`` (ties: the smallest estimated
    population frequency ``Fk`` first, then the combination's text)."""
    table = pd.DataFrame({"combo": combos.to_numpy(), "fk": fk, "Fk": Fk})
    grouped = table.groupby("combo", sort=True).agg(
        records=("fk", "size"), fk=("fk", "first"), Fk=("Fk", "first")).reset_index()
    grouped = grouped.sort_values(["fk", "Fk", "combo"], kind="stable").head(RAREST)
    return [{"values": dict(zip(keys, row.combo.split("\x1f"))), "records": int(row.records),
             "fk": float(row.fk), "Fk": float(row.Fk)} for row in grouped.itertuples()]


def add_risk_step(doc: RecipeDocument, measure: str) -> str:
    """Add ``measure`` on the original data to the recipe, with the parameters the page
    showed it with, before the first method (the risk before any protection); returns
    the new step's id."""
    if measure not in MEASURES:
        raise ValueError(f"not a risk measure of the page: {measure}")
    step = {"id": doc.unique_step_id(f"{measure}_original"), "measure": measure,
            "input": "original"}
    params = risk_params(doc, measure)
    if params:
        step["params"] = params
    steps = doc.steps()
    first_method = next((i for i, s in enumerate(steps) if isinstance(s, dict)
                         and "method" in s), len(steps))
    return doc.add_step(step, first_method)
