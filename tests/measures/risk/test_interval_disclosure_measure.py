"""interval_disclosure measure (seed 003, interval disclosure; seed 000, ID)."""

import numpy as np
import pytest
from helpers import small_dataset

from sdcflow import registry, run
from sdcflow.testing import check_method

PLUGIN = registry.get("interval_disclosure")


def evaluate(data, original, **params):
    params = registry.with_defaults(PLUGIN.params, params)
    return PLUGIN.evaluate(data, params, np.random.default_rng(0), original=original)


def test_hand_computed_values():
    original = small_dataset(a=("numeric", "continuous", [100.0, 200.0, 0.0, 50.0]),
                             b=("numeric", "integer", [10, 20, 30, None]))
    protected = small_dataset(a=("numeric", "continuous", [105.0, 230.0, 0.0, None]),
                              b=("numeric", "integer", [10, 23, 28, 5]))
    result = evaluate(protected, original)
    s = result.summary
    # a: 105 within 10 of 100 (yes), 230 within 20 of 200 (no), 0 = 0 (yes), suppressed
    # (no): 2 of 4. b: 10 = 10 (yes), 23 within 2 of 20 (no), 28 within 3 of 30 (yes),
    # original missing (not counted): 2 of 3
    assert s["per_variable"] == {"a": 50.0, "b": pytest.approx(200 / 3, abs=1e-5)}
    assert s["disclosed"] == 4 and s["values"] == 7
    assert s["percent"] == pytest.approx(400 / 7, abs=1e-5)
    assert result.per_record["a"].tolist() == [True, False, True, False]
    assert result.per_record["values_disclosed"].tolist() == [2, 0, 2, 0]
    # with p = 20 the 230 (within 40 of 200) counts too
    assert evaluate(protected, original, p=20).summary["per_variable"]["a"] == 75.0


def test_rank_kind():
    values = [float(v) for v in range(1, 21)]
    original = small_dataset(x=("numeric", "continuous", values))
    moved = list(values)
    moved[0], moved[1] = moved[1], moved[0]      # ranks 0 and 1 exchanged: distance 1
    moved[10], moved[13] = moved[13], moved[10]  # ranks 10 and 13 exchanged: distance 3
    protected = small_dataset(x=("numeric", "continuous", moved))
    # p = 10 of 20 records: an interval of 2 ranks, 1 each side of the original's rank
    result = evaluate(protected, original, kind="rank", p=10)
    assert result.summary["disclosed"] == 18
    # p = 30: 3 ranks each side
    assert evaluate(protected, original, kind="rank", p=30).summary["disclosed"] == 20


def test_identical_files_disclose_everything():
    data = small_dataset(x=("numeric", "continuous", [1.0, -2.0, 3.5]))
    assert evaluate(data, data).summary["percent"] == 100.0


def test_refuses_different_records():
    a = small_dataset(x=("numeric", "continuous", [1.0, 2.0]))
    b = small_dataset(x=("numeric", "continuous", [1.0]))
    with pytest.raises(ValueError, match="records differ"):
        evaluate(b, a)


@pytest.mark.parametrize("kind", ["value", "rank"])
def test_conformance(testdata, kind):
    check_method(PLUGIN, testdata, {"kind": kind})


RECIPE = """
sdcflow: 1
name: interval
seed: 11
data: {builtin: casc_census}
variables:
  AGI: {role: numeric, type: integer}
  FEDTAX: {role: numeric, type: integer}
steps:
  - {id: micro, method: microaggregation, params: {k: 3}}
  - {id: idv, measure: interval_disclosure, params: {p: 10}}
  - {id: idr, measure: interval_disclosure, params: {p: 10, kind: rank}}
  - {id: idr2, measure: interval_disclosure, params: {p: 2, kind: rank}}
"""


def test_recipe(write_recipe, tmp_path):
    result = run(write_recipe(RECIPE), tmp_path / "out", use_cache=False)
    idv, idr, idr2 = (result.measures[k] for k in ("idv", "idr", "idr2"))
    assert idv["values"] == idr["values"] == 2160
    assert set(idv["per_variable"]) == {"AGI", "FEDTAX"}
    # a narrower rank interval discloses fewer values
    assert idr2["disclosed"] <= idr["disclosed"]
    assert 0 < idv["percent"] <= 100


def test_averaged_over_p():
    # ranks 0 and 1 exchanged (distance 1), ranks 10 and 13 exchanged (distance 3), 20
    # records. Rank intervals of p% of 20 records, half each side: p = 10 -> 1 rank each
    # side (18 of 20 disclosed, 90 %), p = 20 -> 2 (18: 90 %), p = 30 -> 3 (all: 100 %).
    # Averaged: (90 + 90 + 100) / 3 = 93.333333; disclosed (18 + 18 + 20) / 3
    values = [float(v) for v in range(1, 21)]
    moved = list(values)
    moved[0], moved[1] = moved[1], moved[0]
    moved[10], moved[13] = moved[13], moved[10]
    original = small_dataset(x=("numeric", "continuous", values))
    protected = small_dataset(x=("numeric", "continuous", moved))
    result = evaluate(protected, original, kind="rank", p=[10, 20, 30])
    s = result.summary
    assert [s["by_p"][k]["percent"] for k in ("10", "20", "30")] == [90.0, 90.0, 100.0]
    assert s["percent"] == pytest.approx(280 / 3, abs=1e-6)
    assert s["disclosed"] == pytest.approx(56 / 3) and s["values"] == 20
    assert s["per_variable"]["x"] == pytest.approx(280 / 3, abs=1e-6)
    # per record: the share of the p values at which the value is disclosed
    assert result.per_record["x"].tolist()[10] == pytest.approx(1 / 3)
    assert result.per_record["x"].tolist()[0] == 1.0


def test_list_of_p_conformance(testdata):
    check_method(PLUGIN, testdata, {"kind": "rank", "p": [1, 2, 5]})
