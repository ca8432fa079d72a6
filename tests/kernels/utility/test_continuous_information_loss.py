"""Continuous information loss kernels (sdcflow.kernels.utility.continuous_information_loss):
seed 000, section 4.

Expected values are computed by hand from the seed's formulas (worked out in the comments)
or, where stated, from the published formulas evaluated independently in the test."""

import numpy as np
import pytest

from sdcflow.kernels.utility.continuous_information_loss import (
    continuous_information_loss,
    divergence,
    il1s,
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
    assert summary["pil"] == 0 and summary["il1s"] == 0 and summary["sdcmicro"]["eigen"] == 0
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


def test_il1s_by_hand_and_sdcmicro_sum():
    # x = (1, 3): S = sqrt(2); |1 - 2| / (sqrt(2) * sqrt(2)) = 0.5, and 0 -> mean 0.25
    value, per_record, constant = il1s(np.array([[1.0], [3.0]]), np.array([[2.0], [3.0]]))
    assert value == pytest.approx(0.25)
    assert per_record.tolist() == pytest.approx([0.5, 0.0])
    assert constant == []
    summary, _ = continuous_information_loss(np.array([[1.0], [3.0]]), np.array([[2.0], [3.0]]))
    # sdcMicro's dUtility(method = "IL1s") divides |x - xm| by sd(x) * sqrt(2) and sums
    # (0.5); "IL1old" divides that sum by the 2 cells (0.25, the mean above); "IL1" is
    # 100 |1 - 2| / 1 = 100
    assert summary["sdcmicro"]["IL1s"] == pytest.approx(0.5)
    assert summary["sdcmicro"]["IL1old"] == pytest.approx(0.25)
    assert summary["sdcmicro"]["IL1"] == pytest.approx(100.0)


def test_il1s_skips_missing_cells_and_constant_variables():
    x = np.array([[1.0, 5.0], [3.0, 5.0], [np.nan, 5.0]])
    y = np.array([[2.0, 6.0], [3.0, 5.0], [4.0, 5.0]])
    value, per_record, constant = il1s(x, y)
    assert constant == [1]
    assert value == pytest.approx(0.25)  # the two compared cells of variable 0
    assert np.isnan(per_record[2])


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
    assert summary["R"] is None and summary["RF"] is None
    assert summary["sdcmicro"]["eigen"] is None
    assert summary["X"]["mae"] == 1
