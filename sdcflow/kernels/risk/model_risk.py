"""Disclosure risk from a Poisson log-linear model of the key-combination counts (Skinner
& Holmes (1998), "Estimating the re-identification risk per record in microdata", JOS
14; Skinner & Shlomo (2008), "Assessing identification risk in survey microdata using
log-linear models", JASA 103(483)), as R sdcMicro's ``modRisk``. NumPy only.

The cells are every combination of the observed categories of the keys (sdcMicro's
``expand.grid``), with their sample counts ``f_k``, summed weights and summed inclusion
probabilities ``pi_k = sum 1/w`` over their records. A Poisson log-linear model with
the main effects of the keys (and, optionally, interactions) is fitted by IRLS to the
cells. A key enters the model as a factor (a parameter per category) or, when it is
*linear*, as one term: its values as numbers times one parameter. sdcMicro's ``glm``
does the latter for every key held as numbers in R (an integer or numeric column, such
as the integer codes of sdcMicro's ``testdata``) and the former for factors and text;
its method ``IPF`` (``MASS::loglm`` on the cross-table) always treats the keys as
factors and refuses interactions. With the fitted values ``lambda_k``, for a sample
unique (``f_k = 1``):

* ``r1_k = exp(-(1 - pi_k) lambda_k)``, the probability that it is population unique,
  ``Pr(F_k = 1 | f_k = 1)``;
* ``r2_k = (1 - exp(-v)) / v`` with ``v = (1 - pi_k) lambda_k``, the expected
  probability of a correct match ``E(1/F_k | f_k = 1)`` (1 when v = 0);

Skinner & Shlomo's file-level measures are their sums over the sample uniques
(``tau_1``, ``tau_2``). sdcMicro reports them divided by the number of cells with
``0 < f_k <= bound`` and a positive fitted value (``gr1``, ``gr2``)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

import numpy as np

METHODS = ("default", "CE", "PML", "weightedLLM", "IPF")
MAX_CELLS = 2_000_000
MAX_DESIGN = 20_000_000  # cells x parameters of the design matrix (160 MB of floats)
_MAX_ITER = 100
_TOL = 1e-12


@dataclass
class ModelRisk:
    """What :func:`model_risk` returns: per record ``risk1``, ``risk2`` (0 for records
    that are not sample unique or have a missing key); ``tau1``, ``tau2`` (sums over the
    sample uniques) and their number ``sample_uniques``; sdcMicro's ``gr1``, ``gr2``; the
    number of ``cells`` of the grid,
    the ``counted_cells`` sdcMicro divides by, and the IRLS ``iterations``."""

    risk1: np.ndarray
    risk2: np.ndarray
    tau1: float
    tau2: float
    sample_uniques: int
    gr1: float
    gr2: float
    cells: int
    counted_cells: int
    iterations: int


def grid_size(codes: np.ndarray, interactions: list[tuple[int, ...]] | None = None,
              linear: Collection[int] = ()) -> tuple[int, int]:
    """The number of cells of the grid of observed categories of ``codes`` (of the
    records without a missing key) and the number of parameters of the model (a key in
    ``linear`` has one)."""
    codes = np.asarray(codes)
    complete = (codes >= 0).all(axis=1)
    sizes = [np.unique(c[complete]).size for c in codes.T]
    if not complete.any():
        return 0, 1
    terms = [1 if j in linear else s - 1 for j, s in enumerate(sizes)]
    params = 1 + sum(terms) + sum(
        int(np.prod([terms[j] for j in term], dtype=float)) for term in interactions or [])
    return int(np.prod(sizes, dtype=float)), params


def model_risk(codes: np.ndarray, weights: np.ndarray, method: str = "default",
               interactions: list[tuple[int, ...]] | None = None, bound: float = np.inf,
               linear: Mapping[int, np.ndarray] | None = None) -> ModelRisk:
    """Fit the log-linear model and compute the risks (see the module docstring).

    ``codes``: n x m integer codes of the keys (-1 = missing: such records are left out,
    as sdcMicro's ``glm`` drops them); ``weights``: sampling weights (n, positive);
    ``interactions``: tuples of key positions whose full interaction enters the model;
    ``linear``: for each key entered as one linear term (its position), the number each
    of its codes stands for (indexed by code); the other keys are factors.
    ``method`` as sdcMicro's: ``default`` (the counts), ``CE`` (Clogg & Eliason: offset
    ``log(f_k / w_k + 0.1)``, 0.1 where the cell is empty), ``PML`` (pseudo-likelihood:
    the response is ``round(w_k n / sum w)``), ``weightedLLM`` (the cell's weight sum as
    a further covariate), ``IPF`` (the main effects with every key a factor, as
    ``MASS::loglm``: no interactions, no linear keys)."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, not {method!r}")
    linear = dict(linear or {})
    if method == "IPF":
        if interactions or linear:
            raise ValueError("method IPF fits the main effects with every key a factor: no "
                             "interactions, no linear keys")
        method = "default"  # the same maximum-likelihood fit
    codes = np.asarray(codes, dtype=np.int64)
    weights = np.asarray(weights, dtype=float)
    n, m = codes.shape
    complete = (codes >= 0).all(axis=1)
    levels = [np.unique(codes[complete, j]) for j in range(m)]
    sizes = [lv.size for lv in levels]
    cells = int(np.prod(sizes, dtype=np.int64)) if complete.any() else 0
    risk1, risk2 = np.zeros(n), np.zeros(n)
    if cells == 0:
        return ModelRisk(risk1, risk2, 0.0, 0.0, 0, 0.0, 0.0, 0, 0, 0)
    if cells > MAX_CELLS or cells * grid_size(codes, interactions, linear)[1] > MAX_DESIGN:
        raise ValueError(f"the keys span {cells:,} cells: the model is too large")
    dense = np.column_stack([np.searchsorted(levels[j], codes[complete, j]) for j in range(m)])
    cell_of = np.ravel_multi_index(tuple(dense.T), sizes)
    counts = np.bincount(cell_of, minlength=cells).astype(float)
    wsum = np.bincount(cell_of, weights=weights[complete], minlength=cells)
    incl = np.bincount(cell_of, weights=1.0 / weights[complete], minlength=cells)
    grid = np.column_stack(np.unravel_index(np.arange(cells), sizes))
    values = {j: _standardised(np.asarray(v, dtype=float)[levels[j]])
              for j, v in linear.items()}
    x = design_matrix(grid, sizes, interactions or [], values)
    offset = np.zeros(cells)
    y = counts
    if method == "CE":
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(wsum > 0, counts / np.where(wsum > 0, wsum, 1.0), 0.0)
        offset = np.log(ratio + 0.1)
    elif method == "PML":
        y = np.round(wsum * counts.sum() / wsum.sum())
    elif method == "weightedLLM":
        x = np.column_stack([x, wsum])
    fitted, iterations = poisson_fit(x, y, offset)
    keep = (counts > 0) & (counts <= bound) & (fitted > 0)
    unique = keep & (counts == 1)
    # only the sample uniques need the risks; a weight below 1 makes v negative and the
    # risks exceed 1 (as in sdcMicro): v is kept above -700 so that exp cannot overflow
    v = np.zeros(cells)
    v[unique] = np.maximum((1.0 - incl[unique]) * fitted[unique], -700.0)
    r1 = np.exp(-v)
    small = np.abs(v) <= 1e-12
    r2 = np.ones(cells)
    r2[~small] = -np.expm1(-v[~small]) / v[~small]
    tau1, tau2 = float(r1[unique].sum()), float(r2[unique].sum())
    counted = int(keep.sum())
    idx = np.flatnonzero(complete)
    rec_unique = unique[cell_of]
    risk1[idx[rec_unique]] = r1[cell_of[rec_unique]]
    risk2[idx[rec_unique]] = r2[cell_of[rec_unique]]
    return ModelRisk(risk1, risk2, tau1, tau2, int(unique.sum()),
                     tau1 / counted if counted else 0.0,
                     tau2 / counted if counted else 0.0, cells, counted, iterations)


def _standardised(v: np.ndarray) -> np.ndarray:
    """A linear key's numbers centred and scaled: every key enters with its main effect,
    so the columns span the same space and the fitted values are the same, but the
    normal equations stay well conditioned whatever the units (codes 1..9 or incomes)."""
    if v.size < 2 or not np.isfinite(v).all():
        return v
    sd = float(v.std())
    return (v - v.mean()) / sd if sd > 0 else v - v.mean()


def design_matrix(grid: np.ndarray, sizes: list[int], interactions: list[tuple[int, ...]],
                  values: Mapping[int, np.ndarray] | None = None) -> np.ndarray:
    """Intercept, treatment-coded dummies of each key (first category the reference) and
    the products of the dummies of each interaction. The fitted values of a log-linear
    model do not depend on the coding. A key in ``values`` (its position: the number of
    each of its categories, indexed as the grid) is one column of those numbers instead
    of dummies, as R's ``glm`` enters a numeric variable; in an interaction it
    multiplies the other terms."""
    values = values or {}
    cols = [np.ones(grid.shape[0])]
    dummies = []
    for j, size in enumerate(sizes):
        if j in values:
            d = np.asarray(values[j], dtype=float)[grid[:, j]][:, None]
        else:
            d = (grid[:, j][:, None] == np.arange(1, size)[None, :]).astype(float)
        dummies.append(d)
        cols.extend(d.T)
    for term in interactions:
        block = np.ones((grid.shape[0], 1))
        for j in term:
            block = (block[:, :, None] * dummies[j][:, None, :]).reshape(grid.shape[0], -1)
        cols.extend(block.T)
    return np.column_stack(cols)


def poisson_fit(x: np.ndarray, y: np.ndarray, offset: np.ndarray) -> tuple[np.ndarray, int]:
    """Fitted means of a Poisson GLM with log link by iteratively reweighted least squares
    (as R's ``glm``, starting from ``mu = y + 0.1``; each step solves the weighted normal
    equations by least squares, so that rank-deficient designs give the fitted values of
    R's aliased fit), iterated
    until the deviance changes by less than 1e-12 relatively. Cells whose maximum
    likelihood mean is 0 (empty margins of an interaction) converge towards 0."""
    mu = y + 0.1
    eta = np.log(mu)
    dev_old = np.inf
    iterations = 0
    for iterations in range(1, _MAX_ITER + 1):
        z = eta - offset + (y - mu) / mu
        # the weighted normal equations (k x k): a minimum-norm solution of a singular
        # system still gives the fitted values of R's aliased fit
        xw = x * mu[:, None]
        beta, *_ = np.linalg.lstsq(x.T @ xw, xw.T @ z, rcond=None)
        eta = np.clip(x @ beta + offset, -700.0, 700.0)
        mu = np.exp(eta)
        with np.errstate(divide="ignore", invalid="ignore"):
            term = np.where(y > 0, y * np.log(np.where(y > 0, y, 1.0) / mu), 0.0)
        dev = 2.0 * float(np.sum(term - (y - mu)))
        if abs(dev - dev_old) <= _TOL * (abs(dev) + 0.1):
            break
        dev_old = dev
    return mu, iterations
