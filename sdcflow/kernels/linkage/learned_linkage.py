"""Worst-case distance-based record linkage with a learned distance (Torra, "Data privacy:
supervised approaches for disclosure risk assessment", 2016, "Worst-case scenario: ML for
reidentification (learning distances)", "Formalization of the problem"; Abril,
Navarro-Arribas & Torra 2012, "Improving record linkage with supervised learning for
disclosure risk assessment", Information Fusion 13(4); 2015, "Supervised learning using a
symmetric bilinear form for record linkage", Information Fusion 26).

The intruder knows which protected record comes from which original (the worst case)
and chooses the parameters of the distance that link the most records correctly:

    maximise   sum_i b_i                         (b_i = 1: protected record i correctly linked)
    subject to d(a_i, o_k) - d(a_i, o_i) + C_i (1 - b_i) >= margin   for all k != i
               b_i in {0, 1},  parameters of d constrained (below)

which is Torra's (2016) problem with ``K_i = 1 - b_i`` ("Minimize sum K_i"), the strict ``> 0``
made ``>= margin``. ``d`` is linear in its parameters, so this is a mixed-integer linear
program, solved with HiGHS (``scipy.optimize.milp``), or its LP relaxation (``b_i`` in
``[0, 1]``). The forms of ``d`` on the standardised differences ``delta = a - o`` are
those of :mod:`.learned_forms`:

* ``weighted_mean``: ``sum_j w_j delta_j^2``, ``w_j >= 0``, ``sum_j w_j = 1`` (Torra's (2016)
  ``d^2 WM``);
* ``owa``: the OWA operator of the ``delta_j^2`` (the same weights on the differences in
  decreasing order: they can discard the largest or the smallest);
* ``choquet``: the Choquet integral of the ``delta_j^2`` for a fuzzy measure (``2^c - 2``
  free values; the monotonicity ``mu(A) <= mu(A + {j})`` as linear constraints; Abril,
  Navarro-Arribas & Torra 2012, "Choquet integral for record linkage", Annals of
  Operations Research 195); ``choquet_submodular`` with a submodular measure too (their
  CI_m);
* ``bilinear``: ``delta' M delta`` with ``M`` symmetric (Torra's (2016) symmetric bilinear
  form, a generalised Mahalanobis distance). Requiring ``M`` positive semidefinite makes
  the problem a mixed-integer *semidefinite* program, which HiGHS does not solve; here the
  PSD cone is replaced by linear conditions it implies: ``M_jj >= 0``, ``trace M = 1`` and
  ``|M_jl| <= (M_jj + M_ll) / 2``. The learned ``M`` is reported with its smallest
  eigenvalue (negative: not a distance);
* ``bilinear_pd`` (``SB_PD`` of Abril et al. 2015): the same, with ``M`` positive definite. The
  semidefinite constraint ``M >= PD_FLOOR I`` is the intersection of the half-spaces
  ``v' M v >= PD_FLOOR`` (``|v| = 1``), each linear in ``M``: the program is solved, each
  eigenvector ``v`` of an eigenvalue below the floor becomes such a cut, and the program
  is solved again (Kelley's cutting planes, as outer approximation of the semidefinite
  cone), until ``M`` is positive definite or ``PD_ROUNDS`` rounds or the time are spent;
  a matrix still short of it then has its small eigenvalues raised to the floor (and its
  trace brought back to 1), so the distance kept is always positive definite.

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
and (weighted mean) each single variable or (OWA) each order statistic; all are distances an intruder could use, so
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

from .aggregators import MAX_CHOQUET_VARIABLES
from .learned_forms import (
    BILINEAR,
    CHOQUET,
    FORMS,
    distance_links,
    equal_parameters,
    matrix,
    matrix_links,
    n_parameters,
    normalised,
    pair_features,
    parameter_constraints,
    quadratic_features,
    simple_candidates,
)
from .links import Links
from .paired import paired_files

__all__ = ["FORMS", "Learned", "candidate_pairs", "learn_distance", "matrix_links"]

PD_FLOOR = 1e-6  # bilinear_pd: smallest eigenvalue required of M (trace M = 1)
PD_ROUNDS = 30  # bilinear_pd: at most this many rounds of cuts


@dataclass
class Learned:
    """The learned distance: ``weights`` (weighted mean, OWA), ``matrix`` (bilinear) or
    ``measure`` (Choquet: the fuzzy measure indexed by subset mask, ``measure[0] = 0``);
    the solver's ``status`` and ``message``, the ``objective`` (records the program links
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
    source: str  # where the kept parameters come from: milp, lp, equal, variable, ...
    correct: float  # their correct links over all records (1/t for t tied nearest)
    links: Links  # the links they make
    measure: np.ndarray | None = None
    cuts: int = 0  # bilinear_pd: the cuts v' M v >= PD_FLOOR added


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
    """Solve Torra's (2016) optimisation problem (module docstring) for aligned, complete,
    standardised files (row ``i`` of ``z_protected`` comes from row ``i`` of
    ``z_original``). ``form``: one of :data:`FORMS`; ``neighbours``: restrict the
    constraints (None: all pairs)."""
    zo, zp = paired_files(z_original, z_protected)
    n, c = zp.shape
    if zo.shape != zp.shape:
        raise ValueError("both files need the same variables")
    if np.isnan(zp).any() or np.isnan(zo).any():
        raise ValueError("missing values: learned linkage needs complete records")
    if form not in FORMS:
        raise ValueError(f"unknown form {form!r}")
    if form in CHOQUET and c > MAX_CHOQUET_VARIABLES:
        raise ValueError(f"a fuzzy measure on {c} variables has {2 ** c - 2} free values: "
                         f"use at most {MAX_CHOQUET_VARIABLES} variables")
    cand = candidate_pairs(zp, zo, neighbours)
    ri = np.concatenate([np.full(len(k), i) for i, k in enumerate(cand)] + [np.zeros(0, int)])
    rk = np.concatenate(list(cand) + [np.zeros(0, int)])
    q = n_parameters(form, c)
    F, lowest, highest = pair_features(zp, zo, ri.astype(np.int64), rk.astype(np.int64), form)
    always = lowest >= margin  # holds for every admissible parameter: drop
    impossible = np.zeros(n, dtype=bool)
    np.logical_or.at(impossible, ri[highest < margin], True)  # never linkable
    keep = np.flatnonzero(~always & ~impossible[ri])
    ri, F, lowest = ri[keep], F[keep], lowest[keep]
    big = np.maximum(margin - lowest, 0.0) + margin  # C_ik: frees the row when b_i = 0
    m = len(ri)
    # variables: [params (q), b (n)]; row: F @ params - C b_i >= margin - C
    A = sparse.hstack([sparse.csr_matrix(F),
                       sparse.csr_matrix((-big, (np.arange(m), ri)), shape=(m, n))]).tocsr()
    cons, lb, ub = parameter_constraints(form, c, n)
    if m:
        cons.append(LinearConstraint(A, margin - big, np.inf))
    ub[q:][impossible] = 0.0
    objective = np.concatenate([np.zeros(q), -np.ones(n)])
    restricted = neighbours is not None and neighbours < n - 1
    bounds = Bounds(lb, ub)
    deadline = time.perf_counter() + time_limit

    def solve(integer: bool, cuts: list):
        integrality = np.concatenate([np.zeros(q), np.full(n, 1 if integer else 0)])
        extra = [LinearConstraint(np.array(cuts), PD_FLOOR, np.inf)] if cuts else []
        with _quiet_stdout():
            return milp(objective, constraints=cons + extra, integrality=integrality,
                        bounds=bounds,
                        options={"time_limit": max(deadline - time.perf_counter(), 1e-3),
                                 "disp": False, "presolve": True, "mip_rel_gap": 0.0})

    cuts: list = []

    def solve_pd(integer: bool):
        """bilinear_pd: the program with cuts ``v' M v >= PD_FLOOR`` for the eigenvectors
        of negative (or too small) eigenvalues of each solution, until ``M`` is positive
        definite, the rounds or the time run out."""
        res = solve(integer, cuts)
        for _ in range(PD_ROUNDS):
            if res.x is None or time.perf_counter() >= deadline:
                break
            values, vectors = np.linalg.eigh(matrix(res.x[:q], c))
            low = values < PD_FLOOR * (1 - 1e-6)
            if not low.any():
                break
            for v in vectors[:, low].T:
                cuts.append(np.concatenate([quadratic_features(v), np.zeros(n)]))
            res = solve(integer, cuts)
        return res

    run = solve_pd if form == "bilinear_pd" else (lambda integer: solve(integer, []))
    # The LP relaxation first (fast): a fallback when the MILP stops at its time limit
    # with a poor incumbent. Every candidate parameter is then judged by the links it
    # really makes, and the best is kept (all are distances the intruder could use).
    lp = run(False)
    runs = [("lp", lp)]
    if not relax:
        runs.insert(0, ("milp", run(True)))
    candidates = [(source, normalised(res.x[:q], form, c)) for source, res in runs
                  if res.x is not None]
    candidates.append(("equal", equal_parameters(form, c)))
    candidates += simple_candidates(form, c)
    if form == "bilinear_pd":
        candidates = [(source, _positive_definite(p, c)) for source, p in candidates]
    best = None
    for source, params in candidates:
        links = distance_links(zp, zo, params, form)
        found = float(links.credit.sum())
        if best is None or found > best[0]:
            best = (found, source, params, links)
    found, source, params, links = best
    main = runs[0][1]  # the program asked for: the MILP, or the LP when relaxed
    b = main.x[q:] if main.x is not None else np.zeros(n)
    return Learned(form, params if form in ("weighted_mean", "owa") else None,
                   matrix(params, c) if form in BILINEAR else None,
                   int(main.status), str(main.message), float(b.sum()), b, m, restricted,
                   int(impossible.sum()), source, float(found), links,
                   measure=np.concatenate([[0.0], params]) if form in CHOQUET else None,
                   cuts=len(cuts))


def _positive_definite(params: np.ndarray, c: int) -> np.ndarray:
    """The parameters of ``M`` if its eigenvalues are all at least :data:`PD_FLOOR`, else
    of the matrix with the same eigenvectors and eigenvalues ``max(lambda, 0)`` scaled to
    sum ``1 - c PD_FLOOR``, plus ``PD_FLOOR`` (the cuts did not converge in time): trace
    1, positive definite; the other linear conditions may then no longer hold exactly."""
    M = matrix(params, c)
    values, vectors = np.linalg.eigh(M)
    if values.min() >= PD_FLOOR * (1 - 1e-6):
        return params
    # the negative part dropped, the rest scaled to trace 1 - c floor, the floor added:
    # trace 1, every eigenvalue at least the floor
    values = np.maximum(values, 0.0)
    values = values * (1.0 - c * PD_FLOOR) / values.sum() + PD_FLOOR
    M = (vectors * values) @ vectors.T
    M = (M + M.T) / 2
    ju, lu = np.triu_indices(c, k=1)
    return np.concatenate([np.diag(M), M[ju, lu]])


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


