"""Designs held by their terms (intercept, numeric columns, dummies of category codes),
materialised by blocks of rows."""

import numpy as np
import pytest

from sdcflow.kernels.synthetic.design import Columns, Constant, Design, Indicators, block_rows


def test_terms_by_hand():
    design = Design([Constant(4), Columns.centred(np.array([1.0, 2.0, 3.0, 6.0])),
                     Indicators(np.array([0, 2, 1, -1]), 2)])
    # mean 3; code 0 is the reference and a missing code (-1) has no dummy either
    assert design.shape == (4, 4)
    assert design.toarray().tolist() == [[1, -2, 0, 0], [1, -1, 0, 1], [1, 0, 1, 0],
                                         [1, 3, 0, 0]]
    assert design.block(1, 3).tolist() == [[1, -1, 0, 1], [1, 0, 1, 0]]
    assert design.take(np.array([3, 1])).toarray().tolist() == [[1, 3, 0, 0], [1, -1, 0, 1]]
    assert design.constant_columns().tolist() == [True, False, False, False]


def test_blocks_cover_every_row_once():
    n = 10_001
    design = Design.of(np.arange(n, dtype=float))
    seen = np.zeros(n, dtype=int)
    for start, stop, block in design.blocks(rows=4096):
        assert len(block) == stop - start <= 4096
        seen[start:stop] += 1
        np.testing.assert_array_equal(block[:, 1], np.arange(start, stop) - (n - 1) / 2)
    assert np.all(seen == 1)
    assert block_rows(11) == 4096 and block_rows(10_000) == 256


def test_of_an_array_with_and_without_intercept():
    X = np.column_stack([np.full(7, 0.1), np.arange(7.0)])
    with_intercept = Design.of(X).toarray()
    # a constant column centred is exactly zero, not rounding noise that scaling would
    # blow up into a predictor
    assert np.all(with_intercept[:, 0] == 1.0) and np.all(with_intercept[:, 1] == 0.0)
    np.testing.assert_allclose(with_intercept[:, 2], np.arange(7.0) - 3)
    assert np.all(Design.of(np.full(3, 1e6 / 3)).toarray()[:, 1] == 0.0)
    assert np.array_equal(Design.of(X, intercept=False).toarray(), X)
    # a design gets the constant in front
    assert Design.of(Design.of(X, intercept=False)).toarray()[:, 0].tolist() == [1.0] * 7


def test_transformed_changes_numeric_terms_only():
    design = Design([Constant(3), Columns.centred(np.array([5.0, 1.0, 3.0])),
                     Indicators(np.array([1, 0, 1]), 1)])
    doubled = design.transformed(lambda a: 2 * a).toarray()
    assert doubled.tolist() == [[1, 4, 1], [1, -4, 0], [1, 0, 1]]


def test_terms_of_different_lengths_are_refused():
    with pytest.raises(ValueError, match="different lengths"):
        Design([Constant(3), Indicators(np.zeros(4, dtype=int), 1)])
    assert Design([], n=5).shape == (5, 0)
