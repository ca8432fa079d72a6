"""The cell key method's kernel (sdcflow.kernels.tabular.cell_key): cell keys as the
fractional part of the sum of record keys and cellKey's lookup in a ptable. The ptable
is ptable's pt_ex_cnts() (D = 2, V = 1.05, js = 1), whose figures are checked in
test_ptable.py; the expected perturbations are read off its intervals by hand."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sdcflow.kernels.tabular.cell_key import (
    cell_key_units,
    cell_keys,
    draw_record_keys,
    lookup,
    perturb_counts,
    record_key_units,
)
from sdcflow.kernels.tabular.ptable import count_ptable


@pytest.fixture(scope="module")
def ptab():
    return count_ptable(2, 1.05, js=1, mono=[True, True, False, True])


def test_cell_keys_are_the_fractional_part_of_the_summed_record_keys():
    keys = record_key_units([0.6, 0.3, 0.4, 0.9, 0.8, 0.7, 0.05])
    group = [0, 1, 1, 2, 2, 2, 2]
    got = cell_keys(cell_key_units(group, keys, 4))
    # 0.6; 0.3 + 0.4 = 0.7; 0.9 + 0.8 + 0.7 + 0.05 = 2.45 -> 0.45; an empty cell: 0
    np.testing.assert_array_equal(got, [0.6, 0.7, 0.45, 0.0])


def test_lookup_reads_the_interval_holding_the_cell_key(ptab):
    # row i = 1: v = -1, 1, 2 with upper bounds 0.50833333, 0.98333333, 1
    # row i = 2: v = -2, 0, 1, 2 with upper bounds 0.16155827, 0.71720864, 0.95967482, 1
    # row i = 4 (every count >= 4): v = -2..2, upper bounds 0.07012498, 0.31462505,
    #   0.68537495, 0.92987502, 1
    keys = np.array([0.6, 0.7, 0.45, 0.95, 0.50833333, 0.50833332, 0.3, 0.01])
    counts = np.array([1, 2, 4, 7, 1, 1, 0, 100])
    pert, row = lookup(ptab, keys, counts)
    np.testing.assert_array_equal(pert, [1, 0, 0, 2, 1, -1, 0, -2])
    np.testing.assert_array_equal(row, [1, 2, 4, 4, 1, 1, -1, 4])
    perturbed, _ = perturb_counts(ptab, keys, counts)
    np.testing.assert_array_equal(perturbed, [2, 2, 4, 9, 2, 0, 0, 98])


def test_weighted_counts_are_scaled_by_the_mean_weight(ptab):
    # cellKey: pwc = puwc * wc / uwc; a count 2 cell (key 0.99 -> v = +2) of weights
    # 10 and 30 has mean weight 20: (2 + 2) * 20 = 80
    perturbed, weighted = perturb_counts(ptab, [0.99, 0.2], [2, 0], [40.0, 0.0])
    np.testing.assert_array_equal(perturbed, [4, 0])
    np.testing.assert_array_equal(weighted, [80.0, 0.0])


def test_drawn_record_keys_are_rounded_uniform_keys():
    rng = np.random.default_rng(5)
    units = draw_record_keys(100_000, rng, digits=8)
    assert units.dtype == np.int64
    assert units.min() >= 0 and units.max() <= 10**8
    # uniform: mean 1/2 within 6 standard errors (sd 1/sqrt(12))
    assert abs(units.mean() / 1e8 - 0.5) < 6 / np.sqrt(12 * 100_000)
    with pytest.raises(ValueError, match="digits"):
        draw_record_keys(3, rng, digits=4)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        record_key_units([0.5, 1.5])


def test_noise_follows_the_ptable_probabilities(ptab):
    # uniform cell keys: each v of row 2 is drawn with its probability p
    rng = np.random.default_rng(11)
    n = 200_000
    keys = cell_keys(draw_record_keys(n, rng))
    pert, _ = lookup(ptab, keys, np.full(n, 2))
    v, lb, ub = ptab.row(2)
    for vk, pk in zip(v, ub - lb, strict=True):
        share = np.mean(pert == vk)
        assert share == pytest.approx(pk, abs=6 * np.sqrt(pk * (1 - pk) / n))


@given(st.lists(st.tuples(st.integers(0, 5), st.floats(0, 1)), min_size=1, max_size=60),
       st.randoms(use_true_random=False))
def test_the_same_records_give_the_same_key_in_any_order(records, rnd):
    # consistency across tables: a cell's key depends only on its records, not on the
    # order or the grouping in which they are summed
    group = np.array([g for g, _ in records])
    units = record_key_units([k for _, k in records])
    perm = list(range(len(records)))
    rnd.shuffle(perm)
    a = cell_key_units(group, units, 6)
    b = cell_key_units(group[perm], units[perm], 6)
    np.testing.assert_array_equal(a, b)
    # two halves summed apart, then together (a margin from its parts)
    half = len(records) // 2
    parts = (cell_key_units(group[:half], units[:half], 6)
             + cell_key_units(group[half:], units[half:], 6)) % 10**8
    np.testing.assert_array_equal(parts, a)


@given(st.lists(st.integers(0, 50), min_size=1, max_size=40),
       st.lists(st.floats(0, 0.999999), min_size=40, max_size=40))
def test_perturbed_counts_are_never_negative_nor_blocked(counts, keys):
    ptab = count_ptable(2, 1.05, js=1, mono=[True, True, False, True])
    out, _ = perturb_counts(ptab, np.array(keys[:len(counts)]), np.array(counts))
    assert (out >= 0).all()
    assert not ((out == 1) & (np.array(counts) > 0)).any()  # js = 1: no count of 1
    assert (out[np.array(counts) == 0] == 0).all()
    assert (np.abs(out - counts) <= 2).all()


def test_counter_keys_do_not_depend_on_the_split_of_the_records():
    from sdcflow.kernels.tabular.cell_key import counter_record_keys

    whole = counter_record_keys(2021, 0, 10_000)
    parts = np.concatenate([counter_record_keys(2021, 0, 3_333),
                            counter_record_keys(2021, 3_333, 6_667)])
    np.testing.assert_array_equal(whole, parts)
    # uniform on [0, 1) to 8 decimals: mean 1/2 within 6 standard errors, no lag-1
    # correlation beyond 6 standard errors (1 / sqrt(n))
    keys = counter_record_keys(2021, 0, 200_000) / 1e8
    assert abs(keys.mean() - 0.5) < 6 / np.sqrt(12 * 200_000)
    assert abs(np.corrcoef(keys[:-1], keys[1:])[0, 1]) < 6 / np.sqrt(200_000)
    # another seed or stream: other keys
    assert (counter_record_keys(2022, 0, 100) != whole[:100]).mean() > 0.9
    assert (counter_record_keys(2021, 0, 100, stream="x") != whole[:100]).mean() > 0.9
