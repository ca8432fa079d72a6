"""The losses by hand on a tiny example: one variable, values 0 0 1 2, level 1 merging
{0, 1} -> A and 2 -> B, level 2 all; at node (1,) the classes are A (3 records) and B
(1), B failing 2-anonymity and suppressed. Each way of charging the suppressed record:
sdcflow's (full), ARX's monotonic and non-monotonic metrics (from ARX's sources:
MetricSDDiscernability, MetricSDNMDiscernability, MetricMDNUEntropyPrecomputed,
MetricMDNUNMEntropyPrecomputed, MetricMDNMPrecision, MetricSDAECS)."""

import math

import numpy as np
import pytest

from sdcflow.kernels.privacy.loss import LossContext

CODES = np.array([[0], [1], [2]])  # units: values 0, 1, 2 with counts 2, 1, 1
COUNTS = np.array([2, 1, 1])
MAPS = [np.array([[0, 1, 2], [0, 0, 1], [0, 0, 0]])]
CLASS_COUNTS = np.array([3, 1])
OK = np.array([True, False])
SUPPRESSED = np.array([False, False, True])


def context(name, weights=(1.0,), suppression="full"):
    return LossContext(name, CODES, COUNTS, MAPS, np.array(weights), k=2,
                       suppression=suppression)


def test_precision():
    # level 1 of height 2: 1/2 per record; the suppressed one counts 1: (3 * 0.5 + 1) / 4
    ctx = context("precision")
    assert ctx.value((1,), CLASS_COUNTS, OK) == pytest.approx(0.625)
    assert ctx.bound((1,), CLASS_COUNTS) == pytest.approx(0.5)


def test_discernibility():
    # 3^2 for A, 4 (= n) for the suppressed record; bound 3^2 + 1^2
    ctx = context("discernibility")
    assert ctx.value((1,), CLASS_COUNTS, OK) == 13
    assert ctx.bound((1,), CLASS_COUNTS) == 10


def test_average_class_size():
    # A and the suppressed records' class: 4 / 2 (ARX's AECS, MetricSDAECS: rows over the
    # kept classes plus one for the suppressed records); LeFevre et al.'s C_AVG / k(2)
    ctx = context("average_class_size")
    assert ctx.value((1,), CLASS_COUNTS, OK) == pytest.approx(2.0)
    assert ctx.value((1,), CLASS_COUNTS, np.array([True, True])) == pytest.approx(2.0)
    assert ctx.bound((1,), CLASS_COUNTS) == pytest.approx(2.0)
    normalized = context("normalized_average_class_size")
    assert normalized.value((1,), CLASS_COUNTS, OK) == pytest.approx(1.0)
    assert normalized.bound((0,), np.array([2, 1, 1])) == pytest.approx(4 / 3 / 2)
    # the suppression option does not change the class sizes
    assert context("average_class_size", suppression="arx_monotonic").value(
        (1,), CLASS_COUNTS, OK) == pytest.approx(2.0)


KEPT = 2 * math.log2(3 / 2) + math.log2(3)  # the entropy of A's three records


@pytest.mark.parametrize("suppression, name, value", [
    # ARX's monotonic metrics are their lower bound: the generalisation alone, every
    # record (suppressed ones too) at the node's level. DM*: 3^2 + 1^2 = 10 (not 13);
    # precision 0.5 (not 0.625); the entropy of A's records plus B's one record in B:
    # -log2(1/1) = 0
    ("arx_monotonic", "discernibility", 10), ("arx_monotonic", "precision", 0.5),
    ("arx_monotonic", "non_uniform_entropy", KEPT),
    # ARX's non-monotonic ones: discernibility and precision as sdcflow's (DM: n per
    # suppressed record; MetricMDNMPrecision: a suppressed record counts 1); the entropy
    # charges the suppressed record's generalised value B among the suppressed records
    # only: -log2(1 / 1) = 0 on top of its generalisation (0)
    ("arx_non_monotonic", "discernibility", 13), ("arx_non_monotonic", "precision", 0.625),
    ("arx_non_monotonic", "non_uniform_entropy", KEPT),
])
def test_arx_charging_of_suppressed_records(suppression, name, value):
    ctx = context(name, suppression=suppression)
    assert ctx.value((1,), CLASS_COUNTS, OK, SUPPRESSED) == pytest.approx(value)


def test_arx_non_monotonic_entropy_among_the_suppressed_records():
    # at node (0,) with the two records of value 0 and the one of value 2 suppressed
    # (3 of 4): each pays -log2(c / 3) for c the suppressed records sharing its value,
    # 2 * log2(3/2) + log2(3); the kept record of value 1 costs 0 at level 0
    ctx = context("non_uniform_entropy", (2.0,), suppression="arx_non_monotonic")
    ok = np.array([False, True, False])
    expected = 2.0 * (2 * math.log2(3 / 2) + math.log2(3))
    assert ctx.value((0,), np.array([2, 1, 1]), ok, np.array([True, False, True])) == \
        pytest.approx(expected)


def test_non_uniform_entropy():
    # released A holds 3 records: value 0 (2 of them) -log2(2/3) each, value 1 -log2(1/3);
    # the suppressed value 2 stands among all 4 records: -log2(1/4) = 2; in B alone it
    # would cost -log2(1/1) = 0
    ctx = context("non_uniform_entropy")
    kept = 2 * math.log2(3 / 2) + math.log2(3)
    assert ctx.value((1,), CLASS_COUNTS, OK, SUPPRESSED) == pytest.approx(kept + 2)
    assert ctx.bound((1,), CLASS_COUNTS) == pytest.approx(kept)
    assert context("non_uniform_entropy", (3.0,)).bound((1,), CLASS_COUNTS) == \
        pytest.approx(3 * kept)
    assert ctx.bound((0,), CLASS_COUNTS) == 0


def test_unknown_loss():
    with pytest.raises(ValueError, match="loss must be one of"):
        context("height")
    with pytest.raises(ValueError, match="suppression_loss must be one of"):
        context("precision", suppression="arx")


@pytest.mark.parametrize("name", ["precision", "non_uniform_entropy", "discernibility",
                                  "average_class_size"])
def test_static_bounds_of_every_node_are_each_nodes_to_the_last_bit(name):
    # the search finds every node's bound at once: the same floats as one node's
    # (non-uniform entropy's sums added in the same order), on three variables of
    # unequal weights and heights
    rng = np.random.default_rng(5)
    codes = rng.integers(0, 4, size=(40, 3))
    maps = [np.array([np.arange(4), np.arange(4) // 2, np.zeros(4, dtype=np.int64)]),
            np.array([np.arange(4), np.zeros(4, dtype=np.int64)]),
            np.array([np.arange(4), np.arange(4) // 2, np.zeros(4, dtype=np.int64)])]
    ctx = LossContext(name, codes, np.ones(40, dtype=np.int64), maps,
                      np.array([0.3, 1.7, 2.9]), k=2)
    nodes = [(a, b, c) for a in range(3) for b in range(2) for c in range(3)]
    each = [ctx.static_bound(v) for v in nodes]
    assert ctx.static_bounds(np.array(nodes)) == each
    if name in ("precision", "non_uniform_entropy"):
        assert len(set(each)) > 3  # (bounds that differ between nodes)
