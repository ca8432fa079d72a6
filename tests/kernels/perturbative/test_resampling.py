"""Resampling kernel (seed 000, "Resampling"): hand-computed cases, rank order, ties,
determinism, and the mean within sampling error."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.kernels.perturbative.resampling import resample


def test_hand_computed_example():
    # The kernel draws sample k as x[rng.integers(0, n, n)], k = 1 .. t in order; with
    # default_rng(7) and n = 4 the two draws are:
    rng = np.random.default_rng(7)
    assert rng.integers(0, 4, 4).tolist() == [3, 2, 2, 3]
    assert rng.integers(0, 4, 4).tolist() == [2, 3, 3, 0]
    # x = [10, 40, 20, 30]: sample 1 = x[[3, 2, 2, 3]] = [30, 20, 20, 30] -> sorted
    # [20, 20, 30, 30]; sample 2 = x[[2, 3, 3, 0]] = [20, 30, 30, 10] -> [10, 20, 30, 30];
    # averaged position by position: [15, 20, 30, 30]. The ranks of x are 1, 4, 2, 3, so
    # the records get 15, 30, 20, 30.
    out = resample(np.array([10.0, 40.0, 20.0, 30.0]), 2, np.random.default_rng(7))
    np.testing.assert_allclose(out, [15.0, 30.0, 20.0, 30.0])


def test_hand_computed_example_with_ties():
    rng = np.random.default_rng(7)
    draws = [rng.integers(0, 5, 5).tolist() for _ in range(3)]
    assert draws == [[4, 3, 3, 4, 2], [3, 4, 1, 0, 1], [1, 4, 4, 0, 2]]
    # x = [3, 1, 3, 2, 5]: sorted samples [2, 2, 3, 5, 5], [1, 1, 2, 3, 5], [1, 3, 3, 5, 5];
    # averages [4, 6, 8, 13, 15] / 3. Ranks: 1 -> 1, 2 -> 2, the two 3s share ranks 3 and
    # 4 and both get (8/3 + 13/3) / 2 = 3.5, 5 -> 5.
    out = resample(np.array([3.0, 1.0, 3.0, 2.0, 5.0]), 3, np.random.default_rng(7))
    np.testing.assert_allclose(out, [3.5, 4 / 3, 3.5, 2.0, 5.0])


values = st.lists(st.floats(-1e6, 1e6, allow_nan=False) | st.sampled_from([0.0, 1.0, 5.0]),
                  min_size=1, max_size=60)


@settings(max_examples=80, deadline=None)
@given(values, st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_rank_order_of_records_is_kept(xs, t, seed):
    x = np.array(xs)
    out = resample(x, t, np.random.default_rng(seed))
    order = np.argsort(x, kind="stable")
    # non-decreasing in the original value, equal values stay equal
    assert np.all(np.diff(out[order]) >= -1e-9 * (1 + np.abs(out).max()))
    for i, j in zip(*np.nonzero(x[:, None] == x[None, :])):
        assert out[i] == pytest.approx(out[j])
    # every average lies between the smallest and the largest original value
    assert out.min() >= x.min() - 1e-9 * (1 + abs(x.min()))
    assert out.max() <= x.max() + 1e-9 * (1 + abs(x.max()))


@settings(max_examples=30, deadline=None)
@given(values, st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_same_generator_seed_same_result(xs, t, seed):
    x = np.array(xs)
    a = resample(x, t, np.random.default_rng(seed))
    b = resample(x, t, np.random.default_rng(seed))
    assert np.array_equal(a, b)


def test_edge_cases():
    assert resample(np.array([]), 3, np.random.default_rng(0)).size == 0
    assert resample(np.array([4.2]), 3, np.random.default_rng(0)).tolist() == [4.2]
    assert resample(np.full(5, 2.0), 3, np.random.default_rng(0)).tolist() == [2.0] * 5
    with pytest.raises(ValueError):
        resample(np.array([1.0, 2.0]), 0, np.random.default_rng(0))


def test_mean_is_kept_within_sampling_error():
    # The released values are t bootstrap samples averaged, so their mean is the mean of
    # t bootstrap means: unbiased for the original mean, standard error s / sqrt(n t).
    rng = np.random.default_rng(2026)
    n, t = 50_000, 5
    x = rng.lognormal(3.0, 1.0, n)
    out = resample(x, t, np.random.default_rng(1))
    se = x.std() / np.sqrt(n * t)
    assert abs(out.mean() - x.mean()) < 6 * se
    # and the released distribution is close to the original one: every decile within
    # a few per cent (bootstrap order statistics concentrate around the original ones)
    qs = np.linspace(0.1, 0.9, 9)
    np.testing.assert_allclose(np.quantile(out, qs), np.quantile(x, qs), rtol=0.03)
