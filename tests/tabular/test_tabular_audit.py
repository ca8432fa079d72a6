"""Audit of suppression patterns (sdcflow.tabular.audit): the intervals an intruder
derives by LP (Fischetti & Salazar-Gonzalez 2001's attacker problem) on the seed's
figure (seed 000_1eece6b9d3791e64.txt, "Primary suppression (PS) and Secondary
Suppression (SS)") and exact/certified agreement."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.data.text import TEXT
from sdcflow.tabular import (
    FrequencyRule,
    apply_rules,
    audit,
    intruder_bounds,
    mark_primary,
    table_from_cells,
)

SEED_SS = [("P3", "M1"), ("P5", "M1"), ("P5", "M2")]


def with_secondary(table, cells):
    out = table.cells.copy()
    for c in cells:
        out.loc[table.index(*c), "status"] = "secondary"
    return table.with_cells(out)


def intervals(result):
    rep = result.report
    return {(r.P, r.M): (r.lower, r.upper) for r in rep.itertuples()}


def test_seed_figure_intervals(seed_table):
    # primary (P3, M2) by freq(2) (10 % protection = 2.2), secondaries as in the seed
    t = with_secondary(apply_rules(seed_table, [FrequencyRule(2)]), SEED_SS)
    res = audit(t, mode="exact")
    # the rectangle moves by t: +t on (P3,M2), (P5,M1); -t on (P3,M1), (P5,M2); the
    # intruder knows values >= 0, so -22 <= t <= min(720, 320) = 320
    assert intervals(res) == {("P3", "M1"): (400, 742), ("P3", "M2"): (0, 342),
                              ("P5", "M1"): (338, 680), ("P5", "M2"): (0, 342)}
    assert res.passed and res.report["protected"].all()
    assert not res.report["recomputable"].any()
    assert res.info["components"] == 1 and res.n_lp == 8


def test_primary_alone_is_recomputed(seed_table):
    # seed's external attack: published margins give back the single P3 in M2's 22
    t = apply_rules(seed_table, [FrequencyRule(2)])
    res = audit(t)
    assert intervals(res) == {("P3", "M2"): (22, 22)}
    assert not res.passed and res.report["recomputable"].all() and res.n_lp == 0


def test_protection_levels_and_capping(seed_table):
    p = seed_table.mask([("P3", "M2")])
    # upward 400 is more than the rectangle gives (320); downward 30 is capped at 22
    t = with_secondary(mark_primary(seed_table, p, upl=400.0, lpl=30.0), SEED_SS)
    row = audit(t).report.set_index(["P", "M"]).loc[("P3", "M2")]
    assert not row["protected"] and row["capped"] and row["lpl"] == 22
    t = with_secondary(mark_primary(seed_table, p, upl=320.0, lpl=30.0, spl=342.0), SEED_SS)
    assert audit(t).passed
    t = with_secondary(mark_primary(seed_table, p, spl=343.0), SEED_SS)
    assert not audit(t).passed


def test_a_priori_bounds(seed_table):
    t = with_secondary(mark_primary(seed_table, seed_table.mask([("P3", "M2")]),
                                    upl=5.0, lpl=5.0), SEED_SS)
    # the intruder knows every cell within 50 %: (P3,M2) in [11, 33] moves t in
    # [-11, 11] (its own bounds bind first)
    res = audit(t, percent=50)
    assert intervals(res)[("P3", "M2")] == pytest.approx((11, 33))
    assert res.passed
    _, ub = intruder_bounds(t, upper=t.values + 3)
    assert audit(t, upper=ub).report.set_index(["P", "M"]).loc[("P3", "M2"), "upper"] == 25
    with pytest.raises(ValueError, match="contain the cell values"):
        audit(t, lower=100.0)


def test_hierarchical_subtotal_is_recomputed():
    # A = T > {G1 > a, b ; G2 > c}: suppressing a and b hides G1 only from A's side
    cells = pd.DataFrame({"A": ["a", "b", "c"], "freq": [1, 5, 5], "value": [3.0, 7.0, 9.0]})
    h = {"a": "G1", "b": "G1", "c": "G2", "G1": "T", "G2": "T"}
    t = table_from_cells(cells, ["A"], {"A": h})
    t = mark_primary(t, t.mask([("a",)]), upl=1.0, lpl=1.0)
    t = with_secondary_1d(t, ["b"])
    res = audit(t)
    # G1 = 10 is published: a + b = 10 with a, b >= 0
    assert res.report[["A", "lower", "upper"]].values.tolist() == [["a", 0, 10],
                                                                  ["b", 0, 10]]
    assert res.passed


def with_secondary_1d(table, codes):
    out = table.cells.copy()
    for c in codes:
        out.loc[table.index(c), "status"] = "secondary"
    return table.with_cells(out)


@st.composite
def patterns(draw):
    r, c = draw(st.integers(2, 4)), draw(st.integers(2, 4))
    vals = draw(st.lists(st.integers(0, 40), min_size=r * c, max_size=r * c))
    cells = pd.DataFrame({"A": [f"a{i // c}" for i in range(r * c)],
                          "B": [f"b{i % c}" for i in range(r * c)],
                          "freq": [1] * (r * c), "value": np.array(vals, dtype=float)})
    t = table_from_cells(cells, ["A", "B"])
    n = t.n_cells
    prim = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=3, unique=True))
    sec = draw(st.lists(st.integers(0, n - 1), max_size=8, unique=True))
    level = draw(st.integers(0, 10))
    mask = np.zeros(n, dtype=bool)
    mask[prim] = True
    t = mark_primary(t, mask, upl=float(level), lpl=float(level))
    status = t.cells["status"].to_numpy(dtype=object)
    status[[s for s in sec if not mask[s]]] = "secondary"
    out = t.cells.copy()
    out["status"] = pd.Series(status, dtype=TEXT)
    return t.with_cells(out)


@settings(max_examples=40, deadline=None)
@given(patterns())
def test_certified_audit_agrees_with_exact(t):
    exact = audit(t, mode="exact")
    cert = audit(t, mode="certify")
    assert exact.passed == cert.passed
    assert exact.report["protected"].tolist() == cert.report["protected"].tolist()
    assert exact.report["recomputable"].tolist() == cert.report["recomputable"].tolist()
    # certified intervals lie inside the exact ones, equal where flagged exact
    tol = 1e-6
    assert (cert.report["lower"] >= exact.report["lower"] - tol).all()
    assert (cert.report["upper"] <= exact.report["upper"] + tol).all()
    ex = cert.report["exact"].to_numpy()
    assert np.allclose(cert.report["lower"][ex], exact.report["lower"][ex])
