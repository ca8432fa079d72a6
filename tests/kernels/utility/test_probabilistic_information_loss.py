"""Probabilistic information loss PIL (sdcflow.kernels.utility.probabilistic_information_loss;
Mateo-Sanz, Domingo-Ferrer & Sebe 2005).

Expected values are computed by hand from the seed's formulas (worked out in the comments)
or, where stated, from the published formulas evaluated independently in the test."""

import math

import numpy as np
import pytest
from scipy.stats import norm

from sdcflow.kernels.utility.probabilistic_information_loss import (
    pil_probabilities,
    probabilistic_information_loss,
    quantile_variance,
)


def test_pil_probabilities():
    # 2 (Phi(1.959964) - 1/2) = 0.95; zero variance: 0 if unchanged, 1 if changed
    out = pil_probabilities([0.0, 0.0, 5.0, 5.0], [1.959964, 0.0, 5.0, 6.0], [1.0, 1.0, 0.0, 0.0])
    assert out.tolist() == pytest.approx([0.95, 0.0, 0.0, 1.0], abs=1e-6)


def test_pil_of_means_and_variances_by_hand():
    # x = (-1, 1, -1, 1): mean 0, S^2 = 4/3, mu2 = 1, mu4 = 1, n = 4
    x = np.array([[-1.0], [1.0], [-1.0], [1.0]])
    # means: y = x + 0.5 -> z = 0.5 / sqrt(S^2 / n) = 0.5 / sqrt(1/3)
    out = probabilistic_information_loss(x, x + 0.5)
    assert out["means"] == pytest.approx(100 * (2 * norm.cdf(0.5 / math.sqrt(1 / 3)) - 1))
    assert out["variances"] == 0
    # variances: y = 1.1 x -> m2' = 1.21; Var(m2) = (n-1)^2/n^3 (mu4 - mu2^2)
    # + 2 (n-1)/n^3 mu2^2 = 0 + 6/64
    out = probabilistic_information_loss(x, 1.1 * x)
    assert out["variances"] == pytest.approx(100 * (2 * norm.cdf(0.21 / math.sqrt(6 / 64)) - 1))
    assert out["means"] == 0
    # one variable: no covariances or correlations, the total averages three statistics
    assert out["total"] == pytest.approx((out["quantiles"] + out["means"]
                                          + out["variances"]) / 3)


def test_pil_of_covariances_matches_the_published_variance():
    rng = np.random.default_rng(6)
    x = rng.normal(size=(50, 2))
    y = x.copy()
    y[:, 1] += 0.3 * x[:, 0]
    n = 50
    d = x - x.mean(axis=0)
    m11, m20, m02 = (d[:, 0] * d[:, 1]).mean(), (d[:, 0] ** 2).mean(), (d[:, 1] ** 2).mean()
    m22 = (d[:, 0] ** 2 * d[:, 1] ** 2).mean()
    var = (n - 1) ** 2 / n ** 3 * (m22 - m11 ** 2) + (n - 1) / n ** 3 * (m11 ** 2 + m20 * m02)
    dy = y - y.mean(axis=0)
    z = abs((dy[:, 0] * dy[:, 1]).mean() - m11) / math.sqrt(var)
    out = probabilistic_information_loss(x, y)
    assert out["covariances"] == pytest.approx(100 * (2 * norm.cdf(z) - 1))
    r, r2 = np.corrcoef(x, rowvar=False)[0, 1], np.corrcoef(y, rowvar=False)[0, 1]
    zr = abs(r2 - r) / math.sqrt((1 - r ** 2) ** 2 / n)
    assert out["correlations"] == pytest.approx(100 * (2 * norm.cdf(zr) - 1))


def test_quantile_variance_is_the_normal_asymptotic_one():
    # large normal sample: alpha (1 - alpha) / (n phi(z_alpha)^2), within 10 % (the density
    # estimate's error at n = 200,000 is about 2 %)
    rng = np.random.default_rng(7)
    n = 200_000
    x = np.sort(rng.normal(size=n))
    probs = np.array([0.05, 0.25, 0.5, 0.75, 0.95])
    expected = probs * (1 - probs) / (n * norm.pdf(norm.ppf(probs)) ** 2)
    np.testing.assert_allclose(quantile_variance(x, probs), expected, rtol=0.1)
