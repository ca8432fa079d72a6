"""The exact integer samplers of Canonne, Kamath & Steinke (2020) that sdcflow feeds from a
keyed BLAKE2b stream: their draws follow the exact pmf (discrete Laplace:
``(1 - q) / (1 + q) q^|x|``, ``q = exp(-1/t)``; discrete Gaussian: ``exp(-x^2 / 2 s^2)``
normalised), agree with OpenDP's own samplers, and are reproducible from the seed."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from sdcflow.kernels.privacy.dp_noise import (
    KeyedBits,
    _bernoulli_exp,
    discrete_gaussian_pmf,
    discrete_laplace_pmf,
    dp_noise,
)

N = 20_000


def _tv_and_chi2(draws: np.ndarray, pmf) -> tuple[float, float]:
    """Total variation distance of the empirical distribution from ``pmf``, and the
    chi-square test's p-value over the values with an expected count of at least 5 (the
    rest pooled)."""
    values, counts = np.unique(draws, return_counts=True)
    span = np.arange(min(values.min(), -60), max(values.max(), 60) + 1)
    p = pmf(span)
    observed = np.zeros(len(span))
    observed[np.searchsorted(span, values)] = counts
    tv = 0.5 * np.abs(observed / len(draws) - p).sum() + 0.5 * max(0.0, 1 - p.sum())
    expected = p * len(draws)
    big = expected >= 5
    obs = np.r_[observed[big], observed[~big].sum()]
    exp = np.r_[expected[big], len(draws) - expected[big].sum()]
    return tv, stats.chisquare(obs, exp).pvalue


@pytest.mark.parametrize("scale", [0.7, 2.0, 1 / 0.3])
def test_discrete_laplace_follows_its_exact_pmf(scale):
    draws = dp_noise(np.random.default_rng(11), N, "laplace", scale)
    tv, p = _tv_and_chi2(draws, lambda x: discrete_laplace_pmf(x, scale))
    # the expected TV of N draws from the right law is about sqrt(support / N) / 2:
    # a few hundredths at most; a wrong scale (say 10% off) gives more
    assert tv < 0.03
    assert p > 1e-3


@pytest.mark.parametrize("sigma", [0.8, 3.3])
def test_discrete_gaussian_follows_its_exact_pmf(sigma):
    draws = dp_noise(np.random.default_rng(12), N, "gaussian", sigma)
    tv, p = _tv_and_chi2(draws, lambda x: discrete_gaussian_pmf(x, sigma))
    assert tv < 0.03
    assert p > 1e-3
    # the variance of a discrete Gaussian of scale >= 1 is within 1e-6 of sigma^2
    # (Canonne, Kamath & Steinke 2020, Proposition 19): the sample's is near it
    assert abs(draws.var() / sigma ** 2 - 1) < 0.05


def test_a_wrong_scale_is_detected():
    # the test above could fail: draws of scale 2.2 against the pmf of scale 2
    draws = dp_noise(np.random.default_rng(11), N, "laplace", 2.2)
    _tv, p = _tv_and_chi2(draws, lambda x: discrete_laplace_pmf(x, 2.0))
    assert p < 1e-3


def test_bernoulli_exp_is_exact_in_the_mean():
    bits = KeyedBits(bytes(32))
    for gamma in (Fraction(1, 3), Fraction(5, 2)):
        hits = sum(_bernoulli_exp(gamma, bits) for _ in range(20_000))
        # binomial standard error at 20,000 draws is below 0.0036
        assert abs(hits / 20_000 - np.exp(-float(gamma))) < 0.015


@pytest.mark.parametrize("mechanism,scale,measure", [("laplace", 2.0, "MaxDivergence"),
                                                    ("gaussian", 3.3,
                                                     "ZeroConcentratedDivergence")])
def test_agrees_with_opendps_own_sampler(mechanism, scale, measure):
    """OpenDP's integer mechanism (noise from the operating system: its draws differ on
    every run) and sdcflow's draws of the same scale are two samples of one law. The
    bounds hold but with a probability of about 1e-8 each, so that the test is as good as
    deterministic: the two-sample Kolmogorov-Smirnov statistic below its 1e-8 critical
    value (sqrt(-ln(0.5e-8) / 2) = 3.09 times sqrt((n + m) / (n m))), and each sample's
    variance within 6 standard errors of the law's exact variance (the standard error
    from its exact fourth moment, both summed over the pmf)."""
    import opendp.prelude as dp

    dp.enable_features("contrib")
    space = dp.vector_domain(dp.atom_domain(T="i64")), (
        dp.l1_distance(T="i64") if mechanism == "laplace" else dp.l2_distance(T="i64"))
    make = dp.m.make_laplace if mechanism == "laplace" else dp.m.make_gaussian
    meas = make(*space, scale=scale)
    assert str(meas.output_measure).startswith(measure)
    n = 5000
    theirs = np.asarray(meas([0] * n), dtype=float)
    ours = dp_noise(np.random.default_rng(3), n, mechanism, scale).astype(float)
    assert stats.ks_2samp(theirs, ours).statistic < 3.1 * np.sqrt(2 / n)
    k = np.arange(-int(80 * scale), int(80 * scale) + 1, dtype=float)
    pmf = np.exp(-np.abs(k) / scale) if mechanism == "laplace" else \
        np.exp(-k * k / (2 * scale * scale))
    pmf /= pmf.sum()
    var, fourth = float((pmf * k ** 2).sum()), float((pmf * k ** 4).sum())
    se = np.sqrt((fourth - var * var) / n)
    for sample in (theirs, ours):
        assert abs(sample.var() - var) < 6 * se
    if mechanism == "laplace":  # the exact variance of the discrete Laplace law
        e = np.exp(-1 / scale)
        assert var == pytest.approx(2 * e / (1 - e) ** 2, rel=1e-12)


def test_draws_follow_the_generator_and_only_it():
    a = dp_noise(np.random.default_rng(5), 200, "laplace", 3.0)
    b = dp_noise(np.random.default_rng(5), 200, "laplace", 3.0)
    c = dp_noise(np.random.default_rng(6), 200, "laplace", 3.0)
    assert a.dtype == np.int64
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)


def test_keyed_bits_are_blake2b_in_counter_mode():
    import hashlib

    key = bytes(range(32))
    first = hashlib.blake2b((0).to_bytes(16, "little"), key=key, digest_size=64).digest()
    assert KeyedBits(key).bits(512) == int.from_bytes(first, "little")
    bits = KeyedBits(key)
    assert all(0 <= bits.below(7) < 7 for _ in range(100))
