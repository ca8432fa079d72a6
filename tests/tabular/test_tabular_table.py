"""Tables with margins (sdcflow.tabular.table): the seed's profession x town tables
(seed 000_1eece6b9d3791e64.txt, "Protection for tabular data") and invariants."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.tabular import build_table, make_dimension, table_from_cells

P = ["P1", "P2", "P3", "P4", "P5", "Total"]
M = ["M1", "M2", "M3", "Total"]
# the seed's two printed tables, totals included (rows M, columns P)
SEED_FREQ_PRINTED = [[2, 15, 30, 20, 10, 77], [72, 20, 1, 30, 10, 133],
                     [38, 38, 15, 40, 5, 136], [112, 73, 46, 90, 25, 346]]
SEED_VALUE_PRINTED = [[360, 450, 720, 400, 360, 2290], [1440, 540, 22, 570, 320, 2892],
                      [722, 1178, 375, 800, 363, 3438], [2522, 2168, 1117, 1770, 1043, 8620]]


def test_seed_tables_from_microdata(seed_records):
    t = build_table(seed_records, ["P", "M"], None, "salary")
    assert t.n_cells == 24 and t.dims == ["P", "M"]
    assert t.pivot("freq", rows="M", cols="P").to_numpy().tolist() == SEED_FREQ_PRINTED
    assert t.pivot("value", rows="M", cols="P").to_numpy().tolist() == SEED_VALUE_PRINTED
    assert list(t.pivot("value", rows="M", cols="P").columns) == P
    # seed: "In cell (P5, M3), 5 people and one of them has a salary of 350"
    row = t.cells.iloc[t.index("P5", "M3")]
    assert (row["freq"], row["top1"], row["top2"]) == (5, 350, 4)
    # a margin's top contributions are the largest of the union: column P5 holds
    # M1 (10 x 36), M2 (10 x 32) and M3 (350, 4, 3, 3, 3)
    row = t.cells.iloc[t.index("P5", "Total")]
    assert (row["top1"], row["top2"]) == (350, 36)
    # relations: "M total = sum over M" for each of the 6 P codes, "P total = sum over
    # P" for each of the 4 M codes
    assert t.relations.shape == (6 + 4, 24)
    assert np.abs(t.relations @ t.values).max() == 0
    assert np.abs(t.relations @ t.cells["freq"].to_numpy(float)).max() == 0
    assert set(t.cells["status"]) == {"safe"}


def test_seed_tables_from_cells_match_microdata(seed_cells, seed_records):
    a = table_from_cells(seed_cells, ["P", "M"], contributions="contributions")
    b = build_table(seed_records, ["P", "M"], None, "salary")
    cols = ["P", "M", "freq", "wfreq", "value", "top1", "top2", "status"]
    pd.testing.assert_frame_equal(a.cells[cols], b.cells[cols])
    assert a.issues.empty


def test_table_from_cells_checks_given_totals(seed_cells):
    printed = [{"P": p, "M": m, "freq": SEED_FREQ_PRINTED[i][j],
                "value": SEED_VALUE_PRINTED[i][j]}
               for i, m in enumerate(M) for j, p in enumerate(P)]
    t = table_from_cells(pd.DataFrame(printed), ["P", "M"])
    assert t.issues.empty and t.info["margins_given"] == 9
    assert t.pivot("value", rows="M", cols="P").to_numpy().tolist() == SEED_VALUE_PRINTED
    # a wrong total is reported (and the computed one kept)
    printed[-1]["value"] = 8600
    t = table_from_cells(pd.DataFrame(printed), ["P", "M"])
    assert t.issues.to_dict("records") == [
        {"P": "Total", "M": "Total", "column": "value", "given": 8600.0, "computed": 8620.0}]
    assert t.cells.iloc[t.index("Total", "Total")]["value"] == 8620
    with pytest.raises(ValueError, match="inconsistent totals"):
        table_from_cells(pd.DataFrame(printed), ["P", "M"], on_inconsistency="raise")


def test_top_columns_and_missing_contributions():
    cells = pd.DataFrame({"A": ["x", "y"], "freq": [3, 1], "value": [10.0, 4.0],
                          "t1": [6.0, 4.0], "t2": [3.0, np.nan]})
    t = table_from_cells(cells, ["A"], contributions=["t1", "t2"])
    assert t.cells[["A", "top1", "top2"]].values.tolist() == [
        ["x", 6.0, 3.0], ["y", 4.0, 0.0], ["Total", 6.0, 4.0]]
    t = table_from_cells(cells, ["A"])
    assert t.top == 0 and t.values.tolist() == [10, 4, 14]


def test_hierarchy_levels_and_relations(seed_records):
    h = {"P1": "G1", "P2": "G1", "P3": "G2", "P4": "G2", "P5": "G2", "G1": "All",
         "G2": "All"}
    t = build_table(seed_records, ["P", "M"], {"P": h}, "salary")
    dim = t.dimensions[0]
    assert dim.codes == ("P1", "P2", "G1", "P3", "P4", "P5", "G2", "All")
    assert dim.depth.tolist() == [2, 2, 1, 2, 2, 2, 1, 0]
    assert dim.height.tolist() == [0, 0, 1, 0, 0, 0, 1, 2]
    v = t.pivot("value", rows="M", cols="P")
    assert v.loc["Total", "G1"] == 2522 + 2168 and v.loc["Total", "G2"] == 1117 + 1770 + 1043
    assert v.loc["Total", "All"] == 8620
    # relations: P has 3 parents x 4 M codes, M has 1 parent x 8 P codes
    assert t.relations.shape == (3 * 4 + 8, 32)
    assert np.abs(t.relations @ t.values).max() == 0
    assert t.margin_dims[t.index("G1", "Total")] == 2
    assert t.margin_dims[t.index("P1", "M1")] == 0


def test_weights_and_missing_values():
    frame = pd.DataFrame({"A": ["x", "x", "x", None, "y"], "y": [100.0, 50.0, 1.0, 5.0, np.nan],
                          "w": [2.0, 1.0, 1.5, 1.0, 1.0]})
    t = build_table(frame, ["A"], None, "y", "w", top=4)
    assert t.info == {"records": 5, "dropped_records": 2}
    row = t.cells.iloc[t.index("x")]
    # value = 2*100 + 50 + 1.5*1; a record of weight w counts as w units of its value
    assert (row["freq"], row["wfreq"], row["value"]) == (3, 4.5, 251.5)
    assert [row[f"top{k}"] for k in range(1, 5)] == [100, 100, 50, 1]


def test_frequency_table_without_response(seed_records):
    t = build_table(seed_records, ["P", "M"])
    assert t.pivot("value", rows="M", cols="P").to_numpy().tolist() == SEED_FREQ_PRINTED
    assert t.top == 2 and t.cells["top1"].max() == 0


def test_dimension_errors():
    with pytest.raises(ValueError, match="exactly one root"):
        make_dimension("A", ["a"], {"a": "T1", "b": "T2"})
    with pytest.raises(ValueError, match="not in the hierarchy"):
        make_dimension("A", ["a", "c"], {"a": "T", "b": "T"})
    with pytest.raises(ValueError, match="subtotals"):
        make_dimension("A", ["G"], {"a": "G", "G": "T"})
    with pytest.raises(ValueError, match="also a code"):
        make_dimension("A", ["Total"], None)
    with pytest.raises(ValueError, match="duplicated"):
        table_from_cells(pd.DataFrame({"A": ["a", "a"], "freq": [1, 2], "value": [1, 2]}),
                         ["A"])


@st.composite
def microdata(draw):
    ndim = draw(st.integers(1, 3))
    dims, hier = [], {}
    for d in range(ndim):
        n_leaf = draw(st.integers(1, 4))
        leaves = [f"d{d}_{k}" for k in range(n_leaf)]
        dims.append(leaves)
        if draw(st.booleans()) and n_leaf > 1:
            cut = draw(st.integers(1, n_leaf - 1))
            h = {leaf: ("G0" if k < cut else "G1") for k, leaf in enumerate(leaves)}
            h.update({"G0": "T", "G1": "T"})
            hier[f"v{d}"] = h
    n = draw(st.integers(0, 25))
    rows = draw(st.lists(st.tuples(*[st.sampled_from(leaves) for leaves in dims],
                                   st.integers(0, 100)), min_size=n, max_size=n))
    frame = pd.DataFrame(rows, columns=[f"v{d}" for d in range(ndim)] + ["y"])
    frame["y"] = frame["y"].astype(float)
    return frame, [f"v{d}" for d in range(ndim)], hier


@settings(max_examples=60, deadline=None)
@given(microdata())
def test_every_cell_is_the_sum_of_its_records(case):
    frame, dims, hier = case
    if frame.empty:
        return
    t = build_table(frame, dims, hier, "y", top=3)
    assert np.allclose(t.relations @ t.values, 0)
    assert np.allclose(t.relations @ t.cells["freq"].to_numpy(float), 0)
    # brute force: a cell holds the records whose leaf codes descend from its codes
    for k in range(t.n_cells):
        mask = np.ones(len(frame), dtype=bool)
        for d, dim in enumerate(t.dimensions):
            code = t.codes[k, d]
            leaves = [dim.codes[j] for j in range(dim.size) if dim.is_leaf[j]
                      and _descends(dim, j, code)]
            mask &= frame[dims[d]].isin(leaves).to_numpy()
        ys = sorted(frame.loc[mask, "y"], reverse=True)
        row = t.cells.iloc[k]
        assert row["freq"] == len(ys) and row["value"] == pytest.approx(sum(ys))
        assert [row["top1"], row["top2"], row["top3"]] == (ys + [0.0] * 3)[:3]


def _descends(dim, j, code):
    while j >= 0:
        if j == code:
            return True
        j = int(dim.parent[j])
    return False
