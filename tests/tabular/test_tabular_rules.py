"""Sensitivity rules (sdcflow.tabular.rules) on the seed's tables (seed
000_1eece6b9d3791e64.txt, "Detection of sensitive cells (I)" and "(II)") and the
protection levels of Hundepool et al. 2012, section 4.3."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.tabular import (
    DominanceRule,
    FrequencyRule,
    PPercentRule,
    PQRule,
    ZeroRule,
    apply_rules,
    mark_primary,
    parse_rule,
    set_protection,
    table_from_cells,
)


def flagged(table, result):
    return sorted(tuple(table.cells.iloc[k][["P", "M"]]) for k in
                  np.flatnonzero(result.sensitive))


def test_seed_dominance_1_50_flags_p5_m3(seed_table):
    # seed: "(1, 50) ... In cell (P5, M3), 5 people and one of them has a salary of 350,
    # over 363. As 350/363 > 0.5: Cell is sensitive"
    res = DominanceRule(1, 50).evaluate(seed_table)
    k = seed_table.index("P5", "M3")
    assert res.sensitive[k] and res.name == "dominance(1,50)"
    # 350 does not dominate P5's column total (350/1043); the other sensitive cells are
    # the single P3 in M2 (22 of 22) and file A's 200 of 160 + 200 in (P1, M1)
    assert not res.sensitive[seed_table.index("P5", "Total")]
    assert flagged(seed_table, res) == [("P1", "M1"), ("P3", "M2"), ("P5", "M3")]
    # protection: 100/50 * 350 - 363 = 337 (the cell would have to be 700 to pass)
    assert res.upl[k] == res.lpl[k] == 337


def test_seed_p_percent_rule_both_wordings(seed_table):
    k = seed_table.index("P5", "M3")
    # the seed's example: "363 - 350 - 4 < 0.5 * 363" (p% of the cell total, p = 50)
    seed = PPercentRule(50, reference="total").evaluate(seed_table)
    assert 363 - 350 - 4 < 0.5 * 363 and seed.sensitive[k]
    assert seed.upl[k] == pytest.approx(0.5 * 363 - 9)
    # the definition the seed states and Hundepool et al. use: p% of the largest, x1
    std = PPercentRule(50).evaluate(seed_table)
    assert 363 - 350 - 4 < 0.5 * 350 and std.sensitive[k]
    assert std.upl[k] == pytest.approx(0.5 * 350 - 9) and std.name == "p%(50)"
    # with p = 10 the cell is still sensitive (9 < 35): the 4 small earners reveal x1
    assert PPercentRule(10).evaluate(seed_table).sensitive[k]
    # a p% rule never flags a cell with contributions 450 = 15 evenly spread workers
    assert not std.sensitive[seed_table.index("P2", "M1")]


def test_seed_frequency_rule_flags_the_single_p3_in_m2(seed_table):
    # seed, external attack: "The single person working as P3 in town M2"; internal
    # attack: two contributors (P1, M1) know each other's value. freq 3: 0 < f < 3.
    res = FrequencyRule(3).evaluate(seed_table)
    assert flagged(seed_table, res) == [("P1", "M1"), ("P3", "M2")]
    k = seed_table.index("P3", "M2")
    assert res.upl[k] == pytest.approx(2.2)  # 10 % safety range of 22
    assert flagged(seed_table, FrequencyRule(2).evaluate(seed_table)) == [("P3", "M2")]


def test_pq_rule_is_p_percent_with_q_100(seed_table):
    a = PQRule(10, 100).evaluate(seed_table)
    b = PPercentRule(10).evaluate(seed_table)
    assert np.array_equal(a.sensitive, b.sensitive) and np.allclose(a.upl, b.upl)
    # q = 50 halves the intruder's prior error: p/q = 0.2 > 0.1, more cells flagged
    c = PQRule(10, 50).evaluate(seed_table)
    assert np.all(c.sensitive >= a.sensitive)


def test_zero_cells_safe_or_sensitive():
    cells = pd.DataFrame({"A": ["a", "b", "c"], "freq": [0, 4, 4], "value": [0.0, 0.0, 9.0],
                          "t1": [0.0, 0.0, 3.0], "t2": [0.0, 0.0, 3.0]})
    t = table_from_cells(cells, ["A"], contributions=["t1", "t2"])
    rules = [FrequencyRule(3), DominanceRule(2, 80), PPercentRule(10)]
    assert not apply_rules(t, rules).suppressed.any()
    z = apply_rules(t, rules + [ZeroRule(2.0)])
    assert z.status.tolist() == ["primary", "primary", "safe", "safe"]
    assert z.cells["upl"].tolist() == [2, 2, 0, 0] and z.cells["lpl"].tolist() == [0] * 4


def test_apply_rules_combines_names_and_levels(seed_table):
    t = apply_rules(seed_table, [{"freq": 3}, {"dominance": {"n": 1, "k": 50}}])
    k = seed_table.index("P3", "M2")
    row = t.cells.iloc[k]
    assert row["status"] == "primary" and row["rule"] == "freq(3),dominance(1,50)"
    # the larger level wins: dominance 100/50 * 22 - 22 = 22 > 10 % of 22
    assert row["upl"] == 22 and row["lpl"] == 22
    assert t.cells.iloc[seed_table.index("P1", "M2")]["rule"] == ""
    t2 = set_protection(t, percent=20, sliding=50)
    assert t2.cells.iloc[k][["upl", "lpl", "spl"]].tolist() == [pytest.approx(4.4),
                                                                 pytest.approx(4.4), 50]
    assert t2.cells.loc[t2.cells["status"] == "safe", "spl"].eq(0).all()
    t3 = mark_primary(seed_table, seed_table.mask([("P3", "M2")]), upl=5.0, lpl=5.0)
    assert t3.status.tolist().count("primary") == 1


def test_parse_rule_specs():
    assert parse_rule({"freq": 3}) == FrequencyRule(3)
    assert parse_rule({"dominance": [2, 85]}) == DominanceRule(2, 85)
    assert parse_rule({"p_percent": 15}) == PPercentRule(15)
    assert parse_rule({"pq": {"p": 10, "q": 40}}) == PQRule(10, 40)
    assert parse_rule({"zero": None}) == ZeroRule()
    with pytest.raises(ValueError, match="unknown rule"):
        parse_rule({"nk": 3})


def test_magnitude_rules_need_contributions(seed_table):
    cells = seed_table.cells[["P", "M", "freq", "value"]]
    no_top = table_from_cells(cells, ["P", "M"])
    with pytest.raises(ValueError, match="top contributions|largest contributions"):
        PPercentRule(10).evaluate(no_top)
    with pytest.raises(ValueError, match="needs the 3 largest"):
        DominanceRule(3, 80).evaluate(seed_table)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(1, 1000), min_size=1, max_size=8), st.floats(1, 60))
def test_protection_level_is_what_the_cell_lacks(contribs, p):
    # a sensitive cell raised by its upper protection level passes the rule exactly
    xs = sorted(contribs, reverse=True)
    cells = pd.DataFrame({"A": ["a"], "freq": [len(xs)], "value": [float(sum(xs))],
                          "c": [xs]})
    t = table_from_cells(cells, ["A"], contributions="c")
    res = PPercentRule(p).evaluate(t)
    x1, x2 = xs[0], (xs[1] if len(xs) > 1 else 0)
    assert res.sensitive[0] == (sum(xs) - x1 - x2 < p / 100 * x1)
    if res.sensitive[0]:
        raised = sum(xs) + res.upl[0]
        assert raised - x1 - x2 == pytest.approx(p / 100 * x1)
