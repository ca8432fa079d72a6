"""Synthetic data from fuzzy c-regression models: the approach to synthetic data that V.
Torra's "Towards knowledge intensive data privacy" (DPM 2010) lists beside IPSO, published
as I. Cano & V. Torra, "Generation of synthetic data by means of fuzzy c-regression",
FUZZ-IEEE 2009. IPSO fits one regression of the confidential variables Y on the
non-confidential X for all the records; fuzzy c-regression fits c of them, each record
belonging to each model to a degree, so that the synthetic values follow the local
structure of the data: c = 1 is the single (IPSO) regression, and the more models the
closer the synthetic values come to the original ones (higher utility, higher risk).

The models are Hathaway & Bezdek's fuzzy c-regression models (FCRM: R. J. Hathaway & J.
C. Bezdek, "Switching regression models and fuzzy clustering", IEEE Transactions on Fuzzy
Systems 1(3), 1993): minimise ``J = sum_k sum_i u_ik^m E_ik`` with ``E_ik = ||y_k - x_k
B_i||^2`` (the squared residual of record k under model i) by alternating

* ``B_i`` = the weighted least squares coefficients with weights ``u_ik^m``;
* ``u_ik = 1 / sum_j (E_ik / E_jk)^(1/(m-1))`` (a record fitted exactly by some models
  belongs to them alone, in equal shares: Bezdek's fuzzy c-means memberships with the
  residuals as distances),

until no membership changes by more than ``tol``. FCRM finds a local minimum of J that
depends on where it starts (fitting parallel lines to data on two crossing ones, say), so
it starts ``restarts`` times, from the memberships of fuzzy c-means on the standardised
(X, Y) (Bezdek 1981, k-means++ seeding) and from random memberships (uniform on the
simplex), all drawn from the step's generator, and keeps the least J (the first on ties);
the models are then ordered by their coefficients, so that the result does not depend on
which start found them. The synthetic record is the fuzzy model's output ``y'_k = sum_i u_ik x_k
B_i`` (``output="weighted"``) or the prediction of the model it belongs to most
(``"maximum"``; ties: the first model). NumPy only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..utility.fuzzy_c_means import fuzzy_c_means, memberships
from ..utility.kmeans import kmeans_plus_plus
from .least_squares import TooFewRecords

OUTPUTS = ("weighted", "maximum")
RESTARTS = 10  # starts of the alternating optimisation; the least objective is kept


@dataclass
class FuzzyRegression:
    """A fuzzy c-regression solution: ``coefficients`` (c x q x m: model i's B_i),
    ``membership`` (n x c, rows sum to one), ``objective`` J and ``iterations``."""

    coefficients: np.ndarray
    membership: np.ndarray
    objective: float
    iterations: int

    def predictions(self, X: np.ndarray) -> np.ndarray:
        """Each model's fitted values, c x n x m."""
        return np.einsum("nq,cqm->cnm", X, self.coefficients)


def fuzzy_c_regression(X: np.ndarray, Y: np.ndarray, c: int, rng: np.random.Generator, *,
                       m: float = 2.0, restarts: int = RESTARTS, max_iter: int = 300,
                       tol: float = 1e-7) -> FuzzyRegression:
    """Hathaway & Bezdek's FCRM of ``Y`` (n x m) on the design ``X`` (n x q, with its
    intercept column) with ``c`` models and fuzzifier ``m`` (see the module docstring).
    :class:`TooFewRecords` when the records cannot support ``c`` models (n <= c, or n <=
    the rank of X)."""
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float).reshape(len(X), -1)
    n = len(X)
    if m <= 1:
        raise ValueError("the fuzzifier m must be above 1")
    if c < 1:
        raise ValueError("at least one model")
    rank = int(np.linalg.matrix_rank(X)) if n else 0
    if n <= max(c, rank):
        raise TooFewRecords(f"{n} records cannot support {c} regression models on {rank} "
                            "parameters")
    best = None
    for start in range(1 if c == 1 else max(restarts, 1)):
        u = (np.ones((n, 1)) if c == 1 else _fuzzy_c_means_start(X, Y, c, rng, m)
             if start == 0 else rng.dirichlet(np.ones(c), n))
        fit = _alternate(X, Y, u, m, max_iter, tol)
        if best is None or fit.objective < best.objective:
            best = fit
    order = np.lexsort(best.coefficients.reshape(c, -1).T[::-1])
    return FuzzyRegression(best.coefficients[order], best.membership[:, order],
                           best.objective, best.iterations)


def _alternate(X: np.ndarray, Y: np.ndarray, u: np.ndarray, m: float, max_iter: int,
               tol: float) -> FuzzyRegression:
    """Hathaway & Bezdek's alternating optimisation from the memberships ``u``."""
    B = _coefficients(X, Y, u, m)
    iterations = 0
    for iterations in range(1, max_iter + 1):
        new = memberships(_residuals(X, Y, B), m)
        moved = float(np.abs(new - u).max(initial=0.0))
        u = new
        B = _coefficients(X, Y, u, m)
        if moved <= tol:
            break
    objective = float(((u ** m) * _residuals(X, Y, B)).sum())
    return FuzzyRegression(B, u, objective, iterations)


def synthesise(X: np.ndarray, Y: np.ndarray, c: int, rng: np.random.Generator, *,
               m: float = 2.0, output: str = "weighted", restarts: int = RESTARTS
               ) -> np.ndarray:
    """Synthetic ``Y`` from the FCRM of ``Y`` on ``X``: each record's membership-weighted
    prediction (``"weighted"``) or the prediction of its model of largest membership
    (``"maximum"``)."""
    if output not in OUTPUTS:
        raise ValueError(f"output must be one of {OUTPUTS}, not {output!r}")
    X = np.asarray(X, dtype=float)
    fit = fuzzy_c_regression(X, Y, c, rng, m=m, restarts=restarts)
    predicted = fit.predictions(X)  # c x n x m
    if output == "weighted":
        out = np.einsum("nc,cnm->nm", fit.membership, predicted)
    else:
        best = np.argmax(fit.membership, axis=1)
        out = predicted[best, np.arange(len(X))]
    return out.reshape(np.shape(Y)) if np.ndim(Y) == 1 else out


def _fuzzy_c_means_start(X: np.ndarray, Y: np.ndarray, c: int, rng: np.random.Generator,
                         m: float) -> np.ndarray:
    """Initial memberships: fuzzy c-means of the standardised non-constant columns of X
    and Y, from a k-means++ seeding."""
    Z = np.column_stack([X, Y])
    sd = Z.std(axis=0)
    Z = (Z[:, sd > 0] - Z[:, sd > 0].mean(axis=0)) / sd[sd > 0]
    if Z.shape[1] == 0:
        return np.full((len(X), c), 1.0 / c)
    return fuzzy_c_means(Z, kmeans_plus_plus(Z, c, rng), m).membership


def _coefficients(X: np.ndarray, Y: np.ndarray, u: np.ndarray, m: float) -> np.ndarray:
    """Each model's weighted least squares coefficients (weights u_ik^m), c x q x m, from
    the weighted normal equations X'WX B = X'WY (q x q: one pass over the records per
    model, where a decomposition of the n x q design would cost far more each
    iteration); the minimum-norm solution when X'WX is singular."""
    w = u ** m
    out = []
    for i in range(u.shape[1]):
        weighted = X * w[:, [i]]
        out.append(np.linalg.lstsq(weighted.T @ X, weighted.T @ Y, rcond=None)[0])
    return np.stack(out)


def _residuals(X: np.ndarray, Y: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``E_ik``: the squared residual of each record under each model, n x c."""
    r = Y[None] - np.einsum("nq,cqm->cnm", X, B)
    return np.einsum("cnm,cnm->nc", r, r)
