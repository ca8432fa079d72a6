"""sdcMicro's addNoise conventions (sdcflow.kernels.perturbative.sdcmicro_noise), against
sdcMicro 5.8.1's R/addNoise.r: its ``noise`` percentage and ``correlated2`` with ``delta``.

Exact tests rebuild the result from the definition with the same Generator; large-sample
tests use a fixed seed and 6 standard errors of the statistic (deterministic)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from sdcflow.kernels.perturbative.noise import additive_noise, correlated_noise, romm
from sdcflow.kernels.perturbative.sdcmicro_noise import (
    column_means_and_sds,
    correlated2_noise,
    k_from_noise,
)

SIGMA = np.array([[4.0, 3.0, -1.0], [3.0, 9.0, 0.5], [-1.0, 0.5, 1.0]])


def sample(n=200_000, seed=1):
    return np.random.default_rng(seed).multivariate_normal([10, 20, 30], SIGMA, size=n)


def test_noise_percent_to_k():
    # additive: rnorm(N, 0, noise/100 * sd(x)): variance (noise/100)^2 Var; correlated:
    # mvrnorm(N, 0, noise/100 * cov(x)): covariance noise/100 Sigma. sdcMicro's
    # noise = 5 with method "correlated" is k = 0.05 (not 0.0025), noise = 10 with
    # "additive" k = 0.01, and its default 150 is k = 2.25 and 1.5
    assert k_from_noise("correlated", 5) == pytest.approx(0.05)
    assert k_from_noise("additive", 10) == pytest.approx(0.01)
    assert k_from_noise("additive", 150) == pytest.approx(2.25)
    assert k_from_noise("correlated", 150) == pytest.approx(1.5)
    with pytest.raises(ValueError, match="applies to methods"):
        k_from_noise("correlated2", 5)


def test_sdcmicro_noise_gives_sdcmicros_noise_covariance():
    # the noise Z - X of sdcMicro's "correlated" with noise = 5 has covariance 0.05 Sigma;
    # of "additive" with noise = 20 standard deviations 0.2 sd(X_j)
    x = sample()
    n = len(x)
    e = correlated_noise(x, k_from_noise("correlated", 5), np.random.default_rng(2)) - x
    target = 0.05 * np.cov(x, rowvar=False)
    se = np.sqrt((np.outer(np.diag(target), np.diag(target)) + target ** 2) / n)
    np.testing.assert_array_less(np.abs(np.cov(e, rowvar=False) - target), 6 * se)
    e = additive_noise(x, k_from_noise("additive", 20), np.random.default_rng(3)) - x
    sd = 0.2 * x.std(axis=0, ddof=1)
    np.testing.assert_array_less(np.abs(e.std(axis=0, ddof=1) - sd), 6 * sd / math.sqrt(2 * n))


def test_correlated2_by_hand():
    # x = (1, 2, 3): mean 2, sd 1; delta = 0.6: d1 = sqrt(1 - 0.36) = 0.8, so sdcMicro's
    # x * d1 + delta * rnorm(N, (1 - d1)/delta * mean, sd) = 0.8 x + 0.4 + 0.6 e
    x = np.array([[1.0], [2.0], [3.0]])
    e = np.random.default_rng(7).standard_normal(3)
    out = correlated2_noise(x, 0.6, np.random.default_rng(7))
    np.testing.assert_allclose(out[:, 0], 0.8 * x[:, 0] + 0.4 + 0.6 * e, rtol=1e-14)


def test_correlated2_draws_variable_by_variable_and_keeps_missing():
    x = sample(n=50)
    x[[3, 8], 1] = np.nan
    delta = 0.3
    e = np.random.default_rng(11).standard_normal((3, 50)).T  # column-major, as sdcMicro
    out = correlated2_noise(x, delta, np.random.default_rng(11))
    d1 = math.sqrt(1 - delta ** 2)
    for j in range(3):
        obs = x[~np.isnan(x[:, j]), j]
        expected = d1 * x[:, j] + delta * ((1 - d1) / delta * obs.mean() + obs.std(ddof=1) * e[:, j])
        np.testing.assert_allclose(out[:, j], expected, rtol=1e-12, equal_nan=True)
    assert np.isnan(out[[3, 8], 1]).all() and not np.isnan(np.delete(out, [3, 8], 0)).any()


def test_correlated2_keeps_means_and_variances_and_shrinks_covariances():
    # E x' = mean; Var x' = d1^2 Var + delta^2 Var = Var; Cov(x'_i, x'_j) = (1 - delta^2)
    # Cov (independent noise), hence correlations times (1 - delta^2)
    x = sample()
    n, delta = len(x), 0.5
    z = correlated2_noise(x, delta, np.random.default_rng(4))
    v = x.var(axis=0, ddof=1)
    np.testing.assert_array_less(np.abs(z.mean(0) - x.mean(0)), 6 * delta * np.sqrt(v / n))
    # var(z) - var(x): the noise's variance has SE delta^2 var sqrt(2/n), the cross term
    # 2 d1 delta cov(x, e) SE 2 d1 delta var / sqrt(n)
    se_var = v * (delta ** 2 * math.sqrt(2 / n) + 2 * delta / math.sqrt(n))
    np.testing.assert_array_less(np.abs(z.var(axis=0, ddof=1) - v), 6 * se_var)
    cx, cz = np.cov(x, rowvar=False), np.cov(z, rowvar=False)
    off = ~np.eye(3, dtype=bool)
    se_cov = np.sqrt(np.outer(v, v) * (2 * delta ** 2 + delta ** 4) / n)
    np.testing.assert_array_less(np.abs(cz - (1 - delta ** 2) * cx)[off], 6 * se_cov[off])
    # kept and shrunk are far apart compared with the tolerance
    assert (np.abs(cx - (1 - delta ** 2) * cx)[off] > 20 * se_cov[off]).all()


@settings(max_examples=30, deadline=None)
@given(arrays(np.float64, (20, 2), elements=st.floats(-1e4, 1e4)), st.floats(0.01, 1.0),
       st.integers(0, 2 ** 32 - 1))
def test_correlated2_is_the_mean_preserving_shrink_plus_noise(x, delta, seed):
    # whatever the data: x' - delta sd e = d1 x + (1 - d1) mean, whose mean is the mean
    # of x exactly; with delta = 1 the values are the mean plus sd e (nothing of x left)
    out = correlated2_noise(x, delta, np.random.default_rng(seed))
    e = np.random.default_rng(seed).standard_normal((2, 20)).T
    means, sds = column_means_and_sds(x)
    shrunk = out - delta * sds * e
    scale = np.abs(x).max() + 1.0
    np.testing.assert_allclose(shrunk.mean(0), x.mean(0), atol=1e-9 * scale)
    d1 = math.sqrt(1 - delta ** 2)
    np.testing.assert_allclose(shrunk, d1 * x + (1 - d1) * means, atol=1e-9 * scale)


def test_correlated2_refuses_delta_outside_its_range():
    for delta in (0.0, -0.1, 1.5):
        with pytest.raises(ValueError, match="delta must be in"):
            correlated2_noise(np.ones((3, 1)), delta, np.random.default_rng(0))


def sdcmicro_romm(x, p, rng):
    """sdcMicro's addNoise_ROMM, from its source: Gram-Schmidt orthonormalisation of the
    columns of I + p M (M standard normal N x N), i.e. the QR factor with a positive
    diagonal of R, times the uncentred records."""
    n = len(x)
    q, r = np.linalg.qr(np.eye(n) + p * rng.standard_normal((n, n)))
    return (q * np.sign(np.diag(r))) @ x


def test_romm_lambda_is_not_sdcmicros_p():
    # docs/sdcmicro.md: sdcMicro rotates the uncentred records, so its ROMM changes the
    # means, and the same p moves the values about sqrt(mean(x^2) / var(x)) times more
    # than romm_lambda (for small p: (A - I) ~ p times a skew-symmetric Gaussian matrix
    # acting on x, against the centred frame of x for romm)
    rng = np.random.default_rng(0)
    x = rng.multivariate_normal([10, 20], [[4, 3], [3, 9]], size=300)
    theirs = np.mean([((sdcmicro_romm(x, 0.01, rng) - x) ** 2).mean() for _ in range(4)])
    ours = [romm(x, rng, lam=0.01)[0] for _ in range(4)]
    ratio = theirs / np.mean([((z - x) ** 2).mean() for z in ours])
    expected = (x ** 2).mean() / x.var(axis=0, ddof=1).mean()
    assert 0.7 * expected < ratio < 1.3 * expected and ratio > 20
    assert np.abs(sdcmicro_romm(x, 0.01, rng).mean(0) - x.mean(0)).max() > 0.05
    for z in ours:
        np.testing.assert_allclose(z.mean(0), x.mean(0), rtol=1e-12)


def test_outdect_outliers_by_quantile_and_by_robust_distance():
    # addNoise_outdect: a value above quantile(x_j, 0.99) (R's type 7) is an outlier, and
    # so is a record whose robust distance from covMcd(alpha = 1/2)'s centre exceeds
    # sqrt(qchisq(0.975, p)), whichever variable it is in
    from sdcflow.kernels.perturbative.sdcmicro_noise import outliers

    rng = np.random.default_rng(8)
    x = rng.normal(size=(300, 2))
    x[0] = [-9.0, 9.0]  # below every 0.99 quantile in a, above it in b: by quantile
    x[1] = [-6.0, -6.0]  # below both quantiles, six sd from the centre: by distance only
    mask = outliers(x, np.random.default_rng(1))
    # type 7: position 0.99 (n - 1) = 296.01 among the sorted values: the three largest
    # values of each variable lie above it
    for j in range(2):
        top = np.argsort(x[:, j])[-3:]
        assert mask[top].all()
    assert mask[0] and mask[1]
    # a normal sample has few points beyond sqrt(chi2_2(0.975)) = 2.716 (2.5 %)
    assert mask.sum() <= 0.08 * len(x)
    # a record with a missing value has no distance: an outlier only by its quantiles
    x[1, 0] = np.nan
    assert not outliers(x, np.random.default_rng(1))[1]


def test_outdect_noise_is_sdcmicros():
    # rnorm(length(outliers), 0, 1.96 * sd(x[, i]) / sqrt(N) * noise / 100) added to the
    # outliers, variable by variable
    from sdcflow.kernels.perturbative.sdcmicro_noise import outlier_noise

    x = sample(n=10_000)
    mask = np.zeros(len(x), dtype=bool)
    mask[::4] = True  # given: a quarter of the records
    z, same = outlier_noise(x, 150, np.random.default_rng(5), mask=mask)
    assert same is mask and (z[~mask] == x[~mask]).all()
    scale = 1.96 * x.std(axis=0, ddof=1) / math.sqrt(len(x)) * 1.5
    draws = np.random.default_rng(5)
    expected = x.copy()
    for j in range(3):
        expected[mask, j] += draws.normal(0.0, 1.0, int(mask.sum())) * scale[j]
    np.testing.assert_allclose(z, expected, rtol=1e-14)
    # and the empirical standard deviation of the noise is that scale (2,500 draws)
    sd = (z - x)[mask].std(axis=0, ddof=1)
    assert (np.abs(sd / scale - 1) < 6 / math.sqrt(2 * 2500)).all()
