"""Data distortion by probability distribution (Liew, Choi & Liew, "A data distortion by
probability distribution", ACM Transactions on Database Systems 10(3), 1985):

1. identify the distribution underlying the values of a confidential variable and
   estimate its parameters (goodness of fit by the Kolmogorov-Smirnov statistic);
2. draw a distorted series of the same size from the fitted distribution;
3. map and replace: the record whose original value has rank r receives the r-th
   smallest value of the series, so the released variable keeps the rank order of the
   original one (and hence its relations with the variables left as they are).

Fitted laws (maximum likelihood; ``m`` values):

* ``normal``: mean and standard deviation (divisor ``m``);
* ``lognormal`` (values > 0): the normal fit of ``ln x``;
* ``exponential`` (values >= 0): scale = mean;
* ``gamma`` (values > 0): shape ``a`` solving ``ln a - digamma(a) = ln(mean) - mean(ln x)``
  (Newton from Minka's starting value, "Estimating a gamma distribution", 2002),
  scale = mean / a;
* ``uniform``: minimum and maximum;
* ``poisson`` (non-negative whole values): mean = the sample mean;
* ``weibull`` (values > 0, location 0): shape ``k`` solving
  ``sum(x^k ln x) / sum(x^k) - 1/k = mean(ln x)`` (the likelihood equation, whose left
  side increases with ``k``: solved by bracketing, Brent's method), scale
  ``(mean(x^k))^(1/k)``;
* ``chi_square`` (values > 0): degrees of freedom ``nu`` solving
  ``digamma(nu / 2) = mean(ln(x / 2))``, the likelihood equation of a gamma law with its
  scale fixed at 2 (a chi-square law of ``nu`` degrees, ``nu`` not necessarily whole);
* ``triangular``: lower and upper limits the sample range widened by one mean spacing
  ``(max - min) / (m - 1)`` at each end (the minimum-variance unbiased estimators of a
  uniform law's limits, which keep every value strictly inside, where the likelihood is
  positive), and the mode maximising the likelihood given them, which is one of the
  values (Oliver, "A maximum likelihood oddity", The American Statistician 26(3), 1972):
  the value ``x_(r)`` maximising
  ``prod_{i<r} (x_(i) - a) / (x_(r) - a) * prod_{i>r} (b - x_(i)) / (b - x_(r))``;
* ``empirical``: the empirical distribution with its distribution function interpolated
  linearly between the order statistics (quantile ``Q(u)`` with ``Q(i / (m - 1))`` the
  ``(i + 1)``-th smallest value): no shape is assumed, the series stays within the range.

``best`` fits each parametric law the values allow (the positive ones only for values
> 0, Poisson only for whole values >= 0, ...) and keeps the one with the smallest
Kolmogorov-Smirnov statistic: the laws Liew, Choi & Liew list (Poisson, exponential,
normal, gamma, Weibull, log-normal, uniform, triangular, chi-square). The statistic is
``sup_t |F_m(t) - F(t)|`` with ``F_m`` the empirical distribution function; for the
Poisson law, whose ``F`` jumps at whole numbers as ``F_m`` does, the supremum is taken
over the values and the whole numbers just below them (where both step functions are
evaluated exactly), not by the continuous formula, which would charge each jump twice.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import optimize, special, stats

PARAMETRIC = ("normal", "lognormal", "exponential", "gamma", "uniform", "poisson",
              "weibull", "chi_square", "triangular")
DISTRIBUTIONS = (*PARAMETRIC, "empirical")
# The values each law needs: all of them positive, non-negative, whole and non-negative,
# or anything.
SUPPORT = {"lognormal": "positive", "gamma": "positive", "exponential": "non-negative",
           "weibull": "positive", "chi_square": "positive", "poisson": "whole non-negative"}


@dataclass(frozen=True)
class Fit:
    """A law fitted to values: its name, parameters (JSON-ready), the Kolmogorov-Smirnov
    statistic of the values against it, and for ``empirical`` the sorted values."""

    name: str
    parameters: dict[str, float]
    ks: float
    sorted_values: np.ndarray | None = field(default=None, repr=False, compare=False)

    def law(self):
        """The fitted law as a frozen :mod:`scipy.stats` distribution (None for
        ``empirical``)."""
        p = self.parameters
        if self.name == "normal":
            return stats.norm(p["mean"], p["sd"])
        if self.name == "lognormal":
            return stats.lognorm(p["sdlog"], scale=np.exp(p["meanlog"]))
        if self.name == "exponential":
            return stats.expon(scale=p["scale"])
        if self.name == "gamma":
            return stats.gamma(p["shape"], scale=p["scale"])
        if self.name == "uniform":
            return stats.uniform(p["min"], p["max"] - p["min"])
        if self.name == "poisson":
            return stats.poisson(p["mean"])
        if self.name == "weibull":
            return stats.weibull_min(p["shape"], scale=p["scale"])
        if self.name == "chi_square":
            return stats.chi2(p["df"])
        if self.name == "triangular":
            width = p["max"] - p["min"]
            return stats.triang((p["mode"] - p["min"]) / width, loc=p["min"], scale=width)
        return None

    def info(self) -> dict:
        return {"distribution": self.name, "parameters": dict(self.parameters),
                "ks": self.ks}


def outside(name: str, x: np.ndarray) -> np.ndarray:
    """Which of the values ``x`` lie outside the support the law ``name`` needs."""
    x = np.asarray(x, dtype=float)
    need = SUPPORT.get(name)
    if need == "positive":
        return ~(x > 0)
    if need == "non-negative":
        return ~(x >= 0)
    if need == "whole non-negative":
        return ~((x >= 0) & (x == np.floor(x)))
    return np.zeros(x.shape, dtype=bool)


def supports(name: str, x: np.ndarray) -> bool:
    """Whether the values ``x`` lie in the support ``name`` needs."""
    return not outside(name, x).any()


def _gamma_shape(x: np.ndarray) -> float:
    """The maximum-likelihood shape of a gamma law with location 0 (module docstring)."""
    s = float(np.log(x.mean()) - np.log(x).mean())
    a = (3 - s + np.sqrt((s - 3) ** 2 + 24 * s)) / (12 * s)
    for _ in range(50):
        step = (np.log(a) - special.digamma(a) - s) / (1 / a - special.polygamma(1, a))
        a = max(a - step, a / 10)
        if abs(step) <= 1e-13 * a:
            break
    return float(a)


def _increasing_root(g, lo: float, hi: float) -> float:
    """The root of the increasing function ``g``, bracketed by halving ``lo`` and doubling
    ``hi`` until the signs differ (Brent's method then); a ValueError when the root lies
    beyond the range of 64-bit floats."""
    for _ in range(1100):
        if g(lo) < 0:
            break
        lo /= 2
    for _ in range(1100):
        if g(hi) > 0:
            break
        hi *= 2
    if not (g(lo) <= 0 <= g(hi)):
        raise ValueError("the likelihood equation has no root within the range of 64-bit "
                         "floats")
    return float(optimize.brentq(g, lo, hi, xtol=1e-14, rtol=4 * np.finfo(float).eps,
                                 maxiter=500))


def _weibull(x: np.ndarray) -> dict[str, float]:
    """The maximum-likelihood Weibull law (module docstring); the values are divided by
    their maximum first, which leaves the shape unchanged and keeps ``x^k`` <= 1."""
    top = float(x.max())
    y = x / top
    logs = np.log(y)
    mean_log = float(logs.mean())

    def g(k):
        w = y ** k
        return float((w * logs).sum() / w.sum()) - 1.0 / k - mean_log

    k = _increasing_root(g, 0.5, 2.0)
    return {"shape": k, "scale": top * float(np.mean(y ** k)) ** (1.0 / k)}


def _chi_square(x: np.ndarray) -> dict[str, float]:
    """The maximum-likelihood degrees of freedom of a chi-square law (module docstring)."""
    target = float(np.log(x / 2).mean())
    return {"df": 2 * _increasing_root(lambda h: float(special.digamma(h)) - target,
                                       0.5, 2.0)}


def _triangular(x: np.ndarray) -> dict[str, float]:
    """Limits and maximum-likelihood mode of a triangular law (module docstring)."""
    y = np.sort(x)
    m = len(y)
    spacing = (y[-1] - y[0]) / (m - 1)
    a, b = float(y[0] - spacing), float(y[-1] + spacing)
    below, above = np.log(y - a), np.log(b - y)
    j = np.arange(m)
    before = np.concatenate([[0.0], np.cumsum(below)[:-1]])
    after = above.sum() - np.cumsum(above)
    log_m = before - j * below + after - (m - 1 - j) * above
    return {"min": a, "mode": float(y[int(np.argmax(log_m))]), "max": b}


def _parameters(name: str, x: np.ndarray) -> dict[str, float]:
    if name == "normal":
        return {"mean": float(x.mean()), "sd": float(x.std())}
    if name == "lognormal":
        logs = np.log(x)
        return {"meanlog": float(logs.mean()), "sdlog": float(logs.std())}
    if name == "exponential":
        return {"scale": float(x.mean())}
    if name == "gamma":
        shape = _gamma_shape(x)
        return {"shape": shape, "scale": float(x.mean() / shape)}
    if name == "uniform":
        return {"min": float(x.min()), "max": float(x.max())}
    if name == "poisson":
        return {"mean": float(x.mean())}
    if name == "weibull":
        return _weibull(x)
    if name == "chi_square":
        return _chi_square(x)
    if name == "triangular":
        return _triangular(x)
    if name == "empirical":
        return {"min": float(x.min()), "max": float(x.max()), "values": float(len(x))}
    raise ValueError(f"unknown distribution {name!r}")


def _empirical_cdf(sorted_values: np.ndarray):
    """The distribution function interpolated linearly between the order statistics."""
    m = len(sorted_values)

    def cdf(v):
        if m == 1:
            return (np.asarray(v) >= sorted_values[0]).astype(float)
        ranks = np.arange(m) / (m - 1)
        return np.interp(v, sorted_values, ranks, left=0.0, right=1.0)
    return cdf


def fit(x: np.ndarray, name: str) -> Fit:
    """The law ``name`` (module docstring) fitted to the values ``x`` (1-d, at least two
    values, not all equal, in the law's support)."""
    x = np.asarray(x, dtype=float)
    if len(x) < 2 or x.min() == x.max():
        raise ValueError("a law is fitted to at least two values that are not all equal")
    if not supports(name, x):
        raise ValueError(f"the {name} law needs {SUPPORT[name]} values")
    parameters = _parameters(name, x)
    found = Fit(name, parameters, 0.0, np.sort(x) if name == "empirical" else None)
    if name == "poisson":
        ks = discrete_ks(x, found.law().cdf)
    else:
        cdf = found.law().cdf if name != "empirical" else _empirical_cdf(found.sorted_values)
        ks = float(stats.kstest(x, cdf).statistic)
    return Fit(name, parameters, ks, found.sorted_values)


def discrete_ks(x: np.ndarray, cdf) -> float:
    """The Kolmogorov-Smirnov statistic ``sup_t |F_m(t) - F(t)|`` of whole values ``x``
    against a distribution function ``cdf`` with jumps at whole numbers only: both are
    constant between whole numbers, so the supremum is the largest difference at the
    values and at the whole numbers just below them (module docstring)."""
    x = np.sort(np.asarray(x, dtype=float))
    points = np.unique(np.concatenate([x, x - 1]))
    empirical = np.searchsorted(x, points, side="right") / len(x)
    return float(np.max(np.abs(empirical - cdf(points))))


def best_fit(x: np.ndarray, candidates: tuple[str, ...] = PARAMETRIC) -> tuple[Fit, dict]:
    """The law among ``candidates`` that the values allow with the smallest
    Kolmogorov-Smirnov statistic (the first such in ``candidates`` on a tie), and the
    statistic of every law tried."""
    fits = []
    for name in candidates:
        if supports(name, np.asarray(x, float)):
            try:
                fits.append(fit(x, name))
            except ValueError:  # its likelihood has no maximum in floats: not a candidate
                continue
    if not fits:
        raise ValueError("no candidate law allows these values")
    chosen = min(fits, key=lambda f: f.ks)
    return chosen, {f.name: f.ks for f in fits}


def draw(found: Fit, size: int, rng: np.random.Generator) -> np.ndarray:
    """A series of ``size`` values drawn from the fitted law: ``Q(U)`` with ``U`` uniform
    on (0, 1) from ``rng.random`` and ``Q`` the law's quantile function."""
    u = rng.random(size)
    if found.name == "empirical":
        values = found.sorted_values
        return np.interp(u * (len(values) - 1), np.arange(len(values)), values)
    u[u == 0] = np.finfo(float).tiny  # Q(0) is -infinity for the normal law
    return found.law().ppf(u)


def replace_by_rank(x: np.ndarray, series: np.ndarray) -> np.ndarray:
    """The values of ``series`` handed out rank for rank: the record whose value of ``x``
    has rank r (ties by position) gets the r-th smallest value of ``series``."""
    order = np.argsort(np.asarray(x, dtype=float), kind="stable")
    out = np.empty(len(order))
    out[order] = np.sort(series)
    return out


def distort(x: np.ndarray, name: str, rng: np.random.Generator) -> tuple[np.ndarray, dict]:
    """Data distortion by probability distribution of the values ``x`` (1-d, no missing
    values) with the law ``name`` (or ``best``): the distorted values and the fit's
    description. Values all equal (or fewer than two) have no spread to fit and are
    returned as they are."""
    x = np.asarray(x, dtype=float)
    if len(x) < 2 or x.min() == x.max():
        return x.copy(), {"distribution": None, "records": len(x)}
    if name == "best":
        found, tried = best_fit(x)
    else:
        found, tried = fit(x, name), None
    info = {**found.info(), "records": len(x)}
    if tried is not None:
        info["ks_tried"] = tried
    return replace_by_rank(x, draw(found, len(x), rng)), info
