"""individual_risk measure (sdcMicro's indivRisk)."""

import numpy as np
import pytest
from helpers import small_dataset

from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("individual_risk")

# sdcMicro's tests/testthat/test_indivRisk.R: 8 records, keys A, B, C and weight
A = ["2", "3", "2", "2", "3", "3", "1", "2"]
B = ["3", "3", "3", "3", "3", "3", "4", "3"]
C = ["1", "3", "1", "2", "1", "1", "1", "1"]
WEIGHT = [18.0, 45.5, 39.0, 17.0, 92.0, 8.0, 123.5, 51]


def evaluate(data, **params):
    params = registry.with_defaults(PLUGIN.params, params)
    return PLUGIN.evaluate(data, params, np.random.default_rng(0), original=data)


def sdcmicro_data(weighted=True, missing=False):
    a, c = list(A), list(C)
    if missing:  # the NA of test_indivRisk.R's "with missing" block
        a[7] = c[2] = c[6] = None
    columns = {"A": ("key", "categorical", a), "B": ("key", "categorical", B),
               "C": ("key", "categorical", c)}
    if weighted:
        columns["weight"] = ("weight", "continuous", WEIGHT)
    return small_dataset(**columns)


@pytest.mark.parametrize("method, qual, missing, expected", [
    # test_indivRisk.R, "data frame with weight, method = ..., qual = ..., survey = TRUE"
    ("approx", 1, False, [0.01369863, 0.08579129, 0.01369863, 0.17707583, 0.01877883,
                          0.01877883, 0.03931625, 0.01369863]),
    ("approx", 2, False, [0.02739726, 0.17158258, 0.02739726, 0.35415167, 0.03755767,
                          0.03755767, 0.07863251, 0.02739726]),
    ("exact", 1, False, [0.01355297, 0.08579129, 0.01355297, 0.17707583, 0.01877883,
                         0.01877883, 0.03931625, 0.01355297]),
    ("approx", 1, True, [0.013698630, 0.085791288, 0.010554090, 0.032466112, 0.009836066,
                         0.009836066, 0.039316254, 0.005973716]),
    ("exact", 1, True, [0.013552968, 0.085791288, 0.010504889, 0.032466112, 0.009756889,
                        0.009756889, 0.039316254, 0.005962551]),
])
def test_sdcmicro_indivrisk(method, qual, missing, expected):
    result = evaluate(sdcmicro_data(missing=missing), method=method, qual=qual)
    np.testing.assert_allclose(result.per_record["risk"], expected, rtol=0, atol=1e-7)
    assert result.summary["method"] == method
    assert result.summary["weight"] == "weight"


@pytest.mark.parametrize("missing, expected", [
    # test_indivRisk.R, survey = FALSE (and measure_risk without w): 1/fk, rounded to 5
    (False, [0.33333, 1.0, 0.33333, 1.0, 0.5, 0.5, 1.0, 0.33333]),
    (True, [0.33333, 1.0, 0.25, 0.5, 0.33333, 0.33333, 1.0, 0.2]),
])
def test_without_a_weight_variable_the_risk_is_one_over_fk(missing, expected):
    result = evaluate(sdcmicro_data(weighted=False, missing=missing), method="exact", qual=2)
    assert np.round(result.per_record["risk"], 5).tolist() == expected
    assert result.summary["weight"] is None
    assert result.summary["qual"] is None and result.summary["method"] is None
    assert "1/fk" in result.summary["note"]


def test_summary_and_threshold():
    # approx risks of test_indivRisk.R (sorted): 0.01369863 x3, 0.01877883 x2, 0.03931625,
    # 0.08579129, 0.17707583.
    #   max 0.17707583; mean = (3 * 0.01369863 + 2 * 0.01877883 + 0.03931625 + 0.08579129
    #   + 0.17707583) / 8 = 0.38083692 / 8 = 0.047604615; median = 0.01877883;
    #   MAD = 1.4826 * median(|r - median|) = 1.4826 * 0.0050802 = 0.0075319, so the high
    #   risk bound is max(0.01877883 + 3 * 0.0075319, 0.1) = 0.1: one record (0.177).
    #   Above the threshold 0.05: 0.0858 and 0.177, 2 of 8 records = 25 %.
    result = evaluate(sdcmicro_data(), threshold=0.05)
    s = result.summary
    assert s["max"] == pytest.approx(0.17707583, abs=1e-8)
    assert s["mean"] == pytest.approx(0.38083692 / 8, abs=1e-8)
    assert s["median"] == pytest.approx(0.01877883, abs=1e-8)
    assert s["high_risk"] == 1
    assert (s["threshold"], s["above_threshold"], s["above_threshold_percent"]) == (0.05, 2, 25.0)
    assert "threshold" not in evaluate(sdcmicro_data()).summary


def test_reads_the_weight_variable():
    meta = sdcmicro_data().meta
    assert PLUGIN.reads(registry.with_defaults(PLUGIN.params, {}), meta) == \
        {"A", "B", "C", "weight"}


def test_conformance(testdata):
    check_method(PLUGIN, testdata, {"method": "exact", "threshold": 0.01})
    check_method(PLUGIN, sdcmicro_data(missing=True), {"alpha": 0.5})
