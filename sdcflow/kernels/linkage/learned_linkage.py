"""Worst-case distance-based record linkage with a learned distance (seed
003_fc14c51a27fe5611.txt, "Worst-case scenario: ML for reidentification (learning
distances)", "Formalization of the problem"; Abril, Navarro-Arribas & Torra 2012,
"Improving record linkage with supervised learning for disclosure risk assessment",
Information Fusion 13(4); 2015, "Supervised learning using a symmetric bilinear form for
record linkage", Information Fusion 26).

The intruder knows which protected record comes from which original (the worst case)
and chooses the parameters of the distance that link the most records correctly:

    maximise   sum_i b_i                         (b_i = 1: protected record i correctly linked)
    subject to d(a_i, o_k) - d(a_i, o_i) + C_i (1 - b_i) >= margin   for all k != i
               b_i in {0, 1},  parameters of d constrained (below)

which is the seed's problem with ``K_i = 1 - b_i`` ("Minimize sum K_i"), the strict ``> 0``
made ``>= margin``. ``d`` is linear in its parameters, so this is a mixed-integer linear
program, solved with HiGHS (``scipy.optimize.milp``), or its LP relaxation (``b_i`` in
``[0, 1]``). Two forms of ``d`` on the standardised differences ``delta = a - o``:

* ``weighted_mean``: ``sum_j w_j delta_j^2`` with ``w_j >= 0``, ``sum_j w_j = 1`` (the
  seed's ``d^2 WM``);
* ``bilinear``: ``delta' M delta`` with ``M`` symmetric (the seed's symmetric bilinear
  form, a generalised Mahalanobis distance). Requiring ``M`` positive semidefinite makes
  the problem a mixed-integer *semidefinite* program, which HiGHS does not solve; here the
  PSD cone is replaced by linear conditions it implies: ``M_jj >= 0``, ``trace M = 1`` and
  ``|M_jl| <= (M_jj + M_ll) / 2``. The learned ``M`` is reported with its smallest
  eigenvalue (negative: not a distance).

``C_i`` is the smallest constant that frees a record's constraints when ``b_i = 0``
(bounded from the parameter constraints), which keeps the relaxation tight. Constraints
that hold for every admissible parameter are dropped (a weighted mean: ``o_k`` is no
nearer than ``o_i`` on any variable), exactly. Beyond a few hundred records the number
of pairs (``n (n - 1)``) is too large: ``neighbours`` restricts each record's constraints
to its nearest originals under each single variable and under the equal-weight distance
(a heuristic: an original outside these lists could still be nearer for the learned
parameters; the links reported are always recomputed exactly over all records).

The program may stop at its time limit with a poor incumbent (HiGHS's first integer
solutions can be far from optimal on large, tie-ridden files). So the parameters kept are
the best, by the correct links they really make over all records, of: the MILP's
solution, the LP relaxation's (solved first, in a fraction of the time), equal weights
and (weighted mean) each single variable; all are distances an intruder could use, so
the worst case is at least the best of them.
"""

from __future__ import annotations

import os
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.optimize import Bounds, LinearConstraint, milp

from .coordinates import weighted
from .distance_linkage import nearest_links
from .links import Links
from .paired import paired_files

FORMS = ("weighted_mean", "bilinear")


@dataclass
class Learned:
    """The learned distance: ``weights`` (weighted mean) or ``matrix`` (bilinear); the
    solver's ``status`` and ``message``, the ``objective`` (records the program links
    correctly), the values of ``b``, the number of constraints, whether the candidates
    were restricted to nearest neighbours, and which solution was kept (``source``) with
    the links it makes (``correct``)."""

    form: str
    weights: np.ndarray | None
    matrix: np.ndarray | None
    status: int
    message: str
    objective: float
    b: np.ndarray
    constraints: int
    restricted: bool
    never: int  # records no admissible parameter can link (dropped from the program)
    source: str  # where the kept parameters come from: milp, lp, equal, variable
    correct: float  # their correct links over all records (1/t for t tied nearest)
    links: Links  # the links they make


def _features(delta: np.ndarray, form: str) -> np.ndarray:
    """The distance as a linear function of the parameters: rows of ``delta`` -> feature
    rows (squared differences; for the bilinear form also ``2 delta_j delta_l``, j < l)."""
    sq = delta * delta
    if form == "weighted_mean":
        return sq
    c = delta.shape[-1]
    ju, lu = np.triu_indices(c, k=1)
    cross = 2.0 * delta[..., ju] * delta[..., lu]
    return np.concatenate([sq, cross], axis=-1)


def candidate_pairs(z_protected: np.ndarray, z_original: np.ndarray, neighbours: int | None
                    ) -> list[np.ndarray]:
    """For each protected record, the originals its constraints compare with: every other
    record (``neighbours=None``) or the union of its ``neighbours`` nearest originals on
    each variable alone and under the equal-weight distance (its own original excluded)."""
    n, c = z_protected.shape
    if neighbours is None or neighbours >= n - 1:
        everyone = np.arange(n)
        return [np.delete(everyone, i) for i in range(n)]
    from scipy.spatial import cKDTree

    k = min(neighbours + 1, n)
    lists = []
    trees = [cKDTree(z_original[:, [j]]) for j in range(c)] + [cKDTree(z_original)]
    found = [t.query(z_protected[:, [j]] if j < c else z_protected, k=k)[1]
             for j, t in enumerate(trees)]
    for i in range(n):
        cand = np.unique(np.concatenate([f[i] for f in found]))
        lists.append(cand[cand != i])
    return lists


def learn_distance(z_protected: np.ndarray, z_original: np.ndarray, *,
                   form: str = "weighted_mean", relax: bool = False, margin: float = 1e-6,
                   neighbours: int | None = None, time_limit: float = 60.0) -> Learned:
    """Solve the seed's optimisation problem (module docstring) for aligned, complete,
    standardised files (row ``i`` of ``z_protected`` comes from row ``i`` of
    ``z_original``). ``neighbours``: restrict the constraints (None: all pairs)."""
    zo, zp = paired_files(z_original, z_protected)
    n, c = zp.shape
    if zo.shape != zp.shape:
        raise ValueError("both files need the same variables")
    if np.isnan(zp).any() or np.isnan(zo).any():
        raise ValueError("missing values: learned linkage needs complete records")
    if form not in FORMS:
        raise ValueError(f"unknown form {form!r}")
    cand = candidate_pairs(zp, zo, neighbours)
    f_own = _features(zp - zo, form)  # (n, q)
    q = f_own.shape[1]
    rows_i, rows_f = [], []
    for i in range(n):
        if len(cand[i]):
            rows_i.append(np.full(len(cand[i]), i))
            rows_f.append(_features(zp[i] - zo[cand[i]], form) - f_own[i])
    if rows_i:
        ri = np.concatenate(rows_i)
        F = np.concatenate(rows_f)  # d(i,k) - d(i,i) = F @ params
    else:
        ri, F = np.zeros(0, dtype=np.int64), np.zeros((0, q))
    if form == "weighted_mean":
        # over the simplex, F @ w ranges over [min_j F_j, max_j F_j]
        lowest, highest = F.min(axis=1, initial=np.inf), F.max(axis=1, initial=-np.inf)
    else:
        bound = _bilinear_bound(F, c)
        lowest, highest = -bound, bound
    always = lowest >= margin  # holds for every admissible parameter: drop
    impossible = np.zeros(n, dtype=bool)
    np.logical_or.at(impossible, ri[highest < margin], True)  # never linkable
    keep = ~always & ~impossible[ri]
    ri, F, lowest = ri[keep], F[keep], lowest[keep]
    big = np.maximum(margin - lowest, 0.0) + margin  # C_ik: frees the row when b_i = 0
    m = len(ri)
    # variables: [params (q), b (n)]; row: F @ params - C b_i >= margin - C
    A = sparse.hstack([sparse.csr_matrix(F),
                       sparse.csr_matrix((-big, (np.arange(m), ri)), shape=(m, n))]).tocsr()
    cons = [LinearConstraint(A, margin - big, np.inf)] if m else []
    if form == "weighted_mean":
        cons.append(LinearConstraint(np.concatenate([np.ones(q), np.zeros(n)])[None, :], 1, 1))
        lb = np.zeros(q + n)
        ub = np.ones(q + n)
    else:
        diag = np.concatenate([np.ones(c), np.zeros(q - c), np.zeros(n)])
        cons.append(LinearConstraint(diag[None, :], 1, 1))
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
        lb = np.concatenate([np.zeros(c), -np.ones(q - c), np.zeros(n)])
        ub = np.ones(q + n)
    ub[q:][impossible] = 0.0
    objective = np.concatenate([np.zeros(q), -np.ones(n)])
    restricted = neighbours is not None and neighbours < n - 1
    bounds = Bounds(lb, ub)

    def solve(integer: bool, seconds: float):
        integrality = np.concatenate([np.zeros(q), np.full(n, 1 if integer else 0)])
        with _quiet_stdout():
            return milp(objective, constraints=cons, integrality=integrality, bounds=bounds,
                        options={"time_limit": max(float(seconds), 1e-3), "disp": False,
                                 "presolve": True, "mip_rel_gap": 0.0})

    # The LP relaxation first (fast): a fallback when the MILP stops at its time limit
    # with a poor incumbent. Every candidate parameter is then judged by the links it
    # really makes, and the best is kept (all are distances the intruder could use).
    start = time.perf_counter()
    lp = solve(False, time_limit)
    runs = [("lp", lp)]
    if not relax:
        runs.insert(0, ("milp", solve(True, time_limit - (time.perf_counter() - start))))
    candidates = []
    for source, res in runs:
        if res.x is not None:
            candidates.append((source, _normalised(res.x[:q], form, c), res))
    candidates.append(("equal", _identity_params(c, q), None))
    if form == "weighted_mean":
        candidates += [("variable", np.eye(c)[j], None) for j in range(c)]
    best = None
    for source, params, _ in candidates:
        links = _links(zp, zo, params, form, c)
        found = float(links.credit.sum())
        if best is None or found > best[0]:
            best = (found, source, params, links)
    found, source, params, links = best
    main = runs[0][1]  # the program asked for: the MILP, or the LP when relaxed
    b = main.x[q:] if main.x is not None else np.zeros(n)
    return Learned(form, params if form == "weighted_mean" else None,
                   _matrix(params, c) if form == "bilinear" else None,
                   int(main.status), str(main.message), float(b.sum()), b, m, restricted,
                   int(impossible.sum()), source, float(found), links)


def _normalised(params: np.ndarray, form: str, c: int) -> np.ndarray:
    params = params.copy()
    if form == "weighted_mean":
        params = np.clip(params, 0.0, None)
        total = params.sum()
        return params / total if total > 0 else np.full(c, 1.0 / c)
    return params


def _links(zp, zo, params, form, c) -> Links:
    """The links a parameter vector makes, over all records."""
    if form == "weighted_mean":
        return nearest_links(weighted(zp, params), weighted(zo, params))
    return matrix_links(zp, zo, _matrix(params, c))


@contextmanager
def _quiet_stdout():
    """Keep HiGHS's occasional diagnostics (printed by its C++ code to file descriptor 1
    even with ``disp=False``) out of the pipeline's output."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        yield
        return
    sys.stdout.flush()
    saved = os.dup(fd)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
        yield
    finally:
        os.dup2(saved, fd)
        os.close(saved)
        os.close(devnull)


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


def _identity_params(c: int, q: int) -> np.ndarray:
    out = np.zeros(q)
    out[:c] = 1.0 / c
    return out


def _matrix(params: np.ndarray, c: int) -> np.ndarray:
    M = np.diag(params[:c])
    ju, lu = np.triu_indices(c, k=1)
    M[ju, lu] = params[c:]
    M[lu, ju] = params[c:]
    return M


def matrix_links(z_protected: np.ndarray, z_original: np.ndarray, M: np.ndarray,
                 block_elements: int = 4_000_000):
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
