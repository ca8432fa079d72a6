"""Information loss of a full-domain generalisation with suppressed records, for the
lattice search of :mod:`sdcflow.kernels.privacy.lattice`.

A node of the lattice gives each key variable ``j`` a level ``l_j`` of its hierarchy
(height ``h_j``: its number of levels minus one); records of equivalence classes that
fail the privacy targets are suppressed (``s`` of the ``n`` records), as in ARX
(Prasser & Kohlmayer, "Putting statistical disclosure control into practice: the ARX
data anonymization tool", 2015). Each loss gives its value and a *bound*: the value the
node's generalisation alone would cost with no record suppressed. The bound never
exceeds the value and never decreases when a variable is generalised further, which is
what lets the search skip nodes that cannot beat the best one found.

* ``precision``: Sweeney's precision loss ``1 - Prec`` (L. Sweeney, "Achieving
  k-anonymity privacy protection using generalization and suppression", 2002), i.e. the
  generalisation intensity: per record and variable ``w_j l_j / h_j`` (a suppressed value
  counts 1), averaged over records and divided by the sum of the weights; in [0, 1].
* ``discernibility``: ``sum |E|^2`` over the released classes plus ``n`` for each
  suppressed record (R. Bayardo & R. Agrawal, "Data privacy through optimal
  k-anonymization", ICDE 2005).
* ``non_uniform_entropy``: ``sum_j w_j sum_records -log2 P(original value | released
  value)``, with P the share of the released value's records holding the original value
  in the input (A. Gionis & T. Tassa, "k-Anonymization with minimal loss of
  information", IEEE TKDE 21(2), 2009; as ARX computes it); a suppressed value's
  released value covers every record. In bits.
* ``average_class_size``: ``n / classes``, the suppressed records counting as one class
  (ARX's "Average equivalence class size", AECS: F. Prasser, F. Kohlmayer et al.,
  ``MetricSDAECS``);
* ``normalized_average_class_size``: the same divided by k, ``(n / classes) / k`` (K.
  LeFevre, D. DeWitt & R. Ramakrishnan, "Mondrian multidimensional k-anonymity", ICDE
  2006: the normalized average equivalence class size metric, C_AVG).

How a suppressed record is charged (``suppression_loss``), for precision,
discernibility and non-uniform entropy:

* ``full`` (the above): as a value generalised to the top (precision 1 per value, ``n``
  in discernibility, a released value covering every record in the entropy);
* ``arx_monotonic``: as ARX's monotonic metrics (``Metric.createPrecomputedEntropyMetric
  (threshold, true)``, ``createDiscernabilityMetric(true)`` -- "Monotonic discernability
  (DM*)" -- and the monotonic precision): suppression is not charged, a suppressed
  record costs what its class costs at the node's generalisation, so the loss is the
  bound (DM* is ``sum |E|^2`` over every class, suppressed ones included);
* ``arx_non_monotonic``: as ARX's non-monotonic metrics (the default of
  ``createPrecomputedEntropyMetric(threshold)``; "Non-monotonic discernability"): the
  precision and the discernibility charge as ``full``; in the non-uniform entropy a
  suppressed value's released value covers the *suppressed* records only: on top of its
  generalisation at the node (counted for every record), each suppressed record costs
  ``-log2(c / s)`` per variable, ``c`` the suppressed records sharing its generalised
  value, ``s`` the suppressed records (``MetricMDNUNMEntropyPrecomputed``).

ARX weighs generalisation and suppression with its gs-factor (default 0.5: both
weigh 1); the ``0.1`` of ``createPrecomputedEntropyMetric(0.1, ...)`` is not that factor
but the threshold of distinct values under which ARX precomputes the metric, which does
not change its value.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..jit import njit

LOSSES = ("precision", "discernibility", "non_uniform_entropy", "average_class_size",
          "normalized_average_class_size")
WEIGHTED = ("precision", "non_uniform_entropy")  # the losses that add up over variables
SUPPRESSION_LOSSES = ("full", "arx_monotonic", "arx_non_monotonic")
CLASS_SIZE = ("average_class_size", "normalized_average_class_size")


@dataclass
class LossContext:
    """What a loss needs to know of the data: the units' level-0 codes (u x m) and
    record counts, each variable's generalisation ``maps`` (levels x codes) and weights,
    the k of the normalized average class size and how a suppressed record is charged
    (one of :data:`SUPPRESSION_LOSSES`)."""

    name: str
    codes: np.ndarray
    counts: np.ndarray
    maps: Sequence[np.ndarray]
    weights: np.ndarray
    k: int = 1
    suppression: str = "full"
    heights: np.ndarray = field(init=False)
    _entropy: list = field(init=False, default_factory=list)
    _sums: list = field(init=False, default_factory=list)
    _top: np.ndarray | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        if self.name not in LOSSES:
            raise ValueError(f"loss must be one of {LOSSES}, not {self.name!r}")
        if self.suppression not in SUPPRESSION_LOSSES:
            raise ValueError(f"suppression_loss must be one of {SUPPRESSION_LOSSES}, not "
                             f"{self.suppression!r}")
        self.heights = np.array([len(m) - 1 for m in self.maps], dtype=np.int64)
        self.weights = np.asarray(self.weights, dtype=float)
        if self.name == "non_uniform_entropy":
            self._prepare_entropy()

    @property
    def n(self) -> float:
        return float(self.counts.sum())

    def _prepare_entropy(self) -> None:
        """Per variable and level, each level-0 code's ``-log2 P(original | generalised)``
        (a unit's is its code's) and their sum over the records: computed per code, not
        per unit (the codes are few, the units many)."""
        # (the records of each variable's codes, all variables in one compiled pass)
        every_f0 = self._code_counts()
        for j, maps in enumerate(self.maps):
            f0 = every_f0[j, :maps.shape[1]]
            seen = f0 > 0
            per_level, sums = [], []
            for level in maps:
                fg = np.bincount(level, weights=f0, minlength=int(level.max()) + 1)
                cost = np.zeros(len(f0))
                cost[seen] = np.log2(fg[level[seen]]) - np.log2(f0[seen])
                per_level.append(cost)
                # (math.fsum: the correctly rounded sum, the same on every machine)
                sums.append(math.fsum((f0[seen] * cost[seen]).tolist()))
            self._entropy.append(per_level)
            self._sums.append(sums)

    def _code_counts(self) -> np.ndarray:
        """The records of each level-0 code of each variable (m x the most codes), as
        ``np.bincount(codes[:, j], weights=counts)`` counts them (added in unit order)."""
        size = max((mp.shape[1] for mp in self.maps), default=0)
        return _code_counts(np.ascontiguousarray(self.codes, dtype=np.int64),
                            np.asarray(self.counts, dtype=np.float64), size)

    def _unit_entropy(self, j: int, level: int, units: np.ndarray) -> np.ndarray:
        """The units' ``-log2 P(original | generalised)`` for variable j at a level."""
        return self._entropy[j][level][self.codes[units, j]]

    def _unit_top(self, units: np.ndarray) -> np.ndarray:
        """The units' cost with every variable at the top (a suppressed record's)."""
        if self._top is None:
            n = self.n
            top = np.zeros(len(self.codes))
            every_f0 = self._code_counts()
            for j, maps in enumerate(self.maps):
                code = self.codes[:, j]
                f0 = every_f0[j, :maps.shape[1]]
                top += self.weights[j] * (np.log2(n) - np.log2(f0[code]))
            self._top = top
        return self._top[units]

    def static_bound(self, node: Sequence[int]) -> float:
        """The loss of ``node`` with no record suppressed, when it can be told from the
        levels alone (precision, non-uniform entropy); 0 otherwise."""
        if self.name == "precision":
            return _intensity(node, self.heights, self.weights)
        if self.name == "non_uniform_entropy":
            return float(sum(self.weights[j] * self._sums[j][lv] for j, lv in enumerate(node)))
        return 0.0

    def static_bounds(self, levels: np.ndarray) -> list[float]:
        """:meth:`static_bound` of every node (``levels``: one row of levels per node),
        the same floats: non-uniform entropy's sums added variable by variable in the
        order the single node's are."""
        levels = np.asarray(levels, dtype=np.int64)
        if self.name == "non_uniform_entropy":
            total = np.zeros(len(levels))
            for j in range(levels.shape[1]):
                total += self.weights[j] * np.asarray(self._sums[j])[levels[:, j]]
            return total.tolist()
        if self.name == "precision":
            return [self.static_bound(v) for v in levels.tolist()]
        return [0.0] * len(levels)

    def bound(self, node: Sequence[int], class_counts: np.ndarray) -> float:
        """The loss of ``node`` (whose classes have ``class_counts`` records) with no
        record suppressed: a lower bound of its loss and of every node above it."""
        n = self.n
        if self.name == "discernibility":
            return float((class_counts.astype(float) ** 2).sum())
        if self.name in CLASS_SIZE:
            return n / len(class_counts) / self._divisor if len(class_counts) else 0.0
        return self.static_bound(node)

    @property
    def _divisor(self) -> int:
        return self.k if self.name == "normalized_average_class_size" else 1

    def value(self, node: Sequence[int], class_counts: np.ndarray, class_ok: np.ndarray,
              suppressed_units: np.ndarray | None = None) -> float:
        """The loss of ``node`` whose classes have ``class_counts`` records, those with
        ``class_ok`` false suppressed (``suppressed_units``: which units; needed by the
        non-uniform entropy only, when some class is suppressed)."""
        n = self.n
        s = float(class_counts[~class_ok].sum())
        if self.name in CLASS_SIZE:
            classes = int(class_ok.sum()) + (1 if s > 0 else 0)
            return n / classes / self._divisor if classes else 0.0
        if s == 0 or self.suppression == "arx_monotonic":
            return self.bound(node, class_counts)
        if self.name == "precision":
            g = _intensity(node, self.heights, self.weights)
            return ((n - s) * g + s) / n if n else 0.0
        if self.name == "discernibility":
            return float((class_counts[class_ok].astype(float) ** 2).sum() + s * n)
        if suppressed_units is None:
            raise ValueError("non-uniform entropy needs the suppressed units")
        units = np.flatnonzero(suppressed_units)
        bound = self.static_bound(node)
        if self.suppression == "arx_non_monotonic":
            return bound + self._among_suppressed(node, units)
        extra = self._unit_top(units).copy()
        for j, lv in enumerate(node):
            extra -= self.weights[j] * self._unit_entropy(j, lv, units)
        return bound + float(self.counts[units] @ extra)

    def _among_suppressed(self, node: Sequence[int], units: np.ndarray) -> float:
        """``sum_j w_j sum_(suppressed records) -log2(c / s)``: the entropy of the
        suppressed records' generalised values at the node given that they are
        suppressed (ARX's non-monotonic non-uniform entropy)."""
        counts = self.counts[units].astype(float)
        s = counts.sum()
        total = 0.0
        for j, lv in enumerate(node):
            g = self.maps[j][lv][self.codes[units, j]]
            c = np.bincount(g, weights=counts)
            c = c[c > 0]
            total += self.weights[j] * float(-(c * np.log2(c / s)).sum())
        return total


def _intensity(node: Sequence[int], heights: np.ndarray, weights: np.ndarray) -> float:
    """``sum_j w_j l_j / h_j / sum_j w_j`` (variables that cannot be generalised: 0)."""
    levels = np.asarray(node, dtype=float)
    share = np.divide(levels, heights, out=np.zeros_like(levels), where=heights > 0)
    total = weights.sum()
    return float(weights @ share / total) if total > 0 else 0.0


@njit(cache=True)
def _code_counts(codes, counts, size):  # pragma: no cover - numba
    """``out[j, c]``: the sum of ``counts`` over the units whose code j is c, added in
    unit order."""
    n, m = codes.shape
    out = np.zeros((m, size))
    for i in range(n):
        w = counts[i]
        for j in range(m):
            out[j, codes[i, j]] += w
    return out
