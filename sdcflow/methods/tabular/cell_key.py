"""``cell_key``: the cell key method for frequency and magnitude tables (Thompson,
Broadfoot & Elazar, ABS, UNECE 2013; perturbation tables by maximum entropy, Giessing
2016; magnitudes after Giessing & Tent, UNECE 2019), as the R packages ``ptable`` (the
ptable) and ``cellKey`` (the lookup) do it: every cell of the table gets the noise that
its cell key (the fractional part of the sum of its records' keys) selects in the ptable
row of its count (for a magnitude table, of its value relative to its noise magnitude). The record keys are the same for every
table of the recipe (read from a column, or drawn once by sdcflow from the recipe's seed),
so a cell gets the same noise in every table it appears in: differencing two tables
reveals nothing. See :mod:`sdcflow.kernels.tabular.ptable`,
:mod:`sdcflow.kernels.tabular.cell_key` and
:mod:`sdcflow.kernels.tabular.cell_key_magnitude`."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import numpy as np

from ...data.csv_input import csv_frame
from ...data.recipe_files import (
    CheckedFile,
    RecipeFileError,
    RecipeFiles,
    as_files,
    file_lines,
)
from ...errors import PluginError
from ...plugins.plain_words import figure
from ...plugins.registry import MethodResult, TableMethod, register

_PTABLE_COLUMNS = ("i", "j", "p", "v", "p_int_lb", "p_int_ub")


_SUB_PTABLE = {  # a further magnitude ptable, as create_num_ptable's parameters
    "type": "object", "additionalProperties": False, "required": ["D", "V"],
    "properties": {
        "D": {"type": "integer", "minimum": 1, "maximum": 50,
              "description": "Largest perturbation |v| (ptable's D)."},
        "V": {"type": "number", "exclusiveMinimum": 0, "maximum": 1000,
              "description": "Variance of the perturbation (ptable's V)."},
        "step": {"type": "integer", "minimum": 1, "maximum": 50,
                 "description": "ptable grid: perturbations in steps of 1/step (default 2)."},
        "icat": {"type": "array", "minItems": 1, "items": {"type": "integer", "minimum": 1},
                 "description": "ptable rows (must hold 1 and D; default [1, D])."},
        "optim": {"anyOf": [{"enum": [1, 2, 3, 4]},
                            {"type": "array", "items": {"enum": [1, 2, 3, 4]}}],
                  "description": "ptable's optim, once or per row (default 1)."},
        "mono": {"anyOf": [{"type": "boolean"},
                           {"type": "array", "items": {"type": "boolean"}}],
                 "description": "ptable's monotony condition, once or per row (default "
                                "true)."},
    },
}
_MAGNITUDE = {
    "type": "object", "additionalProperties": False, "required": ["p"],
    "description": "Perturb a magnitude table (a table with response) as cellKey does.",
    "properties": {
        "type": {"enum": ["top_contr", "mean", "sum"], "default": "top_contr",
                 "description": "What sizes the noise: the top_k largest contributions "
                                "of the cell (unweighted tables), its mean or its sum."},
        "top_k": {"type": "integer", "minimum": 1, "maximum": 6, "default": 1,
                  "description": "How many of the largest contributions are perturbed "
                                 "(type top_contr)."},
        "p": {"anyOf": [{"type": "number", "exclusiveMinimum": 0, "maximum": 1},
                        {"type": "array", "minItems": 2, "maxItems": 2,
                         "items": {"type": "number", "minimum": 0, "maximum": 1}}],
              "description": "Noise percentage (simple), or [p_small, p_large] with fp."},
        "fp": {"type": "number", "exclusiveMinimum": 0, "maximum": 1e15,
               "description": "Flex point of the flex function (with p as a pair)."},
        "q": {"type": "number", "minimum": 1, "maximum": 100, "default": 3,
              "description": "Exponent of the flex function's decline from p_small to "
                             "p_large (cellKey's q)."},
        "epsilon": {"type": "array", "minItems": 1, "maxItems": 6,
                    "items": {"type": "number", "minimum": 0, "maximum": 1},
                    "description": "One per contribution, 1 first, decreasing "
                                   "(default [1])."},
        "mu_c": {"type": "number", "minimum": 0, "maximum": 1000, "default": 0,
                 "description": "Extra noise of sensitive (primary) cells."},
        "step": {"type": "integer", "minimum": 1, "maximum": 50, "default": 2,
                 "description": "ptable grid: perturbations in steps of 1/step."},
        "icat": {"type": "array", "minItems": 1, "items": {"type": "integer", "minimum": 1},
                 "description": "ptable rows, whole numbers as in ptable (must hold 1 and "
                                "D; default [1, D])."},
        "small": {**_SUB_PTABLE,
                  "description": "A ptable for very small contributions (cellKey's "
                                 "separation): D, V, step, icat, optim, mono."},
        "odd": {**_SUB_PTABLE,
                "description": "A ptable of its own for the cells with an odd number of "
                               "contributors (cellKey's parity case; top_k 1): D, V, "
                               "step, icat, optim, mono as for the main one, which then "
                               "serves the even cells."},
        "same_key": {"type": "boolean", "default": True,
                     "description": "The first perturbation step uses the cell key itself "
                                    "(cellKey's same_key); false: a rotated key."},
        "use_zero_rkeys": {"type": "boolean", "default": False,
                           "description": "Key cells by all records, not only those with "
                                          "a non-zero value."},
    },
}


def _per_row(item: dict, description: str) -> dict:
    return {"anyOf": [item, {"type": "array", "minItems": 1, "items": item}],
            "description": description}


@register
class CellKey(TableMethod):
    name = "cell_key"
    # 2: ptable rows with large perturbations solved in closed form (they were solved
    # numerically: the same optimum, possibly another last of the 8 decimals)
    version = "2"
    # the ptable's design (D, V, js, pstay, ...) is published: analysts need the noise's
    # bound and variance, and the method's protection rests on the record keys alone
    # (Thompson, Broadfoot & Elazar 2013), as the ESS census guidance assumes (Giessing
    # 2016); the column of record keys stays internal, with the seed that draws them
    public_params = (
        "D", "V", "js", "pstay", "optim", "mono", "ptable", "ptable_file", "digits", "magnitude",
    )
    protects = True
    consistent_across_tables = True  # a cell's noise comes from its records' keys
    summary = "Cell key method: consistent noise on frequency and magnitude tables from a ptable."
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "D": {"type": "integer", "minimum": 1, "maximum": 50,
                  "description": "Largest perturbation |v| (ptable's D)."},
            "V": {"type": "number", "exclusiveMinimum": 0, "maximum": 1000,
                  "description": "Variance of the perturbation (ptable's V)."},
            "js": {"type": "integer", "minimum": 0, "maximum": 50, "default": 0,
                   "description": "Blocked counts: no perturbed count in 1..js."},
            "pstay": _per_row({"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
                              "Least probability of no change, once or per ptable row "
                              "(default: none, the maximum-entropy solution)."),
            "optim": _per_row({"enum": [1, 2, 3, 4]},
                              "ptable's optim: 1-3 variance at most V (default 1), 4 "
                              "exactly V; once or per ptable row."),
            "mono": _per_row({"type": "boolean"},
                             "Probabilities rise towards no change for negative "
                             "perturbations (default true); once or per ptable row."),
            "ptable": {
                "type": "object", "additionalProperties": False,
                "required": list(_PTABLE_COLUMNS),
                "properties": {c: {"type": "array", "minItems": 1, "items": {"type": "number"},
                                   "description": f"The ptable's column {c}."}
                               for c in _PTABLE_COLUMNS},
                "description": "A ptable given as its columns i, j, p, v, p_int_lb, p_int_ub "
                               "(instead of D and V)."},
            "ptable_file": {"type": "string", "minLength": 1,
                            "description": "A ptable file in the ptable package's layout "
                                           "(CSV or ';'-separated text with columns i, j, p, "
                                           "v, p_int_lb, p_int_ub), relative to the recipe."},
            "record_key": {"type": "string",
                           "description": "Column of record keys in [0, 1] (default: "
                                          "drawn by sdcflow from the recipe's seed, the same "
                                          "for every table of the recipe)."},
            "write_ptable": {"type": "boolean",
                             "description": "Write the ptable the step used into the run's "
                                            "internal output, as steps/ID.ptable.csv (the "
                                            "ptable package's six columns; 'sdcflow ptable' "
                                            "writes the tau-Argus file). Default false."},
            "digits": {"type": "integer", "minimum": 5, "maximum": 10, "default": 8,
                       "description": "Decimals of the record keys (cellKey: 8)."},
            "magnitude": _MAGNITUDE,
        },
    }

    def internal_files(self, params) -> dict[str, str]:
        """``ptable.csv``, the ptable the step used (and ``ptable-small.csv``,
        ``ptable-odd.csv``, a magnitude table's further ones), when ``write_ptable`` (it
        follows from the parameters: written the same whether the step ran or came from
        the cache). Internal like the rest of DIR outside public/: what is published of the
        ptable is its design (D, V, js, ...: ``public_params``)."""
        if not params.get("write_ptable"):
            return {}
        from ...tabular.ptable_files import ptable_csv

        out = {"ptable.csv": ptable_csv(ptable_of(params))}
        for which in ("small", "odd"):  # a magnitude table's further ptables
            if which in (params.get("magnitude") or {}):
                out[f"ptable-{which}.csv"] = ptable_csv(sub_ptable_of(params, which))
        return out

    def record_keys(self, params) -> tuple[str | None, int, int]:
        """The engine builds this step's table with cell keys: the record keys are the
        column ``record_key``, or drawn by the engine (None); and with the ``top_k``
        largest contributions of each cell a magnitude table needs."""
        m = params.get("magnitude") or {}
        top = int(m.get("top_k", 1)) if m.get("type", "top_contr") == "top_contr" else 1
        return params.get("record_key"), int(params.get("digits", 8)), max(top, 2)

    def read_files(self, params: dict, files: RecipeFiles | Path) -> tuple[dict, list]:
        """``ptable_file`` read relative to the recipe (as ``files`` allows): the step
        then carries the ptable (its columns in ``ptable``, so the manifest and the
        fingerprint hold it)."""
        if "ptable_file" not in params or "ptable" in params:
            return params, []
        try:
            columns = read_ptable_file(as_files(files).check(
                params["ptable_file"], ("ptable_file",), "ptable file", "ptable"))
        except RecipeFileError as exc:
            return {**params, "ptable": None}, [(exc.where, exc.message)]
        return {**params, "ptable": columns}, []

    def check(self, params, meta):
        given = [k for k in ("ptable_file", "ptable") if k in params]
        if not given and not ("D" in params and "V" in params):
            yield (), "give D and V (the ptable is built from them), or a ptable"
            return
        if given and ("D" in params or "V" in params):
            yield (given[0],), "give either D and V or a ptable, not both"
            return
        if params.get("record_key") is not None:
            var = meta.variables.get(params["record_key"])
            if var is None:
                yield ("record_key",), f"'{params['record_key']}' is not a declared variable"
            elif not var.is_numeric:
                yield ("record_key",), (f"'{params['record_key']}' must be numeric (record "
                                        "keys in [0, 1])")
            elif var.role != "identifier":
                # with the keys the noise of every published cell can be undone: they
                # must never reach a release (identifiers never do)
                yield ("record_key",), (f"record keys must stay secret (with them the noise "
                                        f"can be undone): declare '{var.name}' with role "
                                        "identifier, which keeps it out of every release")
        if "magnitude" in params:
            if params.get("js") or "pstay" in params:
                yield ("magnitude",), "js and pstay are for frequency tables"
            try:
                magnitude_of(params)
            except ValueError as exc:
                yield ("magnitude",), str(exc)
                return
        if "ptable_file" in params and params.get("ptable") is None:
            if "ptable" not in params:  # (None: it could not be read, as reported)
                yield ("ptable_file",), "a ptable file is read from params, not from a grid"
            return
        from ...kernels.tabular.ptable import PTableError

        try:
            ptable_of(params)
        except PTableError as exc:
            yield (("ptable",) if given else ("V",)), f"impossible ptable: {exc}"
        for which in ("odd", "small"):
            if which in (params.get("magnitude") or {}):
                try:
                    sub_ptable_of(params, which)
                except PTableError as exc:
                    yield ("magnitude", which), f"impossible ptable: {exc}"

    def check_data(self, params, data):
        column = params.get("record_key")
        if column is None or column not in data.frame:
            return
        keys = data.frame[column].to_numpy(dtype=float, na_value=np.nan)
        missing = int(np.isnan(keys).sum())
        if missing:
            yield ("record_key",), f"'{column}' has {missing} missing record keys"
        elif ((keys < 0) | (keys > 1)).any():
            yield ("record_key",), f"'{column}': record keys must lie in [0, 1]"

    def explain(self, params, result):
        if not isinstance(result, dict) or "changed" not in result:
            return ("Every count of the table was perturbed by the cell key method: a small "
                    "noise, the same for a cell in every table, drawn from a perturbation "
                    "table.")
        return (f"The cell key method perturbed the counts of the table: "
                f"{figure(result['changed'])} of its {figure(result.get('cells'))} cells "
                f"changed, by at most {figure(result.get('max_abs_perturbation'))}; a cell "
                "gets the same noise in every table of the release.")

    def apply(self, data, params, rng):
        from ...kernels.tabular.cell_key import perturb_counts
        from ...kernels.tabular.ptable import PTableError

        table = data
        cells = table.cells
        if "cell_key" not in cells:
            raise PluginError(self.name, "the table has no cell keys (it must be built from "
                              "the records by the engine)")
        if (table.response is not None) != ("magnitude" in params):
            raise PluginError(self.name, (
                f"the table sums {table.response!r}: give the magnitude parameters "
                "(magnitude) to perturb it" if table.response is not None else
                "magnitude parameters need a table with a response (a table of sums)"))
        try:
            ptab = ptable_of(params)
        except PTableError as exc:
            raise PluginError(self.name, f"impossible ptable: {exc}") from None
        if table.response is not None:
            return _perturb_magnitudes(self.name, table, params, ptab)
        counts = cells["freq"].to_numpy(dtype=float)
        weighted = cells["wfreq"].to_numpy(dtype=float) if table.weight is not None else None
        perturbed, perturbed_w = perturb_counts(ptab, cells["cell_key"].to_numpy(dtype=float),
                                                counts, weighted)
        out = cells.copy()
        out["original_freq"] = cells["freq"].to_numpy(dtype=np.int64)
        out["original_value"] = cells["value"].to_numpy(dtype=float)
        out["freq"] = np.rint(perturbed).astype(np.int64)
        out["wfreq"] = perturbed_w
        out["value"] = perturbed_w
        noise = perturbed - counts
        changed = noise != 0
        info = {
            "cells": len(cells),
            "changed": int(changed.sum()),
            "share_changed": float(changed.mean()) if len(cells) else 0.0,
            "max_abs_perturbation": float(np.abs(noise).max()) if len(cells) else 0.0,
            "ptable_rows": len(ptab.rows),
        }
        return MethodResult(table.with_cells(out), info)


def ptable_of(params):
    """The ptable of the step: given (``ptable``) or built from ``D``, ``V`` and the
    options as ``ptable::create_cnt_ptable`` (``create_num_ptable`` with ``magnitude``)
    builds it."""
    from ...kernels.tabular.ptable import count_ptable, magnitude_ptable, ptable_from_columns

    given = params.get("ptable")
    kind = "nums" if "magnitude" in params else "cnts"
    if given is not None:
        return ptable_from_columns(*(given[c] for c in _PTABLE_COLUMNS), table=kind)
    if kind == "nums":
        m = params["magnitude"]
        return magnitude_ptable(params["D"], params["V"], step=m.get("step", 2),
                                icat=m.get("icat"), optim=params.get("optim", 1),
                                mono=params.get("mono", True))
    return count_ptable(params["D"], params["V"], js=params.get("js", 0),
                        pstay=params.get("pstay"), optim=params.get("optim", 1),
                        mono=params.get("mono", True))


def read_ptable_file(file: CheckedFile) -> dict[str, list[float]]:
    """The columns ``i, j, p, v, p_int_lb, p_int_ub`` of a ptable file (checked by
    :mod:`sdcflow.data.recipe_files`): CSV, or the ``;``-separated text of
    ``ptable::pt_export`` (a file without ``p_int_lb``, as the tau-Argus export, gets it
    from the previous upper bound of the row). RecipeFileError says why it is none."""
    import pandas as pd

    raw = file.content()
    first = raw[:raw.find(b"\n")] if b"\n" in raw else raw
    sep = ";" if first.count(b";") > first.count(b",") else ","
    frame = csv_frame(file, raw=raw, sep=sep, skipinitialspace=True)
    frame.columns = [str(c).strip().strip('"') for c in frame.columns]
    if "p_int_lb" not in frame and {"i", "p_int_ub"} <= set(frame.columns):
        frame["p_int_lb"] = frame.groupby("i")["p_int_ub"].shift(1, fill_value=0.0)
    missing = [c for c in _PTABLE_COLUMNS if c not in frame]
    if missing:
        raise file.refuse(f"it lacks the columns {', '.join(missing)}")
    out = {}
    for c in _PTABLE_COLUMNS:
        values = pd.to_numeric(frame[c], errors="coerce")
        bad = values.isna().to_numpy()
        if bad.any():
            raise file.refuse(f"column {c} has missing or non-numeric values "
                              f"({file_lines(bad)})")
        out[c] = [float(x) for x in values]
    return out


def sub_ptable_of(params, which: str):
    """The further magnitude ptable ``which`` (``odd``: of the cells with an odd number
    of contributors; ``small``: of very small contributions)."""
    from ...kernels.tabular.ptable import magnitude_ptable

    o = params["magnitude"][which]
    return magnitude_ptable(o["D"], o["V"], step=o.get("step", 2), icat=o.get("icat"),
                            optim=o.get("optim", 1), mono=o.get("mono", True))


def magnitude_of(params):
    """``(MagnitudeParams, options)`` of the step's ``magnitude`` parameters, checked
    (ValueError with the reason)."""
    from ...kernels.tabular.cell_key_magnitude import MagnitudeParams

    m = dict(params["magnitude"])
    kind = m.get("type", "top_contr")
    top_k = int(m.get("top_k", 1)) if kind == "top_contr" else 1
    if kind != "top_contr" and m.get("top_k", 1) != 1:
        raise ValueError(f"top_k is for type top_contr, not {kind}")
    p = m["p"]
    flex = isinstance(p, list)
    if flex != ("fp" in m):
        raise ValueError("give p as [p_small, p_large] with fp (flex function), or one "
                         "number p without fp (simple)")
    epsilon = m.get("epsilon", [1.0] * top_k if top_k == 1 else None)
    if epsilon is None or len(epsilon) != top_k:
        raise ValueError(f"epsilon needs {top_k} values, one per contribution (top_k)")
    if "odd" in m and top_k != 1:
        raise ValueError("a ptable for odd cells (odd) needs top_k 1, as in cellKey")
    mp = MagnitudeParams(p_small=p[0] if flex else p, p_large=p[1] if flex else None,
                         fp=m.get("fp"), q=m.get("q", 3), epsilon=epsilon,
                         mu_c=m.get("mu_c", 0))
    return mp, {"type": kind, "top_k": top_k, "same_key": m.get("same_key", True),
                "use_zero_rkeys": m.get("use_zero_rkeys", False)}


def _perturb_magnitudes(name: str, table, params, ptab) -> MethodResult:
    """The magnitude table perturbed as cellKey perturbs it (see
    :mod:`sdcflow.kernels.tabular.cell_key_magnitude`)."""
    from ...kernels.tabular.cell_key_magnitude import perturb_magnitudes, step_keys

    mp, opts = magnitude_of(params)
    cells = table.cells
    cv = cells["value"].to_numpy(dtype=float)
    if opts["type"] == "top_contr":
        if table.weight is not None:
            raise PluginError(name, "type top_contr needs an unweighted table (cellKey "
                              "ranks weighted records, which the table does not keep): use "
                              "type mean or sum")
        x = cells[[f"top{j + 1}" for j in range(opts["top_k"])]].to_numpy(dtype=float)
    elif opts["type"] == "mean":
        w = cells["wfreq"].to_numpy(dtype=float)
        x = np.divide(cv, w, out=np.zeros(len(cv)), where=w != 0)[:, None]
    else:
        x = cv[:, None]
    digits = int(params.get("digits", 8))
    column = "cell_key" if opts["use_zero_rkeys"] else "cell_key_nonzero"
    units = np.rint(cells[column].to_numpy(dtype=float) * 10 ** digits).astype(np.int64)
    keys = step_keys(units, digits, x.shape[1], opts["same_key"])
    sensitive = (cells["status"] == "primary").to_numpy()
    more = {}
    for which in ("odd", "small"):
        if which in params["magnitude"]:
            from ...kernels.tabular.ptable import PTableError

            try:
                more[f"{which}_ptable"] = sub_ptable_of(params, which)
            except PTableError as exc:
                raise PluginError(name, f"impossible ptable ({which}): {exc}") from None
    freq = cells["freq"].to_numpy()
    if "odd_ptable" in more:
        more["odd"] = freq % 2 == 1  # cellKey: the parity of the number of contributors
    perturbed, noise = perturb_magnitudes(ptab, cv, x, keys, mp, sensitive,
                                          contributors=freq, **more)
    out = cells.copy()
    out["original_freq"] = cells["freq"].to_numpy(dtype=np.int64)
    out["original_value"] = cv
    out["value"] = perturbed
    changed = noise != 0
    relative = np.divide(np.abs(noise), np.abs(cv), out=np.zeros(len(cv)), where=cv != 0)
    return MethodResult(table.with_cells(out), {
        "cells": len(cells),
        "changed": int(changed.sum()),
        "share_changed": float(changed.mean()) if len(cells) else 0.0,
        "max_abs_perturbation": float(np.abs(noise).max()) if len(cells) else 0.0,
        "max_relative_perturbation": float(relative.max()) if len(cells) else 0.0,
        "ptable_rows": len(ptab.rows),
    })
