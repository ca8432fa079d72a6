"""Data distortion by probability distribution (Liew, Choi & Liew 1985): fitted laws,
rank-for-rank replacement, and that the released values follow the fitted law.

Expected values: maximum-likelihood estimates computed by hand from the definitions;
large-sample tests use a fixed seed and a Kolmogorov-Smirnov p-value far from its limit
(or 6 standard errors), so they are deterministic."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from sdcflow.kernels.perturbative.distribution_distortion import (
    DISTRIBUTIONS,
    best_fit,
    distort,
    draw,
    fit,
    replace_by_rank,
)


def test_parameters_by_hand():
    x = np.array([1.0, 2, 3, 4, 5])
    # mean 3, ML variance (4 + 1 + 0 + 1 + 4) / 5 = 2
    assert fit(x, "normal").parameters == {"mean": 3.0, "sd": np.sqrt(2.0)}
    assert fit(x, "exponential").parameters == {"scale": 3.0}
    assert fit(x, "uniform").parameters == {"min": 1.0, "max": 5.0}
    # ln x = 0, 1, 2: mean 1, ML variance 2/3
    p = fit(np.exp([0.0, 1, 2]), "lognormal").parameters
    assert p["meanlog"] == pytest.approx(1) and p["sdlog"] == pytest.approx(np.sqrt(2 / 3))


def test_gamma_shape_solves_the_likelihood_equation():
    # ln a - digamma(a) = ln(mean) - mean(ln x); scale = mean / a; scipy's own ML fit
    x = np.array([0.5, 1.0, 2.0, 3.5, 7.0, 0.8])
    p = fit(x, "gamma").parameters
    s = np.log(x.mean()) - np.log(x).mean()
    from scipy.special import digamma
    assert np.log(p["shape"]) - digamma(p["shape"]) == pytest.approx(s, rel=1e-12)
    assert p["scale"] * p["shape"] == pytest.approx(x.mean())
    shape = stats.gamma.fit(x, floc=0)[0]
    assert p["shape"] == pytest.approx(shape, rel=1e-4)


def test_ks_statistic_by_hand():
    # uniform on [1, 5] fitted to 1, 2, 3, 4, 5: F = 0, .25, .5, .75, 1; the ECDF jumps to
    # 0.2, 0.4, ... so D = max(0.2 - 0, 0.25 - 0.2, ...) = 0.2
    assert fit(np.array([1.0, 2, 3, 4, 5]), "uniform").ks == pytest.approx(0.2)


def test_replace_by_rank_by_hand():
    # ranks of 30, 10, 20, 10 (ties by position): 4, 1, 3, 2; sorted series 1, 2, 3, 5
    out = replace_by_rank(np.array([30.0, 10, 20, 10]), np.array([5.0, 1, 3, 2]))
    assert out.tolist() == [5, 1, 3, 2]


def test_distorted_values_are_the_sorted_draws_of_the_fitted_law():
    x = np.array([3.0, 9, 1, 4, 4, 7])
    out, info = distort(x, "normal", np.random.default_rng(5))
    u = np.random.default_rng(5).random(6)
    series = np.sort(stats.norm(x.mean(), x.std()).ppf(u))
    # the records in value order (ties by position): 1, 3, 4, 4, 7, 9 -> rows 2, 0, 3, 4, 5, 1
    np.testing.assert_allclose(out[[2, 0, 3, 4, 5, 1]], series, rtol=1e-14)
    assert info["distribution"] == "normal" and info["records"] == 6


def test_empirical_quantile_by_hand():
    # sorted 10, 20, 40: Q(u) interpolates at u (m - 1) = 2u between the order statistics
    found = fit(np.array([40.0, 10, 20]), "empirical")

    class Fixed:
        def random(self, size):
            return np.array([0.0, 0.25, 0.5, 0.75])[:size]
    assert draw(found, 4, Fixed()).tolist() == [10, 15, 20, 30]


@pytest.mark.parametrize("name,law", [
    ("normal", stats.norm(50, 10)),
    ("lognormal", stats.lognorm(0.8, scale=np.exp(3))),
    ("exponential", stats.expon(scale=7)),
    ("gamma", stats.gamma(2.5, scale=4)),
    ("uniform", stats.uniform(-3, 10)),
])
def test_output_follows_the_fitted_law_and_keeps_the_rank_order(name, law):
    n = 20_000
    x = law.rvs(size=n, random_state=np.random.default_rng(1))
    out, info = distort(x, name, np.random.default_rng(2))
    fitted = fit(x, name).law()
    # the released series is a sample of the fitted law (KS test), not the original values
    assert stats.kstest(out, fitted.cdf).pvalue > 1e-4
    assert not np.any(np.isin(out, x))
    # rank order kept exactly
    order = np.argsort(x, kind="stable")
    assert np.all(np.diff(out[order]) >= 0)
    # the parameters refitted on the output are those of the input within 6 standard errors
    # of the mean (sd / sqrt(n)) on the scale where the law's location lives
    if name == "lognormal":
        a, b = np.log(out).mean(), info["parameters"]["meanlog"]
        assert abs(a - b) < 6 * info["parameters"]["sdlog"] / np.sqrt(n)
    else:
        assert abs(out.mean() - fitted.mean()) < 6 * fitted.std() / np.sqrt(n)


def test_empirical_follows_the_original_values():
    x = stats.gamma(0.7, scale=100).rvs(size=20_000, random_state=np.random.default_rng(3))
    out, _ = distort(x, "empirical", np.random.default_rng(4))
    assert x.min() <= out.min() and out.max() <= x.max()
    assert stats.ks_2samp(out, x).pvalue > 1e-4


def test_best_picks_the_generating_law():
    rng = np.random.default_rng(6)
    assert best_fit(rng.normal(0, 1, 5000))[0].name == "normal"
    assert best_fit(rng.lognormal(2, 1.0, 5000))[0].name == "lognormal"
    assert best_fit(rng.exponential(3, 5000))[0].name in ("exponential", "gamma")
    chosen, tried = best_fit(rng.normal(0, 1, 500))
    # negative values: only the laws without a positivity condition are tried
    assert set(tried) == {"normal", "uniform"} and chosen.ks == min(tried.values())


def test_constant_or_single_values_are_kept_and_bad_support_refused():
    assert distort(np.array([4.0, 4, 4]), "normal", np.random.default_rng(0))[0].tolist() == [4] * 3
    assert distort(np.array([4.0]), "best", np.random.default_rng(0))[1]["distribution"] is None
    with pytest.raises(ValueError, match="positive"):
        fit(np.array([0.0, 1, 2]), "lognormal")


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.floats(0.01, 1e6), min_size=2, max_size=40),
       name=st.sampled_from(DISTRIBUTIONS), seed=st.integers(0, 2 ** 32 - 1))
def test_rank_order_is_always_kept(values, name, seed):
    x = np.array(values)
    out, _ = distort(x, name, np.random.default_rng(seed))
    assert np.all(np.isfinite(out)) and len(out) == len(x)
    # x_i < x_j implies out_i <= out_j
    assert np.all((x[:, None] < x[None, :]) <= (out[:, None] <= out[None, :]))
