"""Uniform additive noise: ``X'_j = X_j + eps_j`` with independent
``eps_j ~ U(-a_j, a_j)``, ``a_j = sqrt(3 k Var(X_j))``.

Uniform noise is one of the distributions of uncorrelated additive noise (Brand,
"Microdata protection through noise addition", in Domingo-Ferrer (ed.), Inference
Control in Statistical Databases, LNCS 2316, 2002; Templ, "Statistical Disclosure
Control for Microdata", Springer 2017, lists it beside normal noise). The half-width is
chosen so that the noise has the variance of normal additive noise with the same level
``k`` (the variance of ``U(-a, a)`` is ``a^2 / 3``): means and covariances are kept,
variances become ``(1 + k) Var`` and correlations ``rho / (1 + k)`` (in expectation), as
for :func:`sdcflow.kernels.perturbative.noise.additive_noise`, but no value moves by
more than ``a_j``.
"""

from __future__ import annotations

import numpy as np

from .noise import column_variances


def uniform_half_widths(variances: np.ndarray, k: float) -> np.ndarray:
    """``a_j = sqrt(3 k Var_j)``: the half-width of uniform noise of variance ``k Var_j``
    (0 for a missing variance)."""
    return np.sqrt(3.0 * k * np.nan_to_num(np.asarray(variances, dtype=float)))


def uniform_noise(x: np.ndarray, k: float, rng: np.random.Generator, *,
                  variances: np.ndarray | None = None) -> np.ndarray:
    """``x + eps`` with independent ``eps_j ~ U(-a_j, a_j)``, ``a_j = sqrt(3 k Var(x_j))``
    (module docstring); ``Var`` is the sample variance (divisor ``m - 1``) of the observed
    values of each column unless ``variances`` is given. The noise is drawn variable by
    variable (column-major); missing values stay missing."""
    x = np.asarray(x, dtype=float)
    n, p = x.shape
    if variances is None:
        variances = column_variances(x)
    out = rng.uniform(-1.0, 1.0, (p, n)).T
    out *= uniform_half_widths(variances, k)
    out += x
    return out
