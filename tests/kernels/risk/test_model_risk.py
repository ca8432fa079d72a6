"""Log-linear model risk kernel (sdcMicro's modRisk; Skinner & Shlomo 2008)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.kernels.risk.model_risk import design_matrix, grid_size, model_risk, poisson_fit


def r_runif(seed: int, n: int) -> np.ndarray:
    """R's ``set.seed(seed); runif(n)`` (Mersenne-Twister, R's seed scrambling: 50 LCG
    steps, then 625 LCG words of which the last 624 are the state), to rebuild the data of
    sdcMicro's tests. Check: set.seed(123); runif(3) is 0.2875775 0.7883051 0.4089769."""
    s = seed & 0xFFFFFFFF
    for _ in range(50):
        s = (69069 * s + 1) & 0xFFFFFFFF
    words = []
    for _ in range(625):
        s = (69069 * s + 1) & 0xFFFFFFFF
        words.append(s)
    bits = np.random.MT19937()
    bits.state = {"bit_generator": "MT19937",
                  "state": {"key": np.array(words[1:], dtype=np.uint32), "pos": 624}}
    return bits.random_raw(n).astype(float) * 2.3283064365386963e-10


def sdcmicro_sample_data() -> tuple[np.ndarray, np.ndarray]:
    """sdcMicro tests/testthat/test_modRisks.R: set.seed(123); Var1 = round(runif(10, 1,
    3)), Var2 = round(runif(10, 1, 2)), Var3 = round(runif(10, 1, 5)), weights 100."""
    u = r_runif(123, 30)
    cols = [np.round(1 + 2 * u[:10]), np.round(1 + u[10:20]), np.round(1 + 4 * u[20:30])]
    codes = np.column_stack([np.unique(c, return_inverse=True)[1] for c in cols])
    return codes, np.full(10, 100.0)


def test_r_runif_reproduces_r():
    np.testing.assert_allclose(r_runif(123, 3), [0.2875775, 0.7883051, 0.4089769], atol=5e-8)


@pytest.mark.parametrize(("method", "bound", "gr1", "gr2"), [
    # sdcMicro's expectations in test_modRisks.R (rounded to 3 digits there)
    ("default", np.inf, 0.553, 0.705),
    ("CE", np.inf, 0.542, 0.699),
    ("PML", np.inf, 0.553, 0.705),
    ("weightedLLM", np.inf, 0.408, 0.613),
    ("default", 1.5, 0.622, 0.794),
])
def test_sdcmicro_test_figures(method, bound, gr1, gr2):
    codes, w = sdcmicro_sample_data()
    result = model_risk(codes, w, method, bound=bound)
    assert round(result.gr1, 3) == gr1 and round(result.gr2, 3) == gr2
    # 3 x 2 x 4 categories: 24 cells; 9 of them hold records (sdcMicro's inclProb has 9
    # values), 8 hold exactly one with bound 1.5
    assert result.cells == 24
    assert result.counted_cells == (9 if bound == np.inf else 8)


def test_sdcmicro_ipf_figures_to_more_digits():
    # test_modRisks.R, method IPF (the same maximum-likelihood fit of the main-effects
    # model): gr1 = 0.552916 and gr2 = 0.7053842 to 6 and 7 digits
    codes, w = sdcmicro_sample_data()
    result = model_risk(codes, w)
    assert round(result.gr1, 6) == 0.552916 and round(result.gr2, 7) == 0.7053842
    assert result.tau1 == pytest.approx(9 * result.gr1)
    assert result.sample_uniques == 8


def test_risks_by_hand_on_a_saturated_model():
    # with the full interaction the fitted values equal the counts: cells (0,0): 1 record
    # of weight 4 (pi = 1/4), (0,1): 2 records, (1,0): 1 record of weight 2, (1,1): 1
    # record of weight 1 (pi = 1: v = 0, risk1 = risk2 = 1).
    # cell (0,0): v = 3/4: r1 = exp(-0.75) = 0.472367, r2 = (1 - exp(-0.75)) / 0.75
    # cell (1,0): v = 1/2: r1 = exp(-0.5), r2 = 2 (1 - exp(-0.5))
    codes = np.array([[0, 0], [0, 1], [0, 1], [1, 0], [1, 1]])
    w = np.array([4.0, 3.0, 3.0, 2.0, 1.0])
    result = model_risk(codes, w, interactions=[(0, 1)])
    r1 = [np.exp(-0.75), 0, 0, np.exp(-0.5), 1.0]
    r2 = [(1 - np.exp(-0.75)) / 0.75, 0, 0, 2 * (1 - np.exp(-0.5)), 1.0]
    np.testing.assert_allclose(result.risk1, r1, rtol=1e-9)
    np.testing.assert_allclose(result.risk2, r2, rtol=1e-9)
    assert result.tau1 == pytest.approx(sum(r1), rel=1e-9)
    assert result.gr2 == pytest.approx(sum(r2) / 4, rel=1e-9)


def test_missing_keys_are_left_out_and_errors():
    codes = np.array([[0, 0], [0, 1], [-1, 1], [1, 0], [1, 1]])
    result = model_risk(codes, np.full(5, 10.0))
    assert result.risk1[2] == 0 and result.sample_uniques == 4
    empty = model_risk(np.full((2, 2), -1), np.ones(2))
    assert empty.cells == 0 and empty.gr1 == 0.0
    with pytest.raises(ValueError, match="method must be one of"):
        model_risk(codes, np.ones(5), "loglm")


def test_poisson_fit_main_effects_equal_the_margins():
    # the maximum-likelihood fit of an independence model is row total x column total /
    # grand total (a 2 x 2 table 3, 1 / 2, 6: fitted 4 x 5 / 12 = 1.6667, ...)
    grid = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    y = np.array([3.0, 1.0, 2.0, 6.0])
    fitted, _ = poisson_fit(design_matrix(grid, [2, 2], []), y, np.zeros(4))
    np.testing.assert_allclose(fitted, [4 * 5 / 12, 4 * 7 / 12, 8 * 5 / 12, 8 * 7 / 12],
                               rtol=1e-10)


# --- linear keys: sdcMicro's glm enters a key held as numbers as one term ---------------

# Two keys: x (linear, values 0, 1, 2) and a factor c (A, B). Records: (0, A), (1, B),
# (2, A), (2, A), (2, B), (2, B), weight 10 each.
LINEAR_CODES = np.array([[0, 0], [1, 1], [2, 0], [2, 0], [2, 1], [2, 1]])


def hand_linear_fit() -> np.ndarray:
    """The maximum-likelihood fit of log mu = a + b x + c_col, by hand. Its likelihood
    equations are sum mu = 6, sum x mu = sum x f = 9 and the column totals 3, 3: so
    mu(x, col) = g(x) * 3/6 with g(x) = a b^x fitted to the x totals (1, 1, 4):
    a (1 + b + b^2) = 6 and a (b + 2 b^2) = 9, i.e. b^2 - b - 3 = 0, b = (1 + sqrt 13)/2,
    a = 6 / (1 + b + b^2). Cells in the grid's order (x, col): (0,A) (0,B) (1,A) ..."""
    b = (1 + np.sqrt(13)) / 2
    a = 6 / (1 + b + b * b)
    g = a * b ** np.arange(3)
    return np.repeat(g * 0.5, 2)


def test_a_linear_key_by_hand():
    fitted = hand_linear_fit()
    assert fitted.sum() == pytest.approx(6) and (np.arange(3).repeat(2) * fitted).sum() == \
        pytest.approx(9)
    result = model_risk(LINEAR_CODES, np.full(6, 10.0), linear={0: np.array([0.0, 1, 2])})
    # the sample uniques are the cells (0, A) and (1, B), each with pi = 1/10
    v = 0.9 * fitted[[0, 3]]
    np.testing.assert_allclose(result.risk1[:2], np.exp(-v), rtol=1e-9)
    np.testing.assert_allclose(result.risk2[:2], (1 - np.exp(-v)) / v, rtol=1e-9)
    assert result.tau1 == pytest.approx(np.exp(-v).sum(), rel=1e-9)
    # 4 non-empty cells with a positive fit are counted
    assert result.counted_cells == 4 and result.gr1 == pytest.approx(result.tau1 / 4)
    # as a factor, x is saturated on its margin: g = (1, 1, 4), so the fit differs
    factor = model_risk(LINEAR_CODES, np.full(6, 10.0))
    np.testing.assert_allclose(factor.risk1[:2], np.exp(-0.9 * np.array([0.5, 0.5])),
                               rtol=1e-9)
    assert np.abs(factor.risk1[:2] - result.risk1[:2]).min() > 0.09


def test_a_linear_key_takes_the_numbers_of_its_codes():
    # codes 0, 1, 2 standing for 5, 10, 15: equally spaced, so the same fit as 0, 1, 2;
    # standing for 0, 1, 5 a different one
    w = np.full(6, 10.0)
    spaced = model_risk(LINEAR_CODES, w, linear={0: np.array([5.0, 10, 15])})
    assert spaced.tau1 == pytest.approx(
        model_risk(LINEAR_CODES, w, linear={0: np.array([0.0, 1, 2])}).tau1, rel=1e-9)
    assert abs(model_risk(LINEAR_CODES, w, linear={0: np.array([0.0, 1, 5])}).tau1
               - spaced.tau1) > 1e-3


@settings(max_examples=20, deadline=None)
@given(st.floats(-1e6, 1e6).filter(lambda a: abs(a) > 1e-3), st.floats(-1e7, 1e7))
def test_linear_fit_does_not_depend_on_the_units(scale, shift):
    # a linear term's column space (with the intercept) is that of a v + b: the fitted
    # values, hence the risks, are the same in any units, however large
    codes = np.array([[0, 0], [1, 1], [2, 0], [2, 2], [3, 1], [3, 2], [1, 0], [0, 2]])
    w = np.array([5.0, 8, 2, 10, 4, 3, 7, 6])
    values = np.array([1.0, 2, 4, 7])
    base = model_risk(codes, w, linear={0: values}, interactions=[(0, 1)])
    moved = model_risk(codes, w, linear={0: scale * values + shift}, interactions=[(0, 1)])
    np.testing.assert_allclose(moved.risk1, base.risk1, rtol=1e-7, atol=1e-12)


def test_ipf_is_the_factor_fit_without_interactions():
    codes, w = sdcmicro_sample_data()
    ipf, default = model_risk(codes, w, "IPF"), model_risk(codes, w)
    assert ipf.tau1 == default.tau1 and ipf.gr2 == default.gr2
    with pytest.raises(ValueError, match="no interactions, no linear keys"):
        model_risk(codes, w, "IPF", interactions=[(0, 1)])
    with pytest.raises(ValueError, match="no interactions, no linear keys"):
        model_risk(codes, w, "IPF", linear={0: np.array([1.0, 2, 3])})


def test_grid_size_counts_one_parameter_per_linear_key():
    # sizes 3, 2, 4: factors 1 + 2 + 1 + 3 = 7; with the first linear 1 + 1 + 1 + 3 = 6,
    # and its interaction with the third 3 parameters instead of 6
    codes, _ = sdcmicro_sample_data()
    assert grid_size(codes) == (24, 7)
    assert grid_size(codes, linear=[0]) == (24, 6)
    assert grid_size(codes, [(0, 2)], linear=[0]) == (24, 9)
    assert grid_size(codes, [(0, 2)]) == (24, 13)
