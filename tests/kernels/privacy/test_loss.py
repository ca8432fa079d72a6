"""The four losses by hand on a tiny example: one variable, values 0 0 1 2, level 1
merging {0, 1} -> A and 2 -> B, level 2 all; at node (1,) the classes are A (3 records)
and B (1), B failing 2-anonymity and suppressed."""

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


def context(name, weights=(1.0,)):
    return LossContext(name, CODES, COUNTS, MAPS, np.array(weights), k=2)


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
    # A and the suppressed records' class: 4 / 2 / k(2)
    ctx = context("average_class_size")
    assert ctx.value((1,), CLASS_COUNTS, OK) == pytest.approx(1.0)
    assert ctx.value((1,), CLASS_COUNTS, np.array([True, True])) == pytest.approx(1.0)


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
