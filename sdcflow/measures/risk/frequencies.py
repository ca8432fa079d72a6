"""``frequencies``: the sample frequency ``fk`` of each record's key combination and its
weighted counterpart ``Fk``, an estimate of the population frequency (sdcMicro's
``freqCalc``), with a summary of their distribution.

Also the base of the risk measures (:class:`KeyFrequencyMeasure`): the key variables,
the weight variable (the one with role ``weight``), and the parameters and checks they
share."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import ClassVar

import numpy as np
import pandas as pd

from ...data.codes import key_codes
from ...data.dataset import Dataset, Metadata
from ...kernels.risk.frequencies import class_frequencies, row_ids
from ...plugins.registry import Finding, Measure, MeasureResult, register, variables_param
from ...plugins.results import COUNT, NAMES, NUMBER, TEXT, Null, Shape, record

VARIABLES_PARAM: dict = variables_param(
    "Key variables (default: every variable with role key).", unique=False)
ALPHA_PARAM: dict = {
    "type": "number", "minimum": 0, "maximum": 1, "default": 1,
    "description": "Weight of matches through missing values (sdcMicro's alpha).",
}


def key_variables(params: Mapping, meta: Metadata) -> list[str]:
    """The key variables: ``params["variables"]``, else every variable with role key."""
    if params.get("variables"):
        return list(params["variables"])
    return meta.names("key")


def single_role(meta: Metadata, role: str) -> str | None:
    """The variable with ``role`` (the first if several, which a measure's ``check``
    reports; recipe validation allows one weight variable only)."""
    names = meta.names(role)
    return names[0] if names else None


class KeyFrequencyMeasure(Measure):
    """A measure computed from ``fk``/``Fk`` of the key variables, with the sampling
    weights of the variable with role ``weight`` (none: the data are the population)."""

    roles = ("key",)
    default_roles = ("key",)

    def weight(self, meta: Metadata) -> str | None:
        return single_role(meta, "weight")

    def reads(self, params: Mapping, meta: Metadata) -> set[str]:
        # Fk sums the weights: a changed weight column must invalidate the result
        weight = self.weight(meta)
        return set(self.variables(params, meta)) | ({weight} if weight else set())

    def check(self, params: Mapping, meta: Metadata) -> Iterator[Finding]:
        # (a recipe declares at most one weight variable: validation refuses more)
        if not self.variables(params, meta):
            yield ("variables",), "no key variables: declare variables with role 'key'"

    def check_data(self, params: Mapping, data: Dataset) -> Iterator[Finding]:
        weight = self.weight(data.meta)
        if weight is None or weight not in data.frame:
            return
        w = data.frame[weight].to_numpy(dtype=float, na_value=np.nan)
        missing = int(np.isnan(w).sum())
        if missing:
            yield (), (f"the weight variable '{weight}' has {missing} missing value(s): the "
                       "estimated population frequencies Fk need every weight")
        negative = int((w < 0).sum())
        if negative:
            yield (), f"the weight variable '{weight}' has {negative} negative value(s)"

    def key_frequencies(self, data: Dataset, params: Mapping, codes: np.ndarray | None = None
                        ) -> tuple[np.ndarray, np.ndarray, str | None]:
        """``fk``, ``Fk`` (equal to ``fk`` without weights) and the weight variable used;
        ``codes``: the :func:`key_codes` of the key variables if the caller has them."""
        classes, fk, Fk, weight = self.class_key_frequencies(data, params, codes)
        return fk[classes], Fk[classes], weight

    def class_key_frequencies(self, data: Dataset, params: Mapping,
                              codes: np.ndarray | None = None
                              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, str | None]:
        """:meth:`key_frequencies` per key combination: ``(classes, fk, Fk, weight)``
        with ``classes`` the combination of each record (:func:`class_frequencies`)."""
        if codes is None:
            codes = key_codes(data.frame, self.variables(params, data.meta))
        weight = self.weight(data.meta)
        w = data.frame[weight].to_numpy(dtype=float, na_value=np.nan) if weight else None
        classes, fk, Fk = class_frequencies(codes, w, alpha=float(params["alpha"]))
        return classes, fk, Fk, weight


def _distribution(values: np.ndarray) -> dict:
    if values.size == 0:
        return {"min": None, "median": None, "mean": None, "max": None}
    return {"min": float(values.min()), "median": float(np.median(values)),
            "mean": float(values.mean()), "max": float(values.max())}


DISTRIBUTION = record(min=NUMBER.with_null(), median=NUMBER.with_null(),
                      mean=NUMBER.with_null(), max=NUMBER.with_null())  # null without records


def weight_shape(weight: str | None, shape: Shape = TEXT) -> Shape:
    """``shape``, or null when no variable has role weight."""
    return shape if weight else Null("no variable has role weight")


@register
class Frequencies(KeyFrequencyMeasure):
    name = "frequencies"
    public_params = ("variables", "alpha")
    risk_measure = True
    counts_combinations = True
    summary = "Sample frequency fk and weighted frequency Fk of each record's key combination."
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {"variables": VARIABLES_PARAM, "alpha": ALPHA_PARAM},
    }

    def result_shape(self, params, meta):
        weight = self.weight(meta)
        return record(variables=NAMES, alpha=NUMBER, weight=weight_shape(weight),
                      records=COUNT, combinations=COUNT, sample_uniques=COUNT,
                      records_with_missing_keys=COUNT, fk=DISTRIBUTION,
                      Fk=weight_shape(weight, DISTRIBUTION))

    def evaluate(self, data, params, rng, *, original):
        """``fk`` and ``Fk`` per record (:func:`sdcflow.kernels.risk.frequencies.frequencies`:
        a missing value matches any value, counted ``alpha`` by the others), and: the
        number of distinct key combinations (a missing value as a category of its own),
        the sample uniques (``fk == 1``), the records with a missing key value, and the
        distribution of ``fk`` and (with weights) ``Fk``."""
        keys = self.variables(params, data.meta)
        codes = key_codes(data.frame, keys)
        fk, Fk, weight = self.key_frequencies(data, params, codes)
        n = len(data)
        summary = {
            "variables": keys,
            "alpha": params["alpha"],
            "weight": weight,
            "records": n,
            "combinations": int(row_ids(codes)[1].size) if n else 0,
            "sample_uniques": int((fk == 1).sum()),
            "records_with_missing_keys": int((codes < 0).any(axis=1).sum()),
            "fk": _distribution(fk),
            "Fk": _distribution(Fk) if weight else None,
        }
        per_record = pd.DataFrame({"fk": fk, "Fk": Fk}, index=data.frame.index)
        return MeasureResult(summary, per_record)
