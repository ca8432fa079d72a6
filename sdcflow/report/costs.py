"""What the protection cost, for the report's summary: for each method step, the figures
its own result gives (values changed, generalised with the level reached, suppressed,
swapped, perturbed, records removed, table cells suppressed or changed), and, where the
report may show the original data (the internal report), the released data compared
with the original variable by variable (values changed, made missing, generalised,
mean absolute deviation; records and variables removed). Counts are of records unless
the step acted once per household: those say "households"."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..data.text import text_column
from ..plugins.plain_words import figure, households, names, total


def _by_variable(value, unit: str) -> str | None:
    """``"103 households (walls)"`` / ``"218 records (urbrur 11, water 69)"``: a count or
    a mapping of counts per variable (those above zero named)."""
    count = total(value)
    if count is None:
        return None
    text = f"{figure(count)} {unit}"
    if isinstance(value, Mapping):
        parts = [f"{k} {figure(v)}" for k, v in value.items() if v]
        if parts:
            text += f" ({', '.join(parts)})"
    return text


def _coded(info: Mapping, unit: str) -> list[str]:
    out = []
    for side in ("top", "bottom"):
        entry = info.get(side)
        if isinstance(entry, Mapping) and isinstance(entry.get("coded"), int):
            out.append(f"{side}-coded: {figure(entry['coded'])} {unit}")
    return out


# methods whose changed values are generalised ones (a range, a set, a broader concept)
_GENERALISING = frozenset({"mondrian", "semantic_generalisation", "sanitise_text"})

# (key of a method's info, what its count says) for counts of values or records; a key
# whose value is a mapping per variable is shown with the variables
_VALUE_COUNTS = (
    ("changed", "values changed: {}"),
    ("recoded", "values recoded into classes: {}"),
    ("outside_breaks", "values made missing (outside the breaks): {}"),
    ("perturbed", "values perturbed: {}"),
    ("suppressions", "values suppressed: {}"),
    ("suppressed_records", "records suppressed (their key values made missing): {}"),
)


def method_costs(plugin: str, info) -> list[str]:
    """What one method step cost, in words, from its own result ``info`` (a method's info
    as the internal manifest holds it); empty where the info says nothing of it."""
    if not isinstance(info, Mapping):
        return []
    unit = "households" if households(info) is not None and plugin not in (
        "record_swap", "sampling") else "values"
    out: list[str] = []
    graph = isinstance(info.get("edges_before"), int) or plugin == "relabel_nodes"
    for key, words in _VALUE_COUNTS:
        if key == "changed" and plugin in ("cell_key", "controlled_rounding",
                                           "controlled_adjustment"):
            continue  # cells of a table, below
        if graph and key == "perturbed":
            continue  # edges, below
        if key == "outside_breaks" and not info.get(key):
            continue
        if key == "changed" and plugin in _GENERALISING:
            words = "values generalised (to broader values, ranges or sets): {}"
        counted = _by_variable(info.get(key), unit if key != "suppressed_records"
                               else "records")
        if counted is not None:
            out.append(words.format(counted))
    out += _coded(info, unit)
    if isinstance(info.get("node"), Mapping):  # full-domain generalisation: levels reached
        out.append("generalised to hierarchy level " + ", ".join(
            f"{k} {v}" for k, v in info["node"].items()))
    if plugin == "record_swap":
        for key, words in (("swapped_households", "households swapped"),
                           ("swapped_records", "records swapped")):
            if isinstance(info.get(key), int):
                out.append(f"{words}: {figure(info[key])}")
    if plugin == "sampling" and isinstance(info.get("records"), int):
        unit_of = "households" if info.get("unit") == "household" else "records"
        of = info.get("of")
        removed = of - info["records"] if isinstance(of, int) else None
        out.append(f"records kept: {figure(info['records'])} of {figure(of)} "
                   f"(whole {unit_of} drawn); records removed: {figure(removed)}")
        strata = [s for s in (info.get("by_stratum") or {}).values()
                  if isinstance(s, Mapping)]
        if unit_of == "households" and strata:
            kept = sum(int(s.get("sampled", 0)) for s in strata)
            out.append(f"households kept: {figure(kept)} of "
                       f"{figure(sum(int(s.get('of', 0)) for s in strata))}")
    if plugin == "remove_variables" and info.get("removed"):
        out.append(f"variables removed: {names(info['removed'])}")
    if isinstance(info.get("groups_formed"), int):
        out.append(f"groups formed (each replaced by its representative): "
                   f"{figure(info['groups_formed'])}")
    for group in info.get("groups") or []:
        if isinstance(group, Mapping) and isinstance(group.get("groups_formed"), int):
            out.append(f"{names(group.get('variables') or [])}: "
                       f"{figure(group['groups_formed'])} groups formed")
    out += _table_costs(plugin, info)
    out += _graph_costs(info)
    if plugin == "relabel_nodes" and isinstance(info.get("nodes"), int):
        out.append(f"node labels replaced: {figure(info['nodes'])} (no edge changed)")
    return out


def _table_costs(plugin: str, info: Mapping) -> list[str]:
    out = []
    if plugin == "sensitivity_rules" and isinstance(info.get("primary"), int):
        out.append(f"table cells suppressed (primary): {figure(info['primary'])} of "
                   f"{figure(info.get('cells'))}")
    elif plugin == "secondary_suppression" and isinstance(info.get("secondary"), int):
        out.append(f"table cells suppressed (secondary): {figure(info['secondary'])}; "
                   f"in all {figure(info.get('suppressed'))}")
    elif plugin in ("cell_key", "controlled_rounding", "controlled_adjustment") and \
            isinstance(info.get("changed"), int):
        out.append(f"table cells changed: {figure(info['changed'])} of "
                   f"{figure(info.get('cells'))}")
        if info.get("max_abs_perturbation") is not None:
            out.append(f"largest change of a cell: {figure(info['max_abs_perturbation'])}")
    elif plugin == "dp_table" and isinstance(info.get("cells"), int):
        # (every cell gets noise; the post-processing then moves them again)
        spent = next((f"; {k} spent: {figure(info[k])}" for k in ("epsilon", "rho")
                      if isinstance(info.get(k), (int, float))), "")
        out.append(f"table cells given differentially private noise: "
                   f"{figure(info['cells'])}{spent}")
        if info.get("max_abs_noise") is not None:
            out.append(f"largest noise on a cell: {figure(info['max_abs_noise'])}")
    return out


def _graph_costs(info: Mapping) -> list[str]:
    out = []
    if isinstance(info.get("perturbed"), int) and isinstance(info.get("edges_before"), int):
        out.append(f"edges perturbed: {figure(info['perturbed'])}")
    if isinstance(info.get("edges_before"), int) and isinstance(info.get("edges_after"), int):
        out.append(f"edges: {figure(info['edges_before'])} before, "
                   f"{figure(info['edges_after'])} after")
    for key, words in (("deleted", "edges deleted"), ("added", "edges added"),
                       ("degree_increase", "node degrees raised in all by")):
        if isinstance(info.get(key), int):
            out.append(f"{words}: {figure(info[key])}")
    return out


def _numeric(col: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col)


def data_changes(original: pd.DataFrame, released: pd.DataFrame, variables: Mapping,
                 writers: Mapping[str, list[str]]) -> dict:
    """The released data against the original, variable by variable, records matched by
    their position (as the utility measures match them; methods keep records in their
    places): ``{"variables": [row...], "compared": bool, "records_removed": n,
    "variables_removed": [...]}``; a release with fewer or more records than the original
    (a sample, a graph's edge list) is not compared value by value. A row is
    ``(variable, steps that wrote it, unit, changed, made missing, distinct before,
    distinct after, generalised, mean absolute deviation, the one value left or None)``.
    A variable of household
    level is counted in households (a household counts once when any member's value
    changed), every other in records."""
    out = {"variables": [], "records_removed": None, "compared": False,
           "variables_removed": [c for c in original.columns if c not in released.columns]}
    out["records_removed"] = len(original) - len(released)
    if len(original) != len(released):
        # records drawn or removed: the release's row numbers no longer say which original
        # record a released one is, so values are not compared
        out["compared"] = False
        return out
    out["compared"] = True
    before = original.set_axis(released.index)  # records kept in their places
    ids = [n for n, v in variables.items() if getattr(v, "role", None) == "household"
           and n in original.columns]
    for name in (c for c in released.columns if c in original.columns):
        o, r = before[name], released[name]
        numeric = _numeric(o) and _numeric(r)
        if numeric:
            x, y = o.to_numpy(dtype=float, na_value=np.nan), r.to_numpy(dtype=float,
                                                                      na_value=np.nan)
            both = ~np.isnan(x) & ~np.isnan(y)
            changed = both & (x != y)
            mad = float(np.abs(x[both] - y[both]).mean()) if both.any() else None
        ot, rt = text_column(o), text_column(r)
        if not numeric:
            both = (ot.notna() & rt.notna()).to_numpy()
            changed = both & (ot.to_numpy(dtype=object) != rt.to_numpy(dtype=object))
            mad = None
        missing = (o.notna() & r.isna()).to_numpy()
        if not changed.any() and not missing.any():
            continue
        # generalised: every original value released as one value, and fewer of them
        pairs = pd.DataFrame({"o": ot.to_numpy(), "r": rt.to_numpy()}).dropna()
        d0, d1 = int(ot.nunique()), int(rt.nunique())
        # (and some value changed: suppression alone leaves fewer distinct values too)
        generalised = bool(len(pairs)) and d1 < d0 and bool(changed.any()) and \
            bool((pairs.groupby("o")["r"].nunique() <= 1).all()) and not numeric
        var = variables.get(name)
        unit = "records"
        if ids and getattr(var, "level", None) == "household" and ids[0] in before.columns:
            hid = before[ids[0]].to_numpy()
            n_changed, n_missing = len(set(hid[changed])), len(set(hid[missing]))
            unit = "households"
        else:
            n_changed, n_missing = int(changed.sum()), int(missing.sum())
        steps = list(writers.get(name, []))
        if getattr(var, "role", None) == "household":
            steps = ["(the release: household ids renumbered)"]
        # one value left: say which (age generalised to "*" for every record)
        only = rt.dropna().iloc[0] if d1 == 1 else None
        out["variables"].append((name, steps, unit, n_changed, n_missing, d0, d1,
                                 generalised, mad, only))
    return out


def change_rows(changes: dict) -> list[list[str]]:
    """The rows of the report's table of :func:`data_changes`."""
    rows = []
    for (name, steps, unit, changed, missing, d0, d1, generalised, mad, only) in \
            changes["variables"]:
        distinct = f"{figure(d0)} \u2192 {figure(d1)} distinct values" + (
            f", all \u201c{only}\u201d" if only is not None else "")
        rows.append([name, ", ".join(steps) or "\u2014", f"{figure(changed)} {unit}",
                     f"{figure(missing)} {unit}",
                     distinct + ("; generalised: each original value released as one "
                                 "broader value" if generalised else ""),
                     figure(mad) if mad is not None else "(not numbers)"])
    return rows
