"""The measurements of sdcflow's DP steps, constructed by the OpenDP Library (M. Gaboardi,
M. Hay, S. Vadhan et al., "OpenDP: an open-source suite of differential privacy tools",
opendp.org), so that every privacy figure sdcflow states is OpenDP's own.

Every DP step is one OpenDP measurement on a common input: the records, as a vector,
under OpenDP's symmetric distance (neighbouring data sets differ by the records of one
privacy unit added or removed; ``d_in`` is the most records one unit has: 1 for persons,
the recipe's bound for households). A step is made of :class:`Part` s (a table's counts,
its sums, a histogram, a count and a sum for a mean), each a composition over *slices*: a
slice is a set of disjoint cells every record falls in at most once (a table's leaf
cells, its row margins, its grand total, ... one slice per combination of hierarchy
levels), so one record changes one count of a slice by 1 and one sum by at most the
clamping bound. The slice queries are OpenDP transformations where OpenDP has them
(``make_count_by_categories``, ``make_count``, ``make_clamp`` + ``make_sum``); the sums of
a slice's cells (a group-by sum, which OpenDP's vector API lacks) are a user
transformation stating that stability (``make_user_transformation``). The mechanism is
OpenDP's ``make_laplace`` (pure DP, epsilon) or ``make_gaussian`` (zero-concentrated DP,
rho) on integers: the discrete Laplace and discrete Gaussian (Canonne, Kamath & Steinke
2020). The slices and parts compose with ``make_composition`` (sequential composition),
and so do the steps (:mod:`.budget`).

OpenDP builds the measurement and computes its privacy map; its function (which would
draw noise from the operating system's entropy) is never invoked: sdcflow draws the
noise of the same scale from the step's seeded generator
(:mod:`sdcflow.kernels.privacy.dp_noise`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

__all__ = ["Calibrated", "Part", "calibrate", "opendp"]

MECHANISMS = {"epsilon": "laplace", "rho": "gaussian"}


@lru_cache(maxsize=1)
def opendp():
    """The OpenDP prelude with the features sdcflow uses: ``contrib`` (the integer
    mechanisms and the combinators) and ``honest-but-curious`` (the group-by sum's
    stated stability)."""
    import opendp.prelude as dp

    dp.enable_features("contrib", "honest-but-curious")
    return dp


@dataclass(frozen=True)
class Part:
    """One noisy query of a DP step.

    ``kind``: ``"counts"`` (the count of every cell of every slice), ``"sums"`` (the
    sum of every cell, each record's value clamped to ``[lower, upper]``), ``"count"``
    (the number of records), ``"sum"`` (their clamped sum); ``slices``: the number of
    cells of each slice (``counts``/``sums``; the privacy map does not depend on it);
    ``share``: the part of the step's spend it gets."""

    kind: str
    slices: tuple[int, ...] = (1,)
    lower: int = 0
    upper: int = 0
    share: float = 1.0

    @property
    def bound(self) -> int:
        """The most one record changes one answer of a slice by."""
        return 1 if self.kind in ("counts", "count") else max(abs(self.lower),
                                                              abs(self.upper))


def _space():
    dp = opendp()
    return dp.vector_domain(dp.atom_domain(T=str)), dp.symmetric_distance()


def _slice_query(part: Part, cells: int, mechanism: str):
    """The OpenDP transformation of one slice of ``part`` (records -> its answers)."""
    dp = opendp()
    domain, metric = _space()
    out_metric = (dp.l1_distance(T="i64") if mechanism == "laplace"
                  else dp.l2_distance(T="i64"))
    if part.kind == "counts":
        metric_type = dp.L1Distance["i64"] if mechanism == "laplace" else dp.L2Distance["i64"]
        return dp.t.make_count_by_categories(domain, metric,
                                             categories=[str(i) for i in range(cells)],
                                             null_category=False, MO=metric_type, TOA="i64")
    if part.kind == "count":
        return dp.t.make_count(domain, metric)
    if part.kind == "sum":
        return (dp.t.make_cast_default(domain, metric, TOA="i64")
                >> dp.t.then_clamp(bounds=(int(part.lower), int(part.upper)))
                >> dp.t.then_sum())
    if part.kind == "sums":
        bound = part.bound
        # the sums of a slice's cells: a record falls in one cell and changes its sum by
        # at most ``bound``; d_in records change the vector by at most d_in * bound in
        # L1 and in L2 (the group-by sum's stability, stated to OpenDP)
        return dp.t.make_user_transformation(
            domain, metric, dp.vector_domain(dp.atom_domain(T="i64")), out_metric,
            function=_never, stability_map=lambda d_in: int(d_in) * bound)
    raise ValueError(f"unknown DP query {part.kind!r}")


def _never(_data):  # pragma: no cover - OpenDP's function is never invoked by sdcflow
    raise RuntimeError("sdcflow draws DP noise itself")


def _part_measurement(part: Part, mechanism: str, scale: float):
    dp = opendp()
    noise = dp.m.then_laplace if mechanism == "laplace" else dp.m.then_gaussian
    return dp.c.make_composition([_slice_query(part, cells, mechanism) >> noise(scale)
                                  for cells in part.slices])


def step_measurement(parts: tuple[Part, ...], mechanism: str, scales: tuple[float, ...]):
    """The OpenDP measurement of a step: its parts composed, each at its scale."""
    dp = opendp()
    return dp.c.make_composition([_part_measurement(p, mechanism, s)
                                  for p, s in zip(parts, scales, strict=True)])


@dataclass(frozen=True)
class Calibrated:
    """A step's noise: the mechanism, the scale of each part, what it spends (OpenDP's
    privacy map at ``d_in``, never more than the step declared) and the measurement."""

    mechanism: str
    measure: str  # "epsilon" or "rho"
    scales: tuple[float, ...]
    spent: float
    measurement: object


def _first_scale(part: Part, measure: str, spend: float, d_in: int) -> float:
    """The scale that spends ``part.share * spend`` in theory: Laplace ``S d b / e``,
    Gaussian ``d b sqrt(S / (2 r))`` (``S`` slices, sensitivity ``d b`` each)."""
    s = len(part.slices)
    sens = d_in * part.bound
    if measure == "epsilon":
        return s * sens / (part.share * spend)
    return sens * math.sqrt(s / (2.0 * part.share * spend))


def calibrate(parts: tuple[Part, ...], measure: str, spend: float, d_in: int) -> Calibrated:
    """The scales at which the step's ``parts`` spend at most ``spend`` (``measure``:
    ``epsilon`` for the discrete Laplace, ``rho`` for the discrete Gaussian) when one
    privacy unit has at most ``d_in`` records, as OpenDP's privacy map states it: each
    scale is raised by a relative 1e-12 at a time while the map exceeds ``spend`` (OpenDP
    rounds its arithmetic up)."""
    mechanism = MECHANISMS[measure]
    scales = [_first_scale(p, measure, spend, d_in) for p in parts]
    for _ in range(64):
        measurement = step_measurement(tuple(parts), mechanism, tuple(scales))
        spent = float(measurement.map(d_in))
        if spent <= spend:
            return Calibrated(mechanism, measure, tuple(scales), spent, measurement)
        scales = [float(np.nextafter(s * (1 + 1e-12), math.inf)) for s in scales]
    raise ValueError(f"no scale spends at most {measure} {spend}")  # pragma: no cover
