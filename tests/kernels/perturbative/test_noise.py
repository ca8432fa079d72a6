"""Noise kernels (sdcflow.kernels.perturbative.noise): seed 000 "Additive Noise" (uncorrelated and
correlated), seed 004 (noise variants, ROMM).

Large-sample tests use a fixed seed and a tolerance of 6 standard errors of the statistic
(computed from the data), so they are deterministic and far from their limits."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats

from sdcflow.kernels.perturbative.noise import (
    additive_noise,
    correlated_noise,
    correlated_restored,
    haar_orthogonal,
    haar_orthogonal_fixing_ones,
    moments,
    multiplicative_noise,
    restore_moments,
    romm,
)

N = 200_000
K = 0.5  # a large k so that "kept" and "times (1 + k)" are far apart
SIGMA = np.array([[4.0, 3.0, -1.0], [3.0, 9.0, 0.5], [-1.0, 0.5, 1.0]])
SCALE = np.array([1.0, 1e3, 1e-2])  # variables in very different units


def sample(n=N, seed=1):
    rng = np.random.default_rng(seed)
    x = rng.multivariate_normal([10, 20, 30], SIGMA, size=n)
    return x * SCALE


def cov(a):
    return np.atleast_2d(np.cov(a, rowvar=False))


def corr(a):
    return np.corrcoef(a, rowvar=False)


def assert_same_moments(z, x, rel=1e-9):
    """Sample means and covariances equal, each to ``rel`` of its natural scale."""
    cx, cz = cov(x), cov(z)
    sd = np.sqrt(np.diag(cx))
    np.testing.assert_array_less(np.abs(z.mean(0) - x.mean(0)), rel * (np.abs(x.mean(0)) + sd))
    np.testing.assert_array_less(np.abs(cz - cx), rel * np.outer(sd, sd) + 1e-300)


# --- additive (uncorrelated) noise: seed 000 "Additive Noise: Uncorrelated noise" -----------

def test_additive_noise_keeps_means_and_covariances_scales_variances_and_correlations():
    x = sample()
    z = additive_noise(x, K, np.random.default_rng(2))
    n, v = len(x), np.var(x, axis=0, ddof=1)
    # E(X') = E(X): the mean of eps_j has standard error sqrt(k var_j / n)
    np.testing.assert_array_less(np.abs(z.mean(0) - x.mean(0)), 6 * np.sqrt(K * v / n))
    # Var(X') = (1 + k) Var(X): var(eps) - k var has SE k var sqrt(2/n), 2 cov(x, eps) has
    # SE 2 var sqrt(k / n)
    se_var = v * np.sqrt(2 * K ** 2 / n + 4 * K / n)
    np.testing.assert_array_less(np.abs(np.var(z, axis=0, ddof=1) - (1 + K) * v), 6 * se_var)
    # Cov(X'_i, X'_j) = Cov(X_i, X_j), i != j: the three cross terms have SE
    # sqrt(var_i var_j (2k + k^2) / n) together
    off = ~np.eye(3, dtype=bool)
    se_cov = np.sqrt(np.outer(v, v) * (2 * K + K ** 2) / n)
    np.testing.assert_array_less(np.abs(cov(z) - cov(x))[off], 6 * se_cov[off])
    # rho' = rho / (1 + k): relative errors of the covariance and of the two variances add
    sd = np.sqrt(v)
    rel = se_cov / ((1 + K) * np.outer(sd, sd)) + np.abs(corr(x)) / (1 + K) * (
        se_var[:, None] / v[:, None] + se_var[None, :] / v[None, :]) / 2
    np.testing.assert_array_less(np.abs(corr(z) - corr(x) / (1 + K))[off], 6 * rel[off])
    # the difference is large compared to the tolerance: the test can tell kept from scaled
    assert np.all(np.abs(corr(x) - corr(x) / (1 + K))[off] > 20 * rel[off])


def test_additive_noise_variance_uses_observed_values_and_keeps_missing():
    x = np.array([[1.0, np.nan], [2.0, 5.0], [np.nan, 7.0], [4.0, 9.0]])
    z = additive_noise(x, 0.2, np.random.default_rng(0))
    assert np.array_equal(np.isnan(z), np.isnan(x))
    # with the variances given, the noise is exactly sd * standard normal of the same draw
    g = np.random.default_rng(0).standard_normal((2, 4)).T  # drawn variable by variable
    expected = x + g * np.sqrt(0.2 * np.array([np.var([1, 2, 4], ddof=1), 4.0]))
    np.testing.assert_allclose(z, expected)


# --- correlated noise: seed 000 "Additive Noise: Correlated noise" -------------------------

def test_correlated_noise_keeps_means_and_correlations_and_scales_covariances():
    x = sample()
    z = correlated_noise(x, K, np.random.default_rng(3))
    n, c = len(x), cov(x)
    v = np.diag(c)
    np.testing.assert_array_less(np.abs(z.mean(0) - x.mean(0)), 6 * np.sqrt(K * v / n))
    # cov(z) - (1+k) cov(x) = cov(x, eps) + cov(eps, x) + (cov(eps) - k Sigma): SEs add up
    scale = np.sqrt(np.outer(v, v))
    se_cov = scale * (2 * np.sqrt(K / n) + K * np.sqrt(2 / n))
    np.testing.assert_array_less(np.abs(cov(z) - (1 + K) * c), 6 * se_cov)
    rel = se_cov / ((1 + K) * scale)
    se_rho = rel + np.abs(corr(x)) * (np.diag(rel)[:, None] + np.diag(rel)[None, :]) / 2
    np.testing.assert_array_less(np.abs(corr(z) - corr(x)), 6 * se_rho + 1e-12)


def test_correlated_noise_keeps_exact_linear_relations():
    # total = a + b holds for every record; the noise lies in the range of Sigma
    x = sample(2000)
    x[:, 2] = x[:, 0] + x[:, 1]
    z = correlated_noise(x, 0.3, np.random.default_rng(4))
    np.testing.assert_allclose(z[:, 2], z[:, 0] + z[:, 1], rtol=1e-9, atol=1e-9 * 1e4)
    assert np.abs(z - x).max() > 1  # it did perturb


def test_correlated_noise_uses_complete_records_and_keeps_missing():
    x = sample(500)
    x[3, 1] = np.nan
    z = correlated_noise(x, 0.1, np.random.default_rng(5))
    assert np.isnan(z[3, 1]) and not np.isnan(z[3, [0, 2]]).any()
    _, c, m = moments(x)
    assert m == 499
    np.testing.assert_allclose(c, cov(np.delete(x, 3, axis=0)))


# --- correlated noise, moments restored exactly (Kim 1986; Tendick & Matloff 1994) ---------

def test_correlated_restored_gives_exactly_the_original_means_and_covariances():
    x = sample(50_000)
    z = correlated_restored(x, K, np.random.default_rng(6))
    assert_same_moments(z, x)
    # and it is still noise: every value moved, by about sqrt(k) standard deviations
    sd = np.sqrt(np.diag(cov(x)))
    assert 0.3 < np.median(np.abs(z - x) / sd) < 1.0


def test_correlated_restored_leaves_incomplete_records_with_plain_correlated_noise():
    x = sample(1000)
    x[[5, 9], [0, 2]] = np.nan
    z = correlated_restored(x, 0.2, np.random.default_rng(7))
    assert np.array_equal(np.isnan(z), np.isnan(x))
    full = ~np.isnan(x).any(axis=1)
    assert_same_moments(z[full], x[full])


def test_restore_moments_with_a_constant_and_a_collinear_variable():
    rng = np.random.default_rng(8)
    x = rng.standard_normal((40, 4)) * [1, 10, 1, 1]
    x[:, 2] = 7.0  # constant
    x[:, 3] = x[:, 0] - 2 * x[:, 1]  # exact linear relation
    z = correlated_restored(x, 0.5, rng)
    assert_same_moments(z, x)
    assert np.all(z[:, 2] == 7.0)
    np.testing.assert_allclose(z[:, 3], z[:, 0] - 2 * z[:, 1], atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(m=st.integers(5, 40), p=st.integers(1, 4), seed=st.integers(0, 2 ** 32 - 1))
def test_restore_moments_hits_any_target(m, p, seed):
    rng = np.random.default_rng(seed)
    target = rng.standard_normal((m, p)) @ rng.standard_normal((p, p)) * 10 ** rng.uniform(
        -3, 3, p)
    z = rng.standard_normal((m, p))
    out = restore_moments(z, target.mean(0), cov(target).reshape(p, p))
    assert_same_moments(out, target, rel=1e-8)


def test_restore_moments_does_not_depend_on_the_order_of_the_variables():
    rng = np.random.default_rng(9)
    x, z = rng.standard_normal((30, 3)), rng.standard_normal((30, 3))
    perm = [2, 0, 1]
    a = restore_moments(z, x.mean(0), cov(x))
    b = restore_moments(z[:, perm], x[:, perm].mean(0), cov(x[:, perm]))
    np.testing.assert_allclose(a[:, perm], b, atol=1e-12)


# --- multiplicative noise (seed 004; lognormal factor, module docstring) -------------------

def test_multiplicative_noise_keeps_means_signs_and_zeros():
    rng = np.random.default_rng(10)
    x = rng.normal(50, 30, size=(N, 2))  # some values are negative
    x[:100, 0] = 0.0
    z = multiplicative_noise(x, K, np.random.default_rng(11))
    # E(X') = E(X): mean(x (f - 1)) has SE sqrt(k mean(x^2) / n)
    se = np.sqrt(K * np.mean(x ** 2, axis=0) / N)
    np.testing.assert_array_less(np.abs(z.mean(0) - x.mean(0)), 6 * se)
    assert np.all(np.sign(z) == np.sign(x)) and np.all(z[:100, 0] == 0)
    # relative perturbation r = f - 1: mean 0, variance k; E f^m = exp(m (m - 1) s2 / 2)
    r = (z[100:] / x[100:] - 1).ravel()
    s2 = np.log1p(K)
    ef = [np.exp(m * (m - 1) * s2 / 2) for m in range(5)]
    fourth = ef[4] - 4 * ef[3] + 6 * ef[2] - 4 * ef[1] + 1  # E (f - 1)^4
    assert abs(r.mean()) < 6 * np.sqrt(K / len(r))
    assert abs(np.mean(r ** 2) - K) < 6 * np.sqrt((fourth - K ** 2) / len(r))


# --- random orthogonal matrices and ROMM (seed 004 "ROMM") -------------------------------

def test_haar_orthogonal_is_orthogonal_and_uniform():
    rng = np.random.default_rng(12)
    a = haar_orthogonal(6, rng)
    np.testing.assert_allclose(a.T @ a, np.eye(6), atol=1e-12)
    # for Haar 3 x 3 matrices an entry is uniform on [-1, 1] (density (1 - t^2)^((n-3)/2));
    # the QR factor without the sign correction is not Haar and fails this
    first = np.array([haar_orthogonal(3, rng)[0, 0] for _ in range(4000)])
    assert stats.kstest(first, stats.uniform(-1, 2).cdf).pvalue > 1e-3
    raw = np.array([np.linalg.qr(rng.standard_normal((3, 3)))[0][0, 0] for _ in range(4000)])
    assert stats.kstest(raw, stats.uniform(-1, 2).cdf).pvalue < 1e-6


def test_romm_is_an_orthogonal_matrix_fixing_the_ones():
    x = sample(9)
    z, rotation = romm(x, np.random.default_rng(13), rotation=True)
    a = rotation.matrix()
    np.testing.assert_allclose(a.T @ a, np.eye(9), atol=1e-12)
    np.testing.assert_allclose(a @ a.T, np.eye(9), atol=1e-12)
    np.testing.assert_allclose(a @ np.ones(9), np.ones(9), atol=1e-12)
    # Z = A X, seed 004
    scale = np.abs(x).max(0)  # columns in different units
    np.testing.assert_allclose(z / scale, a @ x / scale, rtol=0, atol=1e-12)
    np.testing.assert_allclose(rotation.apply(x) / scale, z / scale, rtol=0, atol=1e-12)


def test_romm_keeps_means_covariances_and_linear_relations_exactly():
    x = sample(20_000)
    x[:, 2] = 3 * x[:, 0] - x[:, 1] + 5  # an affine relation between the variables
    z, _ = romm(x, np.random.default_rng(14))
    assert_same_moments(z, x)
    np.testing.assert_allclose(z[:, 2], 3 * z[:, 0] - z[:, 1] + 5, atol=1e-6)
    # Haar A mixes the records completely: a masked value has nothing to do with the
    # original one any more (correlation ~ 0, SE 1/sqrt(n))
    assert abs(np.corrcoef(z[:, 0], x[:, 0])[0, 1]) < 6 / np.sqrt(len(x))


def test_romm_has_the_law_of_a_dense_haar_rotation():
    # Z = H X with H Haar among orthogonal matrices fixing the ones, H formed explicitly
    x = sample(6)
    rng = np.random.default_rng(15)
    fast = np.array([romm(x, rng)[0][0] for _ in range(3000)])
    dense = np.array([haar_orthogonal_fixing_ones(6, rng) @ x for _ in range(3000)])[:, 0]
    for j in range(3):
        assert stats.ks_2samp(fast[:, j], dense[:, j]).pvalue > 1e-3


def test_haar_orthogonal_fixing_ones():
    a = haar_orthogonal_fixing_ones(7, np.random.default_rng(16))
    np.testing.assert_allclose(a.T @ a, np.eye(7), atol=1e-12)
    np.testing.assert_allclose(a @ np.ones(7), np.ones(7), atol=1e-12)


def test_romm_lambda_controls_the_distance_to_the_identity():
    x = sample(5000)
    sd = np.sqrt(np.diag(cov(x)))
    change = []
    for lam in (1e-5, 1e-3, 1e-1):
        z, _ = romm(x, np.random.default_rng(17), lam=lam)
        assert_same_moments(z, x)
        change.append(np.median(np.abs(z - x) / sd))
    assert change[0] < 0.01 < change[1] < change[2]


def test_romm_small_inputs():
    x = np.array([[1.0, 2.0], [3.0, 5.0]])
    z, _ = romm(x, np.random.default_rng(18))
    # two records: the complement of the ones is a line, A is the identity or the swap
    assert np.allclose(z, x) or np.allclose(z, x[::-1])
    z, _ = romm(x[:1], np.random.default_rng(18))
    assert np.array_equal(z, x[:1])


@settings(max_examples=30, deadline=None)
@given(x=arrays(np.float64, st.tuples(st.integers(3, 12), st.integers(1, 4)),
                elements=st.floats(-1e6, 1e6)), seed=st.integers(0, 2 ** 32 - 1))
def test_romm_invariants(x, seed):
    z, rotation = romm(x, np.random.default_rng(seed), rotation=True)
    z2, _ = romm(x, np.random.default_rng(seed))
    assert np.array_equal(z, z2)  # deterministic under a seed
    a = rotation.matrix()
    np.testing.assert_allclose(a.T @ a, np.eye(len(x)), atol=1e-12)
    scale = np.abs(x).max() + 1
    np.testing.assert_allclose(z.sum(0), x.sum(0), atol=1e-9 * scale * len(x))
    np.testing.assert_allclose(z.T @ z, x.T @ x, atol=1e-9 * scale ** 2 * len(x))


@pytest.mark.parametrize("kernel", [additive_noise, correlated_noise, correlated_restored,
                                    multiplicative_noise])
def test_same_seed_same_noise(kernel):
    x = sample(100)
    a = kernel(x, 0.1, np.random.default_rng(19))
    b = kernel(x, 0.1, np.random.default_rng(19))
    assert np.array_equal(a, b) and not np.array_equal(a, x)


def test_romm_on_masked_rows_is_romm_of_those_rows():
    x = sample(300)
    rows = np.random.default_rng(20).random(300) < 0.8
    z, _ = romm(x, np.random.default_rng(21), rows=rows)
    compact, _ = romm(x[rows], np.random.default_rng(21))
    np.testing.assert_allclose(z[rows], compact, rtol=1e-12, atol=1e-9)
    assert np.array_equal(z[~rows], x[~rows])


def test_moments_over_blocks_match_numpy():
    # more records than one block of rows (65,536), with missing values
    x = sample(150_000)
    x[::1000, 1] = np.nan
    mean, c, m = moments(x)
    full = x[~np.isnan(x).any(axis=1)]
    assert m == len(full)
    np.testing.assert_allclose(mean, full.mean(0), rtol=1e-12)
    np.testing.assert_allclose(c, cov(full), rtol=1e-10)
