"""Individual risk, household risk and l-diversity kernels (sdcflow.kernels.risk.risk)."""

import math
from collections import Counter
from decimal import Decimal, localcontext

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.kernels.risk.frequencies import frequencies
from sdcflow.kernels.risk.risk import household_risk, individual_risk, l_diversity

# sdcMicro's tests/testthat/test_indivRisk.R: keys A, B, C and the weights of 8 records
A = [2, 3, 2, 2, 3, 3, 1, 2]
B = [3, 3, 3, 3, 3, 3, 4, 3]
C = [1, 3, 1, 2, 1, 1, 1, 1]
W = np.array([18.0, 45.5, 39.0, 17.0, 92.0, 8.0, 123.5, 51])
# the same with NA: A[8], C[3], C[7] (-1 is a missing code)
A_NA = [2, 3, 2, 2, 3, 3, 1, -1]
C_NA = [1, 3, -1, 2, 1, 1, -1, 1]

# expected rk, from test_indivRisk.R ("data frame with weight, method = ..., survey = TRUE")
APPROX = [0.01369863, 0.08579129, 0.01369863, 0.17707583, 0.01877883, 0.01877883,
          0.03931625, 0.01369863]
APPROX_QUAL2 = [0.02739726, 0.17158258, 0.02739726, 0.35415167, 0.03755767, 0.03755767,
                0.07863251, 0.02739726]
EXACT = [0.01355297, 0.08579129, 0.01355297, 0.17707583, 0.01877883, 0.01877883,
         0.03931625, 0.01355297]
EXACT_QUAL2 = [0.02710594, 0.17158258, 0.02710594, 0.35415167, 0.03755767, 0.03755767,
               0.07863251, 0.02710594]
UNWEIGHTED = [0.33333, 1.0, 0.33333, 1.0, 0.5, 0.5, 1.0, 0.33333]  # rounded to 5 there
APPROX_NA = [0.013698630, 0.085791288, 0.010554090, 0.032466112, 0.009836066, 0.009836066,
             0.039316254, 0.005973716]
EXACT_NA = [0.013552968, 0.085791288, 0.010504889, 0.032466112, 0.009756889, 0.009756889,
            0.039316254, 0.005962551]
UNWEIGHTED_NA = [0.33333, 1.0, 0.25, 0.5, 0.33333, 0.33333, 1.0, 0.2]


def sdcmicro_frequencies(missing=False, weights=W):
    codes = np.column_stack([A_NA if missing else A, B, C_NA if missing else C])
    return frequencies(codes, weights, alpha=1.0)


@pytest.mark.parametrize("method, qual, expected", [
    ("approx", 1, APPROX), ("approx", 2, APPROX_QUAL2),
    ("exact", 1, EXACT), ("exact", 2, EXACT_QUAL2),
])
def test_sdcmicro_weighted(method, qual, expected):
    fk, Fk = sdcmicro_frequencies()
    assert fk.tolist() == [3, 1, 3, 1, 2, 2, 1, 3]
    np.testing.assert_allclose(individual_risk(fk, Fk, method, qual), expected, rtol=0, atol=1e-7)


@pytest.mark.parametrize("method, expected", [("approx", APPROX_NA), ("exact", EXACT_NA)])
def test_sdcmicro_weighted_with_missing_values(method, expected):
    # several distinct (fk, Fk) pairs with fk = 1, 2, 3, 4, 5 in one call
    fk, Fk = sdcmicro_frequencies(missing=True)
    assert fk.tolist() == [3, 1, 4, 2, 3, 3, 1, 5]
    np.testing.assert_allclose(individual_risk(fk, Fk, method), expected, rtol=0, atol=1e-7)


@pytest.mark.parametrize("missing, expected", [(False, UNWEIGHTED), (True, UNWEIGHTED_NA)])
@pytest.mark.parametrize("qual", [1, 2])
def test_sdcmicro_without_weights_is_one_over_fk(missing, expected, qual):
    # sdcMicro's indivRisk(survey = FALSE): 1/fk, qual not applied
    fk, _ = sdcmicro_frequencies(missing)
    assert np.round(individual_risk(fk, None, "exact", qual), 5).tolist() == expected


@pytest.mark.parametrize("method", ["approx", "exact"])
def test_weights_of_one_give_qual_over_fk(method):
    # freqCalc without w gives Fk = fk: test_indivRisk.R "non-weighted ... survey = TRUE"
    # gives 1/fk, and 2/fk with qual = 2
    fk, Fk = sdcmicro_frequencies(weights=None)
    assert np.round(individual_risk(fk, Fk, method, 2), 5).tolist() == \
        [0.66667, 2.0, 0.66667, 2.0, 1.0, 1.0, 2.0, 0.66667]


def test_weights_below_one_give_one_over_fk():
    # Fk < fk would make p > 1: such records are treated like fk == Fk
    r = individual_risk(np.array([1.0, 3.0]), np.array([0.5, 2.0]))
    assert r.tolist() == [1.0, 1 / 3]


def test_missing_Fk_gives_a_missing_risk():
    r = individual_risk(np.array([1.0, 2.0]), np.array([np.nan, 20.0]))
    assert math.isnan(r[0]) and r[1] > 0


def test_non_integer_fk():
    # alpha < 1: fk = 1.5 uses the fk = 2 formula with p = 1.5/30 = 0.05:
    #   p/(1-p) = 0.05/0.95 = 0.0526316; r = 0.0526316 - 0.0526316^2 * log(20) = 0.0443331
    # fk = 3.5 uses the approx formula with both methods: p = 3.5/70 = 0.05,
    #   r = 0.05 / (3.5 - 0.95) = 0.0196078
    fk, Fk = np.array([1.5, 3.5]), np.array([30.0, 70.0])
    odds = 0.05 / 0.95
    expected = [odds - odds ** 2 * math.log(20), 0.05 / 2.55]
    for method in ("approx", "exact"):
        np.testing.assert_allclose(individual_risk(fk, Fk, method), expected, rtol=1e-12)


def test_a_sum_of_alphas_one_ulp_off_an_integer_counts_as_that_integer():
    # 1 + 0.1 * 20 = 3.0000000000000004 in floating point: the exact fk = 3 formula
    fk = np.array([1 + sum([0.1] * 20), 3.0])
    r = individual_risk(fk, np.array([100.0, 100.0]), "exact")
    assert r[0] == pytest.approx(r[1], rel=1e-12)
    assert r[1] != pytest.approx(0.03 / (3 - 0.97), rel=1e-6)  # not the approx value


def sdcmicro_exact(f: int, p: Decimal) -> float:
    """sdcMicro's indivRisk formulas for integer fk, in 400-digit decimal arithmetic."""
    with localcontext() as ctx:
        ctx.prec = 400
        one = Decimal(1)
        odds = p / (one - p)
        if f == 1:
            return float(odds * (one / p).ln())
        if f == 2:
            return float(odds - odds * odds * (one / p).ln())
        a = (p ** (1 - f) - 1) / (f - 1)
        bb, prod = Decimal(0), one
        for m in range(f - 2):
            prod *= (Decimal((f - 1 - m) ** 2) / Decimal((m + 1) * (f - 2 - m))
                     * (p ** (m + 2 - f) - 1) / (p ** (m + 1 - f) - 1))
            bb += (-1) ** (m + 1) * prod
        return float(odds ** f * (a * (1 + bb) + (-1) ** f * p.ln()))


def test_exact_matches_the_closed_form_in_high_precision():
    # The closed form cancels badly in floating point for p > 1/2 or larger fk * p; the
    # kernel must still give its value, on both sides of where it switches to the series
    # (fk = 8/9, fk = 20/21, fk * p = 1). All pairs in one call (vectorised over pairs).
    fs, Fs = [], []
    for f in (1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 20, 21, 30):
        for p in ("1e-9", "0.001", "0.03", "0.05", "0.08", "0.09", "0.3", "0.5", "0.51",
                  "0.9", "0.999", "0.999999"):
            fs.append(f)
            Fs.append(Decimal(f) / Decimal(p))
    got = individual_risk(np.array(fs, dtype=float), np.array([float(F) for F in Fs]), "exact")
    expected = [sdcmicro_exact(f, Decimal(f) / Decimal(float(F))) for f, F in zip(fs, Fs)]
    np.testing.assert_allclose(got, expected, rtol=1e-11)


def test_exact_for_large_fk_stays_finite_and_near_the_approximation():
    # p**(1-fk) overflows and (p/(1-p))**fk underflows for fk = 2000, p = 0.01: the naive
    # formula gives 0 * inf = NaN there.
    # Exact and approx differ by O(1/fk^2) relative (their expansions in 1/fk).
    fk = np.array([50.0, 2000.0, 2000.0])
    Fk = np.array([5000.0, 200000.0, 2000.5])
    exact = individual_risk(fk, Fk, "exact")
    approx = individual_risk(fk, Fk, "approx")
    assert np.isfinite(exact).all()
    np.testing.assert_allclose(exact, approx, rtol=1 / 50 ** 2)
    assert (exact <= 1 / fk).all()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 300), st.floats(1.0 + 1e-9, 1e6)),
                min_size=1, max_size=30),
       st.sampled_from(["approx", "exact"]))
def test_risk_lies_between_zero_and_one_over_fk(pairs, method):
    # E(1/F) with F >= fk; the approximation p/(fk - 1 + p) <= 1/fk as well
    fk = np.array([float(f) for f, _ in pairs])
    Fk = np.array([f * ratio for f, ratio in pairs])
    r = individual_risk(fk, Fk, method)
    assert (r > 0).all()
    assert (r <= 1 / fk * (1 + 1e-12)).all()


def test_unknown_method_is_refused():
    with pytest.raises(ValueError, match="method"):
        individual_risk(np.ones(2), np.ones(2) * 5, "bogus")


def test_empty_input():
    assert individual_risk(np.zeros(0), np.zeros(0)).size == 0
    assert household_risk(np.zeros(0), np.zeros(0, dtype=int)).size == 0
    d, e = l_diversity(np.zeros(0, dtype=int), np.zeros(0, dtype=int))
    assert d.size == 0 and e.size == 0


def test_household_risk_by_hand():
    # household 0: 1 - (1 - 0.1)(1 - 0.2) = 1 - 0.72 = 0.28; household 1: 0.5;
    # the record with a missing id (-1) is a household of its own: 0.3;
    # household 7: 1 - (0.6)(0.5)(0.9) = 1 - 0.27 = 0.73
    r = household_risk(np.array([0.1, 0.2, 0.5, 0.3, 0.4, 0.5, 0.1]),
                       np.array([0, 0, 1, -1, 7, 7, 7]))
    np.testing.assert_allclose(r, [0.28, 0.28, 0.5, 0.3, 0.73, 0.73, 0.73], rtol=1e-14)


def test_household_risk_edge_values():
    # a member with risk 1 makes the household risk 1; risks above 1 (qual > 1) follow the
    # product as sdcMicro's 1 - prod(1 - r): 1 - (1 - 2)(1 - 0.5) = 1.5; tiny risks keep
    # their precision: 1 - (1 - 1e-12)^2 = 2e-12 - 1e-24; a missing risk stays missing
    r = household_risk(np.array([1.0, 0.3, 2.0, 0.5, 1e-12, 1e-12, np.nan, 0.2]),
                       np.array([0, 0, 1, 1, 2, 2, 3, 3]))
    np.testing.assert_allclose(r[:6], [1.0, 1.0, 1.5, 1.5] + [2e-12 - 1e-24] * 2, rtol=1e-14)
    assert np.isnan(r[6:]).all()


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(-1, 5), st.floats(0, 1)), min_size=1, max_size=40))
def test_household_risk_against_a_direct_product(records):
    ids = np.array([h for h, _ in records])
    r = np.array([x for _, x in records])
    got = household_risk(r, ids)
    for i, (h, _) in enumerate(records):
        members = [i] if h < 0 else [j for j, (g, _) in enumerate(records) if g == h]
        assert got[i] == pytest.approx(1 - np.prod([1 - r[j] for j in members]), abs=1e-12)


def test_l_diversity_by_hand():
    # class 0: sensitive 0, 1, 1 -> distinct 2; shares 1/3, 2/3:
    #   H = ln 3 - (2/3) ln 2 = 0.636514, exp(H) = 3 / 2^(2/3) = 1.889882
    # class 1: 2, 2 -> 1 and 1; class 5: only missing -> 0 and 0;
    # class 3: 0, 1, 2, 3 and one missing -> 4 and exp(ln 4) = 4
    classes = np.array([0, 0, 0, 1, 1, 5, 3, 3, 3, 3, 3])
    sensitive = np.array([0, 1, 1, 2, 2, -1, 0, 1, 2, 3, -1])
    distinct, entropy = l_diversity(classes, sensitive)
    assert distinct.tolist() == [2, 2, 2, 1, 1, 0, 4, 4, 4, 4, 4]
    np.testing.assert_allclose(entropy, [3 / 2 ** (2 / 3)] * 3 + [1, 1, 0] + [4] * 5,
                               rtol=1e-14)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(-1, 3)), min_size=1, max_size=50))
def test_l_diversity_against_counting(records):
    classes = np.array([c for c, _ in records])
    sensitive = np.array([s for _, s in records])
    distinct, entropy = l_diversity(classes, sensitive)
    for i, (c, _) in enumerate(records):
        counts = Counter(s for d, s in records if d == c and s >= 0)
        total = sum(counts.values())
        assert distinct[i] == len(counts)
        h = -sum(k / total * math.log(k / total) for k in counts.values()) if total else None
        assert entropy[i] == (pytest.approx(math.exp(h), rel=1e-12) if total else 0)
