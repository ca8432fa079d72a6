"""The recipe's privacy budget and what its DP steps spend of it.

A recipe declares ``privacy_budget``: ``{epsilon: E}`` (pure differential privacy,
Dwork, McSherry, Nissim & Smith 2006), ``{rho: R}`` (zero-concentrated DP, Bun & Steinke
2016; with ``delta`` the total is also stated as (epsilon, delta)), or
``{epsilon: E, delta: D}`` (approximate DP). Each DP step declares what it spends: its own
``epsilon`` (discrete Laplace noise) or ``rho`` (discrete Gaussian noise). The steps
compose sequentially, as OpenDP composes them (``make_composition``):

* epsilon budget: every step spends epsilon; the total is their composition;
* rho budget: epsilon steps become zCDP (``make_pureDP_to_zCDP``: rho = epsilon^2 / 2) and
  compose with the rho steps; with ``delta`` the total converts to approximate DP
  (``make_zCDP_to_approxDP``) and its epsilon at ``delta`` is reported;
* epsilon + delta budget: the epsilon steps compose as pure DP (``make_approximate``:
  (epsilon, 0)), the rho steps compose in zCDP and convert to (epsilon, delta)
  (``make_zCDP_to_approxDP``, ``make_fix_delta``), and the two compose: the total's
  epsilon must stay within the budget's.

The privacy unit is a person (one record), or a household (``unit: household``) of at most
``max_records`` records: DP steps keep the first ``max_records`` records of each household
(in data order) and OpenDP's maps are taken at ``d_in = max_records``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .accounting import Calibrated, opendp

__all__ = ["Budget", "composed"]


@dataclass(frozen=True)
class Budget:
    """A recipe's ``privacy_budget``."""

    epsilon: float | None = None
    rho: float | None = None
    delta: float | None = None
    unit: str = "person"
    max_records: int = 1

    @classmethod
    def from_recipe(cls, spec: Mapping) -> Budget:
        unit = spec.get("unit", "person")
        return cls(epsilon=_number(spec.get("epsilon")), rho=_number(spec.get("rho")),
                   delta=_number(spec.get("delta")), unit=unit,
                   max_records=int(spec.get("max_records", 1)) if unit == "household" else 1)

    @property
    def model(self) -> str:
        """``pure``, ``zcdp`` or ``approx``."""
        if self.rho is not None:
            return "zcdp"
        return "approx" if self.delta is not None else "pure"

    @property
    def d_in(self) -> int:
        """The most records of one privacy unit (the symmetric distance of neighbours)."""
        return self.max_records

    def allows(self, measure: str) -> bool:
        """Whether a step spending ``measure`` (epsilon or rho) fits the budget's model."""
        return measure == "epsilon" or self.model != "pure"

    def as_dict(self) -> dict:
        out = {k: v for k, v in (("epsilon", self.epsilon), ("rho", self.rho),
                                 ("delta", self.delta)) if v is not None}
        out["unit"] = self.unit
        if self.unit == "household":
            out["max_records"] = self.max_records
        return out

    def describe(self) -> str:
        return ", ".join(f"{k} {v:g}" for k, v in self.as_dict().items()
                         if k in ("epsilon", "rho", "delta"))


def _number(value) -> float | None:
    return None if value is None else float(value)


def composed(budget: Budget, steps: Mapping[str, Calibrated]) -> dict:
    """The total the ``steps`` spend, composed by OpenDP under ``budget``'s model:
    ``{"epsilon": .., "delta": ..}`` or ``{"rho": .., ["epsilon": .., "delta": ..]}``,
    and ``over``: whether it exceeds the budget."""
    dp = opendp()
    d_in = budget.d_in
    pure = [c.measurement for c in steps.values() if c.measure == "epsilon"]
    zcdp = [c.measurement for c in steps.values() if c.measure == "rho"]
    if budget.model == "pure":
        eps = float(dp.c.make_composition(pure).map(d_in)) if pure else 0.0
        return {"epsilon": eps, "over": eps > budget.epsilon}
    if budget.model == "zcdp":
        parts = zcdp + [dp.c.make_pureDP_to_zCDP(m) for m in pure]
        if not parts:
            return {"rho": 0.0, "over": False}
        total = dp.c.make_composition(parts)
        out: dict = {"rho": float(total.map(d_in))}
        if budget.delta is not None:
            profile = dp.c.make_zCDP_to_approxDP(total).map(d_in)
            out.update(epsilon=float(profile.epsilon(budget.delta)), delta=budget.delta)
        out["over"] = out["rho"] > budget.rho
        return out
    parts = []
    if pure:
        parts.append(dp.c.make_approximate(dp.c.make_composition(pure)))
    if zcdp:
        parts.append(dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(
            dp.c.make_composition(zcdp)), budget.delta))
    if not parts:
        return {"epsilon": 0.0, "delta": 0.0, "over": False}
    eps, delta = dp.c.make_composition(parts).map(d_in)
    return {"epsilon": float(eps), "delta": float(delta), "over": float(eps) > budget.epsilon}
