"""Maximum-entropy rows of a ptable in closed form (exponential family), the fast path of
:mod:`sdcflow.kernels.tabular.ptable`.

The row maximises ``-sum p log p`` subject to ``sum p = 1``, ``sum p v = 0`` and ``sum p
v^2 <= V`` (or ``= V``), with ``p`` non-decreasing towards ``v = 0`` on the negative side
(monotony) and ``p >= lower``. By the Karush-Kuhn-Tucker conditions of this convex
problem (the maximum-entropy principle, E. T. Jaynes, "Information theory and
statistical mechanics", Physical Review 106, 1957; Giessing 2016 for ptables), when no
bound binds the solution is ``p_k ~ exp(a v_k + b v_k^2)`` with ``b <= 0`` (``b = 0``
when the variance constraint does not bind), except on a block of the negative side
ending at ``v = 0`` where monotony binds: there ``p`` is constant, ``log p`` the block's
mean of ``a v + b v^2`` (the monotony multipliers, its prefix sums, must be >= 0). The
candidates (no block, then ever longer blocks) are solved for ``(a, b)`` by Newton's
method on the convex dual; the first that meets every condition is the optimum. None
when a bound binds (``p`` at its lower bound, e.g. ``pstay``) or no candidate fits: the
caller then solves the problem numerically.
"""

from __future__ import annotations

import numpy as np

_GRAD_TOL = 1e-13


def _probabilities(features: np.ndarray, theta: np.ndarray) -> np.ndarray:
    s = features @ theta
    w = np.exp(s - s.max())
    return w / w.sum()


def _fit(features: np.ndarray, target: np.ndarray) -> np.ndarray | None:
    """``theta`` with ``E_theta[features] = target`` for ``p ~ exp(features @ theta)``,
    by damped Newton steps on the convex dual ``log sum exp(F theta) - theta . t``."""
    theta = np.zeros(features.shape[1])
    scale = 1.0 + np.abs(target).max() + np.abs(features).max()

    def dual(th):
        s = features @ th
        top = s.max()
        return top + np.log(np.exp(s - top).sum()) - th @ target

    for _ in range(500):
        p = _probabilities(features, theta)
        mean = p @ features
        grad = mean - target
        if np.abs(grad).max() <= _GRAD_TOL * scale:
            return theta
        centred = features - mean
        hess = centred.T @ (centred * p[:, None])
        try:
            step = -np.linalg.solve(hess, grad)
        except np.linalg.LinAlgError:
            return None
        if not np.isfinite(step).all():
            return None
        t, here = 1.0, dual(theta)
        while dual(theta + t * step) > here + 1e-4 * t * (grad @ step) and t > 1e-12:
            t /= 2
        if t <= 1e-12:
            # no step lowers the dual within rounding: converged if the gradient is as
            # small as rounding lets it be, else failed
            return theta if np.abs(grad).max() <= 1e-9 * scale else None
        theta = theta + t * step
    return None


def closed_form_row(v: np.ndarray, variance: float, lower: np.ndarray, mono: bool,
                    equality: bool) -> np.ndarray | None:
    """The maximum-entropy row (see the module docstring), or None."""
    v = np.asarray(v, dtype=float)
    base = np.stack([v, v * v], axis=1)
    # Newton's method on features scaled to about 1 (v / D, v^2 / D^2): with v up to 50
    # the unscaled Hessian is too ill-conditioned to converge (the row then fell back on
    # the slow numerical solver); p depends only on features @ theta, the same optimum
    unit = np.array([1.0, 1.0]) * max(float(np.abs(v).max(initial=0.0)), 1.0)
    unit[1] *= unit[0]
    scaled = base / unit
    zero = np.flatnonzero(v == 0)
    z = int(zero[0]) if mono and len(zero) else None
    starts = [None] if z is None else list(range(z, -1, -1))
    for s in starts:
        feats = scaled.copy()
        if s is not None and s < z:
            feats[s:z + 1] = feats[s:z + 1].mean(axis=0)
        theta = None
        if not equality:  # the variance constraint may not bind: b = 0
            a = _fit(feats[:, :1], np.zeros(1))
            if a is not None and _probabilities(feats[:, :1], a) @ base[:, 1] <= variance:
                theta = np.array([a[0], 0.0])
        if theta is None:
            theta = _fit(feats, np.array([0.0, variance / unit[1]]))
            if theta is None or (not equality and theta[1] > 0):
                continue
        p = _probabilities(feats, theta)
        if (p < lower).any():
            return None  # a bound binds: not this form
        if z is not None:
            if (np.diff(p[:z + 1]) < -1e-15).any():
                continue
            if s < z:  # the block's monotony multipliers must be >= 0
                h = scaled[s:z + 1] @ theta
                if (np.cumsum(h - h.mean())[:-1] < -1e-12).any():
                    continue
        return p
    return None
