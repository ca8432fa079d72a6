"""Accounting of the DP steps equals OpenDP's: the scales worked out by hand from the
sensitivity (a record counts once in each slice of a table: its leaf cells, each margin,
the total), the spends OpenDP's maps give for them, and the composition of the steps
under each kind of budget as OpenDP's combinators compute it independently."""

from __future__ import annotations

import math

import pytest

from sdcflow.dp.accounting import Part, calibrate, opendp
from sdcflow.dp.budget import Budget, composed


def _direct(mechanism: str, scale: float, sensitivity: int) -> float:
    """OpenDP's privacy map of its integer mechanism on a vector at L1 / L2 distance
    ``sensitivity``: an independent computation of what one slice spends."""
    dp = opendp()
    if mechanism == "laplace":
        m = dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T="i64")),
                              dp.l1_distance(T="i64"), scale)
    else:
        m = dp.m.make_gaussian(dp.vector_domain(dp.atom_domain(T="i64")),
                               dp.l2_distance(T="i64"), scale)
    return float(m.map(sensitivity))


def test_counts_of_a_two_way_table_with_margins():
    # region x sex with its two margins and the total: every record counts in 4 cells
    # (one per slice), so the L1 sensitivity is 4 and epsilon 0.5 needs scale 4 / 0.5 = 8
    cal = calibrate((Part("counts", (6, 3, 2, 1)),), "epsilon", 0.5, 1)
    assert cal.mechanism == "laplace"
    assert cal.scales == (8.0,)
    assert cal.spent == 0.5
    assert cal.spent == pytest.approx(4 * _direct("laplace", 8.0, 1))


def test_gaussian_counts_hand_worked():
    # zCDP: a slice at L2 sensitivity 1 and scale s spends 1 / (2 s^2); 4 slices spend
    # rho 0.5 at s = sqrt(4 / (2 * 0.5)) = 2
    cal = calibrate((Part("counts", (1, 1, 1, 1)),), "rho", 0.5, 1)
    assert cal.mechanism == "gaussian"
    assert cal.scales[0] == pytest.approx(2.0)
    assert cal.spent <= 0.5
    assert cal.spent == pytest.approx(4 * _direct("gaussian", cal.scales[0], 1))


def test_sums_with_clamping_and_households():
    # a table of sums: half the spend to the counts, half to the sums of values clamped
    # to [0, 100]; households of up to 3 records: d_in 3. Counts: 4 slices x 3 / 0.5 =
    # 24; sums: 4 x 3 x 100 / 0.5 = 2400
    parts = (Part("counts", (1,) * 4, share=0.5),
             Part("sums", (1,) * 4, lower=0, upper=100, share=0.5))
    cal = calibrate(parts, "epsilon", 1.0, 3)
    assert cal.scales == pytest.approx((24.0, 2400.0))
    assert cal.spent == pytest.approx(4 * _direct("laplace", 24.0, 3)
                                      + 4 * _direct("laplace", 2400.0, 300))
    assert cal.spent <= 1.0


def test_a_hierarchy_adds_slices():
    # region -> province -> Total (3 depths) x sex (2 depths): 6 slices
    from types import SimpleNamespace

    from sdcflow.methods.tabular.dp_table import table_levels

    recipe = SimpleNamespace(
        tables={"t": SimpleNamespace(dims=["region", "sex"], id="t")},
        variables={"region": SimpleNamespace(hierarchy={"province": {"a": "P"}}),
                   "sex": SimpleNamespace(hierarchy=None)})
    assert table_levels(recipe, "t") == [3, 2]
    cal = calibrate((Part("counts", (1,) * 6),), "epsilon", 1.0, 1)
    assert cal.scales[0] == pytest.approx(6.0, rel=1e-9)  # (OpenDP rounds sums up)


def test_the_map_never_exceeds_the_declared_spend():
    for eps in (0.1, 0.3, 1 / 3, 0.7, 2.9):
        for slices in (1, 3, 7):
            cal = calibrate((Part("counts", (1,) * slices),), "epsilon", eps, 1)
            assert cal.spent <= eps
            assert cal.spent == pytest.approx(eps, rel=1e-9)


def _steps(*specs):
    return {f"s{i}": calibrate((Part("counts", (1,)),), m, v, 1)
            for i, (m, v) in enumerate(specs)}


def test_pure_composition_is_opendps():
    dp = opendp()
    steps = _steps(("epsilon", 0.3), ("epsilon", 0.45))
    total = composed(Budget(epsilon=1.0), steps)
    direct = float(dp.c.make_composition([c.measurement for c in steps.values()]).map(1))
    assert total == {"epsilon": direct, "over": False}
    assert direct == pytest.approx(0.75)
    assert composed(Budget(epsilon=0.7), steps)["over"]


def test_zcdp_composition_converts_epsilon_steps_and_states_epsilon_delta():
    dp = opendp()
    steps = _steps(("epsilon", 1.0), ("rho", 0.25))
    total = composed(Budget(rho=1.0, delta=1e-6), steps)
    # epsilon 1 is rho 1/2 (Bun & Steinke 2016, Proposition 1.4): 0.5 + 0.25
    assert total["rho"] == pytest.approx(0.75)
    zc = dp.c.make_composition([steps["s1"].measurement,
                                dp.c.make_pureDP_to_zCDP(steps["s0"].measurement)])
    assert total["rho"] == float(zc.map(1))
    assert total["epsilon"] == float(dp.c.make_zCDP_to_approxDP(zc).map(1).epsilon(1e-6))
    # and the conversion is no better than rho + 2 sqrt(rho ln(1/delta)) (ibid. 1.3)
    assert total["epsilon"] <= 0.75 + 2 * math.sqrt(0.75 * math.log(1e6))
    assert not total["over"]


def test_approximate_composition_adds_pure_and_converted_zcdp():
    dp = opendp()
    steps = _steps(("epsilon", 0.5), ("rho", 0.02))
    total = composed(Budget(epsilon=2.0, delta=1e-5), steps)
    z = dp.c.make_zCDP_to_approxDP(steps["s1"].measurement).map(1).epsilon(1e-5)
    assert total["delta"] == 1e-5
    assert total["epsilon"] == pytest.approx(0.5 + z, rel=1e-12)
    assert not total["over"]
    assert composed(Budget(epsilon=0.5 + z / 2, delta=1e-5), steps)["over"]
