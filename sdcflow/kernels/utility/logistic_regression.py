"""Maximum-likelihood logistic regression for the propensity scores: Newton-Raphson (IRLS)
with step halving on blocks of rows of the design matrix, with NumPy/BLAS, on records or
on binomial counts of merged records.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.linalg.blas import dsyrk

_CHUNK = 65536  # rows per block: keeps each block of the design matrix small and in cache


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
