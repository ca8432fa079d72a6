"""Tables built by map-reduce (sdcflow.tabular.build): any split of the records, combined
in any order, gives exactly the table of the one-pass build, and every cell is the exact
sum of its records (Python's ``math.fsum``, correctly rounded) with the largest
contributions the sensitivity rules need (Hundepool et al. 2012, *Statistical Disclosure
Control*, section 4.2)."""

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.tabular import (
    DominanceRule,
    PPercentRule,
    Tabulation,
    apply_rules,
    build_partial,
    build_table,
    combine,
    finish_table,
)

#: weights and responses whose sums round in floating point (0.1 + 0.2 != 0.3), besides
#: integers: a sum kept in floating point would depend on the order of the records
WEIGHTS = st.sampled_from([0.0, 0.1, 0.2, 0.3, 0.7, 1.0, 1.5, 2.0, 3.0, 1e-3, 12.25])
RESPONSES = st.one_of(st.integers(-50, 1000).map(float),
                      st.sampled_from([0.1, 0.2, 0.3, 1e16, -1e16, 3.3, 1e-5, 2.5]))


def assert_same_table(a, b):
    pd.testing.assert_frame_equal(a.cells, b.cells, check_exact=True)
    assert (a.relations != b.relations).nnz == 0
    assert [d.codes for d in a.dimensions] == [d.codes for d in b.dimensions]
    assert (a.top, a.response, a.weight, a.info) == (b.top, b.response, b.weight, b.info)


@st.composite
def microdata(draw):
    ndim = draw(st.integers(1, 3))
    dims, hier = [], {}
    for d in range(ndim):
        n_leaf = draw(st.integers(1, 4))
        leaves = [f"d{d}_{k}" for k in range(n_leaf)]
        if d == 0 and draw(st.booleans()):
            leaves = [str(k) for k in (10, 9, 2, 1.5)[:n_leaf]]  # sorted as numbers
        dims.append(leaves)
        if draw(st.booleans()) and n_leaf > 1:
            cut = draw(st.integers(1, n_leaf - 1))
            h = {leaf: ("G0" if k < cut else "G1") for k, leaf in enumerate(leaves)}
            h.update({"G0": "T", "G1": "T"})
            hier[f"v{d}"] = h
    n = draw(st.integers(0, 30))
    codes = st.tuples(*[st.sampled_from(leaves + [None]) for leaves in dims])
    rows = draw(st.lists(st.tuples(codes, RESPONSES, WEIGHTS), min_size=n, max_size=n))
    frame = pd.DataFrame([c for c, _, _ in rows], columns=[f"v{d}" for d in range(ndim)])
    frame["y"] = [y for _, y, _ in rows]
    frame["w"] = [w for _, _, w in rows]
    return frame, [f"v{d}" for d in range(ndim)], hier


@settings(max_examples=80, deadline=None)
@given(microdata(), st.booleans(), st.booleans(), st.integers(0, 4), st.data())
def test_any_split_gives_the_one_pass_table(case, weighted, magnitude, top, data):
    frame, dims, hier = case
    if len(frame) == 0:
        return
    tab = Tabulation(dims, hier, "y" if magnitude else None, "w" if weighted else None, top)
    try:
        whole = build_table(frame, dims, hier, tab.response, tab.weight, top)
    except ValueError as exc:  # no code at all in a dimension without hierarchy
        assert "exactly one root" in str(exc)
        with pytest.raises(ValueError, match="exactly one root"):
            finish_table(combine([build_partial(tab, frame[:1]), build_partial(tab, frame)]))
        return
    # rows to partitions at random (not contiguous), some partitions empty
    k = data.draw(st.integers(1, 5))
    part = np.array(data.draw(st.lists(st.integers(0, k - 1), min_size=len(frame),
                                       max_size=len(frame))))
    partials = [build_partial(tab, frame[part == p]) for p in range(k)]
    # combined in a random order and a random tree
    perm = data.draw(st.permutations(range(k)))
    acc = [partials[i] for i in perm]
    while len(acc) > 1:
        i = data.draw(st.integers(0, len(acc) - 2))
        acc[i:i + 2] = [combine(acc[i:i + 2])]
    assert_same_table(finish_table(acc[0]), whole)
    assert_same_table(finish_table(combine(partials)), whole)


def _leaf_records(frame, dims, t, k):
    mask = np.ones(len(frame), dtype=bool)
    for d, dim in enumerate(t.dimensions):
        code = dim.codes[t.codes[k, d]]
        if dim.is_leaf[t.codes[k, d]]:
            mask &= (frame[dims[d]] == code).to_numpy()
        else:
            return None
    return frame[mask]


def _weighted_top(ys, ws, k):
    """Brute force in exact rationals: unit position j is covered by the first record
    (decreasing y) whose cumulative weight exceeds j."""
    order = sorted(zip(ys, ws, strict=True), key=lambda r: -r[0])
    out, cum = [], Fraction(0)
    for j in range(k):
        got = 0.0
        cum = Fraction(0)
        for y, w in order:
            cum += Fraction(w)
            if cum > j:
                got = y
                break
        out.append(got)
    return out


@settings(max_examples=60, deadline=None)
@given(microdata(), st.booleans())
def test_cells_are_exact_sums_and_top_contributions(case, weighted):
    frame, dims, hier = case
    frame = frame.dropna()
    if len(frame) == 0:
        return
    t = build_table(frame, dims, hier, "y", "w" if weighted else None, top=3)
    for k in range(t.n_cells):
        recs = _leaf_records(frame, dims, t, k)
        if recs is None:
            continue
        row = t.cells.iloc[k]
        y, w = recs["y"].to_numpy(), recs["w"].to_numpy()
        if weighted:
            assert row["value"] == math.fsum(w * y) and row["wfreq"] == math.fsum(w)
            expected = _weighted_top(y, w, 3)
        else:
            assert row["value"] == math.fsum(y) and row["wfreq"] == len(y)
            expected = (sorted(y, reverse=True) + [0.0] * 3)[:3]
        assert [row["top1"], row["top2"], row["top3"]] == expected


def test_weighted_partials_keep_few_records():
    # 1,000 records of weight 0.25 in one cell, laid end to end by decreasing value:
    # contribution j is the record whose weight interval covers j, so the 3 largest need
    # the 9 largest records (the 9th spans 2.0 .. 2.25); the 10th starts after 2
    frame = pd.DataFrame({"A": ["a"] * 1000, "y": np.arange(1000.0), "w": 0.25})
    p = build_partial(Tabulation(["A"], {}, "y", "w", 3), frame)
    assert p.rec_y.tolist() == [999.0 - i for i in range(9)]
    t = finish_table(p)
    # j = 0, 1, 2 fall in records 999 (0 .. 0.25), 995 (1.0 .. 1.25), 991 (2.0 .. 2.25)
    assert t.cells.loc[0, ["top1", "top2", "top3"]].tolist() == [999.0, 995.0, 991.0]
    assert t.cells.loc[0, "wfreq"] == 250.0


def test_seed_table_from_partitions(seed_records):
    # seed 000, "Protection for tabular data": the profession x town magnitude table,
    # built from three partitions of file A, flags the same cells as the one-pass build
    rules = [DominanceRule(1, 50), PPercentRule(10)]
    whole = apply_rules(build_table(seed_records, ["P", "M"], None, "salary"), rules)
    tab = Tabulation(["P", "M"], response="salary")
    parts = [build_partial(tab, seed_records.iloc[i::3]) for i in range(3)]
    split = apply_rules(finish_table(combine(parts)), rules)
    assert_same_table(split, whole)
    # (P5, M3): 350 of 363 dominates; its top contributions came from different parts
    row = split.cells.iloc[split.index("P5", "M3")]
    assert (row["top1"], row["top2"], row["status"]) == (350, 4, "primary")


def test_partials_refuse_what_cannot_be_summed():
    tab = Tabulation(["A"], {}, "y", "w")
    with pytest.raises(ValueError, match="infinite"):
        build_partial(tab, pd.DataFrame({"A": ["a"], "y": [np.inf], "w": [1.0]}))
    with pytest.raises(ValueError, match="'w \\* y': infinite"):
        build_partial(tab, pd.DataFrame({"A": ["a"], "y": [1e300], "w": [1e300]}))
    with pytest.raises(ValueError, match="non-negative"):
        build_partial(tab, pd.DataFrame({"A": ["a"], "y": [1.0], "w": [-1.0]}))
    with pytest.raises(ValueError, match="not in the hierarchy"):
        build_partial(Tabulation(["A"], {"A": {"a": "T"}}),
                      pd.DataFrame({"A": ["b"]}))
    other = build_partial(Tabulation(["A"]), pd.DataFrame({"A": ["a"]}))
    with pytest.raises(ValueError, match="different tabulations"):
        combine([build_partial(tab, pd.DataFrame({"A": ["a"], "y": [1.0], "w": [1.0]})),
                 other])
    with pytest.raises(ValueError, match="unknown dimensions"):
        Tabulation(["A"], {"B": {"b": "T"}})
