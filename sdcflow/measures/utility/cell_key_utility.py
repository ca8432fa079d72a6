"""``cell_key_utility``: how much the cell key method changed a frequency table (its
counts; a magnitude table: its values), as the R package ``cellKey`` measures counts
(``ck_cnt_measures``): absolute, relative and
square-root deviations of the cells, false zeros, the distribution of the
perturbations, and the distances (L1, L2, Hellinger) of the perturbed table to the
original (:mod:`sdcflow.kernels.tabular.perturbation_utility`)."""

from __future__ import annotations

from typing import ClassVar

from ...errors import PluginError
from ...plugins.plain_words import figure
from ...plugins.registry import MeasureResult, TableMeasure, register
from ...plugins.results import COUNT, NUMBER, Keyed, record

_STATS = ("min", "q10", "q20", "q30", "q40", "mean", "median", "q60", "q70", "q80", "q90",
          "q95", "q99", "max")


@register
class CellKeyUtility(TableMeasure):
    name = "cell_key_utility"
    public_params = ("exclude_zeros",)
    risk_measure = False
    summary = "Deviations and distances of a cell-key-perturbed table from the original."
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "exclude_zeros": {"type": "boolean", "default": True,
                              "description": "Leave the cells perturbed to 0 out of the "
                                             "deviations (cellKey's default)."},
        },
    }

    def explain(self, params, result):
        if not isinstance(result, dict) or "changed" not in result:
            return ("The perturbed table was compared with the original: how many cells "
                    "changed, by how much, and how far the whole table moved.")
        d1 = result.get("d1") or {}
        return (f"{figure(result['changed'])} of the {figure(result.get('cells'))} cells "
                f"changed; the mean absolute deviation is {figure(d1.get('mean'))} and the "
                f"Hellinger distance to the original table {figure(result.get('hellinger'))}.")

    def result_shape(self, params, meta):
        stats = record(**{k: NUMBER.with_null() for k in _STATS})
        return record(cells=COUNT, changed=COUNT, share_changed=NUMBER, d1=stats, d2=stats,
                      d3=stats, false_zero=COUNT, false_nonzero=COUNT, l1=NUMBER, l2=NUMBER,
                      hellinger=NUMBER, perturbations=Keyed(COUNT, "perturbation"))

    def evaluate(self, data, params, rng, *, original=None):
        from ...kernels.tabular.perturbation_utility import count_table_utility

        cells = data.cells
        if "original_freq" not in cells:
            raise PluginError(self.name, "the table was not perturbed: run cell_key on it "
                              "in an earlier step")
        # a frequency table's counts; a magnitude table's values (its counts are kept)
        column = "freq" if data.response is None else "value"
        try:
            summary = count_table_utility(cells[f"original_{column}"].to_numpy(dtype=float),
                                          cells[column].to_numpy(dtype=float),
                                          exclude_zeros=params["exclude_zeros"])
        except ValueError as exc:
            raise PluginError(self.name, f"{exc} (the square-root deviation d3 needs "
                              "non-negative cell values)") from None
        return MeasureResult(summary)
