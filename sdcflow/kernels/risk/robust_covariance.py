"""The Minimum Covariance Determinant (MCD) estimate of location and scatter (Rousseeuw
(1984), "Least median of squares regression", JASA 79), as R robustbase's ``covMcd`` with
its defaults (``alpha = 1/2``, ``use.correction = TRUE``, ``wgtFUN = "01.original"``):

* the raw MCD: the ``h = floor((n + p + 1) / 2)`` records whose covariance has the
  smallest determinant, their mean and covariance (denominator ``h - 1``; for one
  variable the exact search over the windows of the sorted values and the denominator
  ``h``, as robustbase's univariate code). The covariance is multiplied by the
  consistency factor ``calpha = (h/n) / F_{p+2}(chi2_p^{-1}(h/n))`` (Croux & Haesbroeck
  (1999), "Influence function and efficiency of the minimum covariance determinant
  scatter matrix estimator", JMVA 71) and the finite-sample correction factor of Pison,
  Van Aelst & Willems (2002), "Small sample corrections for LTS and MCD", Metrika 55
  (robustbase's ``.MCDcnp2``, with its simulated values for small n);
* the reweighted MCD: the records with squared robust distance below
  ``chi2_p^{-1}(0.975)``, their mean and covariance (denominator ``m - 1``), times
  ``0.975 / F_{p+2}(chi2_p^{-1}(0.975))`` and the reweighted finite-sample factor
  (``.MCDcnp2.rew``), both only when some record is left out (as robustbase).

The search for ``p >= 2`` is FAST-MCD (Rousseeuw & Van Driessen (1999), "A fast algorithm
for the minimum covariance determinant estimator", Technometrics 41): 500 random
``(p+1)``-subsets (enlarged while singular) drawn from the step's generator, each
followed by two C-steps (the ``h`` records nearest the current mean and covariance: the
determinant never increases), on a random 1500 records when there are more (the
partitioning of FAST-MCD, simplified). The ten best, and the six deterministic starts of
DetMCD (Hubert, Rousseeuw & Verdonck (2012), "A deterministic algorithm for robust
location and scatter", JCGS 21) on all records, go on with C-steps until the determinant
stops decreasing, then with single swaps while one lowers it (Hawkins 1994); the smallest
determinant wins. On data small enough to try every h-subset this finds the least
determinant (the tests check it); on large files, as robustbase's, it is a search that
two generators may end differently. NumPy and SciPy only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

_MAX_CSTEPS = 200
NSAMP = 500  # robustbase's default number of random starts
_SUBSAMPLE = 1500  # FAST-MCD's nmini * kmini: the starts' first C-steps on at most this
_KEEP = 10  # FAST-MCD: the best 10 starts go on to convergence
_SWAP_SET = 300  # records on each side of the subset's border tried in swaps
_MAX_SWAPS = 1000
_SINGULAR = 1e-12  # an h-subset with eigenvalues below this share of the largest is flat

# robustbase's simulated finite-sample factors for alpha = 1/2 (MCDcnp2s$sim.0 and
# $sim.rew, R/covMcd.R): {p: (first n, values for n, n + 1, ...)}, for p = 1..9 and n up
# to robustbase's n.max (2, 6, 10, 13, 16, 18, 20, 20, 20)
_SIM_RAW = {
    1: (1, (1.0, 3.075819)),
    2: (4, (3.15342, 1.799889, 2.258497)),
    3: (6, (2.12777, 2.718898, 1.993509, 2.220433, 1.820585)),
    4: (8, (2.950549, 2.145387, 2.382224, 1.927077, 2.032489, 1.8371)),
    5: (10, (2.229573, 2.494447, 2.016117, 2.190061, 1.877996, 1.978964, 1.767284)),
    6: (12, (2.580264, 2.109121, 2.240741, 1.944719, 2.043397, 1.821808, 1.89725)),
    7: (14, (2.165233, 2.320281, 2.007836, 2.086471, 1.884052, 1.950563, 1.76926)),
    8: (16, (2.340443, 2.048262, 2.161097, 1.926082, 1.995422)),
    9: (18, (2.093386, 2.185793, 1.948989)),
}
_SIM_REW = {
    1: (1, (1.0, 0.984724)),
    2: (4, (2.216302, 1.418526, 1.635601)),
    3: (6, (1.73511, 2.06681, 1.545905, 1.659655, 1.456835)),
    4: (8, (2.388892, 1.847626, 1.96998, 1.630723, 1.701272, 1.521008)),
    5: (10, (1.968153, 2.168931, 1.784373, 1.894409, 1.667912, 1.693007, 1.545176)),
    6: (12, (2.275891, 1.866587, 2.014249, 1.750567, 1.829363, 1.650019, 1.689043)),
    7: (14, (1.95771, 2.074066, 1.847385, 1.905408, 1.71393, 1.768425, 1.63908)),
    8: (16, (2.164121, 1.871024, 1.979485, 1.782417, 1.84489)),
    9: (18, (1.938822, 2.050409, 1.834863)),
}
# Pison, Van Aelst & Willems (2002) fitted fp(n) = 1 - exp(a) / n^b at alpha = 0.5 and
# 0.875 (robustbase's .MCDcnp2 / .MCDcnp2.rew): for p = 1 and 2 (a, b) directly; for
# p > 2 from (alfaq, betaq, qwaarden) pairs (see _fp)
_FP_SMALL = {  # (raw?, alpha): {p: (a, b)}
    (True, 0.5): {1: (0.262024211897096, 0.604756680630497),
                  2: (0.673292623522027, 0.691365864961895)},
    (True, 0.875): {1: (-0.351584646688712, 1.01646567502486),
                    2: (0.446537815635445, 1.06690782995919)},
    (False, 0.5): {1: (1.11098143415027, 1.5182890270453),
                   2: (3.11101712909049, 1.91401056721863)},
    (False, 0.875): {1: (-0.66046776772861, 0.88939595831888),
                     2: (0.79473550581058, 1.10081930350091)},
}
_FP_LARGE = {  # (raw?, alpha): ((alfaq, betaq, qwaarden), (alfaq, betaq, qwaarden))
    (True, 0.5): ((-1.42764571687802, 1.26263336932151, 2),
                  (-1.06141115981725, 1.28907991440387, 3)),
    (True, 0.875): ((-0.455179464070565, 1.11192541278794, 2),
                    (-0.294241208320834, 1.09649329149811, 3)),
    (False, 0.5): ((-1.02842572724793, 1.67659883081926, 2),
                   (-0.26800273450853, 1.35968562893582, 3)),
    (False, 0.875): ((-0.544482443573914, 1.25994483222292, 2),
                     (-0.343791072183285, 1.25159004257133, 3)),
}


@dataclass
class Mcd:
    """The MCD of a data matrix, as robustbase's ``covMcd`` returns it: ``center`` and
    ``cov`` (reweighted), ``raw_center`` and ``raw_cov`` (with ``raw_factors`` =
    ``(calpha, correct)`` applied, robustbase's ``raw.cnp2``), ``factors`` (robustbase's
    ``cnp2``), ``best`` (the raw h-subset, sorted), ``crit`` (the log determinant of the
    raw h-subset's covariance before the factors, robustbase's ``crit``) and ``weights``
    (the records kept by the reweighting)."""

    center: np.ndarray
    cov: np.ndarray
    raw_center: np.ndarray
    raw_cov: np.ndarray
    raw_factors: tuple[float, float]
    factors: tuple[float, float]
    best: np.ndarray
    crit: float
    weights: np.ndarray


def consistency_factor(p: int, alpha: float) -> float:
    """``alpha / F_{p+2}(chi2_p^{-1}(alpha))``: the covariance of the fraction alpha of a
    normal sample nearest its centre, made consistent (robustbase's ``.MCDcons``)."""
    if alpha >= 1:
        return 1.0
    return alpha / stats.chi2.cdf(stats.chi2.ppf(alpha, p), p + 2)


def _fp(p: int, n: int, alpha: float, raw: bool) -> float:
    """Pison, Van Aelst & Willems' ``fp(n)`` at ``alpha`` 0.5 or 0.875."""
    if p <= 2:
        a, b = _FP_SMALL[(raw, alpha)][p]
    else:
        (al1, be1, q1), (al2, be2, q2) = _FP_LARGE[(raw, alpha)]
        # a - b log(q p^2) = log(-alfaq / p^betaq) for both pairs: solve for (a, b)
        y1, y2 = np.log(-al1 / p ** be1), np.log(-al2 / p ** be2)
        l1, l2 = np.log(q1 * p * p), np.log(q2 * p * p)
        b = (y1 - y2) / (l2 - l1)
        a = y1 + b * l1
    return 1.0 - float(np.exp(a)) / n ** b


def finite_sample_factor(p: int, n: int, alpha: float = 0.5, *, raw: bool = True) -> float:
    """The small-sample correction factor of the raw (``raw``) or reweighted MCD
    covariance (Pison, Van Aelst & Willems 2002), as robustbase's ``.MCDcnp2`` and
    ``.MCDcnp2.rew``: ``1 / fp(n)`` with ``fp`` fitted at ``alpha`` 0.5 and 0.875 and
    interpolated linearly (towards 1 at ``alpha = 1``); at ``alpha = 0.5`` the simulated
    values for small n where robustbase has them."""
    if not 0 <= alpha <= 1:
        raise ValueError(f"alpha must lie in [0, 1] (got {alpha})")
    f500, f875 = _fp(p, n, 0.5, raw), _fp(p, n, 0.875, raw)
    sim = (_SIM_RAW if raw else _SIM_REW).get(p)
    if alpha == 0.5 and sim is not None and sim[0] <= n < sim[0] + len(sim[1]):
        f500 = 1.0 / sim[1][n - sim[0]]
    if alpha <= 0.875:
        fp = f500 + (f875 - f500) / 0.375 * (alpha - 0.5)
    else:
        fp = f875 + (1 - f875) / 0.125 * (alpha - 0.875)
    return 1.0 / fp


def mcd_covariance(x: np.ndarray, rng: np.random.Generator | None = None) -> np.ndarray:
    """The reweighted MCD covariance of ``x`` (n x p, complete, n > p + 1): :func:`mcd`'s
    ``cov``."""
    return mcd(x, rng).cov


def mcd(x: np.ndarray, rng: np.random.Generator | None = None) -> Mcd:
    """robustbase's ``covMcd(x)`` with its defaults (see the module docstring); the
    random starts come from ``rng`` (default: a generator seeded 0), so the result is
    deterministic. ValueError when ``n <= p + 1`` or when more than half the records lie
    on a hyperplane (the raw MCD covariance is singular: robustbase's "exact fit")."""
    x = np.asarray(x, dtype=float)
    n, p = x.shape
    if n <= p + 1:
        raise ValueError(f"the MCD needs more records than variables + 1 ({n} records, {p} "
                         "variables)")
    if not np.isfinite(x).all():
        raise ValueError("the MCD needs complete, finite records")
    h = (n + p + 1) // 2
    if p == 1:
        best, raw_center, raw_cov, crit = _univariate(x[:, 0], h)
    else:
        rng = np.random.default_rng(0) if rng is None else rng
        best, crit = _fast_mcd(x, h, rng)
        raw_center = x[best].mean(axis=0)
        raw_cov = np.cov(x[best], rowvar=False).reshape(p, p)
    raw_factors = (consistency_factor(p, h / n), finite_sample_factor(p, n, 0.5))
    raw_cov = raw_cov * raw_factors[0] * raw_factors[1]
    if not np.linalg.eigvalsh(raw_cov)[0] > 0:
        raise _exact_fit(h, n)
    keep = _mahalanobis2(x, raw_center, raw_cov) < stats.chi2.ppf(0.975, p)
    center = x[keep].mean(axis=0)
    # robustbase's cov.wt with 0/1 weights: the n - 1 denominator of the kept records
    cov = np.cov(x[keep], rowvar=False).reshape(p, p)
    factors = (1.0, 1.0)
    if keep.sum() != n:
        factors = (consistency_factor(p, 0.975), finite_sample_factor(p, n, 0.5, raw=False))
        cov = cov * factors[0] * factors[1]
    return Mcd(center, cov, raw_center, raw_cov, raw_factors, factors, np.sort(best), crit,
               keep)


def _exact_fit(h: int, n: int) -> ValueError:
    return ValueError(f"at least h = {h} of the {n} records lie on a hyperplane: the MCD "
                      "covariance is singular (robustbase's exact fit)")


def _univariate(x: np.ndarray, h: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """The exact univariate MCD (robustbase's ``rfmcduni``): among the windows of h
    consecutive sorted values, the one(s) of least sum of squared deviations; the centre
    is the mean of the middle one of tied windows, the variance that sum over h."""
    order = np.argsort(x, kind="stable")
    w = x[order]
    csum = np.concatenate([[0.0], np.cumsum(w)])
    csq = np.concatenate([[0.0], np.cumsum(w * w)])
    sums = csum[h:] - csum[:-h]
    sq = (csq[h:] - csq[:-h]) - sums * sums / h
    low = sq.min()
    tied = np.flatnonzero(sq <= low + 1e-12 * max(abs(low), 1.0))
    start = int(tied[(len(tied) + 1) // 2 - 1])
    center = sums[start] / h
    var = max(float(low), 0.0) / h
    crit = float(np.log(np.sort((x - center) ** 2)[:h].sum() / max(1, h - 1)))
    return order[start:start + h], np.array([center]), np.array([[var]]), crit


def _mahalanobis2(x: np.ndarray, center: np.ndarray, cov: np.ndarray) -> np.ndarray:
    c = x - center
    return np.einsum("ij,ij->i", c @ np.linalg.inv(cov), c)


def _fast_mcd(x: np.ndarray, h: int, rng: np.random.Generator) -> tuple[np.ndarray, float]:
    """The h-subset of least covariance determinant found by FAST-MCD with DetMCD's
    starts (see the module docstring) and robustbase's ``crit`` of it."""
    n = len(x)
    med = np.median(x, axis=0)
    mad = stats.median_abs_deviation(x, axis=0, scale="normal")
    scale = np.where(mad > 0, mad, x.std(axis=0))
    scale = np.where(scale > 0, scale, 1.0)
    z = (x - med) / scale  # the search is affine equivariant: this only helps numerics
    if n > _SUBSAMPLE:
        sub = np.sort(rng.choice(n, _SUBSAMPLE, replace=False))
        h_sub = int(np.ceil(h * _SUBSAMPLE / n))
    else:
        sub, h_sub = np.arange(n), h
    zs = z[sub]
    found = []  # (log det, h_sub-subset of the subsample) after two C-steps
    for _ in range(NSAMP):
        start = _random_start(zs, h_sub, rng)
        if start is None:
            continue
        logdet, subset = _c_steps(zs, start, h_sub, steps=2)
        if np.isfinite(logdet):
            found.append((logdet, tuple(subset)))
        elif len(sub) == n:  # (on a subsample it says nothing about all the records)
            raise _exact_fit(h, n)
    found.sort()
    # the ten best random starts and DetMCD's six (on all the records) to convergence
    starts, seen = [], set()
    for _, subset in found:
        if subset not in seen:
            seen.add(subset)
            sample = zs[list(subset)]
            starts.append(_nearest(z, sample.mean(axis=0), np.cov(sample, rowvar=False), h))
        if len(seen) == _KEEP:
            break
    starts += list(_deterministic_starts(z, h))
    best_det, best_set = np.inf, None
    for start in starts:
        logdet, subset = _refine(z, start, h)
        if logdet == -np.inf:
            raise _exact_fit(h, n)
        tie = 1e-12 * max(1.0, abs(logdet))
        if best_set is None or logdet < best_det - tie or (
                logdet <= best_det + tie and tuple(subset) < tuple(best_set)):
            best_det, best_set = logdet, subset
    if best_set is None:
        raise ValueError("the MCD found no h-subset with a regular covariance matrix")
    return best_set, float(best_det + 2 * np.log(scale).sum())


def _refine(z: np.ndarray, start: np.ndarray, h: int) -> tuple[float, np.ndarray]:
    """C-steps to convergence, then single swaps (one record of the subset for one
    outside) while one lowers the determinant (Hawkins (1994), "The feasible solution
    algorithm for the minimum covariance determinant estimator in multivariate data",
    CSDA 17), alternately until neither moves: a C-step's fixed point can still be
    improved by a swap."""
    logdet, subset = _c_steps(z, start, h, steps=_MAX_CSTEPS)
    for _ in range(_MAX_CSTEPS):
        if not np.isfinite(logdet):
            break
        swapped, subset = _swaps(z, subset, h)
        if not swapped:
            break
        new, subset = _c_steps(z, subset, h, steps=_MAX_CSTEPS)
        if not new < logdet - 1e-12 * max(1.0, abs(logdet)):
            logdet = min(new, logdet)
            break
        logdet = new
    return logdet, subset


def _swaps(z: np.ndarray, subset: np.ndarray, h: int) -> tuple[bool, np.ndarray]:
    """The best single swaps, one at a time, while one lowers the determinant. The
    determinant ratio of removing record i and adding j, with ``y = x - mean`` of the
    subset, ``A`` the inverse of its scatter matrix, ``a = h/(h-1)``, ``b = (h-1)/h``,
    ``u = y_i`` and ``v = y_j + y_i/(h-1)``, is ``(1 - a u'Au)(1 + b v'Av) + a b
    (u'Av)^2`` (the matrix determinant lemma). The candidates: the ``_SWAP_SET`` records
    of the subset farthest from its centre and those outside nearest it."""
    n = len(z)
    inside = np.zeros(n, dtype=bool)
    inside[subset] = True
    a, b = h / (h - 1), (h - 1) / h
    moved = False
    for _ in range(_MAX_SWAPS):
        mean = z[inside].mean(axis=0)
        y = z - mean
        scatter = y[inside].T @ y[inside]
        if not np.linalg.eigvalsh(scatter)[0] > 0:
            break
        inv = np.linalg.inv(scatter)
        d = np.einsum("ij,ij->i", y @ inv, y)
        ins, outs = np.flatnonzero(inside), np.flatnonzero(~inside)
        ins = ins[np.argsort(-d[ins], kind="stable")[:_SWAP_SET]]
        outs = outs[np.argsort(d[outs], kind="stable")[:_SWAP_SET]]
        dij = (y[ins] @ inv) @ y[outs].T
        di, dj = d[ins][:, None], d[outs][None, :]
        uav = dij + di / (h - 1)
        vav = dj + 2 * dij / (h - 1) + di / (h - 1) ** 2
        ratio = (1 - a * di) * (1 + b * vav) + a * b * uav ** 2
        k = int(np.argmin(ratio))
        if not ratio.flat[k] < 1 - 1e-10:
            break
        i, j = np.unravel_index(k, ratio.shape)
        inside[ins[i]], inside[outs[j]] = False, True
        moved = True
    return moved, np.flatnonzero(inside)


def _nearest(z: np.ndarray, center: np.ndarray, cov: np.ndarray, h: int) -> np.ndarray:
    return np.sort(np.argsort(_mahalanobis2(z, center, cov), kind="stable")[:h])


def _random_start(z: np.ndarray, h: int, rng: np.random.Generator) -> np.ndarray | None:
    """FAST-MCD's start: a random (p+1)-subset, enlarged by random records while its
    covariance is singular; the h records nearest its mean and covariance."""
    n, p = z.shape
    order = rng.permutation(n)
    size = p + 1
    while size <= n:
        pick = z[order[:size]]
        cov = np.atleast_2d(np.cov(pick, rowvar=False))
        eig = np.linalg.eigvalsh(cov)
        if eig[0] > _SINGULAR * max(eig[-1], 1e-300):
            return _nearest(z, pick.mean(axis=0), cov, h)
        size += 1
    return None


def _deterministic_starts(z: np.ndarray, h: int):
    """The h-subsets of DetMCD's six initial estimates, on the robust z-scores ``z``:
    the correlations of tanh(z), the Spearman correlations, the correlations of the
    normal scores, the spatial sign covariance, the covariance of the half of the records
    nearest the median, and the Gnanadesikan-Kettenring pairwise covariance with MAD
    scales (the raw OGK start); each made a scatter estimate by the MAD of the data
    projected on its eigenvectors, with the centre it gives."""
    n, p = z.shape
    ranks = stats.rankdata(z, axis=0)
    normal_scores = stats.norm.ppf((ranks - 1 / 3) / (n + 1 / 3))
    norms = np.linalg.norm(z, axis=1)
    signs = z / np.where(norms > 0, norms, 1.0)[:, None]
    half = np.argsort(norms, kind="stable")[: (n + 1) // 2]
    scatters = [
        _corr(np.tanh(z)),
        _corr(ranks),
        _corr(normal_scores),
        signs.T @ signs / n,
        np.cov(z[half], rowvar=False).reshape(p, p),
        _gnanadesikan_kettenring(z),
    ]
    for s in scatters:
        if not np.all(np.isfinite(s)):
            continue
        _, vectors = np.linalg.eigh(s)
        b = z @ vectors
        scale = stats.median_abs_deviation(b, axis=0, scale="normal")
        if (scale <= 0).any():
            continue
        # sigma = E L E' with L the squared scales; centre = sigma^{1/2} med(z sigma^{-1/2})
        sigma = (vectors * scale ** 2) @ vectors.T
        inv_root = (vectors / scale) @ vectors.T
        root = (vectors * scale) @ vectors.T
        centre = root @ np.median(z @ inv_root, axis=0)
        yield _nearest(z, centre, sigma, h)


def _gnanadesikan_kettenring(z: np.ndarray) -> np.ndarray:
    """``(s(z_j + z_k)^2 - s(z_j - z_k)^2) / 4`` with s the MAD (Gnanadesikan &
    Kettenring 1972; Maronna & Zamar 2002's OGK first step)."""
    p = z.shape[1]
    out = np.empty((p, p))
    for j in range(p):
        for k in range(j, p):
            plus = stats.median_abs_deviation(z[:, j] + z[:, k], scale="normal")
            minus = stats.median_abs_deviation(z[:, j] - z[:, k], scale="normal")
            out[j, k] = out[k, j] = (plus ** 2 - minus ** 2) / 4
    return out


def _corr(a: np.ndarray) -> np.ndarray:
    sd = a.std(axis=0)
    if (sd == 0).any():
        return np.full((a.shape[1], a.shape[1]), np.nan)
    return np.atleast_2d(np.corrcoef(a, rowvar=False))


def _c_steps(z: np.ndarray, subset: np.ndarray, h: int, steps: int) -> tuple[float, np.ndarray]:
    """Up to ``steps`` C-steps from ``subset`` (the h records nearest the mean and
    covariance of the current subset: the determinant never increases), stopping when
    the subset or its determinant no longer changes; the log determinant of the final
    subset's covariance (``-inf``: singular, h records on a hyperplane) and the subset."""
    subset = np.sort(subset)
    logdet, cov = _logdet(z[subset])
    for _ in range(steps):
        if logdet == -np.inf:
            break
        nxt = _nearest(z, z[subset].mean(axis=0), cov, h)
        if np.array_equal(nxt, subset):
            break
        new, new_cov = _logdet(z[nxt])
        if new >= logdet - 1e-12 * max(1.0, abs(logdet)):
            break
        subset, logdet, cov = nxt, new, new_cov
    return logdet, subset


def _logdet(sub: np.ndarray) -> tuple[float, np.ndarray]:
    cov = np.atleast_2d(np.cov(sub, rowvar=False))
    eig = np.linalg.eigvalsh(cov)
    if not eig[0] > _SINGULAR * max(eig[-1], 1e-300):
        return -np.inf, cov
    return float(np.log(eig).sum()), cov
