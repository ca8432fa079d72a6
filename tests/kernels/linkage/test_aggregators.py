"""OWA operator and Choquet integral (sdcflow.kernels.linkage.aggregators)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from sdcflow.kernels.linkage.aggregators import (
    additive_measure,
    aggregated_links,
    choquet,
    choquet_features,
    is_fuzzy_measure,
    monotonicity_rows,
    owa,
    owa_features,
    submodularity_rows,
)
from sdcflow.kernels.linkage.distance_linkage import nearest_links

values3 = arrays(np.float64, (5, 3), elements=st.floats(0, 100, allow_nan=False))


def test_owa_by_hand():
    # Yager's definition: weights go to the values in decreasing order,
    # (1, 4, 2) -> (4, 2, 1): 0.5 * 4 + 0.3 * 2 + 0.2 * 1 = 2.8
    assert owa(np.array([1.0, 4.0, 2.0]), np.array([0.5, 0.3, 0.2])) == pytest.approx(2.8)
    # (1, 0, 0) is the maximum, (0, 0, 1) the minimum
    x = np.array([[3.0, 7.0, 5.0]])
    assert owa(x, [1, 0, 0])[0] == 7 and owa(x, [0, 0, 1])[0] == 3


def test_choquet_by_hand():
    # x = (0.2, 0.5, 0.1): in increasing order x_3, x_1, x_2, so
    # CI = 0.1 mu({1,2,3}) + (0.2 - 0.1) mu({1,2}) + (0.5 - 0.2) mu({2})
    #    = 0.1 * 1 + 0.1 * 0.6 + 0.3 * 0.3 = 0.25   (variables 1, 2, 3 = bits 0, 1, 2)
    mu = np.zeros(8)
    mu[0b111] = 1.0
    mu[0b011] = 0.6
    mu[0b010] = 0.3
    mu[0b001] = 0.2  # not used by this x
    assert choquet(np.array([0.2, 0.5, 0.1]), mu) == pytest.approx(0.25)
    F = choquet_features(np.array([[0.2, 0.5, 0.1]]))
    assert F.shape == (1, 7)
    assert (F @ mu[1:])[0] == pytest.approx(0.25)


@settings(max_examples=60, deadline=None)
@given(values3, arrays(np.float64, 3, elements=st.floats(0.01, 1)))
def test_additive_measure_gives_the_weighted_mean(x, w):
    # Choquet integral of an additive measure = the weighted mean (Lebesgue integral)
    w = w / w.sum()
    np.testing.assert_allclose(choquet(x, additive_measure(w)), x @ w, rtol=1e-9, atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(values3, arrays(np.float64, 3, elements=st.floats(0.0, 1)))
def test_symmetric_measure_gives_the_owa(x, raw):
    # a measure depending only on |A|, mu(A) = f(|A|), integrates as the OWA with
    # w_i = f(i) - f(i - 1) (Grabisch 1995); here f cumulates the given weights
    w = raw / raw.sum() if raw.sum() > 0 else np.full(3, 1 / 3)
    f = np.concatenate([[0.0], np.cumsum(w)])
    mu = np.array([f[m.bit_count()] for m in range(8)])
    np.testing.assert_allclose(choquet(x, mu), owa(x, w), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(choquet_features(x) @ mu[1:], owa_features(x) @ w,
                               rtol=1e-9, atol=1e-9)


def test_extreme_measures_are_min_and_max():
    x = np.array([[4.0, 1.0, 9.0], [2.0, 2.0, 2.0]])
    top = np.zeros(8)
    top[7] = 1.0  # mu = 1 on the full set only: the minimum
    ones = np.ones(8)
    ones[0] = 0.0  # mu = 1 on every non-empty set: the maximum
    np.testing.assert_allclose(choquet(x, top), [1.0, 2.0])
    np.testing.assert_allclose(choquet(x, ones), [9.0, 2.0])


def test_monotonicity_rows():
    # c = 2: mu({1,2}) >= mu({1}) and mu({1,2}) >= mu({2}), nothing else
    rows = monotonicity_rows(2).toarray()
    assert sorted(map(tuple, rows)) == [(-1.0, 0.0, 1.0), (0.0, -1.0, 1.0)]
    # c = 3: every non-empty proper subset A and j outside it: sum_A (3 - |A|) = 3*2 + 3*1
    assert monotonicity_rows(3).shape == (9, 7)
    assert is_fuzzy_measure(additive_measure(np.array([0.2, 0.3, 0.5])))
    bad = additive_measure(np.array([0.2, 0.3, 0.5]))
    bad[0b001] = 0.7  # mu({1}) = 0.7 > mu({1,2}) = 0.5: not monotone
    assert not is_fuzzy_measure(bad)


def test_aggregated_links_with_the_mean_are_euclidean():
    rng = np.random.default_rng(2)
    zo = rng.integers(0, 3, size=(30, 2)).astype(float)  # ties
    zp = zo + rng.integers(-1, 2, size=(30, 2))
    a = aggregated_links(zp, zo, lambda s: owa(s, np.array([0.5, 0.5])), block_elements=50)
    b = nearest_links(zp, zo)
    assert a.ties.tolist() == b.ties.tolist()
    assert a.correct.tolist() == b.correct.tolist()
    assert a.linked.tolist() == b.linked.tolist()


def test_submodularity_rows():
    # c = 2: the single row mu({1}) + mu({2}) - mu({1,2}) >= 0
    assert submodularity_rows(2).toarray().tolist() == [[1.0, 1.0, -1.0]]
    # c = 3: 3 pairs, each with A = {} or the third variable
    assert submodularity_rows(3).shape == (6, 7)
    rows = submodularity_rows(3)
    additive = additive_measure(np.array([0.2, 0.3, 0.5]))
    np.testing.assert_allclose(rows @ additive[1:], 0, atol=1e-12)  # modular: equality
    maximum = np.ones(8)
    maximum[0] = 0  # the maximum's measure is submodular
    assert (rows @ maximum[1:] >= 0).all()
    minimum = np.zeros(8)
    minimum[7] = 1  # the minimum's is not: mu({1,3}) + mu({2,3}) < mu(all) + mu({3})
    assert (rows @ minimum[1:] < 0).any()
