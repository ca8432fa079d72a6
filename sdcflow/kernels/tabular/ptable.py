"""Perturbation tables (ptables) of the cell key method, built as the R package ``ptable``
builds them (T. Enderle, S. Giessing, *ptable: Generation of Perturbation Tables for the
Cell-Key Method*, version 1.0.0, 2023) or read in its layout.

A ptable gives, for each original cell value ``i`` (a count; the last row stands for
every ``i`` at least as large), the transition probabilities ``p`` to the perturbed
values ``j = i + v``. Each row is the maximum-entropy distribution (Giessing, S.,
"Computational issues in the design of transition probabilities and disclosure risk
estimation for additive noise", Privacy in Statistical Databases 2016, LNCS 9867,
pp. 237-251) under the constraints

* ``sum(p) = 1`` and ``sum(p v) = 0`` (unbiased noise);
* ``sum(p v^2) <= V`` (``optim`` 1-3, the package's default), or ``= V`` (``optim`` 4);
* ``|v| <= D`` and ``j >= 0``; with ``js > 0`` the targets ``1..js`` are blocked (no
  perturbed count in ``1..js``), and the rows then run to ``i = D + js + 1``;
* ``1e-8 <= p <= 1``, and with ``mono`` the probabilities rise towards ``v = 0`` on the
  negative side (``p(v) <= p(v + 1)`` for ``v < 0``);
* with ``pstay`` the probability of ``v = 0`` is at least ``pstay``, lowered by 0.05 at
  a time (up to 20 tries) while the variance (rounded to 3 decimals) is not ``V``.

As in the package, each row's cumulative probabilities ``p_int_ub`` and ``p_int_lb =
p_int_ub - p`` are rounded to 8 decimals and ``p`` is then ``p_int_ub - p_int_lb``: a
cell key in ``[p_int_lb, p_int_ub)`` of row ``i`` draws the perturbation ``v``.

Magnitude tables (``table="nums"``): rows ``i`` in ``0`` and ``icat``, targets on a grid
of ``1/step``, no blocking and no ``pstay`` (as the package does).

A ptable that cannot exist is refused with the reason (:class:`PTableError`), before any
row is built: for every row, linear programs give the least and the largest variance an
unbiased row can have with every ``p >= 1e-8`` (``p(0)`` at least the lowest bound the
``pstay`` loop reaches) and the monotony; the row is refused when its targets allow no
unbiased perturbation, when its least variance is above ``V`` (the package's "The variance
parameter you set is too small!"; e.g. ``D = 3, V = 2, js = 2``: from a count of 1 only
``v = -1, 2, 3`` are left and their least variance is ``2 + 4e-8``), with ``optim`` 4 when
its largest is below ``V``, and in the last row (every larger count) when the
maximum-entropy perturbation without a variance limit stays below ``V`` (``V`` cannot be
reached: the package builds such a table quietly with a smaller variance; sdcflow says
so). The message says the variance that can be reached.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.optimize import linprog, minimize

from .max_entropy import closed_form_row

EPSILON = 1e-8  # the package's lower bound of every probability (1 / 10^8)
DIGITS = 8  # the package rounds the interval bounds to 8 decimals
_TOL = 1e-9
# A variance counts as reached up to this relative tolerance (the linear programs' own
# rounding), not more: the lower bound 1e-8 on every probability can push the least
# variance of a row a few 1e-8 above V (D = 3, V = 2, js = 2 gives 2 + 4e-8), and the
# package refuses such a row.
_REL = 1e-12


class PTableError(ValueError):
    """A ptable that cannot be built or read, with the reason."""


@dataclass(frozen=True)
class PTable:
    """A perturbation table in the ``ptable`` package's layout: one entry per
    ``(i, j)`` with ``p``, ``v = j - i`` and the cell-key interval
    ``[p_int_lb, p_int_ub)``; entries sorted by ``i`` then ``j``. ``table`` is
    ``"cnts"`` or ``"nums"``; ``row_variance`` the variance of each row's ``v``."""

    i: np.ndarray
    j: np.ndarray
    p: np.ndarray
    v: np.ndarray
    p_int_lb: np.ndarray
    p_int_ub: np.ndarray
    table: str = "cnts"

    @property
    def rows(self) -> np.ndarray:
        """The original values ``i`` of the rows, increasing."""
        return np.unique(self.i)

    def row(self, i: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(v, p_int_lb, p_int_ub)`` of row ``i``."""
        at = self.i == i
        return self.v[at], self.p_int_lb[at], self.p_int_ub[at]

    def row_moments(self) -> dict[float, tuple[float, float, float]]:
        """Each row's ``(sum p, mean of v, variance of v)``."""
        out = {}
        for i in self.rows:
            at = self.i == i
            p, v = self.p[at], self.v[at]
            out[float(i)] = (float(p.sum()), float(p @ v), float(p @ (v * v)))
        return out


def _per_row(name: str, value, ncat: int, default):
    """A parameter given once or once per row (``ncat`` rows besides ``i = 0``)."""
    if value is None:
        return [default] * ncat
    if np.ndim(value) == 0:
        return [value] * ncat
    value = list(value)
    if len(value) != ncat:
        raise PTableError(f"{name} has {len(value)} entries but the ptable has {ncat} rows "
                          f"besides i = 0 (give one value or {ncat})")
    return value


def _constraints(v: np.ndarray, lower: np.ndarray, mono: bool):
    """The linear constraints other than the variance: ``(A_eq, b_eq, A_ub, b_ub)``."""
    n = len(v)
    a_eq = np.vstack([np.ones(n), v])
    b_eq = np.array([1.0, 0.0])
    a_ub = np.zeros((0, n))
    if mono and (v == 0).any():
        z = int(np.flatnonzero(v == 0)[0])
        a_ub = np.zeros((z, n))
        for k in range(z):  # p[k] - p[k + 1] <= 0
            a_ub[k, k], a_ub[k, k + 1] = 1.0, -1.0
    return a_eq, b_eq, a_ub, np.zeros(len(a_ub))


def _least_variance(v, lower, mono, sign: float = 1.0) -> float | None:
    """The smallest (``sign`` -1: the largest) variance an unbiased distribution on ``v``
    within the bounds can have (None: there is none)."""
    a_eq, b_eq, a_ub, b_ub = _constraints(v, lower, mono)
    res = linprog(sign * v * v, A_ub=a_ub if len(a_ub) else None,
                  b_ub=b_ub if len(a_ub) else None, A_eq=a_eq, b_eq=b_eq,
                  bounds=list(zip(lower, np.ones(len(v)))), method="highs")
    return sign * float(res.fun) if res.status == 0 else None


def _above(x: float, V: float) -> bool:
    return x > V + _REL * max(1.0, abs(V))


def _max_entropy(v: np.ndarray, variance: float, lower: np.ndarray, mono: bool,
                 equality: bool) -> np.ndarray | None:
    """The maximum-entropy row on deviations ``v`` (None: the constraints cannot all
    hold): in closed form where it has one (:mod:`sdcflow.kernels.tabular.max_entropy`),
    else solved with SLSQP as the package does (nloptr's SLSQP), to a tighter
    tolerance; the result is checked against every constraint."""
    least = _least_variance(v, lower, mono)
    if least is None or _above(least, variance):
        return None
    variance = max(variance, least)
    n = len(v)
    a_eq, b_eq, a_ub, _ = _constraints(v, lower, mono)
    v2 = v * v

    def fits(p) -> bool:
        return (abs(p.sum() - 1) <= 1e-8 and abs(p @ v) <= 1e-8
                and (abs(p @ v2 - variance) <= 1e-8 if equality else p @ v2 <= variance + 1e-8)
                and (not len(a_ub) or (a_ub @ p <= 1e-8).all()))

    exact = closed_form_row(v, variance, lower, mono, equality) if least < variance else None
    if exact is not None and fits(exact):
        return exact
    cons = [{"type": "eq", "fun": lambda p: a_eq @ p - b_eq, "jac": lambda p: a_eq},
            {"type": "eq" if equality else "ineq", "fun": lambda p: np.array([variance - v2 @ p]),
             "jac": lambda p: -v2[None, :]}]
    if len(a_ub):
        cons.append({"type": "ineq", "fun": lambda p: -(a_ub @ p), "jac": lambda p: -a_ub})
    start = np.clip(np.full(n, 1.0 / n), lower, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        res = minimize(lambda p: float(np.sum(p * np.log(p))), start,
                       jac=lambda p: np.log(p) + 1.0, method="SLSQP",
                       bounds=list(zip(lower, np.ones(n))), constraints=cons,
                       options={"ftol": 1e-16, "maxiter": 5000})
    p = np.clip(res.x, lower, 1.0)
    return p if fits(p) else None


def _targets(i: float, D: int, step: int, blocked: int) -> np.ndarray:
    lo, hi = max(i - D, 0), i + D
    m = round((hi - lo) * step) + 1
    j = lo + np.arange(m) / step
    if step != 1:
        j = np.round(j, 4)
    return j[~((j >= 1) & (j <= blocked) & (j == np.round(j)))]


def _row(i, D, V, step, blocked, pstay, optim, mono, last: bool):
    """One row ``(j, v, p)`` of the ptable (the package's loop over ``pstay``)."""
    j = _targets(i, D, step, blocked)
    v = np.round(j - i, 4) if step != 1 else j - i
    lower = np.full(len(v), EPSILON)
    lower[v == 0] = max(pstay, EPSILON)
    p = None
    for it in range(20):
        if it > 0:
            lower[v == 0] = np.maximum(lower[v == 0] - 0.05, EPSILON)
        p = _max_entropy(v, V, lower, mono, optim == 4)
        if p is not None and (round(float(p @ (v * v)), 3) == V or 1 <= i <= blocked):
            break
        if not (lower[v == 0] > EPSILON).any():
            break  # (the package tries again with the same bounds: the same result)
    if p is not None and last and p @ (v * v) < V - 1e-6:
        raise _unreachable(V, D, i, float(p @ (v * v)))
    if p is None:
        # (the checks before building refuse every row that cannot exist: this is a row
        # the optimiser did not solve)
        raise PTableError(f"row i = {i:g}: no perturbation probabilities meeting every "
                          f"constraint were found (D = {D}, V = {V:.10g}"
                          f"{f', js = {blocked}' if blocked else ''}): try another V")
    return j, v, p


def _assemble(rows: list[tuple[float, np.ndarray, np.ndarray, np.ndarray]],
              table: str) -> PTable:
    cols: dict[str, list] = {k: [] for k in ("i", "j", "p", "v", "lb", "ub")}
    for i, j, v, p in rows:
        ub = np.cumsum(p)
        lb = ub - p
        ub, lb = np.round(ub, DIGITS), np.round(lb, DIGITS)
        for k, x in (("i", np.full(len(j), float(i))), ("j", j), ("v", v), ("lb", lb),
                     ("ub", ub), ("p", ub - lb)):
            cols[k].append(np.asarray(x, dtype=float))
    c = {k: np.concatenate(x) for k, x in cols.items()}
    return PTable(c["i"], c["j"], c["p"], c["v"], c["lb"], c["ub"], table)


MAX_D = 50  # the largest perturbation D (and blocking js) a ptable is built for
MAX_JS = 50


def _whole(name: str, value, least: int, most: int | None = None) -> int:
    """``value`` as a whole number in ``[least, most]``, else PTableError."""
    try:
        ok = not isinstance(value, bool) and float(value).is_integer() and value >= least
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise PTableError(f"{name} must be a whole number >= {least} (got {value!r})")
    if most is not None and value > most:
        raise PTableError(f"{name} = {value:g} is more than the limit of {most}")
    return int(value)


def _check_common(D, V, optim, mono, ncat):
    if isinstance(V, bool) or not np.isfinite(V) or V <= 0:
        raise PTableError(f"V must be a positive number (got {V!r})")
    optims = _per_row("optim", optim, ncat, 1)
    if any(o not in (1, 2, 3, 4) for o in optims):
        raise PTableError(f"optim must be 1, 2, 3 or 4 (got {optim!r})")
    return tuple(optims), tuple(bool(m) for m in _per_row("mono", mono, ncat, True))


def _check_row(i, D, V, step, blocked, pstay, optim, mono, last: bool) -> None:
    """Refuse row ``i`` if it cannot exist (see the module docstring), saying the
    variance it can reach; cheap (linear programs), so every row is checked before any
    is built."""
    j = _targets(i, D, step, blocked)
    v = np.round(j - i, 4) if step != 1 else j - i
    lower = np.full(len(v), EPSILON)
    # the loosest bound on p(0) the package's pstay loop reaches (19 steps of 0.05)
    lower[v == 0] = max(pstay - 19 * 0.05, EPSILON)
    targets = ", ".join(f"{x:g}" for x in j)
    block = f"; the targets 1..{blocked} are blocked (js = {blocked})" if blocked else ""
    allowed = f"the allowed perturbed values {{{targets}}} (|perturbation| <= D = {D}{block})"
    least = _least_variance(v, lower, mono)
    if least is None:
        raise PTableError(f"row i = {i:g}: no unbiased perturbation exists: {allowed}")
    if _above(least, V):
        raise PTableError(
            f"row i = {i:g}: {allowed} force a variance of at least {least:.10g} (every "
            f"probability at least {EPSILON:g}), more than V = {V:.10g}: raise V to at least "
            f"{least:.10g}{' or lower js' if blocked else ''} (the ptable package refuses it "
            "too: 'The variance parameter you set is too small!')")
    if optim != 4 and not last:
        return
    most = _least_variance(v, lower, mono, sign=-1.0)
    rising = " with the probabilities rising towards v = 0 for v < 0 (mono)"
    if optim == 4 and _above(V, most):
        raise PTableError(
            f"row i = {i:g}: {allowed}{rising if mono else ''} allow a variance of at most "
            f"{most:.10g}, less than V = {V:.10g}, which optim 4 needs exactly: lower V to at "
            f"most {most:.10g} or raise D")
    if last and optim != 4:
        # the maximum-entropy row without the variance bound (uniform, unless a bound
        # binds): what the row has when V is above its variance
        p = _max_entropy(v, most, lower, mono, False)
        if p is not None and p @ (v * v) < V - 1e-6:
            raise _unreachable(V, D, i, float(p @ (v * v)))


def _unreachable(V: float, D: int, i: float, top: float) -> PTableError:
    return PTableError(f"V = {V:.10g} cannot be reached with perturbations of at most D = "
                       f"{D} (the maximum-entropy perturbation of the rows i >= {i:g} has "
                       f"variance {top:.6g}): raise D or lower V to at most {top:.6g}")


def _read_only(table: PTable) -> PTable:
    for a in (table.i, table.j, table.p, table.v, table.p_int_lb, table.p_int_ub):
        a.flags.writeable = False  # shared by the cache
    return table


def count_ptable(D: int, V: float, js: int = 0, pstay: float | Sequence[float] | None = None,
                 optim: int | Sequence[int] = 1,
                 mono: bool | Sequence[bool] = True) -> PTable:
    """The ptable of frequency (count) tables, as ``ptable::create_cnt_ptable(D, V, js,
    pstay, optim, mono)``: rows ``i = 0..D`` (``js = 0``) or ``0..D + js + 1``, the last
    standing for every larger count. ``pstay``, ``optim`` and ``mono`` are one value or
    one per row ``i >= 1``. Every row is checked before any is built; a ptable is built
    once for its parameters (its arrays are read-only)."""
    js = _whole("js", js, 0, MAX_JS)
    D = _whole("D", D, 1, MAX_D)
    ncat = D if js == 0 else D + js + 1
    optims, monos = _check_common(D, V, optim, mono, ncat)
    stays = [0.0 if s is None else s for s in _per_row("pstay", pstay, ncat, None)]
    if any(isinstance(s, bool) or not 0 <= s < 1 or (s == 0 and pstay is not None)
           for s in stays):
        raise PTableError(f"pstay must be larger than 0 and smaller than 1 (got {pstay!r})")
    return _count_ptable(D, float(V), js, tuple(float(s) for s in stays), optims, monos)


@lru_cache(maxsize=32)
def _count_ptable(D, V, js, stays, optims, monos) -> PTable:
    ncat = len(stays)
    for r in range(ncat):
        _check_row(r + 1, D, V, 1, js, stays[r], optims[r], monos[r], last=r == ncat - 1)
    rows = [(0.0, np.zeros(1), np.zeros(1), np.ones(1))]
    for r in range(ncat):
        i = r + 1
        j, v, p = _row(i, D, V, 1, js, stays[r], optims[r], monos[r], last=r == ncat - 1)
        rows.append((i, j, v, p))
    return _read_only(_assemble(rows, "cnts"))


def magnitude_ptable(D: int, V: float, step: int = 2, icat: Sequence[float] | None = None,
                     optim: int | Sequence[int] = 1,
                     mono: bool | Sequence[bool] = True) -> PTable:
    """The ptable of magnitude tables, as ``ptable::create_num_ptable(D, V, step, icat,
    optim, mono)``: rows ``i`` in ``0`` and ``icat`` (whole numbers, which must hold 1 and
    ``D``), perturbations on a grid of ``1 / step``. Every row is checked before any is
    built; a ptable is built once for its parameters (its arrays are read-only)."""
    step = _whole("step", step, 1)
    D = _whole("D", D, 1, MAX_D)
    if D * step >= 50:
        raise PTableError(f"D * step = {D * step:g} must be below 50: lower D or step")
    try:
        cats = {float(x) for x in (icat if icat is not None else [1, D])}
    except (TypeError, ValueError):
        raise PTableError(f"icat must be whole numbers (got {icat!r})") from None
    if any(not x.is_integer() for x in cats):
        # the package keeps icat as integers (as.integer)
        raise PTableError(f"icat must be whole numbers (got {sorted(cats)})")
    cats = sorted(cats)
    if 1 not in cats or D not in cats:
        raise PTableError(f"icat must hold 1 and D = {D} (got {[int(x) for x in cats]})")
    if max(cats) > D:
        raise PTableError(f"the largest entry of icat can be D = {D} (got {max(cats):g})")
    optims, monos = _check_common(D, V, optim, mono, len(cats))
    return _magnitude_ptable(D, float(V), step, tuple(cats), optims, monos)


@lru_cache(maxsize=32)
def _magnitude_ptable(D, V, step, cats, optims, monos) -> PTable:
    for r, i in enumerate(cats):
        _check_row(i, D, V, step, 0, 0.0, optims[r], monos[r], last=r == len(cats) - 1)
    rows = [(0.0, np.zeros(1), np.zeros(1), np.ones(1))]
    for r, i in enumerate(cats):
        j, v, p = _row(i, D, V, step, 0, 0.0, optims[r], monos[r], last=r == len(cats) - 1)
        rows.append((i, j, v, p))
    return _read_only(_assemble(rows, "nums"))


def ptable_from_columns(i, j, p, v, p_int_lb, p_int_ub, table: str = "cnts") -> PTable:
    """A ptable read in the package's layout (columns ``i, j, p, v, p_int_lb,
    p_int_ub``), checked: every row's intervals follow one another from 0 to 1,
    ``p = p_int_ub - p_int_lb >= 0``, ``v = j - i``, and the rows include ``i = 0``."""
    cols = {}
    for name, x in (("i", i), ("j", j), ("p", p), ("v", v), ("p_int_lb", p_int_lb),
                    ("p_int_ub", p_int_ub)):
        try:
            arr = np.asarray(x, dtype=float)
        except (TypeError, ValueError):
            raise PTableError(f"column {name!r} of the ptable is not numeric") from None
        if arr.ndim != 1 or not np.isfinite(arr).all():
            raise PTableError(f"column {name!r} of the ptable has missing or infinite values")
        cols[name] = arr
    n = {len(a) for a in cols.values()}
    if len(n) != 1 or n == {0}:
        raise PTableError("the ptable has no entries (or columns of different lengths)")
    order = np.lexsort((cols["j"], cols["i"]))
    c = {k: a[order] for k, a in cols.items()}
    if (c["i"] < 0).any():
        raise PTableError("the ptable has a negative original value i")
    if 0 not in c["i"]:
        raise PTableError("the ptable has no row i = 0")
    if np.abs(c["v"] - (c["j"] - c["i"])).max() > 1e-6:
        bad = int(np.argmax(np.abs(c["v"] - (c["j"] - c["i"]))))
        raise PTableError(f"entry i = {c['i'][bad]:g}, j = {c['j'][bad]:g}: v = "
                          f"{c['v'][bad]:g} is not j - i")
    for r in np.unique(c["i"]):
        at = np.flatnonzero(c["i"] == r)
        lb, ub, p = c["p_int_lb"][at], c["p_int_ub"][at], c["p"][at]
        if (abs(lb[0]) > 1e-8 or abs(ub[-1] - 1) > 1e-8 or (np.abs(lb[1:] - ub[:-1]) > 1e-8).any()
                or (ub < lb).any()):
            raise PTableError(f"row i = {r:g}: the intervals [p_int_lb, p_int_ub) must follow "
                              "one another from 0 to 1")
        if (np.abs(p - (ub - lb)) > 1e-6).any():
            raise PTableError(f"row i = {r:g}: p is not p_int_ub - p_int_lb")
    rows = np.unique(c["i"])
    if table == "cnts" and not np.array_equal(rows, np.arange(len(rows))):
        raise PTableError("the rows i of a ptable of counts must be 0, 1, 2, ... without gaps "
                          f"(got {', '.join(f'{r:g}' for r in rows)})")
    return PTable(c["i"], c["j"], c["p"], c["v"], c["p_int_lb"], c["p_int_ub"], table)
