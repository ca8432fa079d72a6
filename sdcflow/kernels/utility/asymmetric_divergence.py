"""An asymmetric divergence between two decisions taken record by record: the information
loss ``IL_f(X, X') = divergence(f(X), f(X'))`` (Torra, "Data Privacy: Foundations, New
Developments and the Big Data Challenge", 2017, section on information loss) of an
analysis ``f`` that flags records (an alarm, a classifier's positive class), with a
divergence that is not symmetric: the two ways of disagreeing cost differently.

Torra lists symmetry among the properties a divergence may be asked to have, and drops
it where the errors differ in consequence: a release in which a malfunctioning sensor is
flagged that was not (a false positive: an alarm raised for nothing) may cost far less, or
far more, than one in which a flagged sensor goes unflagged (a false negative). With
``f(X)`` the decisions on the original records and ``f(X')`` those on the protected ones,

* a false positive is a record flagged on ``X'`` and not on ``X``;
* a false negative is a record flagged on ``X`` and not on ``X'``;

and the loss is the cost-weighted share of the records

    ``loss = (c_fp * FP + c_fn * FN) / n``,

with the costs ``c_fp, c_fn >= 0``. With ``c_fp = c_fn = 1`` it is the share of records
whose decision changed (symmetric); ``divergence(X, X) = 0`` and ``divergence >= 0``
hold for any costs, ``divergence(X, Y) = divergence(Y, X)`` only when they are equal.
"""

from __future__ import annotations

import numpy as np


def decision_divergence(original: np.ndarray, protected: np.ndarray, *,
                        false_positive: float = 1.0, false_negative: float = 1.0) -> dict:
    """The confusion counts of the decisions ``protected`` against ``original`` (boolean
    arrays of one decision per record, the same records) and the asymmetric loss of the
    module docstring: ``records``, ``true_positives``, ``false_positives``,
    ``false_negatives``, ``true_negatives``, ``loss`` (cost-weighted share),
    ``symmetric_loss`` (share of records whose decision changed),
    ``false_positive_rate`` (FP over the records not flagged on the original; None when
    there are none) and ``false_negative_rate`` (FN over the records flagged on the
    original; None when there are none)."""
    a = np.asarray(original, dtype=bool)
    b = np.asarray(protected, dtype=bool)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError("the decisions must be two 1-d arrays over the same records")
    if not (np.isfinite(false_positive) and np.isfinite(false_negative)) \
            or false_positive < 0 or false_negative < 0:
        raise ValueError("the costs of false positives and false negatives must be finite "
                         "and >= 0")
    n = a.size
    tp = int(np.count_nonzero(a & b))
    fp = int(np.count_nonzero(~a & b))
    fn = int(np.count_nonzero(a & ~b))
    tn = n - tp - fp - fn
    positives, negatives = tp + fn, tn + fp
    return {
        "records": n,
        "true_positives": tp, "false_positives": fp,
        "false_negatives": fn, "true_negatives": tn,
        "loss": (false_positive * fp + false_negative * fn) / n if n else 0.0,
        "symmetric_loss": (fp + fn) / n if n else 0.0,
        "false_positive_rate": fp / negatives if negatives else None,
        "false_negative_rate": fn / positives if positives else None,
    }
