"""The distances whose parameters :mod:`.learned_linkage` learns, each written as a linear
function of its parameters (so that the learning problem is a mixed-integer *linear*
program), with the conditions on the parameters, the bounds the program needs, and the
links a parameter vector makes (Abril, Navarro-Arribas & Torra 2012, "Improving record
linkage with supervised learning for disclosure risk assessment", Information Fusion
13(4); 2012, "Choquet integral for record linkage", Annals of Operations Research 195;
2015, "Supervised learning using a symmetric bilinear form for record linkage",
Information Fusion 26). Each acts on the standardised differences ``delta = a - b``:

* ``weighted_mean``: ``sum_j w_j delta_j^2``, ``w >= 0``, ``sum w = 1``;
* ``owa``: ``sum_i w_i delta^2_(i)`` (squared differences in decreasing order), same ``w``;
* ``choquet``: the Choquet integral of ``delta^2`` for a fuzzy measure ``mu`` (``2^c - 2``
  free values in ``[0, 1]``, ``mu(all) = 1``, monotone: ``mu(A) <= mu(A + {j})``);
  ``choquet_submodular`` also submodular, ``mu(A + {i}) + mu(A + {j}) >= mu(A + {i, j}) +
  mu(A)`` (equivalent to ``mu(A) + mu(B) >= mu(A | B) + mu(A & B)``), the CI_m of Abril,
  Navarro-Arribas & Torra;
* ``bilinear`` / ``bilinear_pd``: ``delta' M delta``, ``M`` symmetric, ``trace M = 1``,
  ``M_jj >= 0``, ``|M_jl| <= (M_jj + M_ll) / 2`` (linear conditions positive
  semidefiniteness implies); ``bilinear_pd`` adds positive definiteness by cuts, see
  :mod:`.learned_linkage`.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.optimize import LinearConstraint

from .aggregators import (
    aggregated_links,
    choquet,
    choquet_features,
    monotonicity_rows,
    owa,
    submodularity_rows,
)
from .aggregators import owa_features as _owa_features
from .coordinates import weighted
from .distance_linkage import nearest_links
from .links import Links
from .paired import paired_files

FORMS = ("weighted_mean", "owa", "choquet", "choquet_submodular", "bilinear", "bilinear_pd")
CHOQUET = ("choquet", "choquet_submodular")
BILINEAR = ("bilinear", "bilinear_pd")


def n_parameters(form: str, c: int) -> int:
    """How many parameters the program carries (``choquet``: ``mu`` of every non-empty
    subset, the full set's fixed to 1 by its bounds)."""
    if form in ("weighted_mean", "owa"):
        return c
    if form in CHOQUET:
        return 2 ** c - 1
    if form in BILINEAR:
        return c * (c + 1) // 2
    raise ValueError(f"unknown form {form!r}")


def quadratic_features(delta: np.ndarray) -> np.ndarray:
    """``delta' M delta`` as a linear function of ``(M_11, ..., M_cc, M_12, M_13, ...)``:
    the squares, then ``2 delta_j delta_l`` for ``j < l``."""
    c = delta.shape[-1]
    ju, lu = np.triu_indices(c, k=1)
    return np.concatenate([delta * delta, 2.0 * delta[..., ju] * delta[..., lu]], axis=-1)


def pair_features(z_protected: np.ndarray, z_original: np.ndarray, ri: np.ndarray,
                  rk: np.ndarray, form: str):
    """For the pairs (protected ``ri``, original ``rk``): the rows ``F`` with
    ``d(a_i, o_k) - d(a_i, o_i) = F @ params`` (dense, or sparse for ``choquet``) and a
    lower and an upper bound of ``F @ params`` over the admissible parameters."""
    dk = z_protected[ri] - z_original[rk]
    di = z_protected[ri] - z_original[ri]
    if form in ("weighted_mean", "owa"):
        prep = (lambda x: x) if form == "weighted_mean" else _owa_features
        F = prep(dk * dk) - prep(di * di)
        # over the simplex, F @ w ranges over [min_j F_j, max_j F_j]
        return F, F.min(axis=1, initial=np.inf), F.max(axis=1, initial=-np.inf)
    if form in CHOQUET:
        sk, si = dk * dk, di * di
        F = (choquet_features(sk) - choquet_features(si)).tocsr()
        # a Choquet integral lies between the smallest and the largest value
        return F, sk.min(axis=1) - si.max(axis=1), sk.max(axis=1) - si.min(axis=1)
    F = quadratic_features(dk) - quadratic_features(di)
    bound = _bilinear_bound(F, z_protected.shape[1])
    return F, -bound, bound


def _bilinear_bound(F: np.ndarray, c: int) -> np.ndarray:
    """A bound on ``|F @ params|`` over the admissible bilinear parameters (diagonal in the
    simplex, ``|M_jl| <= (M_jj + M_ll)/2``): each diagonal unit can be spent on ``F_jj``
    plus half of each ``|F_jl|`` of its row and column."""
    ju, lu = np.triu_indices(c, k=1)
    per = np.abs(F[:, :c]).copy()
    cross = np.abs(F[:, c:])
    for t, (j, l) in enumerate(zip(ju, lu, strict=True)):
        per[:, j] += 0.5 * cross[:, t]
        per[:, l] += 0.5 * cross[:, t]
    return per.max(axis=1, initial=0.0) if len(F) else np.zeros(0)


def parameter_constraints(form: str, c: int, n: int):
    """The conditions on the parameters, over the program's variables ``[params, b]``
    (``n`` indicators): a list of ``LinearConstraint`` and the lower and upper bounds."""
    q = n_parameters(form, c)
    lb, ub = np.zeros(q + n), np.ones(q + n)
    cons = []
    if form in ("weighted_mean", "owa"):
        cons.append(LinearConstraint(np.concatenate([np.ones(q), np.zeros(n)])[None, :], 1, 1))
    elif form in CHOQUET:
        lb[q - 1] = 1.0  # mu(all variables) = 1
        rows = monotonicity_rows(c)
        if form == "choquet_submodular":
            rows = sparse.vstack([rows, submodularity_rows(c)]).tocsr()
        if rows.shape[0]:
            cons.append(LinearConstraint(
                sparse.hstack([rows, sparse.csr_matrix((rows.shape[0], n))]).tocsr(),
                0, np.inf))
    else:
        cons.append(LinearConstraint(
            np.concatenate([np.ones(c), np.zeros(q - c), np.zeros(n)])[None, :], 1, 1))
        ju, lu = np.triu_indices(c, k=1)
        pair_rows = []
        for t, (j, l) in enumerate(zip(ju, lu, strict=True)):
            for sign in (1.0, -1.0):  # (M_jj + M_ll)/2 - sign * M_jl >= 0
                row = np.zeros(q + n)
                row[j] = row[l] = 0.5
                row[c + t] = -sign
                pair_rows.append(row)
        if pair_rows:
            cons.append(LinearConstraint(np.array(pair_rows), 0, np.inf))
        lb[c:q] = -1.0
    return cons, lb, ub


def equal_parameters(form: str, c: int) -> np.ndarray:
    """The parameters of the plain (equally weighted) squared Euclidean distance / c."""
    if form in ("weighted_mean", "owa"):
        return np.full(c, 1.0 / c)
    if form in CHOQUET:
        masks = np.arange(1, 2 ** c)
        return np.array([int(m).bit_count() for m in masks], dtype=float) / c
    out = np.zeros(n_parameters(form, c))
    out[:c] = 1.0 / c
    return out


def simple_candidates(form: str, c: int) -> list[tuple[str, np.ndarray]]:
    """Further distances tried beside the program's (an intruder could use any): each
    variable alone (weighted mean), each order statistic alone (OWA)."""
    if form == "weighted_mean":
        return [("variable", np.eye(c)[j]) for j in range(c)]
    if form == "owa":
        return [("order statistic", np.eye(c)[j]) for j in range(c)]
    return []


def normalised(params: np.ndarray, form: str, c: int) -> np.ndarray:
    """The solver's parameters made exactly admissible where rounding may break it."""
    params = np.asarray(params, dtype=float).copy()
    if form in ("weighted_mean", "owa"):
        params = np.clip(params, 0.0, None)
        total = params.sum()
        return params / total if total > 0 else np.full(c, 1.0 / c)
    if form in CHOQUET:
        params = np.clip(params, 0.0, 1.0)
        params[-1] = 1.0
        # monotone again: mu(A) = max over subsets B of A of the solver's mu(B)
        mu = np.concatenate([[0.0], params])
        for j in range(c):
            bit = 1 << j
            has = (np.arange(len(mu)) & bit) > 0
            idx = np.flatnonzero(has)
            mu[idx] = np.maximum(mu[idx], mu[idx ^ bit])
        return mu[1:]
    return params


def matrix(params: np.ndarray, c: int) -> np.ndarray:
    """The symmetric matrix of bilinear parameters."""
    M = np.diag(params[:c])
    ju, lu = np.triu_indices(c, k=1)
    M[ju, lu] = params[c:]
    M[lu, ju] = params[c:]
    return M


def distance_links(z_protected: np.ndarray, z_original: np.ndarray, params: np.ndarray,
                   form: str) -> Links:
    """The links a parameter vector makes, over all records."""
    c = z_protected.shape[1]
    if form == "weighted_mean":
        return nearest_links(weighted(z_protected, params), weighted(z_original, params))
    if form == "owa":
        return aggregated_links(z_protected, z_original, lambda s: owa(s, params))
    if form in CHOQUET:
        mu = np.concatenate([[0.0], params])
        return aggregated_links(z_protected, z_original, lambda s: choquet(s, mu))
    return matrix_links(z_protected, z_original, matrix(params, c))


def matrix_links(z_protected: np.ndarray, z_original: np.ndarray, M: np.ndarray,
                 block_elements: int = 4_000_000) -> Links:
    """Link each protected record to the original(s) of smallest ``delta' M delta``
    (``M`` symmetric, not necessarily positive semidefinite), by direct evaluation over all
    pairs, block of rows by block of rows; ties are exact float equality. Returns
    :class:`sdcflow.kernels.linkage.links.Links`."""
    zo, zp = paired_files(z_original, z_protected)
    n, c = zp.shape
    M = (np.asarray(M, dtype=float) + np.asarray(M, dtype=float).T) / 2
    linked = np.full(n, -1, dtype=np.int64)
    ties = np.zeros(n, dtype=np.int64)
    correct = np.zeros(n, dtype=bool)
    rows = max(1, block_elements // max(n * max(c, 1), 1))
    for start in range(0, n, rows):
        stop = min(start + rows, n)
        delta = zp[start:stop, None, :] - zo[None, :, :]  # (b, n, c)
        d = np.einsum("bkj,jl,bkl->bk", delta, M, delta)
        best = d.min(axis=1)
        tied = d == best[:, None]
        ties[start:stop] = tied.sum(axis=1)
        linked[start:stop] = tied.argmax(axis=1)
        correct[start:stop] = tied[np.arange(stop - start), np.arange(start, stop)]
    return Links(linked, ties, correct, {"algorithm": "direct"})
