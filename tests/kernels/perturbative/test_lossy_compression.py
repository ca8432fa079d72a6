"""JPEG-based masking kernels (seed 000 "Lossy Compression"; ITU-T T.81 Annex K.1 table,
libjpeg's quality scaling)."""

from itertools import pairwise

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from sdcflow.kernels.perturbative.lossy_compression import (
    LUMINANCE,
    jpeg_blocks,
    lossy_compress,
    quantisation_table,
    to_samples,
)


def smooth_data(n=800, p=5, seed=0):
    """Records in an order where neighbours are similar (as after sorting), as in images."""
    rng = np.random.default_rng(seed)
    return np.cumsum(rng.standard_normal((n, p)), axis=0) * 10.0 ** np.arange(p)


def rmse_samples(x, quality):
    """Root mean squared change on the 0..255 scale, over all values (checked against the
    samples themselves in test_reported_rmse_is_the_change_of_the_samples)."""
    return float(np.sqrt(np.mean(lossy_compress(x, quality)[1] ** 2)))


def test_reported_rmse_is_the_change_of_the_samples():
    x = smooth_data(100, 3)
    out, rmse = lossy_compress(x, 40)
    samples, lo, span = to_samples(x)
    change = (out - lo) * 255 / span - samples
    np.testing.assert_allclose(rmse, np.sqrt(np.mean(change ** 2, axis=0)), rtol=1e-9)


def test_quantisation_tables_by_hand():
    # libjpeg jcparam.c: quality 50 is Table K.1; 75 scales by 50% with
    # floor((t * 50 + 50) / 100); 100 gives ones; 1 scales by 5000% and clips to 255
    assert np.array_equal(quantisation_table(50), LUMINANCE)
    assert quantisation_table(75)[0].tolist() == [8, 6, 5, 8, 12, 20, 26, 31]
    assert quantisation_table(10)[0].tolist() == [80, 55, 50, 80, 120, 200, 255, 255]
    assert np.all(quantisation_table(100) == 1)
    assert np.all(quantisation_table(1) == 255)
    with pytest.raises(ValueError):
        quantisation_table(0)


def test_dct_round_trip_without_quantisation_is_exact():
    rng = np.random.default_rng(1)
    image = rng.uniform(0, 255, (13, 5))  # padding in both directions
    np.testing.assert_allclose(jpeg_blocks(image, None), image, atol=1e-10)


def test_constant_block_by_hand():
    # constant 131: level shift 3, DC coefficient 8 * 3 = 24 (orthonormal DCT), AC all 0;
    # quality 50: 24 / 16 = 1.5 rounds to 2, dequantised 32, decoded 128 + 32 / 8 = 132
    image = np.full((8, 8), 131.0)
    np.testing.assert_allclose(jpeg_blocks(image, quantisation_table(50)), 132.0)
    # constant 130: 16 / 16 = 1, exactly representable: unchanged
    np.testing.assert_allclose(jpeg_blocks(np.full((8, 8), 130.0), quantisation_table(50)),
                               130.0)


def test_quality_100_changes_little():
    x = smooth_data()
    out, _ = lossy_compress(x, 100)
    samples, lo, span = to_samples(x)
    err = (out - lo) * 255 / span - samples
    # coefficients rounded to integers: the error is orthonormally transformed rounding,
    # mean square 1/12 (RMSE 0.29) on the 0..255 scale; a sample moves at most 64 * 0.5 / 4
    assert rmse_samples(x, 100) < 0.35
    assert np.abs(err).max() <= 8
    assert np.all(np.abs(out - x).max(0) <= 8 / 255 * span)


def test_lower_quality_gives_larger_errors():
    qualities = [5, 10, 25, 50, 75, 90, 100]
    # on one data set and on average over ten
    errors = [rmse_samples(smooth_data(), q) for q in qualities]
    assert all(a > b for a, b in pairwise(errors))
    mean = np.mean([[rmse_samples(smooth_data(seed=s), q) for q in qualities]
                    for s in range(10)], axis=0)
    assert all(a > b for a, b in pairwise(mean))
    assert mean[0] > 10 * mean[-1]


def test_values_stay_in_range_and_constant_columns_are_kept():
    rng = np.random.default_rng(2)
    x = rng.uniform(0, 1, (100, 4))
    x[:, 2] = 42.0
    out, _ = lossy_compress(x, 5)
    assert np.all(out >= x.min(0)) and np.all(out <= x.max(0))
    assert np.all(out[:, 2] == 42.0)


def test_missing_values_stay_missing():
    x = smooth_data(50, 3)
    x[[4, 20], [1, 2]] = np.nan
    x[:, 0] = np.nan  # a variable without any value
    out, _ = lossy_compress(x, 50)
    assert np.array_equal(np.isnan(out), np.isnan(x))


def test_order_puts_the_records_in_the_image_and_back():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((64, 2))
    order = np.argsort(x[:, 0], kind="stable")
    out, _ = lossy_compress(x, 50, order=order)
    sorted_out, _ = lossy_compress(x[order], 50)
    np.testing.assert_array_equal(out[order], sorted_out)
    # sorting makes the image smoother: a smaller error on the sort variable
    err_sorted = np.abs(out[:, 0] - x[:, 0]).mean()
    err_file = np.abs(lossy_compress(x, 50)[0][:, 0] - x[:, 0]).mean()
    assert err_sorted < err_file


@settings(max_examples=40, deadline=None)
@given(x=arrays(np.float64, st.tuples(st.integers(1, 40), st.integers(1, 10)),
                elements=st.floats(-1e6, 1e6)), quality=st.integers(1, 100))
def test_invariants(x, quality):
    out, _ = lossy_compress(x, quality)
    again, _ = lossy_compress(x, quality)
    assert np.array_equal(out, again)  # deterministic: no randomness at all
    lo, hi = x.min(0), x.max(0)
    tol = 1e-9 * (np.abs(lo) + np.abs(hi) + 1)
    assert np.all(out >= lo - tol) and np.all(out <= hi + tol)
