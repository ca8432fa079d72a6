"""The SDC score of seed 000's rank swapping example ("Rank swapping: Example II" and
"Example VI"): IL = 39.22, DLD = 17.5, PLD = 0, ID = 44.81, DR = 0.25 DLD + 0.25 PLD +
0.5 ID = 26.78, Score = (IL + DR) / 2 = 33; with RS-RL (42.5): DR = 0.5 RS-RL + 0.5 ID =
43.655, Score = 41.44. The combination (the score measure) reproduces every printed
figure from the printed components; the components themselves are computed on the
example's files, and where they differ this file shows why the printed ones cannot be
derived from those files (as tests/measures/linkage/test_record_linkage_measure.py does
for DLD)."""

import numpy as np
import pytest
from helpers import small_dataset

from sdcflow.plugins import registry

# seed 000, "Rank swapping: Example I": original and protected file (p = 2)
SEED_X = [[8, 9, 1, 3], [6, 7, 10, 2], [10, 3, 4, 1], [7, 1, 2, 6], [9, 4, 6, 4],
          [2, 2, 8, 8], [1, 10, 3, 9], [4, 8, 7, 10], [5, 5, 5, 5], [3, 6, 9, 7]]
SEED_Y = [[10, 10, 3, 5], [5, 5, 8, 1], [8, 4, 2, 2], [9, 2, 4, 4], [7, 3, 5, 6],
          [4, 1, 10, 10], [3, 9, 1, 7], [2, 6, 9, 8], [6, 7, 6, 3], [1, 8, 7, 9]]


def dataset(rows):
    return small_dataset(**{f"V{j + 1}": ("numeric", "integer", list(col))
                            for j, col in enumerate(zip(*rows, strict=True))})


def measure(name, **params):
    plugin = registry.get(name)
    original, protected = dataset(SEED_X), dataset(SEED_Y)
    return plugin.evaluate(protected, registry.with_defaults(plugin.params, params), None,
                           original=original).summary


def score(il, dr, results):
    plugin = registry.get("score")
    params = registry.with_defaults(plugin.params, {"il": il, "dr": dr})
    return plugin.evaluate(None, params, None, original=None, results=results).summary


PRINTED = {"loss": {"composite": 39.22}, "dld": {"percent": 17.5}, "pld": {"percent": 0.0},
           "id": {"percent": 44.81}, "rsrl": {"percent": 42.5}}


def test_the_printed_dr_and_scores_follow_from_the_printed_components():
    # Example II / VI: 0.25 * 17.5 + 0.25 * 0 + 0.5 * 44.81 = 26.78; (39.22 + 26.78) / 2
    # = 33.0
    generic = score("loss.composite", "0.25 * dld.percent + 0.25 * pld.percent + "
                    "0.5 * id.percent", PRINTED)
    assert generic["dr"] == pytest.approx(26.78, abs=1e-9)
    assert generic["score"] == pytest.approx(33.0, abs=1e-9)
    # Example VI with RS-RL: 0.5 * 42.5 + 0.5 * 44.81 = 43.655; (39.22 + 43.655) / 2 =
    # 41.4375, printed rounded as 41.44
    specific = score("loss.composite", "0.5 * rsrl.percent + 0.5 * id.percent", PRINTED)
    assert specific["dr"] == pytest.approx(43.655, abs=1e-9)
    assert specific["score"] == pytest.approx(41.4375, abs=1e-9)
    assert round(specific["score"], 2) == 41.44


def test_interval_disclosure_on_the_example_cannot_be_44_81():
    # Both files hold each variable's values 1..10 once, so the rank of a value is the
    # value and the rank distance of every masked value to its original is |x' - x|:
    # 12 values at distance 1 and 28 at distance 2 (rank swapping with p = 2).
    distance = np.abs(np.array(SEED_X) - np.array(SEED_Y))
    assert np.bincount(distance.ravel()).tolist() == [0, 12, 28]
    # Any rank interval discloses, for one p, 0, the 12 values at distance 1 or all 40:
    # 0, 30 or 100 %. Averaged over K values of p, ID = (30 a + 100 b) / K for a, b
    # counts of p values. The printed 44.81 (44.805 .. 44.815) needs K = 27, 52, 54, 77
    # ...: not K = 10 (p = 1 .. 10 %, the published ID) nor K = 100 (p = 1 .. 100 %).
    def reachable(k):
        return any(abs((30 * a + 100 * b) / k - 44.81) <= 0.005
                   for a in range(k + 1) for b in range(k + 1 - a))

    assert [k for k in range(1, 60) if reachable(k)] == [27, 52, 54]
    # the measure, as published (rank intervals, p = 1 .. 10 % of the 10 records: ranks
    # differing by less than one, the protected value alone), discloses nothing here
    published = measure("interval_disclosure", kind="rank", p=list(range(1, 11)))
    assert published["percent"] == 0.0
    # wider intervals: 20 % (less than 2 ranks: one each side) gets the 12 values at
    # distance 1, 30 % (two each side) all: the average over 10, 20, 30, 40 is
    # (0 + 30 + 100 + 100) / 4 = 57.5
    wide = measure("interval_disclosure", kind="rank", p=[10, 20, 30, 40])
    assert [wide["by_p"][k]["percent"] for k in ("10", "20", "30", "40")] == [0, 30, 100, 100]
    assert wide["percent"] == 57.5 and wide["disclosed"] == 23.0


def test_composite_information_loss_on_the_example():
    # Domingo-Ferrer & Torra 2001: 100 * (X.mv + V.mv + S.mv + R.mae + RF.mae) / 5. By
    # hand from the definitions (the seed's table): X.mv the mean of |x - x'| / x over
    # the 40 cells; rank swapping permutes each column, so the variances are unchanged
    # (S.mv = 0) and V changes only off the diagonal; R.mae over the 6 pairs i < j.
    x, y = np.array(SEED_X, float), np.array(SEED_Y, float)
    x_mv = np.mean(np.abs(x - y) / x)
    vx, vy = np.cov(x.T), np.cov(y.T)
    iu, iu1 = np.triu_indices(4), np.triu_indices(4, 1)
    v_mv = np.mean(np.abs(vx[iu] - vy[iu]) / np.abs(vx[iu]))
    r_mae = np.mean(np.abs(np.corrcoef(x.T)[iu1] - np.corrcoef(y.T)[iu1]))
    loss = measure("information_loss")
    terms = loss["composite_terms"]
    assert terms["X_mv"] == pytest.approx(x_mv) and terms["V_mv"] == pytest.approx(v_mv)
    assert terms["S_mv"] == 0.0 and terms["R_mae"] == pytest.approx(r_mae)
    assert loss["composite"] == pytest.approx(100 * (x_mv + v_mv + r_mae + terms["RF_mae"]) / 5)
    # 35.65, not the printed 39.22: the document gives no breakdown of its IL, so where
    # the difference lies cannot be told (RF depends on PCA conventions the slides do not
    # state); X, V, S and R alone give 34.26, so 39.22 would need RF.mae = 0.25, more than
    # the RF divergence here, weighted by the eigenvalue shares (0.069) or not (0.24)
    assert loss["composite"] == pytest.approx(35.648, abs=1e-3)
    assert 100 * (x_mv + v_mv + r_mae) / 5 == pytest.approx(34.26, abs=1e-2)


def test_score_of_the_example_with_the_computed_components():
    # the same formulas on what sdcflow computes: DLD 33.75 (Euclidean DBRL, see the
    # record_linkage tests), PLD 0, ID 0 (p = 1 .. 10 %), IL 35.648; RS-RL 40 (linked)
    results = {
        "loss": measure("information_loss"),
        "dld": measure("record_linkage", method="distance", scenarios="prefixes"),
        "pld": measure("record_linkage", method="probabilistic", scenarios="prefixes",
                       tolerance=0.1),
        "id": measure("interval_disclosure", kind="rank", p=list(range(1, 11))),
        "rsrl": measure("rank_swap_attack", p=2, p_unit="records", scenarios="prefixes"),
    }
    generic = score("loss.composite", "0.25 * dld.percent + 0.25 * pld.percent + "
                    "0.5 * id.percent", results)
    assert generic["dr"] == pytest.approx(0.25 * 33.75)
    assert generic["score"] == pytest.approx((35.648 + 8.4375) / 2, abs=1e-3)
    specific = score("loss.composite", "0.5 * rsrl.percent + 0.5 * id.percent",
                     results)
    assert specific["dr"] == pytest.approx(20.0)

