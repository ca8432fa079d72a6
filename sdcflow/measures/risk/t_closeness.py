"""``t_closeness``: how far the distribution of each sensitive variable within an
equivalence class of the key variables is from its distribution in the whole table, by
the Earth Mover's Distance (Li, Li & Venkatasubramanian (2007), "t-Closeness: Privacy
Beyond k-Anonymity and l-Diversity", ICDE 2007). A class is t-close when its distance is
at most t. The ground distance is the paper's ordered, equal or hierarchical distance
(the last over a generalisation hierarchy of the sensitive variable: its declared
``hierarchy`` or the ``hierarchy`` parameter). The formulas are in
:func:`sdcflow.kernels.risk.t_closeness.class_emd`.

Equivalence classes are formed as in ``l_diversity``: records with exactly the same key
combination, a missing key value being a category of its own."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd

from ...data.codes import key_codes, ordered_values
from ...data.dataset import Metadata
from ...kernels.non_perturbative.recode import hierarchy_mapping
from ...kernels.risk.frequencies import row_ids
from ...kernels.risk.t_closeness import t_closeness
from ...plugins.registry import MeasureResult, register
from ...plugins.results import COUNT, NAMES, NUMBER, Record, Text, by_variable
from ._class_summary import class_summary, score_stats
from .frequencies import VARIABLES_PARAM
from .l_diversity import SENSITIVE_PARAM, LDiversity

ORDERED_TYPES = ("integer", "continuous", "ordinal")


@register
class TCloseness(LDiversity):
    name = "t_closeness"
    public_params = ("variables", "sensitive", "distance", "hierarchy", "t")
    risk_measure = True
    counts_combinations = True
    summary = ("t-closeness: Earth Mover's Distance between each key combination's "
               "distribution of a sensitive variable and the whole table's.")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "variables": VARIABLES_PARAM,
            "sensitive": SENSITIVE_PARAM,
            "distance": {
                "enum": ["auto", "ordered", "equal", "hierarchical"], "default": "auto",
                "description": "Ground distance of the EMD: ordered (numeric and ordinal "
                               "values, |i - j| / (m - 1) between the i-th and j-th of m "
                               "values), equal (every two categories at distance 1), "
                               "hierarchical (two categories at the height of their lowest "
                               "common ancestor in a generalisation hierarchy over its "
                               "height), auto: ordered for integer, continuous and ordinal "
                               "variables, equal for categorical ones.",
            },
            "hierarchy": {
                "type": "object", "minProperties": 1,
                "additionalProperties": {
                    "type": "object", "minProperties": 1,
                    "additionalProperties": {"type": ["string", "number", "boolean"]}},
                "description": "For distance hierarchical: the generalisation levels of the "
                               "sensitive variable, finest first, each mapping a value of "
                               "the level below to its parent (as a variable's 'hierarchy'; "
                               "default: the sensitive variable's declared hierarchy). With "
                               "several sensitive variables, use their declared ones.",
            },
            "t": {
                "type": "number", "minimum": 0, "maximum": 1,
                "description": "Also count the records whose class is farther than t.",
            },
        },
    }

    def distance(self, params, var) -> str:
        """The ground distance used for the sensitive variable ``var`` (a Variable)."""
        wanted = params.get("distance", "auto")
        if wanted != "auto":
            return wanted
        return "ordered" if var is not None and var.type in ORDERED_TYPES else "equal"

    def check(self, params, meta: Metadata):
        yield from super().check(params, meta)
        yield from self.check_hierarchical(params, meta)
        if params.get("distance") == "ordered":
            for name in self.sensitive(params, meta):
                var = meta.variables.get(name)
                if var is not None and var.type not in ORDERED_TYPES:
                    where = (("sensitive", params["sensitive"].index(name))
                             if params.get("sensitive") else ("distance",))
                    yield where, (f"'{name}' is {var.type}: its values have no order, so the "
                                  "ordered distance does not apply (use distance: equal)")

    def hierarchy(self, params, var) -> dict | None:
        """The generalisation levels of the sensitive variable ``var`` for the
        hierarchical distance: the ``hierarchy`` parameter, else its declared one."""
        return params.get("hierarchy") or (var.hierarchy if var is not None else None)

    def check_hierarchical(self, params, meta: Metadata):
        if params.get("hierarchy") and params.get("distance") != "hierarchical":
            yield ("hierarchy",), ("a hierarchy is used only with distance: hierarchical")
        if params.get("distance") != "hierarchical":
            return
        sensitive = self.sensitive(params, meta)
        if params.get("hierarchy") and len(sensitive) > 1:
            yield ("hierarchy",), (f"one 'hierarchy' for {len(sensitive)} sensitive variables: "
                                   "name one in 'sensitive', or declare each variable's "
                                   "hierarchy")
        for name in sensitive:
            var = meta.variables.get(name)
            if var is not None and not self.hierarchy(params, var):
                where = (("sensitive", params["sensitive"].index(name))
                         if params.get("sensitive") else ("distance",))
                yield where, (f"'{name}' has no hierarchy: the hierarchical distance needs "
                              "one (declare 'hierarchy' on the variable or give the "
                              "'hierarchy' parameter)")

    def check_data(self, params, data):
        if params.get("distance") != "hierarchical":
            return
        for name in self.sensitive(params, data.meta):
            levels = self.hierarchy(params, data.variables.get(name))
            if not levels or name not in data.frame:
                continue
            known = {str(k) for k in next(iter(levels.values()))}
            unknown = sorted({str(v) for v in data.frame[name].dropna().unique()} - known)
            if unknown:
                yield ("hierarchy" if params.get("hierarchy") else "distance",), (
                    f"values of '{name}' missing from its hierarchy: {unknown[:5]}")

    def result_shape(self, params, meta):
        stats = {"distance": Text(("ordered", "equal", "hierarchical")), "max": NUMBER, "mean": NUMBER}
        fields = {"variables": NAMES, "records": COUNT, "classes": COUNT}
        if params.get("t") is not None:
            stats["above_t"] = COUNT
            fields.update(t=NUMBER, above_t=COUNT, above_t_percent=NUMBER)
        fields["sensitive"] = by_variable(self.sensitive(params, meta), Record(stats))
        return Record(fields)

    def evaluate(self, data, params, rng, *, original):
        """Per record ``t_closeness_<var>``, the EMD of its class; in the summary, per
        sensitive variable the ``distance`` used, the largest (the table is t-close for
        every t at least this) and the mean over the records and, with ``t``, the records
        whose class is farther than t (``above_t``; overall: on any sensitive variable)."""
        keys = self.variables(params, data.meta)
        sensitive = self.sensitive(params, data.meta)
        classes, rep = row_ids(key_codes(data.frame, keys))
        n = len(data)
        t = params.get("t")
        columns: dict[str, np.ndarray] = {}
        per_var: dict[str, dict] = {}
        above_any = np.zeros(n, dtype=bool)
        for name in sensitive:
            var = data.variables.get(name)
            distance = self.distance(params, var)
            if distance == "hierarchical":
                codes, tree = hierarchy_codes(data.frame[name], self.hierarchy(params, var))
                emd = t_closeness(classes, codes, distance, tree)
            else:
                emd = t_closeness(classes, sensitive_codes(data.frame[name], var, distance),
                                  distance)
            columns[f"t_closeness_{name}"] = emd
            above = None
            if t is not None:
                above = emd > t + 1e-12  # a class exactly at t is t-close
                above_any |= above
            per_var[name] = {"distance": distance, **score_stats(emd, above, "t")}
        summary = class_summary(keys, n, int(rep.size), per_var, "t", t, above_any)
        return MeasureResult(summary, pd.DataFrame(columns, index=data.frame.index))


def sensitive_codes(column: pd.Series, var, distance: str) -> np.ndarray:
    """Integer codes of a sensitive column, -1 for missing: in the order of the values
    (numbers, or an ordinal's declared categories) for ``ordered``, as categories for
    ``equal``."""
    if distance == "equal" or var is None or var.type not in ORDERED_TYPES:
        return key_codes(column.to_frame(), [column.name])[:, 0]
    values = ordered_values(column, var)
    out = np.full(values.size, -1, dtype=np.int64)
    seen = ~np.isnan(values)
    out[seen] = np.unique(values[seen], return_inverse=True)[1].reshape(-1)
    return out


def hierarchy_codes(column: pd.Series, levels: dict) -> tuple[np.ndarray, np.ndarray]:
    """Codes of a categorical sensitive column (-1 for missing) and the hierarchy matrix of
    :func:`sdcflow.kernels.risk.t_closeness.class_emd`: for each code, the id of its
    ancestor at each level of ``levels`` (finest first, value -> parent)."""
    codes, values = pd.factorize(column.astype("string"), sort=True)
    labels = [str(v) for v in values]
    tree = np.zeros((len(labels), len(levels)), dtype=np.int64)
    for j, name in enumerate(levels):
        mapping = hierarchy_mapping(levels, name)
        ancestors = [str(mapping.get(v, v)) for v in labels]
        tree[:, j] = pd.factorize(pd.Series(ancestors, dtype="string"), sort=True)[0]
    return codes.astype(np.int64), tree
