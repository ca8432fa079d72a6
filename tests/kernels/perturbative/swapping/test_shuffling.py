"""Data shuffling kernel (seed 004, "Shuffling"; Muralidhar & Sarathy 2006): normal
scores, reverse mapping, exact marginals, rank correlations within sampling error."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import ndtri
from scipy.stats import spearmanr

from sdcflow.kernels.perturbative.swapping.shuffling import (
    average_ranks,
    normal_scores,
    reverse_map,
    shuffle,
)
from sdcflow.kernels.synthetic.ipso import TooFewRecords


def test_normal_scores_by_hand():
    # ranks of [3, 1, 2, 2] with average ties: 4, 1, 2.5, 2.5; n = 4:
    # Phi^-1((r - 1/2) / 4) = Phi^-1([7/8, 1/8, 1/2, 1/2])
    np.testing.assert_allclose(normal_scores(np.array([3.0, 1.0, 2.0, 2.0])),
                               ndtri(np.array([7 / 8, 1 / 8, 1 / 2, 1 / 2])))
    two = normal_scores(np.array([[1.0, 9.0], [2.0, 8.0]]))  # column by column
    np.testing.assert_allclose(two, ndtri(np.array([[0.25, 0.75], [0.75, 0.25]])))


def test_reverse_map_by_hand():
    # the smallest perturbed value (record 1) gets the smallest original value, ...
    out = reverse_map(np.array([10.0, 20.0, 30.0]), np.array([0.5, -1.0, 2.0]))
    assert out.tolist() == [20.0, 10.0, 30.0]
    two = reverse_map(np.array([[1.0, 5.0], [2.0, 6.0]]), np.array([[9.0, 0.0], [8.0, 1.0]]))
    assert two.tolist() == [[2.0, 5.0], [1.0, 6.0]]


@settings(max_examples=60, deadline=None)
@given(st.integers(5, 60), st.integers(1, 3), st.integers(0, 3), st.booleans(),
       st.integers(0, 2**32 - 1))
def test_every_column_is_a_permutation_of_the_original(n, m, q, scores, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, q))
    # with heavy ties, as integer data have
    Y = np.round(rng.standard_normal((n, m)) * 3 + X.sum(axis=1, keepdims=True))
    if n <= q + 1:
        return
    out = shuffle(X, Y, np.random.default_rng([seed, 1]), scores=scores)
    assert out.shape == Y.shape
    for j in range(m):
        assert np.array_equal(np.sort(out[:, j]), np.sort(Y[:, j]))
    again = shuffle(X, Y, np.random.default_rng([seed, 1]), scores=scores)
    assert np.array_equal(out, again)


def correlated_sample(n=20_000, seed=5):
    """x standard normal; y1 log-normal and y2 a skewed mix, both rank-correlated with x
    and with each other (Spearman about 0.79, 0.50 and 0.62)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n)
    y1 = np.exp(0.8 * x + 0.6 * rng.standard_normal(n))
    y2 = np.sqrt(y1) + 0.5 * rng.gamma(2.0, 1.0, n)
    return x, np.column_stack([y1, y2])


def test_rank_correlations_are_kept_within_sampling_error():
    x, Y = correlated_sample()
    n = len(x)
    before = spearmanr(np.column_stack([x, Y])).statistic
    out = shuffle(normal_scores(x)[:, None], Y, np.random.default_rng(1))
    after = spearmanr(np.column_stack([x, out])).statistic
    # the standard error of a Spearman correlation on normal-copula data is about
    # sqrt(1.06) (1 - rho^2) / sqrt(n) (Fieller, Hartley & Pearson 1957); the difference
    # of the original and the shuffled estimates is at most twice that; 6 sigma
    tol = 6 * 2 * np.sqrt(1.06) * (1 - before ** 2) / np.sqrt(n)
    upper = np.triu_indices(3, 1)
    assert np.all(np.abs(after - before)[upper] < tol[upper])
    # the records are really re-assigned: most records get another value
    assert np.mean(out[:, 0] != Y[:, 0]) > 0.99


def test_without_normal_scores_non_normal_marginals_lose_rank_correlation():
    # the raw regression is fitted to a log-normal variable: its ranks follow the
    # normal model badly (why the paper and the default use normal scores)
    x, Y = correlated_sample()
    before = spearmanr(x, Y[:, 0]).statistic
    raw = shuffle(x[:, None], Y, np.random.default_rng(1), scores=False)
    assert before - spearmanr(x, raw[:, 0]).statistic > 0.1
    assert np.array_equal(np.sort(raw[:, 0]), np.sort(Y[:, 0]))


def test_one_dimensional_and_no_predictors():
    rng = np.random.default_rng(3)
    y = rng.gamma(2.0, 1.0, 200)
    out = shuffle(np.empty((200, 0)), y, np.random.default_rng(4))
    assert out.shape == (200,) and np.array_equal(np.sort(out), np.sort(y))


def test_too_few_records():
    with pytest.raises(TooFewRecords):
        shuffle(np.array([[1.0], [2.0]]), np.array([3.0, 4.0]), np.random.default_rng(0))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([0.0, 1.0, 2.5, -3.0]) | st.floats(-1e3, 1e3), max_size=40))
def test_average_ranks_match_scipy(xs):
    from scipy.stats import rankdata

    x = np.array(xs, dtype=float)
    np.testing.assert_allclose(average_ranks(x), rankdata(x, method="average"))
