"""What DP plugins share: the parameters that say what a step spends (``epsilon`` or
``rho``), their check, and the calibration of a step's noise against the recipe's
budget."""

from __future__ import annotations

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


class DPStep:
    """Mixin of the plugins that spend the recipe's privacy budget. A plugin lists its
    noisy queries in :meth:`dp_parts`; the budget's validation
    (:mod:`sdcflow.recipe._privacy`) and the plugin itself calibrate them with
    :meth:`calibrated`."""

    differentially_private: ClassVar[bool] = True

    def dp_parts(self, params: Mapping, recipe, step) -> tuple[Part, ...]:
        """The step's noisy queries, from its parameters and the recipe's declarations
        (the number of cells of a slice does not change the privacy map: validation may
        give 1)."""
        raise NotImplementedError

    @staticmethod
    def spend_of(params: Mapping) -> tuple[str, float] | None:
        """``(epsilon|rho, value)`` the step declares, or None."""
        for name in SPEND_NAMES:
            if params.get(name) is not None:
                return name, float(params[name])
        return None

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
