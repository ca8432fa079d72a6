"""What DP plugins share: the parameters that say what a step spends (``epsilon`` or
``rho``), their check, and the calibration of a step's noise against the recipe's
budget."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from typing import ClassVar

from .accounting import Calibrated, Part, calibrate

SPEND_PARAMS: dict = {
    "epsilon": {"type": "number", "exclusiveMinimum": 0, "maximum": 100,
                "description": "Privacy loss the step spends in pure DP (discrete Laplace "
                               "noise); counts against the recipe's privacy_budget."},
    "rho": {"type": "number", "exclusiveMinimum": 0, "maximum": 100,
            "description": "Privacy loss the step spends in zero-concentrated DP (discrete "
                           "Gaussian noise); needs a budget in rho or (epsilon, delta)."},
}
SPEND_NAMES = tuple(SPEND_PARAMS)
UNIT = "privacy_unit_records"
UNIT_PARAM: dict = {
    UNIT: {"type": "integer", "minimum": 1, "maximum": 1000,
           "description": "Set by sdcflow from the recipe's privacy_budget (the most "
                          "records of one privacy unit); not to be given in the recipe."},
}


class DPStep(ABC):
    """Mixin of the plugins that spend the recipe's privacy budget. A plugin lists its
    noisy queries in :meth:`dp_parts`; the budget's validation
    (:mod:`sdcflow.recipe._privacy`) and the plugin itself calibrate them with
    :meth:`calibrated`."""

    differentially_private: ClassVar[bool] = True

    @abstractmethod
    def dp_parts(self, params: Mapping, recipe, step) -> tuple[Part, ...]:
        """The step's noisy queries, from its parameters and the recipe's declarations
        (the number of cells of a slice does not change the privacy map: validation may
        give 1); every DP plugin declares its own."""

    @staticmethod
    def spend_of(params: Mapping) -> tuple[str, float] | None:
        """``(epsilon|rho, value)`` the step declares, or None."""
        for name in SPEND_NAMES:
            if params.get(name) is not None:
                return name, float(params[name])
        return None

    def spend_text(self, params: Mapping) -> str:
        """What the step spends, in words for the report: "epsilon 0.5"."""
        from ..plugins.plain_words import figure

        spend = self.spend_of(params)
        return f"{spend[0]} {figure(spend[1])}" if spend else "its share of the budget"

    def check_spend(self, params: Mapping) -> Iterable[tuple[tuple, str]]:
        given = [n for n in SPEND_NAMES if params.get(n) is not None]
        if not given:
            yield (), "say what the step spends of the privacy budget: give epsilon or rho"
        elif len(given) > 1:
            yield (given[1],), "give epsilon or rho, not both"

    @staticmethod
    def unit_records(params: Mapping) -> int:
        """The most records of one privacy unit (OpenDP's ``d_in``), as validation set it
        from the budget."""
        return int(params.get(UNIT, 1))

    def calibrated(self, params: Mapping, parts: tuple[Part, ...], d_in: int) -> Calibrated:
        measure, value = self.spend_of(params)
        return calibrate(parts, measure, value, d_in)


def unit_mask(units, max_records: int):
    """Which records a DP step keeps when a privacy unit (a household) may contribute at
    most ``max_records`` records: the first ``max_records`` of each unit, in data order
    (``units``: each record's unit id, any hashable values; None: every record is a unit
    of its own)."""
    import numpy as np
    import pandas as pd

    if units is None or max_records is None:
        return None
    rank = pd.Series(np.asarray(units, dtype=object)).groupby(
        np.asarray(units, dtype=object), sort=False, dropna=False).cumcount().to_numpy()
    return rank < max_records


class DPMeasureMixin(DPStep):
    """What the DP measures share: the records they keep (households truncated to the
    budget's ``max_records``), their public summary (all of it: a DP release)."""

    def kept(self, data, params):
        """The data's frame restricted to the records of each privacy unit the step uses."""
        d_in = self.unit_records(params)
        frame = data.frame
        if d_in == 1:
            return frame
        hh = [n for n, v in data.variables.items() if v.role == "household"]
        if not hh or hh[0] not in frame:
            return frame
        return frame[unit_mask(frame[hh[0]].to_numpy(), d_in)]

    def reads(self, params, meta):
        own = set(self.variables(params, meta))
        if self.unit_records(params) > 1:
            own |= {n for n in meta.names("household")}
        return own

    def public_summary(self, summary, params):
        return dict(summary)  # the noisy statistics are the release: every figure is DP
