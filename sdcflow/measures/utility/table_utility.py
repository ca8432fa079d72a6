"""``table_utility``: what a protected table lost against the original table, whatever
protected it (cell key, cell suppression, rounding, adjustment, differential privacy), in
figures that put several protections of one table side by side: L1 and mean errors,
relative error per class of cell size, false zeros and false positives, cells changed
and suppressed, and the share of small cells published exactly (the kernel:
:mod:`sdcflow.kernels.tabular.table_utility`)."""

from __future__ import annotations

from typing import ClassVar

from ...errors import PluginError
from ...plugins.plain_words import figure
from ...plugins.registry import MeasureResult, TableMeasure, register
from ...plugins.results import COUNT, NUMBER, Keyed, record

_DEFAULT_BOUNDS = [3, 5, 10, 20, 50, 100]
_INTERNAL_CLASS_FIELDS = ("cells", "suppressed", "exact")


@register
class TableUtility(TableMeasure):
    name = "table_utility"
    public_params = ("size_classes", "small", "cells")
    risk_measure = False
    summary = ("A protected table against the original: errors (L1, relative, by cell "
               "size), false zeros and positives, cells changed or suppressed.")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "size_classes": {
                "type": "array", "items": {"type": "integer", "minimum": 2},
                "minItems": 1, "maxItems": 30, "uniqueItems": True,
                "default": _DEFAULT_BOUNDS,
                "description": "Bounds of the classes of original cell size (number of "
                               "contributors), increasing: [3, 5, 10] makes the classes "
                               "0, 1-2, 3-4, 5-9, 10+."},
            "small": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 1,
                      "description": "Cells of original size 1 to this are the small "
                                     "cells whose exact publication is the risk figure "
                                     "(1: Shlomo, Tudor & Groom 2010)."},
            "cells": {"enum": ["all", "inner"], "default": "all",
                      "description": "Measure every cell of the table (all: subtotals "
                                     "and totals too) or only its inner cells."},
        },
    }

    def check(self, params, meta):
        bounds = params.get("size_classes", _DEFAULT_BOUNDS)
        if isinstance(bounds, list) and bounds != sorted(bounds):
            yield ("size_classes",), "the bounds must increase (e.g. [3, 5, 10, 20])"

    def explain(self, params, result):
        if not isinstance(result, dict) or "loss_percent" not in result:
            return ("The protected table was compared with the original: errors of the "
                    "published cells by cell size, cells suppressed, false zeros and "
                    "positives, and how many small cells are published exactly.")
        risk = result.get("small_cells_exact") or {}
        small = risk.get("small", 1)
        return (f"{figure(result['suppressed'])} of {figure(result['cells'])} cells "
                f"suppressed and {figure(result['changed'])} changed; the published cells "
                f"are off by {figure(result.get('mean_abs_error'))} on average (L1 "
                f"{figure(result.get('l1'))}); {figure(result.get('loss_percent'))} % of "
                f"the table's cell information is lost; "
                f"{figure(risk.get('percent'))} % of the cells of "
                f"{'1' if small == 1 else f'1 to {small}'} are published exactly.")

    def result_shape(self, params, meta):
        from ...kernels.tabular.table_utility import size_class_labels

        labels = tuple(size_class_labels(params["size_classes"]))
        per_class = record(cells=COUNT, suppressed=COUNT, exact=COUNT,
                           mean_abs_error=NUMBER.with_null(), max_abs_error=NUMBER.with_null(),
                           mean_rel_error=NUMBER.with_null())
        return record(cells=COUNT, published=COUNT, suppressed=COUNT,
                      share_suppressed=NUMBER, changed=COUNT, share_changed=NUMBER,
                      l1=NUMBER, l2=NUMBER, hellinger=NUMBER,
                      mean_abs_error=NUMBER.with_null(), mean_rel_error=NUMBER.with_null(),
                      false_zero=COUNT, false_positive=COUNT, loss_percent=NUMBER,
                      small_cells_exact=record(small=COUNT, cells=COUNT, exact=COUNT,
                                               percent=NUMBER.with_null()),
                      by_size=Keyed(per_class, "size class", labels))

    def public_summary(self, summary, params):
        """Everything but the numbers of cells of each original size (and of them
        suppressed or published exactly): beside a suppressed table, the sizes of its
        suppressed cells would narrow down their original values."""
        out = dict(super().public_summary(summary, params))
        if isinstance(out.get("by_size"), dict):
            out["by_size"] = {label: {k: v for k, v in figures.items()
                                      if k not in _INTERNAL_CLASS_FIELDS}
                              for label, figures in out["by_size"].items()}
        if isinstance(out.get("small_cells_exact"), dict):
            out["small_cells_exact"] = {k: v for k, v in out["small_cells_exact"].items()
                                        if k in ("small", "percent")}
        return out

    def evaluate(self, data, params, rng, *, original=None):
        from ...kernels.tabular.table_utility import table_utility

        table = data
        cells = table.cells
        # a perturbed, rounded or adjusted table keeps the values it had before
        original_values = cells["original_value" if "original_value" in cells else "value"]
        sizes = cells["original_freq" if "original_freq" in cells else "freq"]
        # (the cells of a cover table that no linked table publishes are not measured)
        keep = (cells["status"] != "unpublished").to_numpy()
        if params["cells"] == "inner":
            keep = keep & (table.margin_dims == 0)
        try:
            summary = table_utility(original_values.to_numpy(dtype=float)[keep],
                                    cells["value"].to_numpy(dtype=float)[keep],
                                    table.suppressed[keep], sizes.to_numpy(dtype=float)[keep],
                                    params["size_classes"], params["small"])
        except ValueError as exc:
            raise PluginError(self.name, f"{exc} (the table's cells must be non-negative "
                              "counts or sums)") from None
        return MeasureResult(summary)
