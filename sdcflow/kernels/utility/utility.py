"""Specific information loss and utility measures: agreement between the k-means partitions
of the original and the protected data (seed 000_1eece6b9d3791e64.txt, "Specific
Information Loss Measure": Rand, Jaccard, adjusted Rand, Wallace, Mantaras), and the
propensity score utility of Woo, Reiter, Oganian & Karr (2009) (seed
002_62bc99a65528e1b7.txt, section 2.6).

k-means is Lloyd's algorithm with Hamerly's bounds, compiled with numba (a per-record skip
test that NumPy cannot express without gathering the records); the logistic regression is
Newton-Raphson on blocks of rows with NumPy/BLAS.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.linalg.blas import dsyrk

from ..jit import njit
from ..risk.frequencies import row_ids

_CHUNK = 65536  # rows per block: keeps the n x c distance matrix small and in cache


# ----------------------------------------------------------------------------------------
# k-means
# ----------------------------------------------------------------------------------------

def _sq_norms(x: np.ndarray) -> np.ndarray:
    return np.einsum("ij,ij->i", x, x)


def kmeans_plus_plus(x: np.ndarray, c: int, rng: np.random.Generator,
                     xx: np.ndarray | None = None) -> np.ndarray:
    """k-means++ seeding (Arthur & Vassilvitskii 2007): the first centre uniformly, each next
    one with probability proportional to the squared distance to the nearest centre."""
    xx = _sq_norms(x) if xx is None else xx
    n = len(x)
    centres = np.empty((c, x.shape[1]))
    centres[0] = x[rng.integers(n)]
    best = np.maximum(xx - 2.0 * (x @ centres[0]) + centres[0] @ centres[0], 0.0)
    for k in range(1, c):
        total = best.sum()
        if total > 0:
            i = int(np.searchsorted(np.cumsum(best), rng.random() * total, side="right"))
            i = min(i, n - 1)
        else:  # every record already sits on a centre
            i = int(rng.integers(n))
        centres[k] = x[i]
        best = np.minimum(best, np.maximum(xx - 2.0 * (x @ centres[k]) + centres[k] @ centres[k],
                                           0.0))
    return centres


@njit(cache=True)
def _two_nearest(x, i, centres):
    """Index of the centre nearest to record ``i`` (first on ties) and the squared
    distances to the nearest and the second nearest."""
    best = np.inf
    second = np.inf
    arg = 0
    for k in range(centres.shape[0]):
        d = 0.0
        for j in range(x.shape[1]):
            t = x[i, j] - centres[k, j]
            d += t * t
        if d < best:
            second = best
            best = d
            arg = k
        elif d < second:
            second = d
    return arg, best, second


@njit(cache=True)
def _assign_all(x, centres, labels, upper, lower, sums, counts):
    """Every record to its nearest centre (first on ties): labels, the distance to it
    (``upper``) and to the second nearest (``lower``), and the clusters' sums and sizes."""
    n, p = x.shape
    sums[:] = 0.0
    counts[:] = 0
    for i in range(n):
        arg, best, second = _two_nearest(x, i, centres)
        labels[i] = arg
        upper[i] = np.sqrt(best)
        lower[i] = np.sqrt(second)
        counts[arg] += 1
        for j in range(p):
            sums[arg, j] += x[i, j]


@njit(cache=True)
def _hamerly(x, centres, max_iter, threshold):
    """Lloyd's iterations with Hamerly's bounds (see :func:`lloyd`); returns labels, centres
    and the number of centre updates."""
    n, p = x.shape
    c = centres.shape[0]
    centres = centres.copy()
    labels = np.empty(n, dtype=np.int64)
    upper = np.empty(n)
    lower = np.empty(n)
    sums = np.zeros((c, p))
    counts = np.zeros(c, dtype=np.int64)
    _assign_all(x, centres, labels, upper, lower, sums, counts)
    delta = np.empty(c)
    half_gap = np.empty(c)
    it = 0
    for it in range(1, max_iter + 1):
        moved = centres.copy()
        empty = False
        for k in range(c):
            if counts[k] > 0:
                for j in range(p):
                    moved[k, j] = sums[k, j] / counts[k]
            else:
                empty = True
        if empty:
            # an emptied cluster takes the record farthest from its centre; the bounds are
            # then void, so everything is assigned afresh
            taken = np.zeros(n, dtype=np.bool_)
            exhausted = False
            for k in range(c):
                if counts[k] > 0:
                    continue
                far = -1
                far_d = 0.0
                for i in range(n):
                    if taken[i]:
                        continue
                    d = 0.0
                    for j in range(p):
                        t = x[i, j] - moved[labels[i], j]
                        d += t * t
                    if d > far_d:
                        far_d = d
                        far = i
                if far < 0:
                    # every record sits on its centre (fewer distinct records than
                    # clusters): nothing can fill the cluster, and nothing can improve
                    exhausted = True
                    break
                taken[far] = True
                for j in range(p):
                    moved[k, j] = x[far, j]
            if exhausted:
                for k in range(c):
                    if counts[k] > 0:
                        for j in range(p):
                            centres[k, j] = moved[k, j]
                break
            centres = moved
            _assign_all(x, centres, labels, upper, lower, sums, counts)
            continue
        shift = 0.0
        top = 0
        for k in range(c):
            d = 0.0
            for j in range(p):
                t = moved[k, j] - centres[k, j]
                d += t * t
            shift += d
            delta[k] = np.sqrt(d)
            if delta[k] > delta[top]:
                top = k
        runner_up = 0.0
        for k in range(c):
            if k != top and delta[k] > runner_up:
                runner_up = delta[k]
        centres = moved
        if shift == 0.0:
            break
        for k in range(c):
            g = np.inf
            for m in range(c):
                if m != k:
                    d = 0.0
                    for j in range(p):
                        t = centres[k, j] - centres[m, j]
                        d += t * t
                    g = min(g, d)
            half_gap[k] = np.sqrt(g) / 2.0
        changed = 0
        for i in range(n):
            a = labels[i]
            upper[i] += delta[a]
            lower[i] -= runner_up if a == top else delta[top]
            bound = max(half_gap[a], lower[i])
            if upper[i] <= bound:
                continue
            d = 0.0
            for j in range(p):
                t = x[i, j] - centres[a, j]
                d += t * t
            upper[i] = np.sqrt(d)
            if upper[i] <= bound:
                continue
            arg, best, second = _two_nearest(x, i, centres)
            upper[i] = np.sqrt(best)
            lower[i] = np.sqrt(second)
            if arg != a:
                labels[i] = arg
                counts[a] -= 1
                counts[arg] += 1
                for j in range(p):
                    sums[a, j] -= x[i, j]
                    sums[arg, j] += x[i, j]
                changed += 1
        if changed == 0 or shift <= threshold:
            break
    return labels, centres, it


@njit(cache=True)
def _inertia(x, centres, labels):
    total = 0.0
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            t = x[i, j] - centres[labels[i], j]
            total += t * t
    return total


def lloyd(x: np.ndarray, centres: np.ndarray, *, max_iter: int = 300,
          tol: float = 1e-4) -> tuple[np.ndarray, np.ndarray, float, int]:
    """Lloyd's algorithm from ``centres``: records to the nearest centre (first on ties),
    centres to the mean of their records, until no record changes cluster, the centres
    move less than ``tol`` times the mean variance of the data (squared shifts summed over
    centres, as scikit-learn) or after ``max_iter`` updates. An emptied cluster gets the
    record farthest from its centre. Returns labels, centres, inertia (the sum of squared
    distances to the centres) and the number of updates.

    The assignments are those of plain Lloyd, computed with Hamerly's bounds (G. Hamerly,
    "Making k-means even faster", SDM 2010): a record whose distance to its centre is at
    most both a lower bound on its distance to every other centre and half the distance
    from its centre to the nearest other one cannot change cluster and is skipped, so late
    iterations, where few records move, compute few distances. Compiled with numba: the
    per-record skip test is a branch NumPy can only emulate with costly gathers."""
    x = np.ascontiguousarray(x, dtype=float)
    threshold = tol * float(np.mean(x.var(axis=0))) if len(x) else 0.0
    labels, centres, it = _hamerly(x, np.ascontiguousarray(centres, dtype=float),
                                   int(max_iter), threshold)
    return labels, centres, float(_inertia(x, centres, labels)), int(it)


SAMPLE = 100_000  # records on which k-means restarts run (kmeans' default sample)


def kmeans(x: np.ndarray, c: int, rng: np.random.Generator, *, n_init: int = 3,
           max_iter: int = 300, sample: int = SAMPLE) -> tuple[np.ndarray, float]:
    """k-means with ``c`` clusters: ``n_init`` k-means++ seedings drawn from ``rng``, each
    refined by :func:`lloyd`; the solution with the least inertia is kept (the first on a
    tie). With more than ``sample`` records the restarts run on a uniform subsample of
    ``sample`` records (drawn from ``rng``) and the best one's centres are then refined by
    Lloyd on every record: one full-size run instead of ``n_init``. Deterministic for a
    given generator state. Returns labels and inertia."""
    x = np.ascontiguousarray(x, dtype=float)
    n = len(x)
    c = min(c, n)
    if n > sample:
        rows = np.sort(rng.choice(n, size=sample, replace=False))
        sub = x[rows]
        sub_xx = _sq_norms(sub)
        best, best_inertia = None, math.inf
        for _ in range(n_init):
            _, centres, inertia, _ = lloyd(sub, kmeans_plus_plus(sub, c, rng, sub_xx),
                                           max_iter=max_iter)
            if inertia < best_inertia:
                best, best_inertia = centres, inertia
        labels, _, inertia, _ = lloyd(x, best, max_iter=max_iter)
        return labels, inertia
    xx = _sq_norms(x)
    best_labels, best_inertia = None, math.inf
    for _ in range(n_init):
        labels, _, inertia, _ = lloyd(x, kmeans_plus_plus(x, c, rng, xx), max_iter=max_iter)
        if inertia < best_inertia:
            best_labels, best_inertia = labels, inertia
    return best_labels, best_inertia


# ----------------------------------------------------------------------------------------
# agreement between partitions
# ----------------------------------------------------------------------------------------

def contingency(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Cross-tabulation of two labelings (labels renumbered densely)."""
    _, ui = np.unique(u, return_inverse=True)
    _, vi = np.unique(v, return_inverse=True)
    ku, kv = int(ui.max()) + 1 if ui.size else 0, int(vi.max()) + 1 if vi.size else 0
    return np.bincount(ui * kv + vi, minlength=ku * kv).reshape(ku, kv)


def _pairs(counts: np.ndarray) -> int:
    counts = np.asarray(counts, dtype=np.int64).ravel()
    return int((counts * (counts - 1) // 2).sum())


def _entropy(counts: np.ndarray, n: int) -> float:
    p = np.asarray(counts, float).ravel() / n
    p = p[p > 0]
    return float(-(p * np.log(p)).sum())


def partition_agreement(u: np.ndarray, v: np.ndarray) -> dict:
    """Agreement between partitions ``u`` (original data) and ``v`` (protected), from the
    pair counts: ``a`` pairs together in both, ``b`` together in u only, ``c`` in v only,
    ``d`` apart in both (``T = n(n-1)/2``):

    * Rand ``(a + d) / T``; Jaccard ``a / (a + b + c)``;
    * adjusted Rand (Hubert & Arabie 1985) ``(a - E) / ((Su + Sv)/2 - E)``, ``Su = a + b``,
      ``Sv = a + c``, ``E = Su Sv / T``;
    * Wallace (1983) ``a / Su`` (u to v: the share of the pairs grouped by u that v keeps
      together) and ``a / Sv`` (v to u);
    * Mantaras distance (Lopez de Mantaras 1991) ``(H(u|v) + H(v|u)) / H(u, v)``
      ``= 2 - (H(u) + H(v)) / H(u, v)``, in [0, 1], 0 for the same partition.

    Indices whose denominator is 0 (e.g. every record its own cluster in both) are 1 when
    the partitions are equal and 0 otherwise; the Mantaras distance is then 0."""
    n = len(u)
    table = contingency(u, v)
    a = _pairs(table)
    su, sv = _pairs(table.sum(axis=1)), _pairs(table.sum(axis=0))
    total = n * (n - 1) // 2
    b, c = su - a, sv - a
    d = total - a - b - c
    same = float(su == sv == a)

    def ratio(num, den):
        return num / den if den else same

    expected = su * sv / total if total else 0.0
    h_uv = _entropy(table, n) if n else 0.0
    mantaras = (2.0 - (_entropy(table.sum(axis=1), n) + _entropy(table.sum(axis=0), n)) / h_uv
                if h_uv > 0 else 0.0)
    return {
        "rand": ratio(a + d, total),
        "jaccard": ratio(a, a + b + c),
        "adjusted_rand": ratio(a - expected, (su + sv) / 2 - expected),
        "wallace_original_to_protected": ratio(a, su),
        "wallace_protected_to_original": ratio(a, sv),
        "mantaras": max(0.0, min(1.0, mantaras)),
        "pairs": {"together_both": a, "together_original_only": b,
                  "together_protected_only": c, "apart_both": d},
    }


# ----------------------------------------------------------------------------------------
# propensity scores
# ----------------------------------------------------------------------------------------

def product_terms(groups: np.ndarray, numeric: np.ndarray | None = None, *,
                  interactions: bool = False, squares: bool = False) -> list[tuple[int, int]]:
    """The second-order terms of the model, as pairs of main-effect columns: with
    ``interactions`` every pair of columns of different variables (``groups[k]``: the
    variable of column k; the indicators of one variable have zero products), with
    ``squares`` every numeric column (``numeric[k]``) with itself."""
    q = len(groups)
    numeric = np.ones(q, dtype=bool) if numeric is None else np.asarray(numeric, dtype=bool)
    pairs = []
    for i in range(q):
        if squares and numeric[i]:
            pairs.append((i, i))
        if interactions:
            pairs.extend((i, j) for j in range(i + 1, q) if groups[i] != groups[j])
    return pairs


def main_effects(num: np.ndarray, codes: np.ndarray, cards) -> np.ndarray:
    """The numeric columns, then for each categorical column the indicators of its
    categories but the first (codes 1 .. card-1; code 0 is the baseline)."""
    q = num.shape[1]
    out = np.zeros((len(num), q + sum(c - 1 for c in cards)))
    out[:, :q] = num
    offset = q
    for j, c in enumerate(cards):
        rows = np.flatnonzero(codes[:, j] > 0)
        out[rows, offset + codes[rows, j] - 1] = 1.0
        offset += c - 1
    return out


def _design(main: np.ndarray, pairs: list[tuple[int, int]]) -> np.ndarray:
    """Intercept, the main effects and the products ``pairs`` of them."""
    cols = [np.ones((len(main), 1)), main]
    if pairs:
        i, j = np.array(pairs).T
        cols.append(main[:, i] * main[:, j])
    return np.hstack(cols)


def _xlogy(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(a > 0, a * np.log(np.where(b > 0, b, 1.0)), 0.0)


def logistic_fit(design, n: int, k: int, ones: np.ndarray, totals: np.ndarray | None = None,
                 *, max_iter: int = 100, tol: float = 1e-10) -> tuple[np.ndarray, dict]:
    """Maximum-likelihood logistic regression with ``k`` parameters on the rows
    ``design(start, stop)`` (an n x k design matrix, built block by block so memory stays
    at a few columns of the data), each row standing for ``totals`` records (default 1)
    of which ``ones`` have T = 1 (binomial counts: records with the same covariates can be
    merged without changing the fit). Newton-Raphson (IRLS) with step halving, started at
    the intercept-only solution (the first column must be the intercept). Stops when the
    deviance improves by less than ``tol`` (relative), when no step improves it, or after
    ``max_iter`` iterations. When every row is all-0 or all-1 (always so for unmerged
    records) and the deviance falls below 1e-6, the data are completely separated: the
    likelihood has no maximum, the scores are within about 1e-6 of 0 or 1, and the fit
    stops there (``separated``). Returns the fitted probability of each row and details."""
    ones = np.asarray(ones, float)
    totals = np.ones(n) if totals is None else np.asarray(totals, float)
    share = float(ones.sum() / totals.sum())
    beta = np.zeros(k)
    beta[0] = math.log(share / (1 - share))
    # the saturated log-likelihood, so that the deviance is 0 for a perfect fit
    saturated = float((_xlogy(ones, ones / totals)
                       + _xlogy(totals - ones, (totals - ones) / totals)).sum())
    pure = bool(np.all((ones == 0) | (ones == totals)))

    def evaluate(b):
        dev = 0.0
        grad = np.zeros(k)
        hess = np.zeros((k, k), order="F")
        for s in range(0, n, _CHUNK):
            x = design(s, min(s + _CHUNK, n))
            tt, nn = ones[s:s + len(x)], totals[s:s + len(x)]
            eta = x @ b
            dev += float((nn * np.logaddexp(0.0, eta) - tt * eta).sum())
            p = np.exp(-np.logaddexp(0.0, -eta))
            grad += x.T @ (tt - nn * p)
            # upper triangle of x' W x (symmetric: half the work of a full product);
            # xw.T is Fortran-ordered, so BLAS reads it without a copy
            xw = x * np.sqrt(nn * p * (1 - p))[:, None]
            hess = dsyrk(1.0, xw.T, beta=1.0, c=hess, trans=0, lower=0)
        hess = np.triu(hess) + np.triu(hess, 1).T
        return 2.0 * (dev + saturated), grad, hess

    dev, grad, hess = evaluate(beta)
    converged = separated = False
    it = 0
    for it in range(1, max_iter + 1):
        # a ridge of relative size 1e-10 keeps the solve defined for collinear designs
        h = hess + np.eye(k) * 1e-10 * max(float(np.trace(hess)) / k, 1e-300)
        try:
            step = np.linalg.solve(h, grad)
        except np.linalg.LinAlgError:
            step = np.linalg.lstsq(h, grad, rcond=None)[0]
        scale = 1.0
        while True:
            trial = beta + scale * step
            t_dev, t_grad, t_hess = evaluate(trial)
            if t_dev <= dev or scale < 1e-8:
                break
            scale /= 2
        if not t_dev <= dev:
            converged = True  # no step improves the likelihood: numerically at its maximum
            break
        improvement = dev - t_dev
        beta, dev, grad, hess = trial, t_dev, t_grad, t_hess
        if dev <= 1e-6 and pure:
            separated = True
            break
        if improvement <= tol * max(dev, 1.0):
            converged = True
            break
    probs = np.empty(n)
    for s in range(0, n, _CHUNK):
        x = design(s, min(s + _CHUNK, n))
        probs[s:s + len(x)] = np.exp(-np.logaddexp(0.0, -(x @ beta)))
    return probs, {"parameters": k, "iterations": it, "converged": converged,
                   "separated": separated, "deviance": float(dev)}


def propensity_utility(x: np.ndarray, y: np.ndarray, x_codes: np.ndarray | None = None,
                       y_codes: np.ndarray | None = None, cards=(), *,
                       interactions: bool = False, squares: bool = False) -> tuple[
                           dict, np.ndarray]:
    """The propensity score utility of Woo, Reiter, Oganian & Karr (2009) (seed 002,
    section 2.6): stack the original records (numeric columns ``x``, categorical codes
    ``x_codes``; T = 0) and the protected ones (``y``, ``y_codes``; T = 1), fit a logistic
    regression of T on the variables (:func:`main_effects`: numeric columns and category
    indicators, ``cards[j]`` categories for code column j; ``interactions`` and ``squares``
    add the products of :func:`product_terms`), and report ``U = (1/N) sum_i (p_i - c)^2``
    over the N stacked records, ``c`` the share of protected records. U is the pMSE of
    Snoke, Raab, Nowok, Dibben & Slavkovic (2018), the same quantity; with equal numbers of
    records, c = 1/2 and U is the seed's measure. U = 0 when the model cannot tell the data
    sets apart; its maximum is ``c (1 - c)`` (1/4 for equal sizes), reached when it
    separates them fully.

    Also the null expectation of Snoke et al. for a model with k parameters,
    ``E[pMSE] = (k - 1) (1 - c)^2 c / N`` with standard deviation
    ``sqrt(2 (k - 1)) (1 - c)^2 c / N``, the ratio U / E and the standardised
    ``(U - E) / sd`` (Snoke et al.'s standardised pMSE): derived for data drawn
    independently from the same distribution (the synthetic-data case), so for masked data
    (each protected record paired with its original) they are a yardstick, not a test.

    A main effects model only sees differences of means: for equal numbers of records, the
    intercept-only fit solves its score equations whenever every column has the same mean
    in both data sets, so U = 0 for any mean-preserving masking (microaggregation, rank
    swapping); ``squares`` sees variances, ``interactions`` covariances.

    Numeric columns are standardised on the stacked data first (the fitted probabilities do
    not change: the model has an intercept and all main effects); constant ones are dropped.
    With categorical variables only, records with the same codes are merged (binomial
    counts). Returns the summary and the propensity scores (original records first)."""
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    if len(x) == 0 or len(y) == 0:
        raise ValueError("the propensity model needs records in both data sets")
    cards = [int(c) for c in cards]
    m = len(cards)
    if m:
        codes = np.vstack([np.asarray(x_codes), np.asarray(y_codes)])
    else:
        codes = np.empty((len(x) + len(y), 0), dtype=np.int64)
    num = np.vstack([x, y])
    n = len(num)
    t = np.concatenate([np.zeros(len(x)), np.ones(len(y))])
    num -= num.mean(axis=0)
    sd = np.sqrt(np.einsum("ij,ij->j", num, num) / n)  # no n x q temporary, unlike std()
    keep = sd > 0  # a constant column carries no information (it duplicates the intercept)
    if not keep.all():
        num, sd = num[:, keep], sd[keep]
    num /= sd
    q = num.shape[1]
    groups = np.concatenate([np.arange(q)] + [np.full(c - 1, q + j) for j, c in enumerate(cards)])
    numeric = np.arange(len(groups)) < q
    pairs = product_terms(groups, numeric, interactions=interactions, squares=squares)
    k = 1 + len(groups) + len(pairs)
    if q == 0 and m:
        # records with the same categories share a score: fit on the distinct patterns
        inverse, first = row_ids(codes)
        pattern_codes = codes[first]
        totals = np.bincount(inverse, minlength=len(first)).astype(float)
        ones = np.bincount(inverse, weights=t, minlength=len(first))
        probs, fit = logistic_fit(
            lambda a, b: _design(main_effects(np.empty((b - a, 0)), pattern_codes[a:b], cards),
                                 pairs),
            len(first), k, ones, totals)
        probs = probs[inverse]
    else:
        probs, fit = logistic_fit(
            lambda a, b: _design(main_effects(num[a:b], codes[a:b], cards), pairs), n, k, t)
    c = float(t.mean())
    u = float(np.mean((probs - c) ** 2))
    expected = (k - 1) * (1 - c) ** 2 * c / n
    sd_null = math.sqrt(2 * (k - 1)) * (1 - c) ** 2 * c / n
    return {
        "U": u,
        "pmse": u,
        "c": c,
        "records": n,
        "maximum": c * (1 - c),
        "null_expected": expected,
        "ratio": u / expected if expected > 0 else None,
        "standardised": (u - expected) / sd_null if sd_null > 0 else None,
        **fit,
    }, probs
