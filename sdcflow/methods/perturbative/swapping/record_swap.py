"""``record_swap``: targeted record swapping of whole households between geographic areas,
the method recommended by Eurostat for the 2021 European census (Shlomo, Tudor & Groom,
"Data swapping for protecting census tables", 2010; sdcMicro 5.8's ``recordSwap``:
J. Gussenbauer, "Targeted Record Swapping", sdcMicro vignette, 2023). The
algorithm, and where it differs from sdcMicro, is described in
:mod:`sdcflow.kernels.perturbative.swapping.record_swap`.

A household is high-risk at the first level of the hierarchy where one of its members is
in a combination of the risk variables with fewer than ``k_anonymity`` records in the
area (or where the given risk exceeds ``risk_threshold``); every high-risk household is
swapped with a donor from another area of that level that shares its similarity profile,
when one exists, and further households are swapped until ``swaprate`` of them are.
Swapping exchanges the geographic variables (and the ``carry_along`` ones) of the two
households, for every member. The household id is the variable with role household; with
none, every record is a household of its own.

The swapped households are not listed anywhere: ``info`` gives counts only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import numpy as np
import pandas as pd

from ....data.codes import key_codes
from ....data.households import first_members, household_units
from ....kernels.perturbative.swapping.record_swap import (
    high_risk_levels,
    household_max,
    level_counts,
    record_swap,
)
from ....kernels.risk.frequencies import row_ids
from ....plugins.plain_words import figure, get, names
from ....plugins.registry import Method, MethodResult, register, unchanged

_NAMES = {"type": "array", "items": {"type": "string"}, "uniqueItems": True}
_SHOW = 5


@register
class RecordSwap(Method):
    name = "record_swap"
    protects = True
    permutes = True  # values move between records; each column keeps its values
    summary = ("Targeted record swapping: exchange the geography of high-risk households "
               "(and of a share of all) with similar households of other areas.")
    households = "own"  # it swaps whole households itself
    # the swap rate and the risk rule would tell an intruder which households moved
    public_params = ("hierarchy", "similar", "carry_along")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["hierarchy", "similar"],
        "properties": {
            "hierarchy": {**_NAMES, "minItems": 1,
                          "description": "Geographic variables, top level first (e.g. "
                                         "region, district, municipality): the variables "
                                         "swapped, and the areas of the risk counts."},
            "similar": {"type": "array", "minItems": 1,
                        "items": {**_NAMES, "minItems": 1},
                        "description": "Similarity profiles, tried in order: a donor must "
                                       "have the recipient's values of every variable of "
                                       "the profile (household-level variables, e.g. "
                                       "[[hsize, htype], [hsize]])."},
            "swaprate": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.05,
                         "description": "Share of the households to swap (a swap moves "
                                        "two), high-risk ones included."},
            "risk_variables": {**_NAMES, "minItems": 1,
                               "description": "Variables whose combinations are counted "
                                              "in each area for the k-anonymity risk."},
            "k_anonymity": {"type": "integer", "minimum": 0,
                            "description": "A household is high-risk where a member's "
                                           "count is below k (default 3; 0: no household "
                                           "is high-risk)."},
            "risk": {"oneOf": [{"type": "string"}, {**_NAMES, "minItems": 1}],
                     "description": "Instead of the counts: a numeric risk variable, or "
                                    "one per hierarchy level (top first); a household's "
                                    "risk is its members' largest."},
            "risk_threshold": {"type": "number", "minimum": 0,
                               "description": "With risk: high-risk above this value."},
            "carry_along": {**_NAMES, "default": [],
                            "description": "Household-level variables swapped with the "
                                           "geography."},
        },
        "oneOf": [{"required": ["risk_variables"],
                   "not": {"anyOf": [{"required": ["risk"]},
                                     {"required": ["risk_threshold"]}]}},
                  {"required": ["risk", "risk_threshold"],
                   "not": {"anyOf": [{"required": ["risk_variables"]},
                                     {"required": ["k_anonymity"]}]}}],
        "x-error": ("give risk_variables (with k_anonymity), or risk with risk_threshold, "
                    "not both"),
    }

    # --- declarations --------------------------------------------------------------------
    @staticmethod
    def _risk(params: Mapping) -> list[str]:
        risk = params.get("risk")
        return [risk] if isinstance(risk, str) else list(risk or [])

    @staticmethod
    def _similar(params: Mapping) -> list[str]:
        out: list[str] = []
        for profile in params.get("similar") or []:
            out += [v for v in profile if v not in out]
        return out

    def named_variables(self, params):
        out = []
        for key in ("hierarchy", "risk_variables", "carry_along"):
            out += [((key, i), v) for i, v in enumerate(params.get(key) or [])]
        for i, profile in enumerate(params.get("similar") or []):
            out += [(("similar", i, j), v) for j, v in enumerate(profile)]
        if isinstance(params.get("risk"), str):
            out.append((("risk",), params["risk"]))
        else:
            out += [(("risk", i), v) for i, v in enumerate(params.get("risk") or [])]
        return out

    def variables(self, params, meta):
        return list(params.get("hierarchy") or []) + [
            v for v in params.get("carry_along") or [] if v not in params.get("hierarchy", [])]

    def reads(self, params, meta):
        return (set(self.variables(params, meta)) | set(self._similar(params))
                | set(params.get("risk_variables") or []) | set(self._risk(params))
                | set(meta.names("household")[:1]))

    def outputs(self, params, meta):
        return unchanged(self.variables(params, meta), meta)  # values exchanged, not changed

    def check(self, params, meta):
        ids = meta.names("household")
        if len(ids) > 1:
            yield (), (f"several variables have role household ({', '.join(ids)}); record "
                       "swapping needs one household id")
        hierarchy = list(params.get("hierarchy") or [])
        for path, name in self.named_variables(params):
            var = meta.variables.get(name)
            if var is None:
                yield path, f"'{name}' is not a declared variable"
                continue
            if path[0] == "carry_along" and name in hierarchy:
                yield path, f"'{name}' is in the hierarchy: it is swapped already"
            if path[0] == "risk" and var.type not in ("integer", "continuous"):
                yield path, (f"the risk variable '{name}' is {var.type}: it must be a number "
                             "(type integer or continuous)")
            if ids and path[0] in ("hierarchy", "similar", "carry_along") and \
                    var.level != "household" and name != ids[0]:
                what = {"hierarchy": "geographic variables are swapped",
                        "similar": "donors are matched",
                        "carry_along": "carried-along variables are swapped"}[path[0]]
                yield path, (f"{what} by household, so '{name}' must be the same for every "
                             f"member: declare it level: household (under variables.{name})")
        risk = self._risk(params)
        if isinstance(params.get("risk"), list) and len(risk) != len(hierarchy):
            yield ("risk",), (f"give one risk variable per hierarchy level ({len(hierarchy)}), "
                              f"not {len(risk)}; or a single one for every level")

    def check_data(self, params, data):
        frame = data.frame
        seen = set()
        for path, name in self.named_variables(params):
            if name in seen or name not in frame:
                continue
            seen.add(name)
            missing = frame[name].isna().to_numpy()
            if missing.any():
                rows = ", ".join(str(r + 1) for r in np.flatnonzero(missing)[:_SHOW])
                many = missing.sum() > 1
                yield path, (f"'{name}' has {int(missing.sum())} missing value"
                             f"{'s' if many else ''} (record{'s' if many else ''} {rows}); "
                             "record swapping needs a value for every record")
            elif path[0] == "risk":
                values = frame[name].to_numpy(dtype=float)
                bad = ~np.isfinite(values) | (values < 0)
                if bad.any():
                    rows = ", ".join(str(r + 1) for r in np.flatnonzero(bad)[:_SHOW])
                    yield path, (f"the risk '{name}' must be a finite number >= 0; "
                                 f"{int(bad.sum())} records are not (records {rows})")

    def explain(self, params, result):
        geo = names(params.get("hierarchy") or []) or "the geographic variables"
        text = (f"Households exchanged their {geo} with similar households of other areas "
                "(targeted record swapping; Shlomo, Tudor & Groom 2010).")
        swapped = get(result, "swapped_households")
        if swapped is not None:
            text += (f" {figure(swapped)} of {figure(get(result, 'households'))} households "
                     f"were swapped, {figure(get(result, 'high_risk'))} of them high-risk")
            left = get(result, "high_risk_not_swapped")
            text += (f"; {figure(left)} high-risk households had no donor." if left
                     else ".")
        return text

    # --- the work ------------------------------------------------------------------------
    def apply(self, data, params, rng):
        frame = data.frame
        hierarchy = list(params["hierarchy"])
        ids = data.meta.names("household")
        if ids:
            units, hh = household_units(frame[ids[0]])
        else:
            units, hh = np.arange(len(frame), dtype=np.int64), len(frame)
        firsts = first_members(units, hh)
        heads = frame.iloc[firsts]
        geo_records = key_codes(frame, hierarchy)
        geo = geo_records[firsts]
        profiles = np.column_stack(
            [row_ids(key_codes(heads, list(p)))[0] for p in params["similar"]]
        ) if hh else np.zeros((0, len(params["similar"])), dtype=np.int64)
        nlev = len(hierarchy)
        if "risk" in params:
            names_ = self._risk(params)
            values = np.column_stack([frame[n].to_numpy(dtype=float) for n in names_])
            if values.shape[1] == 1:
                values = np.repeat(values, nlev, axis=1)
            risk = household_max(values, units, hh)
            threshold = float(params["risk_threshold"])
            rule = {"risk": names_ if len(names_) > 1 else names_[0],
                    "risk_threshold": threshold}
        else:
            k = int(params.get("k_anonymity", 3))
            counts = level_counts(key_codes(frame, list(params["risk_variables"])),
                                  geo_records)
            risk = household_max(1.0 / counts, units, hh)
            threshold = 1.0 / k if k > 0 else np.inf
            rule = {"k_anonymity": k}
        levels = high_risk_levels(risk, threshold)
        out = record_swap(geo, profiles, risk, levels, float(params["swaprate"]), rng)
        swapped = out.partner >= 0
        source = np.arange(len(frame), dtype=np.int64)
        moved = swapped[units]
        source[moved] = firsts[out.partner[units[moved]]]
        columns = {name: pd.Series(frame[name].array.take(source), index=frame.index,
                                   name=name)
                   for name in self.variables(params, data.meta)}
        size = np.bincount(units, minlength=hh)
        high = levels < nlev
        info = {
            **rule,
            "households": int(hh),
            "records": len(frame),
            "high_risk": int(high.sum()),
            "high_risk_by_level": _by_level(hierarchy, levels[high]),
            "high_risk_not_swapped": int(out.no_donor.sum()),
            "high_risk_not_swapped_by_level": _by_level(hierarchy, levels[out.no_donor]),
            "swaps": int(out.recipient.sum()),
            "swaps_by_level": _by_level(hierarchy, out.level[out.recipient]),
            "target_swaps": int(out.target),
            "swapped_households": int(swapped.sum()),
            "swapped_records": int(size[swapped].sum()),
            "percent_swapped": round(100.0 * swapped.sum() / hh, 4) if hh else 0.0,
        }
        return MethodResult(data.with_columns(columns), info)


def _by_level(hierarchy: list[str], levels: np.ndarray) -> dict[str, int]:
    """Counts of ``levels`` (0..L-1) by the name of the level's variable."""
    counts = np.bincount(levels.astype(np.int64), minlength=len(hierarchy))
    return {name: int(c) for name, c in zip(hierarchy, counts)}
