"""The asymmetric divergence of decisions (Torra 2017: IL_f = divergence(f(X), f(X')),
symmetry dropped where false positives and false negatives cost differently)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.kernels.utility.asymmetric_divergence import decision_divergence


def test_counts_and_weighted_loss_by_hand():
    # original:  T T F F F T F F   protected: T F T F F T T F
    # TP: records 1, 6 (2); FN: record 2 (1); FP: records 3, 7 (2); TN: 4, 5, 8 (3)
    a = np.array([1, 1, 0, 0, 0, 1, 0, 0], bool)
    b = np.array([1, 0, 1, 0, 0, 1, 1, 0], bool)
    r = decision_divergence(a, b, false_positive=1.0, false_negative=10.0)
    assert (r["true_positives"], r["false_negatives"], r["false_positives"],
            r["true_negatives"]) == (2, 1, 2, 3)
    # (1 * 2 + 10 * 1) / 8 = 1.5; symmetric: 3 / 8
    assert r["loss"] == 1.5 and r["symmetric_loss"] == 3 / 8
    assert r["false_positive_rate"] == 2 / 5 and r["false_negative_rate"] == 1 / 3
    # the other way round the costs swap roles: (1 * 1 + 10 * 2) / 8
    assert decision_divergence(b, a, false_positive=1.0, false_negative=10.0)["loss"] == 21 / 8


def test_rates_undefined_without_positives_or_negatives():
    r = decision_divergence(np.zeros(3, bool), np.array([0, 1, 0], bool))
    assert r["false_negative_rate"] is None and r["false_positive_rate"] == 1 / 3
    assert decision_divergence(np.zeros(0, bool), np.zeros(0, bool))["loss"] == 0.0


def test_bad_input_refused():
    with pytest.raises(ValueError, match="same records"):
        decision_divergence(np.zeros(2, bool), np.zeros(3, bool))
    with pytest.raises(ValueError, match=">= 0"):
        decision_divergence(np.zeros(2, bool), np.zeros(2, bool), false_positive=-1)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans()), max_size=30),
       st.floats(0, 100), st.floats(0, 100))
def test_divergence_properties(pairs, cfp, cfn):
    a = np.array([p[0] for p in pairs], bool)
    b = np.array([p[1] for p in pairs], bool)
    r = decision_divergence(a, b, false_positive=cfp, false_negative=cfn)
    assert r["loss"] >= 0
    assert decision_divergence(a, a, false_positive=cfp, false_negative=cfn)["loss"] == 0
    swapped = decision_divergence(b, a, false_positive=cfn, false_negative=cfp)
    assert swapped["loss"] == pytest.approx(r["loss"])  # symmetric when the costs swap too
    assert r["true_positives"] + r["false_positives"] + r["false_negatives"] \
        + r["true_negatives"] == len(pairs)
