"""The one-pass build groups the records into leaf cells without sorting them (dense cell
ids from the dimensions' codes, counts and exact sums per cell in any order, cell keys
as integer sums modulo 10^digits): it must give, byte for byte, the table of the
sorting path, which :func:`combine` still takes (np.unique of the cell ids, records
sorted by cell, sums of consecutive runs). Built from one-record partials, every
grouping happens in combine."""

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.tabular import Tabulation, build_partial, build_table, combine, finish_table

KEYS = st.sampled_from([0.0, 0.5, 0.99999999, 1.0, 0.12345678, 0.87654321, 0.3333])


def table_bytes(table) -> bytes:
    return table.cells.to_csv(index=False).encode()


@st.composite
def keyed_microdata(draw):
    ndim = draw(st.integers(1, 3))
    # few codes (a dense table over the cross-classification) or many (beyond the
    # records: the ids are then found by sorting)
    n_codes = draw(st.sampled_from([2, 5, 400]))
    n = draw(st.integers(1, 25))
    frame = pd.DataFrame({
        f"v{d}": draw(st.lists(st.one_of(st.none(),
                                         st.integers(0, n_codes - 1).map(lambda k: f"c{k}")),
                               min_size=n, max_size=n))
        for d in range(ndim)})
    frame["y"] = draw(st.lists(st.sampled_from([0.0, 1.0, 0.1, 2.5, -3.0, 1e6]),
                               min_size=n, max_size=n))
    frame["w"] = draw(st.lists(st.sampled_from([0.5, 1.0, 0.3, 7.25]), min_size=n,
                               max_size=n))
    frame["k"] = draw(st.lists(KEYS, min_size=n, max_size=n))
    return frame, [f"v{d}" for d in range(ndim)]


@settings(max_examples=80, deadline=None)
@given(keyed_microdata(), st.booleans(), st.booleans(), st.integers(0, 2),
       st.sampled_from([5, 8, 10]))
def test_one_pass_equals_the_sorting_path(case, magnitude, weighted, top, digits):
    frame, dims = case
    if frame[dims].notna().all(axis=1).sum() == 0:
        return  # no record with every code: no table
    response, weight = ("y" if magnitude else None), ("w" if weighted else None)
    whole = build_table(frame, dims, None, response, weight, top, key="k",
                        key_digits=digits)
    tab = Tabulation(tuple(dims), {}, response, weight, top, "Total", "k", digits)
    one_by_one = finish_table(combine([build_partial(tab, frame[i:i + 1])
                                       for i in range(len(frame))]))
    pd.testing.assert_frame_equal(whole.cells, one_by_one.cells, check_exact=True)
    assert table_bytes(whole) == table_bytes(one_by_one)
    assert whole.info == one_by_one.info


def test_a_census_like_table_is_unchanged():
    # municipality x sex with the municipality hierarchy, 20,000 records: the cells as
    # the sorting path gives them (here: the table rebuilt from 7 partials, so combine
    # groups the leaf cells again by sorting)
    rng = np.random.default_rng(3)
    n = 20_000
    region = rng.integers(1, 4, n)
    muni = (region * 100 + rng.integers(1, 30, n)).astype(str)
    frame = pd.DataFrame({"municipality": pd.Series(muni, dtype="str"),
                          "sex": pd.Series(rng.choice(["1", "2"], n), dtype="str"),
                          "k": np.round(rng.random(n), 8)})
    hier = {m: m[:-2] for m in np.unique(muni)} | {str(r): "Total" for r in range(1, 4)}
    whole = build_table(frame, ["municipality", "sex"], {"municipality": hier}, key="k")
    tab = Tabulation(("municipality", "sex"), {"municipality": hier}, None, None, 2,
                     "Total", "k", 8)
    parts = finish_table(combine([build_partial(tab, frame[i::7]) for i in range(7)]))
    assert table_bytes(whole) == table_bytes(parts)
    # the grand total: every record, its key the sum of all keys modulo 1 (exact integers)
    total = whole.cells[(whole.cells["municipality"] == "Total")
                        & (whole.cells["sex"] == "Total")]
    units = np.rint(frame["k"].to_numpy() * 1e8).astype(np.int64)
    assert total["freq"].item() == n
    assert total["cell_key"].item() == (units.sum() % 10**8) / 10**8
