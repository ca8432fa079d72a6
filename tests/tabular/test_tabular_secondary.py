"""Secondary suppression (sdcflow.tabular.secondary): the seed's example (seed
000_1eece6b9d3791e64.txt, "Primary suppression (PS) and Secondary Suppression (SS)"),
optimality against brute force, and every pattern passing the audit."""

import json
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sdcflow.tabular import (
    FrequencyRule,
    apply_rules,
    audit,
    cell_costs,
    intruder_bounds,
    mark_primary,
    requirements,
    secondary_suppression,
    suppress_hypercube,
    suppress_optimal,
    table_from_cells,
)
from sdcflow.tabular.audit import AttackerModel, check_cell
from sdcflow.tabular.cuts import capacity_cut, dual_vector
from sdcflow.tabular.hierarchy import relations
from sdcflow.tabular.modular import subtables

# the seed's figure: PS at (P3, M2), SS at (P3, M1), (P5, M1), (P5, M2)
SEED_SS = {("P3", "M1"), ("P5", "M1"), ("P5", "M2")}


def secondaries(result):
    t = result.table
    return {tuple(t.cells.iloc[k][t.dims]) for k in np.flatnonzero(t.status == "secondary")}


@pytest.fixture
def seed_primary(seed_table):
    # the seed's primary: the single P3 in M2 (frequency 1)
    t = apply_rules(seed_table, [FrequencyRule(2)])
    assert t.status.tolist().count("primary") == 1
    return t


def test_seed_optimal_unit_cost_is_a_rectangle_like_the_seed(seed_primary):
    # a 4-cell rectangle (PS + 3 SS) is the minimum; the seed's figure, the rectangle
    # (P3, P5) x (M1, M2), is one of the 4 x 2 such rectangles through (P3, M2) inside
    # the inner cells; ties go to cell order: (P1, P3) x (M1, M2)
    res = suppress_optimal(seed_primary, cost="unit")
    assert res.info["secondary"] == 3 and res.info["cost"] == 3 and res.info["optimal"]
    assert secondaries(res) == {("P1", "M1"), ("P1", "M2"), ("P3", "M1")}
    assert res.audit.passed and res.info["audit_passed"]
    # same cost as the seed's figure, which passes the audit as well
    seed = seed_primary.cells.copy()
    for c in SEED_SS:
        seed.loc[seed_primary.index(*c), "status"] = "secondary"
    assert audit(seed_primary.with_cells(seed)).passed
    assert res.info["cost"] == cell_costs(seed_primary)[[seed_primary.index(*c)
                                                         for c in SEED_SS]].sum()
    # without the tie-break HiGHS picks another (deterministic) rectangle of cost 3
    free = suppress_optimal(seed_primary, cost="unit", tie_break=False)
    cells = secondaries(free) | {("P3", "M2")}
    assert free.info["cost"] == 3 and free.audit.passed
    assert len({c[0] for c in cells}) == 2 and len({c[1] for c in cells}) == 2


def test_published_table_hides_suppressed_cells(seed_primary):
    res = suppress_optimal(seed_primary, cost="value")
    pub = res.table.published().set_index(["P", "M"])
    assert np.isnan(pub.loc[("P3", "M2"), "value"]) and np.isnan(pub.loc[("P3", "M2"), "freq"])
    assert pub["value"].isna().sum() == 4 and pub.loc[("P1", "M1"), "value"] == 360


def test_seed_figure_cost_versus_optimal_under_other_costs(seed_primary):
    seed_idx = [seed_primary.index(*c) for c in SEED_SS]
    for cost, expected_cells, expected in (
            # frequency: 15 + 10 + 5 contributors, + 1 each; the seed's 30 + 10 + 10 + 3
            ("frequency", {("P3", "M3"), ("P5", "M2"), ("P5", "M3")}, 33.0),
            # value: 375 + 320 + 363 (+ 3); the seed's 720 + 360 + 320 + 3 = 1403
            ("value", {("P3", "M3"), ("P5", "M2"), ("P5", "M3")}, 1061.0)):
        res = suppress_optimal(seed_primary, cost=cost)
        assert secondaries(res) == expected_cells and res.info["cost"] == expected
        assert res.info["cost"] <= cell_costs(seed_primary, cost)[seed_idx].sum()
        assert res.audit.passed


def test_seed_hypercube(seed_primary):
    res = suppress_hypercube(seed_primary, cost="unit")
    # the first cheapest square in cell order: P1 x M1 with P3 x M2
    assert secondaries(res) == {("P1", "M1"), ("P1", "M2"), ("P3", "M1")}
    assert res.audit.passed and res.info["repair_added"] == 0
    res = secondary_suppression(seed_primary, "heuristic", cost="value")
    assert res.info["cost"] == 1061 and res.audit.passed


def test_margin_cost_keeps_totals_published(seed_primary):
    for method in ("optimal", "hypercube"):
        res = secondary_suppression(seed_primary, method, cost="unit", margin_cost=10)
        assert all("Total" not in c for c in secondaries(res))


def test_time_limit_falls_back_on_repair(seed_primary):
    res = suppress_optimal(seed_primary, time_limit=0.0)
    assert not res.info["optimal"] and res.audit.passed and res.info["repair_added"] >= 3


def test_sliding_protection(seed_primary):
    t = mark_primary(seed_primary, seed_primary.status == "primary", upl=0.0, lpl=0.0,
                     spl=1000.0)
    # a width of 1000 needs a rectangle whose smaller minus-corner is >= 978
    res = suppress_optimal(t, cost="unit")
    row = res.audit.report.set_index(["P", "M"]).loc[("P3", "M2")]
    assert row["upper"] - row["lower"] >= 1000 and res.audit.passed
    assert suppress_hypercube(t).audit.passed


# ------------------------------------------------------------------ random tables


@st.composite
def tables(draw, max_leaves=3, allow_3d=True, hierarchy=None, min_dims=2):
    ndim = draw(st.integers(min_dims, 3 if allow_3d else 2))
    dims, hier = [], {}
    for d in range(ndim):
        n = draw(st.integers(2, max_leaves if ndim == 2 else 2))
        leaves = [f"x{d}{k}" for k in range(n)]
        dims.append(leaves)
        if hierarchy and (ndim == 2 or d == 0):
            n = max(n, 3)
            leaves = [f"x{d}{k}" for k in range(n)]
            dims[-1] = leaves
        if (ndim == 2 or d == 0) and n >= 3 and (
                hierarchy or (hierarchy is None and draw(st.booleans()))):
            hier[f"v{d}"] = {**{leaf: ("G0" if k < 2 else "G1") for k, leaf in
                                enumerate(leaves)}, "G0": "T", "G1": "T"}
    grid = np.array(np.meshgrid(*[np.arange(len(x)) for x in dims], indexing="ij"))
    grid = grid.reshape(ndim, -1).T
    vals = draw(st.lists(st.integers(0, 30), min_size=len(grid), max_size=len(grid)))
    cells = pd.DataFrame({f"v{d}": [dims[d][g[d]] for g in grid] for d in range(ndim)})
    cells["freq"] = 1
    cells["value"] = np.array(vals, dtype=float)
    t = table_from_cells(cells, [f"v{d}" for d in range(ndim)], hier)
    prim = draw(st.lists(st.integers(0, t.n_cells - 1), min_size=1, max_size=3, unique=True))
    mask = np.zeros(t.n_cells, dtype=bool)
    mask[prim] = True
    pct = draw(st.sampled_from([0.0, 10.0, 50.0]))
    level = np.maximum(pct / 100 * t.values, 1.0)
    return mark_primary(t, mask, upl=level, lpl=level)


def _check_methods(t, cost):
    opt = suppress_optimal(t, cost=cost)
    cube = suppress_hypercube(t, cost=cost)
    for res in (opt, cube):
        # small tables: the result's audit is exact (two LPs per suppressed cell)
        assert res.audit.info["mode"] == "exact" and res.audit.passed
        assert ((res.table.status == "primary") == (t.status == "primary")).all()
    # the cut loop reaches the optimum, never worse than the heuristic
    assert opt.info["optimal"]
    assert opt.info["cost"] <= cube.info["cost"] + 1e-6
    return opt, cube


COSTS = st.sampled_from(["unit", "frequency", "value"])


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(hierarchy=False, allow_3d=False), COSTS)
def test_patterns_pass_the_audit_2d(t, cost):
    _check_methods(t, cost)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(hierarchy=True, allow_3d=False), COSTS)
def test_patterns_pass_the_audit_2d_hierarchy(t, cost):
    _check_methods(t, cost)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(hierarchy=False, allow_3d=True, min_dims=3), COSTS)
def test_patterns_pass_the_audit_3d(t, cost):
    _, cube = _check_methods(t, cost)
    # deterministic: the same input gives the same pattern
    assert (suppress_hypercube(t, cost=cost).table.status == cube.table.status).all()


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(hierarchy=True, allow_3d=True, min_dims=3), COSTS)
def test_hypercube_3d_hierarchy_passes_the_audit(t, cost):
    # 3-D with a hierarchy in the first dimension: the subtables' hypercubes do not
    # always protect the whole table, the audit-and-repair step must finish the job
    res = suppress_hypercube(t, cost=cost)
    assert res.audit.passed and audit(res.table, mode="certify").passed
    json.dumps(res.info)
    json.dumps(res.audit.info)


def _brute_force_min(t):
    """Fewest secondary cells protecting every primary (unit cost), enumerating patterns
    by size; patterns where a relation holds exactly one suppressed cell are skipped (that
    cell would be recomputed, so removing it keeps the protection: not minimal)."""
    lb, ub = intruder_bounds(t)
    upl, lpl, spl, _ = requirements(t, lb, ub)
    a = t.values
    prim = np.flatnonzero(t.status == "primary")
    others = np.flatnonzero(t.status != "primary")
    absm = abs(t.relations)
    for k in range(len(others) + 1):
        for combo in combinations(others, k):
            pat = np.zeros(t.n_cells, dtype=bool)
            pat[prim] = True
            pat[list(combo)] = True
            if np.any(np.rint(absm @ pat.astype(float)) == 1):
                continue
            m = AttackerModel(t.relations, a, lb, ub, pat)
            if all(check_cell(a[i], *m.interval(int(i)), upl[i], lpl[i], spl[i])
                   for i in prim):
                return k
    raise AssertionError("no protecting pattern")


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(max_leaves=3, allow_3d=False, hierarchy=False))
def test_optimal_matches_brute_force(t):
    if t.n_cells > 16:
        return
    res = suppress_optimal(t, cost="unit")
    assert res.info["secondary"] == _brute_force_min(t)


def _brute_force_cost(t, costs):
    """Least cost of a protecting pattern, over every pattern without a cell alone in a
    relation (such a cell is recomputed: dropping it keeps the protection, at no more
    cost)."""
    lb, ub = intruder_bounds(t)
    upl, lpl, spl, _ = requirements(t, lb, ub)
    a = t.values
    prim = np.flatnonzero(t.status == "primary")
    others = np.flatnonzero(t.status != "primary")
    absm = abs(t.relations)
    best = np.inf
    for k in range(len(others) + 1):
        for combo in combinations(others, k):
            c = costs[list(combo)].sum()
            if c >= best:
                continue
            pat = np.zeros(t.n_cells, dtype=bool)
            pat[prim] = True
            pat[list(combo)] = True
            if np.any(np.rint(absm @ pat.astype(float)) == 1):
                continue
            m = AttackerModel(t.relations, a, lb, ub, pat)
            if all(check_cell(a[i], *m.interval(int(i)), upl[i], lpl[i], spl[i])
                   for i in prim):
                best = c
    return best


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(max_leaves=3, allow_3d=False, hierarchy=False))
def test_optimal_cost_matches_brute_force(t):
    # value costs (no perturbation, reduced-cost fixing on real numbers): the cut loop
    # with its repaired incumbents and fixed-out cells still finds the least cost
    if t.n_cells > 12:
        return
    costs = cell_costs(t, "value")
    res = suppress_optimal(t, cost="value")
    assert res.info["optimal"] and res.info["gap"] == 0
    assert res.info["cost"] == pytest.approx(_brute_force_cost(t, costs))


def test_time_limit_returns_the_best_protecting_pattern_with_its_gap():
    # a 3-D table whose first master does not protect: cut off after one round, the
    # answer is the cheapest repaired pattern met, its cost within [lower bound, ...]
    rng = np.random.default_rng(5)
    cells = pd.DataFrame([(f"a{i}", f"b{j}", f"c{k}") for i in range(4) for j in range(4)
                          for k in range(4)], columns=["A", "B", "C"])
    cells["freq"] = 1
    cells["value"] = rng.integers(1, 50, len(cells)).astype(float)
    t = table_from_cells(cells, ["A", "B", "C"])
    t = mark_primary(t, np.isin(np.arange(t.n_cells), [0, 31, 62]), upl=5.0, lpl=5.0)
    full = suppress_optimal(t, cost="value")
    assert full.info["optimal"] and full.info["gap"] == 0
    assert full.info["lower_bound"] == pytest.approx(full.info["cost"])
    cut = suppress_optimal(t, cost="value", max_rounds=1, tie_break=False)
    assert cut.audit.passed and not cut.info["optimal"]
    # the optimum lies between the first master's bound and the pattern returned
    assert cut.info["lower_bound"] <= full.info["cost"] <= cut.info["cost"]
    assert cut.info["gap"] == pytest.approx(
        (cut.info["cost"] - cut.info["lower_bound"]) / cut.info["cost"])


@settings(max_examples=40, deadline=None)
@given(tables(), st.data())
def test_capacity_cut_is_tight_and_valid(t, data):
    # LP duality: the cut from the duals equals the LP optimum at its own pattern and
    # bounds it from above at every other pattern (so it never cuts off a protection)
    n = t.n_cells
    a = t.values
    lb, ub = intruder_bounds(t, upper=2 * t.values + 5)
    pat = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    i = data.draw(st.integers(0, n - 1))
    pat[i] = True
    model = AttackerModel(t.relations, a, lb, ub, pat, presolve=False)
    rel_t = t.relations.T.tocsr()
    for sense in (1, -1):
        sol = model.solve(i, sense)
        if sol.duals is None:
            continue
        idx, coef = capacity_cut(dual_vector(rel_t, sol, i, sense, n), ub - a, a - lb,
                                  np.inf)
        assert coef[pat[idx]].sum() == pytest.approx(sol.value, rel=1e-6, abs=1e-6)
        other = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
        other[i] = True
        value = AttackerModel(t.relations, a, lb, ub, other, presolve=False).solve(i, sense)
        assert value.value <= coef[other[idx]].sum() + 1e-6 * max(1.0, value.value)


# ------------------------------------------------------------------ modular (subtables)


def _hierarchical_3d(seed=3, primaries=(0, 9, 40, 77, 123)):
    """A x B x C, each Total > {G0 > x0, x1 ; G1 > x2, x3} (7 codes): 343 cells."""
    rng = np.random.default_rng(seed)
    leaves = [f"x{k}" for k in range(4)]
    h = {"x0": "G0", "x1": "G0", "x2": "G1", "x3": "G1", "G0": "T", "G1": "T"}
    cells = pd.DataFrame([(a, b, c) for a in leaves for b in leaves for c in leaves],
                         columns=["A", "B", "C"])
    cells["freq"] = 1
    cells["value"] = rng.integers(1, 40, len(cells)).astype(float)
    t = table_from_cells(cells, ["A", "B", "C"], {"A": h, "B": h, "C": h})
    mask = np.zeros(t.n_cells, dtype=bool)
    mask[list(primaries)] = True
    return mark_primary(t, mask, upl=np.maximum(0.2 * t.values, 1.0),
                        lpl=np.maximum(0.2 * t.values, 1.0))


def test_subtables_cover_the_table_with_its_own_relations():
    t = _hierarchical_3d()
    subs = subtables(t)
    # per dimension 3 groups (T with G0, G1; G0 with x0, x1; G1 with x2, x3): 27
    assert len(subs) == 27
    covered = np.zeros(t.n_cells, dtype=bool)
    rel = {tuple(sorted(r.indices)) for r in t.relations}
    for ids, dims in subs:
        covered[ids] = True
        assert [d.size for d in dims] == [3, 3, 3] and dims[0].codes[-1] in ("T", "G0", "G1")
        # every relation of a subtable is one of the table's (its cells, mapped back)
        for r in relations(dims):
            assert tuple(sorted(ids[r.indices])) in rel
    assert covered.all()
    # the top subtable (T x T x T groups) comes first
    assert subs[0][1][0].codes == ("G0", "G1", "T")


def test_modular_protects_and_costs_no_less_than_the_optimum():
    t = _hierarchical_3d()
    whole = suppress_optimal(t, cost="value", decompose=False)
    mod = suppress_optimal(t, cost="value", decompose=True)
    assert whole.info["optimal"] and not mod.info["optimal"] and mod.info["decomposed"]
    assert mod.audit.passed and audit(mod.table, mode="exact").passed
    assert mod.info["cost"] >= whole.info["cost"] - 1e-9
    assert ((mod.table.status == "primary") == (t.status == "primary")).all()
    again = suppress_optimal(t, cost="value", decompose=True)
    assert (again.table.status == mod.table.status).all()
    # small tables are searched whole unless told otherwise
    assert "decomposed" not in suppress_optimal(t, cost="value").info


def test_a_master_stopped_by_the_time_limit_does_not_replace_a_cheaper_pattern(monkeypatch):
    # HiGHS stopped by a time limit returns whatever it has, here every cell suppressed:
    # that protects, but the cheapest protecting pattern met before must be returned
    import sdcflow.tabular.optimal as optimal_module

    t = _hierarchical_3d()
    real = optimal_module.milp
    calls = []

    def stopped_second_time(c, **kw):
        calls.append(1)
        res = real(c, **kw)
        if len(calls) == 2:
            res.status, res.x = 1, np.ones(len(c))
        return res

    monkeypatch.setattr(optimal_module, "milp", stopped_second_time)
    res = suppress_optimal(t, cost="value", decompose=False)
    assert not res.info["optimal"] and res.audit.passed
    assert res.info["suppressed"] < t.n_cells
    assert res.info["cost"] >= res.info["lower_bound"]
