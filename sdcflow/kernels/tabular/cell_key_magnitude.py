"""The cell key method for magnitude tables as the R package ``cellKey`` (B. Meindl,
version 1.0.2, 2023) perturbs them, after Giessing & Tent, "Concepts for generalising
tools implementing the cell key method to the case of continuous variables" (UNECE
work session on statistical data confidentiality, 2019) and the flex function of the
ESSnet project "Perturbative confidentiality methods" (deliverable D4.2).

A cell of (weighted) sum ``cv`` is perturbed in ``k`` steps ``j = 1..k``, one per
"contribution" ``x_j``: the ``k`` largest contributions of the cell (``top_contr``), or
one step with the cell's mean or sum (``mean``, ``sum``). In step ``j``:

* the noise magnitude ``x_delta = x_j * m(|x_j|) * epsilon_j`` with the flex function
  ``m(x) = p_large (1 + f1 f2)``, ``f1 = (p_small x - p_large fp) / (p_large fp)``,
  ``f2 = (2 fp / (fp + x))^q`` for ``|x_j| >= fp``, and ``x_delta = x_j * p_small``
  below the flex point ``fp`` (``simple`` parameters: ``x_delta = x_j p epsilon_j``);
  if ``|x_delta|`` exceeds the current value ``xo``, ``x_delta = xo``;
* the perturbation value ``v`` is looked up in the magnitude ptable
  (:func:`~sdcflow.kernels.tabular.ptable.magnitude_ptable`) for ``a = |xo / x_delta|``
  (cut at the last row ``D``): in row ``a`` when the ptable has it, else interpolated
  linearly between the rows around ``a``; in a row, ``v`` is the first entry whose
  ``p_int_ub`` exceeds the step's cell key;
* ``x_hat = sign(xo) |x_delta| sign(v) (mu + |v|)`` with ``mu = mu_c`` for cells that
  need extra protection (sensitive cells), 0 otherwise; a negative ``v`` may bring the
  value to 0 but not across it; then ``xo = xo + x_hat``.

The perturbed value is ``cv + sum(x_hat)``. Cells of value 0 stay 0. The cell key of
step 1 is the cell's key (by default of the records with a non-zero value, cellKey's
``use_zero_rkeys = FALSE``); the keys of the later steps rotate its decimals left by one
digit each (cellKey's ``same_key = TRUE``; with ``same_key = FALSE`` step 1 is already
rotated). Cells with an odd number of contributors may use a ptable of their own
(cellKey's parity case, one step only, as cellKey requires), and very small
contributions a ptable of their own (cellKey's separation, see
:func:`perturb_magnitudes`). Not done here: cellKey's ``range`` type; and a cell whose
key is exactly 0 but whose value is not keeps its value (cellKey publishes it as 0, a
probability-1e-8 accident).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .ptable import PTable


@dataclass(frozen=True)
class MagnitudeParams:
    """cellKey's multiplier parameters: flex (``fp``, ``p_small``, ``p_large``, ``q``;
    ``ck_flexparams``) or simple (``fp = None``, the percentage ``p_small``;
    ``ck_simpleparams``), with ``epsilon`` (one per step, first 1, decreasing) and
    ``mu_c`` (extra noise of sensitive cells)."""

    p_small: float
    p_large: float | None = None
    fp: float | None = None
    q: float = 3.0
    epsilon: Sequence[float] = (1.0,)
    mu_c: float = 0.0

    def __post_init__(self):
        eps = [float(e) for e in self.epsilon]
        if not eps or eps[0] != 1 or any(not 0 <= e <= 1 for e in eps) \
                or any(b > a for a, b in itertools.pairwise(eps)):
            raise ValueError("epsilon must start with 1 and decrease within [0, 1] "
                             f"(got {list(self.epsilon)})")
        if not 0 < self.p_small <= 1:
            raise ValueError(f"the percentage p must lie in (0, 1] (got {self.p_small})")
        if self.fp is not None:
            if self.fp <= 0:
                raise ValueError(f"the flex point fp must be positive (got {self.fp})")
            if self.p_large is None or not 0 <= self.p_large <= self.p_small:
                raise ValueError("flex parameters p = [p_small, p_large] must decrease "
                                 "within [0, 1]")
            if self.q < 1:
                raise ValueError(f"q must be >= 1 (got {self.q})")
        if self.mu_c < 0:
            raise ValueError(f"mu_c must be >= 0 (got {self.mu_c})")


def flex_multiplier(x: np.ndarray, p_small: float, p_large: float, fp: float,
                    q: float) -> np.ndarray:
    """The flex function ``m(x)`` (cellKey's ``.para_m``) for ``x >= 0``."""
    f1 = (p_small * x - p_large * fp) / (p_large * fp)
    f2 = (2 * fp / (fp + x)) ** q
    return p_large * (1 + f1 * f2)


def key_text(units: int, digits: int) -> str:
    """A cell key as R prints it (``as.character``): ``"0."`` and its decimals without
    trailing zeros, ``"0"`` for 0."""
    if units == 0:
        return "0"
    return "0." + str(units).zfill(digits).rstrip("0")


def step_keys(units: np.ndarray, digits: int, steps: int, same_key: bool = True
              ) -> np.ndarray:
    """The cell keys of the ``steps`` perturbation steps (cells x steps), as cellKey's
    ``.scramble_ckeys`` makes them: each step's key moves the first decimal of the
    previous one to the end (the text keeps the first key's length)."""
    out = np.zeros((len(units), steps))
    for c, u in enumerate(np.asarray(units, dtype=np.int64)):
        ck = key_text(int(u), digits)
        n = len(ck)
        beg = ck[:2]
        if same_key:
            res = [ck]
        else:
            rest = ck[3:n]
            res = [beg + (rest if rest else "0") + ck[2:3]]
        for _ in range(1, steps):
            prev = res[-1]
            res.append(beg + prev[3:n] + prev[2:3])
        out[c] = [float(r) if r not in ("", "0.") else 0.0 for r in res]
    return out


def _row_v(ptable: PTable, row: float, keys: np.ndarray) -> np.ndarray:
    v, _, ub = ptable.row(row)
    idx = np.searchsorted(ub, keys, side="right")  # first p_int_ub above the key
    return v[np.minimum(idx, len(v) - 1)]


def lookup_magnitude(ptable: PTable, keys: np.ndarray, a: np.ndarray) -> np.ndarray:
    """cellKey's ``.lookup_v_flex``: the perturbation value of each cell key ``keys``
    at the ptable position ``a`` (cut at the last row; between two rows, interpolated
    linearly); 0 for a key of 0."""
    keys = np.asarray(keys, dtype=float)
    rows = ptable.rows
    a = np.minimum(np.asarray(a, dtype=float), rows[-1])
    idx = np.minimum(np.searchsorted(rows, a), len(rows) - 1)
    exact = rows[idx] == a
    out = np.zeros(len(keys))
    for r, row in enumerate(rows):
        at = exact & (idx == r)
        if at.any():
            out[at] = _row_v(ptable, row, keys[at])
        between = ~exact & (idx == r) & (r > 0)
        if between.any():
            a0, a1 = rows[r - 1], row
            lam = (a[between] - a0) / (a1 - a0)
            low = _row_v(ptable, a0, keys[between])
            up = _row_v(ptable, a1, keys[between])
            out[between] = (1 - lam) * low + lam * up
    out[keys == 0] = 0.0
    return out


def perturb_magnitudes(ptable: PTable, values: np.ndarray, contributions: np.ndarray,
                       keys: np.ndarray, params: MagnitudeParams,
                       sensitive: np.ndarray | None = None, odd_ptable: PTable | None = None,
                       odd: np.ndarray | None = None, small_ptable: PTable | None = None,
                       contributors: np.ndarray | None = None
                       ) -> tuple[np.ndarray, np.ndarray]:
    """The perturbed cell values ``cv + sum(x_hat)`` and the total noise of each cell.

    ``values``: the cells' (weighted) sums ``cv``; ``contributions``: cells x steps, the
    ``x_j`` of each step (the top contributions, or one column with the mean or the
    sum; 0 where a cell has fewer contributors); ``keys``: cells x steps, the step keys
    (:func:`step_keys`); ``sensitive``: cells that get the extra ``mu_c``; with
    ``odd_ptable``, the cells marked ``odd`` (an odd number of contributors) look their
    perturbation up in it, the others in ``ptable`` (cellKey's parity case, one step
    only); with ``small_ptable`` (cellKey's separation), a contribution below the
    separation point ``z_s = sqrt(m1^2) / (sqrt(sum epsilon^2) p_small)``, ``m1^2`` the
    variance of the small ptable's last row, is perturbed like a count: ``x_delta = 1``
    and ``v`` from the small ptable at ``a = |xo|``; a step whose value had to be
    rescaled below ``z_s`` adds nothing (with flex parameters from the second step on,
    with simple ones always, as cellKey does). ``contributors``: each cell's number of
    records; a cell has ``min(steps, contributors)`` steps (cellKey's ``top_k``)."""
    cv = np.asarray(values, dtype=float)
    x = np.asarray(contributions, dtype=float).reshape(len(cv), -1)
    keys = np.asarray(keys, dtype=float).reshape(len(cv), -1)
    steps = x.shape[1]
    eps = list(params.epsilon)
    if len(eps) != steps:
        raise ValueError(f"epsilon has {len(eps)} values for {steps} perturbation steps")
    if odd_ptable is not None and (steps != 1 or odd is None):
        raise ValueError("ptables by parity need one perturbation step (top_k 1) and the "
                         "cells with an odd number of contributors")
    mu = np.where(np.asarray(sensitive, dtype=bool), params.mu_c, 0.0) \
        if sensitive is not None else np.zeros(len(cv))
    active = (cv != 0) & (keys[:, 0] != 0)
    zs = 0.0
    if small_ptable is not None:
        sv, slb, sub = small_ptable.row(small_ptable.rows[-1])
        zs = float(np.sqrt((sub - slb) @ (sv * sv))
                   / (np.sqrt(sum(e * e for e in eps)) * params.p_small))
    in_odd = np.zeros(len(cv), dtype=bool) if odd is None else np.asarray(odd, dtype=bool)
    xo = cv.copy()
    total = np.zeros(len(cv))
    for j in range(steps):
        xj = x[:, j]
        ax = np.abs(xj)
        if params.fp is None:
            delta = xj * params.p_small * eps[j]
        else:
            m = flex_multiplier(ax, params.p_small, params.p_large, params.fp, params.q)
            delta = np.where(ax < params.fp, xj * params.p_small, xj * m * eps[j])
        small = ax < zs
        delta = np.where(small, 1.0, delta)
        rescaled = np.abs(xo) < np.abs(delta)
        delta = np.where(rescaled, xo, delta)
        share = params.p_small * eps[j]
        xj_new = np.divide(np.abs(xo), share, out=np.full(len(cv), np.inf), where=share > 0)
        below = rescaled & (xj_new < zs)
        delta = np.where(below, 1.0, delta)
        small = small | below
        zero = below if (params.fp is None or j > 0) else np.zeros(len(cv), dtype=bool)
        go = active & (delta != 0) & ~zero  # (a zero step adds nothing: |x_delta| = 0)
        if contributors is not None:
            go &= np.asarray(contributors) > j
        a = np.divide(np.abs(xo), np.abs(delta), out=np.zeros(len(cv)), where=go)
        v = np.zeros(len(cv))
        for table, part in ((ptable, go & ~small & ~in_odd),
                            (odd_ptable, go & ~small & in_odd),
                            (small_ptable, go & small)):
            if part.any():
                v[part] = lookup_magnitude(table, keys[part, j], a[part])
        sign_xo = np.where(xo >= 0, 1.0, -1.0)
        sign_v = np.where(v >= 0, 1.0, -1.0)
        x_hat = sign_xo * np.abs(delta) * sign_v * (mu + np.abs(v))
        neg = sign_v < 0
        x_hat = np.where(neg & (sign_xo < 0), np.minimum(x_hat, -xo), x_hat)
        x_hat = np.where(neg & (sign_xo > 0), np.maximum(x_hat, -xo), x_hat)
        x_hat = np.where(go, x_hat, 0.0)
        xo = xo + x_hat
        total += x_hat
    return cv + total, total
