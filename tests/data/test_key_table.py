"""The global table of key combinations (map-reduce over partitions): the fk and Fk of
each combination equal those the in-memory kernel gives its records, missing values
matching any value, for any split of the records."""

import itertools

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.data.codes import key_codes
from sdcflow.data.key_table import combine_tables, partial_table, table_codes, table_frequencies
from sdcflow.kernels.risk.frequencies import frequencies


def frame(seed: int, n: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    a = pd.array(rng.choice(["x", "y", "z", None], n, p=[0.4, 0.3, 0.2, 0.1]), dtype="string")
    b = pd.array(np.where(rng.random(n) < 0.1, None, rng.integers(1, 12, n)), dtype="Int64")
    return pd.DataFrame({"a": a, "b": b, "s": rng.choice(["1", "2"], n),
                         "w": rng.uniform(1, 10, n).round(1)})


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 1000), st.lists(st.integers(0, 40), min_size=1, max_size=4),
       st.sampled_from([0.0, 0.5, 1.0]), st.booleans())
def test_table_gives_every_records_fk_and_Fk(seed, sizes, alpha, stratified):
    data = frame(seed, sum(sizes))
    keys, strata = ["a", "b"], (["s"] if stratified else [])
    cuts = np.cumsum([0, *sizes])
    parts = [partial_table(data.iloc[i:j], keys, strata, "w") for i, j in itertools.pairwise(cuts)]
    table = combine_tables(parts, keys, strata)
    fk_t, Fk_t = table_frequencies(table, keys, strata, alpha)
    codes = key_codes(data, keys)
    if stratified:
        codes = np.column_stack([codes, pd.factorize(data["s"], sort=True)[0]])
    fk, Fk = frequencies(codes, data["w"].to_numpy(), alpha)
    # each record's combination in the table
    tcodes = table_codes(table, keys, strata)
    where = {tuple(r): i for i, r in enumerate(tcodes)}
    rows = np.array([where[tuple(r)] for r in codes], dtype=int)
    np.testing.assert_allclose(fk_t[rows], fk, rtol=1e-12)
    np.testing.assert_allclose(Fk_t[rows], Fk, rtol=1e-9)
    assert table["n"].sum() == len(data)


def test_a_worked_example():
    # keys (x, 1), (x, 1), (x, NA), (y, 2): with alpha = 1 the record with a missing
    # value matches both (x, 1) records: fk = 3, 3, 3, 1 (by hand from the definition)
    data = pd.DataFrame({"a": pd.array(["x", "x", "x", "y"], dtype="string"),
                         "b": pd.array([1, 1, None, 2], dtype="Int64")})
    table = combine_tables([partial_table(data.iloc[:2], ["a", "b"], [], None),
                            partial_table(data.iloc[2:], ["a", "b"], [], None)], ["a", "b"], [])
    fk, _ = table_frequencies(table, ["a", "b"], [], 1.0)
    assert table["n"].tolist() == [2.0, 1.0, 1.0]
    assert fk.tolist() == [3.0, 3.0, 1.0]
