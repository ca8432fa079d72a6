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
    discrete_ks,
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
    ("weibull", stats.weibull_min(1.7, scale=20)),
    ("chi_square", stats.chi2(5)),
    ("triangular", stats.triang(0.3, loc=2, scale=8)),
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
    assert set(tried) == {"normal", "uniform", "triangular"}
    assert chosen.ks == min(tried.values())


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
    if name == "poisson":  # (whole values only)
        x = np.floor(x)
    out, _ = distort(x, name, np.random.default_rng(seed))
    assert np.all(np.isfinite(out)) and len(out) == len(x)
    # x_i < x_j implies out_i <= out_j
    assert np.all((x[:, None] < x[None, :]) <= (out[:, None] <= out[None, :]))


def test_poisson_mean_and_discrete_ks_by_hand():
    # 0, 1, 1, 3: mean 1.25. F of Poisson(1.25) at 0..3: e^-1.25 (1, 1 + 1.25,
    # + 1.25^2 / 2, + 1.25^3 / 6) = .2865, .6446, .8685, .9617; the empirical F at the
    # values and the whole numbers below them (-1, 0, 1, 2, 3): 0, .25, .75, .75, 1:
    # the largest difference is |.75 - .8685| at 2
    x = np.array([0.0, 1, 1, 3])
    found = fit(x, "poisson")
    assert found.parameters == {"mean": 1.25}
    e = np.exp(-1.25)
    cdf2 = e * (1 + 1.25 + 1.25 ** 2 / 2)
    assert found.ks == pytest.approx(cdf2 - 0.75, rel=1e-12)
    # the continuous formula charges the jumps twice: at 1 it compares F(1) with the
    # empirical F just below 1 (.25), a difference of .39 the step functions never have
    assert stats.kstest(x, stats.poisson(1.25).cdf).statistic > 0.39
    assert discrete_ks(np.array([2.0, 2]), stats.poisson(2).cdf) == pytest.approx(
        max(stats.poisson(2).cdf(1), 1 - stats.poisson(2).cdf(2)))


def test_weibull_and_chi_square_solve_their_likelihood_equations():
    x = np.array([0.5, 1.0, 2.0, 3.5, 7.0, 0.8])
    p = fit(x, "weibull").parameters
    k, logs = p["shape"], np.log(x)
    assert (x ** k * logs).sum() / (x ** k).sum() - 1 / k == pytest.approx(logs.mean(),
                                                                           rel=1e-12)
    assert p["scale"] == pytest.approx(np.mean(x ** k) ** (1 / k), rel=1e-12)
    # scipy's numerical maximum likelihood (location fixed at 0) agrees
    shape, _, scale = stats.weibull_min.fit(x, floc=0)
    assert (k, p["scale"]) == pytest.approx((shape, scale), rel=1e-4)
    from scipy.special import digamma
    df = fit(x, "chi_square").parameters["df"]
    assert digamma(df / 2) == pytest.approx(np.log(x / 2).mean(), rel=1e-12)
    assert df == pytest.approx(stats.chi2.fit(x, floc=0, fscale=1)[0], rel=1e-4)


def test_triangular_limits_and_mode_by_hand():
    # 1, 2, 4: mean spacing 1.5, limits -0.5 and 5.5. Likelihood ratios of the modes
    # (Oliver 1972): at 1 (3.5 * 1.5) / 4.5^2 = .2593, at 2 (1.5 / 2.5) (1.5 / 3.5) = .2571,
    # at 4 (1.5 * 2.5) / 4.5^2 = .1852: the mode is 1
    p = fit(np.array([4.0, 1, 2]), "triangular").parameters
    assert p == {"min": -0.5, "mode": 1.0, "max": 5.5}
    # the mode maximises the full likelihood among the values (scipy's density)
    x = np.array([2.0, 3.1, 3.3, 4.0, 6.5, 9.0, 3.2])
    p = fit(x, "triangular").parameters
    width = p["max"] - p["min"]

    def loglik(mode):
        return stats.triang((mode - p["min"]) / width, loc=p["min"], scale=width).logpdf(x).sum()
    assert loglik(p["mode"]) == max(loglik(m) for m in x)


def test_poisson_release_is_whole_and_follows_the_law():
    n = 20_000
    x = stats.poisson(3.5).rvs(size=n, random_state=np.random.default_rng(7)).astype(float)
    out, info = distort(x, "poisson", np.random.default_rng(8))
    assert info["parameters"] == {"mean": x.mean()}
    assert np.all(out == np.floor(out)) and out.min() >= 0
    assert abs(out.mean() - x.mean()) < 6 * np.sqrt(x.mean() / n)
    assert np.all(np.diff(out[np.argsort(x, kind="stable")]) >= 0)


def test_best_chooses_among_every_law_of_liew_choi_and_liew():
    rng = np.random.default_rng(6)
    assert best_fit(rng.weibull(0.6, 5000) * 10)[0].name == "weibull"
    assert best_fit(rng.poisson(4, 5000).astype(float))[0].name == "poisson"
    assert best_fit(rng.triangular(0, 2, 10, 5000))[0].name == "triangular"
    # a chi-square sample is a gamma one too (scale 2): either may fit it best, by the
    # sampling noise of the statistic; the chi-square fit finds its degrees of freedom
    chosen, tried = best_fit(rng.chisquare(7, 5000))
    assert chosen.name in ("chi_square", "gamma") and chosen.ks == min(tried.values())
    assert fit(rng.chisquare(7, 5000), "chi_square").parameters["df"] == pytest.approx(7, abs=0.3)
    # whole values below zero: no Poisson; positive values that are not whole: no Poisson
    assert "poisson" not in best_fit(np.array([-1.0, 0, 2, 3]))[1]
    assert "poisson" not in best_fit(np.array([0.5, 1, 2, 3]))[1]
    with pytest.raises(ValueError, match="whole non-negative"):
        fit(np.array([0.5, 1, 2]), "poisson")
