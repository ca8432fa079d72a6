"""The individual risk computed once per key combination (class_frequencies,
class_individual_risk): the same bits as the per-record path (frequencies, then
individual_risk on every record), which is tested against sdcMicro's values in
test_risk.py."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from sdcflow.kernels.risk.frequencies import class_frequencies, frequencies
from sdcflow.kernels.risk.risk import class_individual_risk, individual_risk, spread


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal float arrays, bit for bit (NaN where the other has NaN)."""
    nan = np.isnan(a)
    return (a.shape == b.shape and np.array_equal(nan, np.isnan(b))
            and np.array_equal(a[~nan].view(np.int64), b[~nan].view(np.int64)))


@st.composite
def keyed_records(draw):
    n = draw(st.integers(1, 40))
    m = draw(st.integers(1, 3))
    codes = draw(arrays(np.int64, (n, m), elements=st.integers(-1, 2)))
    # weights below 1 (Fk < fk), around 1 and large (p small: the series and the closed
    # forms), and occasionally a missing one (a missing risk)
    weights = draw(arrays(np.float64, n, elements=st.sampled_from(
        [0.4, 1.0, 1.7, 3.0, 12.5, 250.0, 10_000.0])))
    if draw(st.booleans()):
        weights[draw(st.integers(0, n - 1))] = np.nan
    alpha = draw(st.sampled_from([0.0, 0.3, 0.7, 1.0]))
    return codes, weights, alpha


@settings(max_examples=120, deadline=None)
@given(keyed_records(), st.sampled_from(["approx", "exact"]), st.sampled_from([1.0, 0.8, 2.5]))
def test_class_risk_has_the_bits_of_the_per_record_path(records, method, qual):
    codes, weights, alpha = records
    classes, fk_c, Fk_c = class_frequencies(codes, weights, alpha)
    fk, Fk = frequencies(codes, weights, alpha)
    assert same_bits(class_individual_risk(classes, fk_c, Fk_c, method, qual),
                     individual_risk(fk, Fk, method, qual))
    # without weights: 1/fk, qual not applied
    assert same_bits(class_individual_risk(classes, fk_c), individual_risk(fk))


@settings(max_examples=80, deadline=None)
@given(keyed_records())
def test_classes_are_the_key_combinations(records):
    codes, weights, alpha = records
    classes, fk_c, Fk_c = class_frequencies(codes, weights, alpha)
    m = len(fk_c)
    assert len(Fk_c) == m and classes.dtype == np.int64
    assert np.array_equal(np.unique(classes), np.arange(m))  # dense, every id used
    # same class <=> same key row (missing codes included)
    _, row_class = np.unique(codes, axis=0, return_inverse=True)
    assert len(np.unique(np.column_stack([classes, row_class.reshape(-1)]), axis=0)) == m
    fk, Fk = frequencies(codes, weights, alpha)
    assert same_bits(fk_c[classes], fk) and same_bits(Fk_c[classes], Fk)


def test_many_records_spread_on_threads_as_numpy():
    # above the threshold of the threaded gather; several combinations of every kind
    rng = np.random.default_rng(5)
    n = 300_000
    codes = rng.integers(0, 40, (n, 3))
    codes[rng.random(codes.shape) < 0.01] = -1
    weights = rng.uniform(0.5, 300.0, n)
    classes, fk_c, Fk_c = class_frequencies(codes, weights, 0.7)
    fk, Fk = frequencies(codes, weights, 0.7)
    for method in ("approx", "exact"):
        assert same_bits(class_individual_risk(classes, fk_c, Fk_c, method, 1.3),
                         individual_risk(fk, Fk, method, 1.3))
    values = rng.random(1000)
    index = rng.integers(0, 1000, n)
    assert np.array_equal(spread(values, index), values[index])


def test_sdcmicro_example_per_class():
    # sdcMicro's test_indivRisk.R records (keys A, B, C and weight): 4 combinations; the
    # approx risks there are 0.01369863 (fk = 3), 0.08579129 and 0.17707583 (fk = 1),
    # 0.01877883 (fk = 2), 0.03931625 (fk = 1)
    codes = np.column_stack([[2, 3, 2, 2, 3, 3, 1, 2], [3, 3, 3, 3, 3, 3, 4, 3],
                             [1, 3, 1, 2, 1, 1, 1, 1]])
    w = np.array([18.0, 45.5, 39.0, 17.0, 92.0, 8.0, 123.5, 51])
    classes, fk_c, Fk_c = class_frequencies(codes, w)
    assert len(fk_c) == 5 and fk_c[classes].tolist() == [3, 1, 3, 1, 2, 2, 1, 3]
    np.testing.assert_allclose(
        class_individual_risk(classes, fk_c, Fk_c),
        [0.01369863, 0.08579129, 0.01369863, 0.17707583, 0.01877883, 0.01877883,
         0.03931625, 0.01369863], rtol=0, atol=1e-7)


def test_edge_cases_and_bad_input():
    classes, fk_c, Fk_c = class_frequencies(np.zeros((0, 2), dtype=np.int64))
    assert classes.size == 0 and class_individual_risk(classes, fk_c, Fk_c).size == 0
    classes, fk_c, Fk_c = class_frequencies(np.zeros((3, 0), dtype=np.int64), [1, 2, 3.5])
    assert classes.tolist() == [0, 0, 0] and fk_c.tolist() == [3] and Fk_c.tolist() == [6.5]
    with pytest.raises(ValueError, match="ids of the combinations"):
        class_individual_risk(np.array([0, 2]), np.array([1.0, 2.0]), np.array([5.0, 9.0]))
    with pytest.raises(ValueError, match="method"):
        class_individual_risk(np.array([0]), np.array([1.0]), np.array([5.0]), "nope")
    with pytest.raises(ValueError, match="same length"):
        class_individual_risk(np.array([0]), np.array([1.0]), np.array([5.0, 6.0]))
