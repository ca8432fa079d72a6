"""Sensitivity rules for table cells (primary suppression) and the protection each
sensitive cell needs (Torra, "Masking methods", 2013, "Protection for tabular data",
"Detection of sensitive cells (I)" and "(II)"; Hundepool et al. 2012, *Statistical
Disclosure Control*, Wiley, sections 4.2 and 4.3).

Every rule is a small frozen dataclass with ``evaluate(table) -> RuleResult``: a boolean
per cell, the rule's name, and the protection levels a sensitive cell needs (how far
above and below its value the interval an intruder can derive must reach):

* ``FrequencyRule(n)``: ``0 < freq < n`` (Torra's (2013) external attack on the single P3 in
  M2, and the internal attack of two doctors); protection ``safety_range`` % of the
  value (tau-Argus' "frequency safety range"), at least ``min_protection``.
* ``DominanceRule(n, k)``: the ``n`` largest contributions exceed ``k`` % of the cell
  value, ``x1 + ... + xn > k/100 T`` (Torra's (2013) "(n,k) rule": "n or less individuals
  contribute with more than k% of the value"); protection ``100/k (x1+...+xn) - T``,
  the amount by which the cell would have to be larger to pass the rule.
* ``PPercentRule(p)``: ``T - x1 - x2 < p/100 x1`` (the standard p% rule: the second
  largest contributor can estimate the largest within p %); protection
  ``p/100 x1 - (T - x1 - x2)``. ``PPercentRule(p, reference="total")`` is Torra's (2013)
  example wording, ``T - x1 - x2 < p/100 T`` ("363 - 350 - 4 < 0.5 * 363").
* ``PQRule(p, q)``: ``T - x1 - x2 < p/q x1`` (q % prior knowledge of every contribution);
  protection ``p/q x1 - (T - x1 - x2)``.
* ``ZeroRule()``: cells whose value is 0 are sensitive (by default zero cells are
  safe, as the other rules leave them); protection ``protection`` upwards only.

The magnitude rules assume non-negative contributions and apply only to cells with a
positive value. :func:`apply_rules` combines rules: a cell is primary when any rule
fires; its protection levels are the largest required by the rules that fired.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ..data.text import text_column
from .table import Table

__all__ = [
    "DominanceRule", "FrequencyRule", "PPercentRule", "PQRule", "RuleResult", "ZeroRule",
    "apply_rules", "mark_primary", "parse_rule", "set_protection",
]


@dataclass(frozen=True)
class RuleResult:
    """Outcome of one rule: ``sensitive`` per cell, the rule ``name``, and the upper and
    lower protection levels (0 where the cell is not sensitive)."""

    sensitive: np.ndarray
    name: str
    upl: np.ndarray
    lpl: np.ndarray


class Rule(Protocol):
    name: str

    def evaluate(self, table: Table) -> RuleResult: ...


# Rule parameters are checked when a rule is made (so that recipes are refused when
# validated): percentages of cell values and protection amounts stay far below the
# magnitudes (1e20) that HiGHS, which audits and solves the suppression, takes as infinite.
MAX_PERCENT = 1000.0
MAX_AMOUNT = 1e15


def _whole(name: str, value) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a whole number >= 1, not {value!r}")


def _amount(name: str, value, limit: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not 0 <= value <= limit:
        raise ValueError(f"{name} must be a number from 0 to {limit:g}, not {value!r}")


def _two_sided(sens: np.ndarray, name: str, level: np.ndarray) -> RuleResult:
    """A rule result whose protection is the same upwards and downwards."""
    return RuleResult(sens, name, level, level.copy())


def _residual_rule(table: Table, name: str, factor: float, by_total: bool) -> RuleResult:
    """The pq and p% rules: sensitive when the rest ``T - x1 - x2`` is below ``factor``
    times the largest contribution ``x1`` (or the total ``T``); protection, both ways,
    the shortfall ``factor * x1 - (T - x1 - x2)``."""
    tops = _tops(table, 2)
    total = table.values
    rest = total - tops[:, 0] - tops[:, 1]
    bound = factor * (total if by_total else tops[:, 0])
    sens = (total > 0) & (rest < bound)
    return _two_sided(sens, name, np.where(sens, bound - rest, 0.0))


def _tops(table: Table, n: int) -> np.ndarray:
    if table.top < n:
        raise ValueError(f"the rule needs the {n} largest contributions, the table keeps "
                         f"{table.top} (build it with top >= {n})")
    cols = table.top_columns[:n]
    tops = table.cells[cols].to_numpy(dtype=float)
    if np.isnan(tops).any():
        raise ValueError("the table has no top contributions (a frequency table or an "
                         "aggregated table read without contributions)")
    return tops


@dataclass(frozen=True)
class FrequencyRule:
    """Minimum frequency: a cell with ``0 < freq < n`` contributors is sensitive
    (``weighted=True`` uses the weighted frequency). Protection (both directions):
    ``safety_range`` % of the cell value, at least ``min_protection``."""

    n: int
    safety_range: float = 10.0
    min_protection: float = 1.0
    weighted: bool = False

    def __post_init__(self):
        _whole("n", self.n)
        _amount("safety_range", self.safety_range, MAX_PERCENT)
        _amount("min_protection", self.min_protection, MAX_AMOUNT)

    @property
    def name(self) -> str:
        return f"freq({self.n})"

    def evaluate(self, table: Table) -> RuleResult:
        f = table.cells["wfreq" if self.weighted else "freq"].to_numpy(dtype=float)
        sens = (f > 0) & (f < self.n)
        level = np.maximum(self.safety_range / 100.0 * np.abs(table.values),
                           self.min_protection)
        level = np.where(sens, level, 0.0)
        return _two_sided(sens, self.name, level)


@dataclass(frozen=True)
class DominanceRule:
    """(n,k)-dominance: sensitive when ``x1 + ... + xn > k/100 * T`` (Torra 2013, "Rule
    (n,k)"). Protection (both directions): ``100/k * (x1 + ... + xn) - T``."""

    n: int
    k: float

    def __post_init__(self):
        _whole("n", self.n)
        if not (isinstance(self.k, (int, float)) and 0 < self.k < 100):
            raise ValueError("k must be a percentage in (0, 100)")

    @property
    def name(self) -> str:
        return f"dominance({self.n},{self.k:g})"

    def evaluate(self, table: Table) -> RuleResult:
        tops = _tops(table, self.n).sum(axis=1)
        total = table.values
        sens = (total > 0) & (tops > self.k / 100.0 * total)
        level = np.where(sens, 100.0 / self.k * tops - total, 0.0)
        return _two_sided(sens, self.name, level)


@dataclass(frozen=True)
class PQRule:
    """pq rule: sensitive when ``T - x1 - x2 < p/q * x1`` (intruders know every
    contribution within q %, and must not estimate one within p %; Hundepool et al. 2012,
    section 4.2.3). Protection (both directions): ``p/q * x1 - (T - x1 - x2)``."""

    p: float
    q: float

    def __post_init__(self):
        if not (all(isinstance(v, (int, float)) for v in (self.p, self.q))
                and 0 < self.p < self.q <= 100):
            raise ValueError("the pq rule needs 0 < p < q <= 100")

    @property
    def name(self) -> str:
        return f"pq({self.p:g},{self.q:g})"

    def evaluate(self, table: Table) -> RuleResult:
        return _residual_rule(table, self.name, self.p / self.q, by_total=False)


@dataclass(frozen=True)
class PPercentRule:
    """p% rule: sensitive when ``T - x1 - x2 < p/100 * x1`` (the standard definition, as
    Torra (2013) states it: "the cell total minus the two largest contributors x1 and x2 is
    less than p% of the largest contribution"; the pq rule with q = 100). Protection
    (both directions): ``p/100 * x1 - (T - x1 - x2)``.

    ``reference="total"`` compares with p % of the cell total instead, as Torra's (2013)
    worked example does ("363 - 350 - 4 < 0.5 * 363"); its protection is then
    ``p/100 * T - (T - x1 - x2)``."""

    p: float
    reference: str = "largest"

    def __post_init__(self):
        if not (isinstance(self.p, (int, float)) and 0 < self.p <= 100):
            raise ValueError("p must be a percentage in (0, 100]")
        if self.reference not in ("largest", "total"):
            raise ValueError("reference must be 'largest' or 'total'")

    @property
    def name(self) -> str:
        suffix = "" if self.reference == "largest" else ",total"
        return f"p%({self.p:g}{suffix})"

    def evaluate(self, table: Table) -> RuleResult:
        return _residual_rule(table, self.name, self.p / 100.0,
                              by_total=self.reference == "total")


@dataclass(frozen=True)
class ZeroRule:
    """Zero cells (value 0, empty cells included) are sensitive: publishing a zero tells
    every respondent's value in it is 0 (group disclosure). Protection: the intruder's
    upper bound must reach ``protection`` (a zero cannot be protected downwards when
    values are non-negative)."""

    protection: float = 1.0

    name = "zero"

    def __post_init__(self):
        _amount("protection", self.protection, MAX_AMOUNT)

    def evaluate(self, table: Table) -> RuleResult:
        sens = table.values == 0
        upl = np.where(sens, self.protection, 0.0)
        return RuleResult(sens, self.name, upl, np.zeros_like(upl))


_KINDS = {"freq": FrequencyRule, "dominance": DominanceRule, "p_percent": PPercentRule,
          "pq": PQRule, "zero": ZeroRule}


def parse_rule(spec: Mapping | Rule) -> Rule:
    """A rule from a one-key mapping, e.g. ``{"freq": 3}``, ``{"freq": {"n": 3,
    "safety_range": 15}}``, ``{"dominance": {"n": 1, "k": 50}}``, ``{"p_percent": 10}``,
    ``{"pq": {"p": 10, "q": 50}}``, ``{"zero": {}}`` (rule objects pass through)."""
    if not isinstance(spec, Mapping):
        return spec
    if len(spec) != 1:
        raise ValueError(f"a rule spec has one key among {sorted(_KINDS)}: {dict(spec)}")
    (kind, args), = spec.items()
    if kind not in _KINDS:
        raise ValueError(f"unknown rule {kind!r}; known: {sorted(_KINDS)}")
    cls = _KINDS[kind]
    if isinstance(args, Mapping):
        return cls(**args)
    if args is None:
        return cls()
    if kind in ("dominance", "pq"):
        return cls(*args)
    first = {"freq": "n", "p_percent": "p", "zero": "protection"}[kind]
    return cls(**{first: args})


def apply_rules(table: Table, rules: Iterable[Mapping | Rule]) -> Table:
    """Primary suppression: mark the cells where any rule fires.

    The returned table's cells get ``status = "primary"`` where sensitive and ``"safe"``
    elsewhere, ``rule`` (the names of the rules that fired, comma separated, "" elsewhere)
    and the protection levels ``upl`` and ``lpl`` (the largest over the rules that fired)
    and ``spl`` (sliding protection, 0; see :func:`set_protection`)."""
    results = [parse_rule(r).evaluate(table) for r in rules]
    n = table.n_cells
    sens = np.zeros(n, dtype=bool)
    upl = np.zeros(n)
    lpl = np.zeros(n)
    names = np.full(n, "", dtype=object)
    for res in results:
        sens |= res.sensitive
        upl = np.maximum(upl, res.upl)
        lpl = np.maximum(lpl, res.lpl)
        hit = res.sensitive
        names[hit] = np.where(names[hit] == "", res.name, names[hit] + "," + res.name)
    return mark_primary(table, sens, upl, lpl, rule=names, reset=True)


def mark_primary(table: Table, mask: np.ndarray, upl: np.ndarray | float = 0.0,
                 lpl: np.ndarray | float = 0.0, spl: np.ndarray | float = 0.0, *,
                 rule: np.ndarray | str = "manual", reset: bool = False) -> Table:
    """Mark the cells of ``mask`` primary with the given protection levels (scalars or
    per-cell arrays); ``reset`` first makes every cell safe, otherwise earlier primary
    cells stay primary with their levels."""
    n = table.n_cells
    cells = table.cells.copy()
    old = cells["status"].to_numpy(dtype=object)
    # the cells of a cover table that no linked table publishes stay so, never primary
    unpublished = old == "unpublished"
    mask = np.asarray(mask, dtype=bool) & ~unpublished
    keep = np.zeros(n, dtype=bool) if reset else old == "primary"
    # (without reset every other cell keeps its status, earlier primaries included)
    status = np.where(mask, "primary", np.where(unpublished, old, "safe" if reset else old))
    cells["status"] = text_column(status, index=cells.index)
    levels = {"upl": upl, "lpl": lpl, "spl": spl}
    for col, level in levels.items():
        prev = cells[col].to_numpy(dtype=float) if col in cells else np.zeros(n)
        level = np.broadcast_to(np.asarray(level, dtype=float), (n,))
        cells[col] = np.where(mask, level, np.where(keep, prev, 0.0))
    prev_rule = (cells["rule"].to_numpy(dtype=object) if "rule" in cells
                 else np.full(n, "", dtype=object))
    rule = np.broadcast_to(np.asarray(rule, dtype=object), (n,))
    cells["rule"] = text_column(np.where(mask, rule, np.where(keep, prev_rule, "")),
                                index=cells.index)
    return table.with_cells(cells)


def set_protection(table: Table, *, percent: float | None = None, fixed: float | None = None,
                   sliding: float | None = None, sliding_percent: float | None = None,
                   upper: bool = True, lower: bool = True) -> Table:
    """Override the protection levels of the primary cells: ``percent`` % of the cell
    value and/or a ``fixed`` amount (the larger of the two) as upper and/or lower
    protection level, and a sliding protection level (the width the interval must
    reach, wherever it lies) of ``sliding`` or ``sliding_percent`` % of the value
    (tau-Argus' upper, lower and sliding protection levels; Hundepool et al. 2012,
    section 4.3.1)."""
    cells = table.cells.copy()
    primary = cells["status"].to_numpy(dtype=object) == "primary"
    val = np.abs(table.values)
    for col in ("upl", "lpl", "spl"):
        if col not in cells:
            cells[col] = 0.0
    if percent is not None or fixed is not None:
        level = np.maximum(0.0 if percent is None else percent / 100.0 * val,
                           0.0 if fixed is None else fixed)
        if upper:
            cells["upl"] = np.where(primary, level, 0.0)
        if lower:
            cells["lpl"] = np.where(primary, level, 0.0)
    if sliding is not None or sliding_percent is not None:
        level = np.maximum(0.0 if sliding_percent is None else sliding_percent / 100.0 * val,
                           0.0 if sliding is None else sliding)
        cells["spl"] = np.where(primary, level, 0.0)
    return table.with_cells(cells)
