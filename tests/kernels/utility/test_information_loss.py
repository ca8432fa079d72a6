"""Information loss kernels (sdcflow.kernels.utility.information_loss): seed 000, section 4.

Expected values are computed by hand from the seed's formulas (worked out in the comments)
or, where stated, from the published formulas evaluated independently in the test."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

from sdcflow.kernels.utility.information_loss import (
    continuous_information_loss,
    ctbil,
    direct_distance,
    divergence,
    eigen_difference,
    entropy_losses,
    il1s,
    pil_probabilities,
    posterior_from_data,
    posterior_from_matrix,
    probabilistic_information_loss,
    quantile_variance,
    value_divergence,
)

# Seed 000, "Rank swapping: Example I": original and protected files (swap range p = 2).
RS_X = np.array([[8, 9, 1, 3], [6, 7, 10, 2], [10, 3, 4, 1], [7, 1, 2, 6], [9, 4, 6, 4],
                 [2, 2, 8, 8], [1, 10, 3, 9], [4, 8, 7, 10], [5, 5, 5, 5], [3, 6, 9, 7]], float)
RS_Y = np.array([[10, 10, 3, 5], [5, 5, 8, 1], [8, 4, 2, 2], [9, 2, 4, 4], [7, 3, 5, 6],
                 [4, 1, 10, 10], [3, 9, 1, 7], [2, 6, 9, 8], [6, 7, 6, 3], [1, 8, 7, 9]], float)


def test_divergence_by_hand_with_a_zero_original():
    # d = |a - b| = [1, 0, 0, 1]: mse = 2/4, mae = 2/4; mean variation: 1/1, 0/2, 0/0 := 0,
    # and 1/0 (undefined) left out: (1 + 0 + 0) / 3
    out = divergence([1.0, 2, 0, 0], [2.0, 2, 0, 1])
    assert out == {"mse": 0.5, "mae": 0.5, "mv": pytest.approx(1 / 3), "mv_left_out": 1}


def test_weighted_divergence_follows_the_seed_table():
    # RF/F rows: sum_j w_j sum_i (.)/p^2 with p = 2, weights (0.75, 0.25) by column j
    a = np.array([[1.0, 2.0], [4.0, -1.0]])
    b = np.array([[2.0, 2.0], [2.0, -2.0]])
    w = np.array([[0.75, 0.25], [0.75, 0.25]])
    out = divergence(a, b, weights=w, divisor=4)
    # squares: col 0: 1 + 4 = 5, col 1: 0 + 1 = 1 -> (0.75*5 + 0.25*1)/4 = 1.0
    assert out["mse"] == pytest.approx(1.0)
    # abs: col 0: 1 + 2 = 3, col 1: 0 + 1 = 1 -> (2.25 + 0.25)/4 = 0.625
    assert out["mae"] == pytest.approx(0.625)
    # variation: col 0: 1/1 + 2/4 = 1.5, col 1: 0 + 1/1 = 1 -> (1.125 + 0.25)/4
    assert out["mv"] == pytest.approx(1.375 / 4)


def test_rank_swapping_example_value_and_covariance_rows():
    # hand count over the 40 cells of the seed's example: sum |d| = 68, sum d^2 = 124
    out = value_divergence(RS_X, RS_Y)
    assert out["mse"] == pytest.approx(124 / 40)
    assert out["mae"] == pytest.approx(68 / 40)
    expected_mv = sum(abs(a - b) / abs(a) for a, b in zip(RS_X.ravel(), RS_Y.ravel())) / 40
    assert out["mv"] == pytest.approx(expected_mv)
    summary, _ = continuous_information_loss(RS_X, RS_Y)
    # rank swapping permutes each column: means, variances and quantiles are kept exactly
    assert summary["pil_by_statistic"]["means"] == 0
    assert summary["pil_by_statistic"]["variances"] == 0
    assert summary["pil_by_statistic"]["quantiles"] == 0
    vx, vy = np.cov(RS_X, rowvar=False), np.cov(RS_Y, rowvar=False)
    iu = np.triu_indices(4)
    assert summary["V"]["mae"] == pytest.approx(np.abs(vx - vy)[iu].sum() / 10)
    rx, ry = np.corrcoef(RS_X, rowvar=False), np.corrcoef(RS_Y, rowvar=False)
    iu1 = np.triu_indices(4, 1)
    assert summary["R"]["mse"] == pytest.approx(((rx - ry)[iu1] ** 2).sum() / 6)
    assert 0 < summary["pil"] < 100


def test_identical_data_lose_nothing():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(200, 4)) @ rng.normal(size=(4, 4))
    summary, per_record = continuous_information_loss(x, x.copy())
    for row in ("X", "V", "R", "RF", "C", "F"):
        assert summary[row]["mse"] == 0 and summary[row]["mae"] == 0 and summary[row]["mv"] == 0
    assert summary["pil"] == 0 and summary["il1s"] == 0 and summary["eigen"] == 0
    assert (per_record == 0).all()


def test_pca_rows_ignore_the_sign_of_eigenvectors():
    # negating a variable flips the sign of its loadings; X' = X is the case that must be 0
    # whatever sign eigh returns, and RF for a permutation of records stays 0 as well
    rng = np.random.default_rng(4)
    x = rng.normal(size=(100, 3)) @ rng.normal(size=(3, 3))
    summary, _ = continuous_information_loss(x, x[::-1].copy())
    assert summary["RF"]["mae"] == pytest.approx(0, abs=1e-12)
    assert summary["F"]["mae"] == pytest.approx(0, abs=1e-12)
    assert summary["C"]["mae"] == pytest.approx(0, abs=1e-12)


def test_il1s_by_hand_and_sdcmicro_factor():
    # x = (1, 3): S = sqrt(2); |1 - 2| / (sqrt(2) * sqrt(2)) = 0.5, and 0 -> mean 0.25
    value, per_record, constant = il1s(np.array([[1.0], [3.0]]), np.array([[2.0], [3.0]]))
    assert value == pytest.approx(0.25)
    assert per_record.tolist() == pytest.approx([0.5, 0.0])
    assert constant == []
    summary, _ = continuous_information_loss(np.array([[1.0], [3.0]]), np.array([[2.0], [3.0]]))
    # sdcMicro's dUtilityWORK computes abs((x - xm) / sd(x) * sqrt(2)): twice the above
    assert summary["il1_sdcmicro"] == pytest.approx(0.5)


def test_il1s_skips_missing_cells_and_constant_variables():
    x = np.array([[1.0, 5.0], [3.0, 5.0], [np.nan, 5.0]])
    y = np.array([[2.0, 6.0], [3.0, 5.0], [4.0, 5.0]])
    value, per_record, constant = il1s(x, y)
    assert constant == [1]
    assert value == pytest.approx(0.25)  # the two compared cells of variable 0
    assert np.isnan(per_record[2])


def test_eigen_difference_of_two_variables():
    # eigenvalues of [[1, r], [r, 1]] are 1 + r and 1 - r (r > 0)
    rng = np.random.default_rng(5)
    z = rng.normal(size=(500, 2))
    x = np.column_stack([z[:, 0], z[:, 0] + z[:, 1]])
    y = np.column_stack([z[:, 0], z[:, 0] + 2 * z[:, 1]])
    r1 = np.corrcoef(x, rowvar=False)[0, 1]
    r2 = np.corrcoef(y, rowvar=False)[0, 1]
    expected = abs(r1 - r2) / (1 + r1) + abs(r1 - r2) / (1 - r1)
    assert eigen_difference(x, y) == pytest.approx(expected)


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


def test_missing_values_use_complete_records_for_statistics():
    rng = np.random.default_rng(8)
    x = rng.normal(size=(30, 3))
    y = x + 0.1
    x[0, 0] = np.nan
    y[1, 2] = np.nan
    summary, per_record = continuous_information_loss(x, y)
    assert summary["records_complete"] == 28
    assert summary["X"]["cells"] == 88
    full, _ = continuous_information_loss(x[2:], y[2:])
    assert summary["V"] == full["V"]
    assert summary["pil"] == full["pil"]
    assert not np.isnan(per_record[0])


def test_constant_variable_leaves_the_correlation_rows_empty():
    x = np.column_stack([np.arange(10.0), np.ones(10)])
    summary, _ = continuous_information_loss(x, x + 1)
    assert summary["R"] is None and summary["RF"] is None and summary["eigen"] is None
    assert summary["X"]["mae"] == 1


# --- categorical -------------------------------------------------------------------------

def test_direct_distance_nominal_and_ordinal():
    # codes 0..3 = a < b < c < d, code 4 = missing (outside the order)
    f = np.array([0, 0, 1, 4, 4])
    g = np.array([2, 0, 3, 0, 4])
    assert direct_distance(f, g).tolist() == [1, 0, 1, 1, 0]
    ranks = np.array([0, 1, 2, 3, -1])
    assert direct_distance(f, g, ranks, 4).tolist() == pytest.approx([2 / 3, 0, 2 / 3, 1, 0])
    # a domain of 7 categories of which the data hold only ranks 0..3: over 7 - 1
    assert direct_distance(f, g, ranks, 7).tolist() == pytest.approx([2 / 6, 0, 2 / 6, 1, 0])


def test_direct_distance_needs_the_domain_size_and_stays_within_one():
    f = np.array([0, 1])
    g = np.array([1, 0])
    with pytest.raises(ValueError, match="domain"):
        direct_distance(f, g, np.array([0, 4]))  # ranks without |D(V)|
    with pytest.raises(ValueError, match="rank 4 is outside a domain of 3"):
        direct_distance(f, g, np.array([0, 4]), 3)
    assert direct_distance(f, g, np.array([0, 4]), 5).tolist() == [1.0, 1.0]


def test_ctbil_by_hand():
    # F = (x,1) (x,2) (y,1); G = (x,1) (y,2) (y,1); codes x=0 y=1, 1=0 2=1
    f = np.array([[0, 0], [0, 1], [1, 0]])
    g = np.array([[0, 0], [1, 1], [1, 0]])
    out = ctbil(f, g, [2, 2], 2)
    # V1: F (x 2, y 1), G (x 1, y 2) -> 2; V2: (2, 1) both -> 0;
    # V1 x V2: F {x1, x2, y1}, G {x1, y2, y1} -> |x2| + |y2| = 2
    assert out["tables"] == {(0,): 2, (1,): 0, (0, 1): 2}
    assert out["by_order"] == {1: 2, 2: 2}
    assert out["total"] == 4
    assert ctbil(f, g, [2, 2], 1)["total"] == 2


def test_ctbil_handles_many_categories_without_overflow():
    rng = np.random.default_rng(9)
    f = rng.integers(0, 100_000, size=(1000, 5))
    out = ctbil(f, f.copy(), [100_000] * 5, 5)
    assert out["total"] == 0 and len(out["tables"]) == 31


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=40))
def test_ctbil_order_one_is_the_marginal_difference(rows):
    f = np.array([[a] for a, _ in rows])
    g = np.array([[b] for _, b in rows])
    expected = np.abs(np.bincount(f[:, 0], minlength=4) - np.bincount(g[:, 0], minlength=4)).sum()
    assert ctbil(f, g, [4], 3)["total"] == expected


def test_ebil_and_pril_by_hand():
    # f = a a b b, g = a a a b: P(V | V'=a) = (2/3, 1/3), P(V | V'=b) = (0, 1)
    f = np.array([0, 0, 1, 1])
    g = np.array([0, 0, 0, 1])
    post = posterior_from_data(f, g, 2)
    np.testing.assert_allclose(post, [[2 / 3, 0], [1 / 3, 1]])
    h, pril = entropy_losses(f, g, post)
    h_a = -(2 / 3 * math.log(2 / 3) + 1 / 3 * math.log(1 / 3))
    assert h.tolist() == pytest.approx([h_a, h_a, h_a, 0])
    assert pril.tolist() == pytest.approx([-math.log(2 / 3), -math.log(2 / 3),
                                           -math.log(1 / 3), 0])


def test_posterior_from_matrix_reproduces_the_seed_new_york_example():
    # seed 000, "An alternative Information Loss Measure": towns recoded into the state;
    # P(V = NYC | V' = NY) = 7,322,564 / 17,990,455 = 0.407 and
    # P(V = Albany | V' = NY) = 101,082 / 17,990,455 = 0.0056 (the slide prints 0.05)
    population = np.array([7_322_564, 101_082, 17_990_455 - 7_322_564 - 101_082, 0], float)
    transition = np.array([[0, 0, 0, 1], [0, 0, 0, 1], [0, 0, 0, 1], [0, 0, 0, 1]], float)
    post = posterior_from_matrix(transition, population / population.sum())
    assert post[0, 3] == pytest.approx(0.407, abs=5e-4)
    assert post[1, 3] == pytest.approx(0.00562, abs=5e-6)
    _, pril = entropy_losses(np.array([0, 1]), np.array([3, 3]), post)
    assert pril[1] > pril[0]  # more is lost for Albany than for New York City


def test_posterior_from_a_pram_matrix_by_bayes():
    # p(V'=j | V=i) = [[0.8, 0.2], [0.1, 0.9]], pi = (0.5, 0.5):
    # P(V=0 | V'=0) = 0.4 / (0.4 + 0.05) = 8/9
    post = posterior_from_matrix(np.array([[0.8, 0.2], [0.1, 0.9]]), np.array([0.5, 0.5]))
    np.testing.assert_allclose(post, [[8 / 9, 0.1 / 0.55], [1 / 9, 0.45 / 0.55]])
