"""Uniform additive noise kernel (sdcflow.kernels.perturbative.uniform_noise).

Expected values: the half-width a = sqrt(3 k Var) is computed by hand from the definition
(the variance of U(-a, a) is a^2 / 3); large-sample tests use a fixed seed and a tolerance
of 6 standard errors of the statistic, so they are deterministic and far from their
limits."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from sdcflow.kernels.perturbative.uniform_noise import uniform_half_widths, uniform_noise


def test_half_width_by_hand():
    # x = 1..5: Var = 2.5; k = 0.3: a = sqrt(3 x 0.3 x 2.5) = sqrt(2.25) = 1.5
    assert uniform_half_widths(np.array([2.5, 0.0, np.nan]), 0.3).tolist() == [1.5, 0, 0]


def test_draws_are_the_generator_uniforms_scaled_by_the_half_width():
    x = np.array([[1.0, 10.0], [2, 20], [3, 30], [4, 40], [5, np.nan]])
    z = uniform_noise(x, 0.3, np.random.default_rng(4))
    u = np.random.default_rng(4).uniform(-1, 1, (2, 5)).T
    # column 1: Var(10, 20, 30, 40) = 1000/6; a = sqrt(0.9 x 1000 / 6) = sqrt(150)
    a = np.array([1.5, np.sqrt(150.0)])
    np.testing.assert_allclose(z[:4], x[:4] + u[:4] * a, rtol=1e-15)
    assert z[4, 0] == x[4, 0] + u[4, 0] * 1.5 and np.isnan(z[4, 1])


def test_large_sample_moments_and_uniform_law():
    n, k = 200_000, 0.5
    rng = np.random.default_rng(1)
    x = rng.normal([10.0, 1e4], [2.0, 300.0], size=(n, 2))
    z = uniform_noise(x, k, np.random.default_rng(2))
    eps = z - x
    var = np.var(x, axis=0, ddof=1)
    a = np.sqrt(3 * k * var)
    # bounded by a, reaching close to it
    assert np.all(np.abs(eps) <= a) and np.all(np.abs(eps).max(axis=0) > 0.999 * a)
    # E(eps) = 0 with standard error sqrt(k var / n)
    assert np.all(np.abs(eps.mean(axis=0)) < 6 * np.sqrt(k * var / n))
    # Var(eps) = k var; Var of the sample variance of U(-a, a): (mu4 - sigma^4) / n, with
    # mu4 = a^4 / 5 and sigma^4 = a^4 / 9
    se = np.sqrt((a ** 4 / 5 - a ** 4 / 9) / n)
    assert np.all(np.abs(eps.var(axis=0, ddof=1) - k * var) < 6 * se)
    # the noise follows U(-a, a): Kolmogorov-Smirnov against it
    for j in range(2):
        assert stats.kstest(eps[:, j], stats.uniform(-a[j], 2 * a[j]).cdf).pvalue > 1e-4
    # variances times 1 + k, correlation with the original sqrt(1 / (1 + k))
    np.testing.assert_allclose(z.var(axis=0, ddof=1) / var, 1 + k, rtol=0.02)


@settings(max_examples=50, deadline=None)
@given(values=st.lists(st.floats(-1e6, 1e6), min_size=2, max_size=40),
       k=st.floats(1e-4, 5.0), seed=st.integers(0, 2 ** 32 - 1))
def test_every_change_is_within_the_half_width(values, k, seed):
    x = np.array(values)[:, None]
    z = uniform_noise(x, k, np.random.default_rng(seed))
    a = np.sqrt(3 * k * np.var(x, ddof=1))
    assert np.all(np.abs(z - x) <= a * (1 + 1e-12) + 1e-9 * np.abs(x))
