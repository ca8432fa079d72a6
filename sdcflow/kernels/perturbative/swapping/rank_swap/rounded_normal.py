"""The rounded normal offsets of the p-distribution variant, compiled with numba (which has
``erfc`` but no inverse): the standard normal CDF and survival function, its inverse
(Acklam's approximation refined by a Halley step), the probability that
``round(N(mu, sigma))`` is a given offset, and a draw of the offset truncated to the
available ranks, by inversion.
"""

from __future__ import annotations

import math

import numpy as np

from ....jit import njit

_SQRT2 = math.sqrt(2.0)


@njit(cache=True)
def _phi(z):
    return 0.5 * math.erfc(-z / 1.4142135623730951)


@njit(cache=True)
def _upper(z):
    return 0.5 * math.erfc(z / 1.4142135623730951)


@njit(cache=True)
def _ndtri(p):
    """Inverse of the standard normal CDF: Acklam's rational approximation refined by
    one Halley step (relative error ~1e-15)."""
    if p <= 0.0:
        return -np.inf
    if p >= 1.0:
        return np.inf
    if p < 0.02425:
        q = math.sqrt(-2.0 * math.log(p))
        x = ((((((-7.784894002430293e-03 * q - 3.223964580411365e-01) * q
                 - 2.400758277161838e+00) * q - 2.549732539343734e+00) * q
               + 4.374664141464968e+00) * q + 2.938163982698783e+00)
             / ((((7.784695709041462e-03 * q + 3.224671290700398e-01) * q
                  + 2.445134137142996e+00) * q + 3.754408661907416e+00) * q + 1.0))
    elif p <= 1.0 - 0.02425:
        q = p - 0.5
        r = q * q
        x = ((((((-3.969683028665376e+01 * r + 2.209460984245205e+02) * r
                 - 2.759285104469687e+02) * r + 1.383577518672690e+02) * r
               - 3.066479806614716e+01) * r + 2.506628277459239e+00) * q
             / (((((-5.447609879822406e+01 * r + 1.615858368580409e+02) * r
                   - 1.556989798598866e+02) * r + 6.680131188771972e+01) * r
                 - 1.328068155288572e+01) * r + 1.0))
    else:
        q = math.sqrt(-2.0 * math.log1p(-p))
        x = -((((((-7.784894002430293e-03 * q - 3.223964580411365e-01) * q
                  - 2.400758277161838e+00) * q - 2.549732539343734e+00) * q
                + 4.374664141464968e+00) * q + 2.938163982698783e+00)
              / ((((7.784695709041462e-03 * q + 3.224671290700398e-01) * q
                   + 2.445134137142996e+00) * q + 3.754408661907416e+00) * q + 1.0))
    if abs(x) < 37.0:
        e = _phi(x) - p
        u = e * 2.5066282746310002 * math.exp(0.5 * x * x)
        x = x - u / (1.0 + 0.5 * x * u)
    return x


@njit(cache=True)
def _offset_mass(r, mu, sigma):
    """P(round(N(mu, sigma)) == r): the normal mass of [r - 0.5, r + 0.5)."""
    lo = (r - 0.5 - mu) / sigma
    hi = (r + 0.5 - mu) / sigma
    if lo > 0.0:
        return _upper(lo) - _upper(hi)
    return _phi(hi) - _phi(lo)


@njit(cache=True)
def _truncated_offset(u, mu, sigma, rmax):
    """An offset r in 1 .. rmax: round(N(mu, sigma)) conditioned on 0.5 <= N < rmax + 0.5,
    by inversion of the truncated CDF with the uniform ``u``."""
    zlo = (0.5 - mu) / sigma
    zhi = (rmax + 0.5 - mu) / sigma
    if zlo > 0.0:
        # the whole range is in the upper tail: invert the survival function there
        qlo = _upper(zlo)
        if qlo == 0.0:
            return 1
        qhi = _upper(zhi)
        x = -_ndtri(qlo - u * (qlo - qhi))
    else:
        flo = _phi(zlo)
        x = _ndtri(flo + u * (_phi(zhi) - flo))
    r = math.floor(mu + sigma * x + 0.5)
    if r < 1.0:
        return 1
    if r > rmax:
        return rmax
    return int(r)
