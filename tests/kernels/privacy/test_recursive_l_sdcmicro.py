"""Recursive (c, l)-diversity (sdcflow.kernels.privacy.models.recursive_l_diversity) against
sdcMicro's ``ldiversity(l_recurs_c = c)``, whose C++ code (sdcMicro 5.8.1,
src/Measure_Risk.h) reports for each class the largest l it is recursive (c, l)-diverse
for: docs/sdcmicro.md maps ``l_recurs_c`` to ``c`` on that equivalence."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.kernels.privacy.models import recursive_l_diversity


def sdcmicro_recursive_l(counts: list[int], c: float) -> int:
    """sdcMicro's Group_Recursive_Ldiversity, written from its source: the counts sorted
    descending; Sum = c (r_2 + ... + r_m); rank = 1; while Sum > r_1 (and values remain):
    Sum -= c r_(rank+1), rank += 1."""
    r = sorted((x for x in counts if x > 0), reverse=True)
    if len(r) <= 1:
        return 1
    total = c * sum(r[1:])
    rank = 1
    for j in range(1, len(r)):
        if not total > r[0]:
            break
        total -= c * r[j]
        rank += 1
    return rank


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 12), min_size=1, max_size=6), st.integers(2, 6),
       st.sampled_from([0.5, 1.0, 2.0, 3.0, 7.0]))
def test_diverse_exactly_when_sdcmicros_recursive_l_reaches_l(counts, l, c):
    # for l >= 2 (sdcMicro's figure is at least 1 by construction, while (c, 1)-diversity,
    # r_1 < c n, fails for c <= 1)
    # one class holding counts[v] records of sensitive value v (at least one record)
    counts = counts if sum(counts) else [1]
    sensitive = np.repeat(np.arange(len(counts)), counts)
    classes = np.zeros(len(sensitive), dtype=np.int64)
    ratio = recursive_l_diversity(classes, sensitive, l)[0]
    assert (ratio < c) == (sdcmicro_recursive_l(counts, c) >= l)
