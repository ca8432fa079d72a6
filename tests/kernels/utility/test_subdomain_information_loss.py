"""Information loss on subdomains (Winkler 1998, analytic validity): means, covariances
and correlations per subdomain compared by Torra's (2013) divergences."""

import numpy as np
import pytest

from sdcflow.kernels.utility.subdomain_information_loss import (
    compare,
    subdomain_information_loss,
)


def test_one_subdomain_by_hand():
    # original x: 1, 2, 3 (mean 2, variance 1); protected: 1, 2, 6 (mean 3, variance
    # ((-2)^2 + (-1)^2 + 3^2) / 2 = 7). means: mse 1, mae 1, mv 1/2; V: mse 36, mae 6, mv 6
    r = compare(np.array([[1.0], [2], [3]]), np.array([[1.0], [2], [6]]))
    assert r["means"] == {"mse": 1.0, "mae": 1.0, "mv": 0.5, "mv_left_out": 0}
    assert r["V"] == {"mse": 36.0, "mae": 6.0, "mv": 6.0, "mv_left_out": 0}
    assert r["R"] is None  # one variable: no correlation


def test_two_variables_correlation_by_hand():
    # original (x, y): (0, 0), (1, 1), (2, 2): r = 1; protected (0, 2), (1, 1), (2, 0): r = -1
    # means (1, 1) both: no loss; covariances: var 1, 1 both, cov 1 vs -1: V cells
    # (1, 1, 1) vs (1, -1, 1): mse 4/3, mae 2/3, mv (0 + 2 + 0) / 3; R: |1 - (-1)| = 2
    x = np.array([[0.0, 0], [1, 1], [2, 2]])
    y = np.array([[0.0, 2], [1, 1], [2, 0]])
    r = compare(x, y)
    assert r["means"]["mae"] == 0.0
    assert r["V"]["mse"] == pytest.approx(4 / 3) and r["V"]["mv"] == pytest.approx(2 / 3)
    assert r["R"]["mae"] == pytest.approx(2.0) and r["R"]["mv"] == pytest.approx(2.0)


def test_subdomains_small_ones_left_out_and_overall_figures():
    # subdomain 0: the example above (means mv 1/2); subdomain 1: unchanged (mv 0);
    # subdomain 2: one record in the protected file: left out with min_records 2;
    # a record with subdomain -1 (missing) belongs to none
    x = np.array([[1.0], [2], [3], [10], [20], [5], [5], [7]])
    cx = np.array([0, 0, 0, 1, 1, 2, 2, -1])
    y = np.array([[1.0], [2], [6], [10], [20], [5], [np.nan], [7]])
    cy = np.array([0, 0, 0, 1, 1, 2, 2, -1])
    per, overall = subdomain_information_loss(x, cx, y, cy, 3, 2)
    assert per[2] is None
    assert (per[0]["records_original"], per[0]["records_protected"]) == (3, 3)
    assert per[1]["means"]["mv"] == 0.0
    assert overall["worst"]["means"]["mv"] == 0.5 and overall["mean"]["means"]["mv"] == 0.25
    assert overall["worst"]["R"]["mv"] is None
    with pytest.raises(ValueError, match="at least 2"):
        subdomain_information_loss(x, cx, y, cy, 3, 1)


def test_identical_files_lose_nothing_whatever_the_subdomains():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(200, 3))
    codes = rng.integers(0, 4, 200)
    per, overall = subdomain_information_loss(x, codes, x.copy(), codes.copy(), 4, 10)
    assert all(r is not None for r in per)
    assert all(overall["worst"][row][kind] == 0.0 for row in ("means", "V", "R")
               for kind in ("mse", "mae", "mv"))
