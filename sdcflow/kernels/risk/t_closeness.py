"""t-closeness: the Earth Mover's Distance between the distribution of a sensitive
variable within each equivalence class and its distribution over the whole table (Li, Li
& Venkatasubramanian (2007), "t-Closeness: Privacy Beyond k-Anonymity and l-Diversity",
ICDE 2007, section 4.2). NumPy only.

Two ground distances of the paper are offered, over the ``m`` distinct values of the
sensitive variable in the table (``p``: the class's distribution, ``q``: the table's):

* ``ordered`` (numerical and ordinal values, ordered distance ``|i - j| / (m - 1)``
  between the i-th and j-th smallest values):
  ``EMD = 1/(m - 1) * sum_{i=1}^{m} |r_1 + ... + r_i|`` with ``r_i = p_i - q_i``;
* ``equal`` (categorical values, every two distinct values at distance 1):
  ``EMD = 1/2 * sum_i |p_i - q_i|``.

Both lie in [0, 1]. The computation is sparse: per class it visits only the values the
class holds, so a numeric sensitive variable with as many values as records costs
O(n log n), never classes x values.
"""

from __future__ import annotations

import numpy as np

from .frequencies import row_ids

DISTANCES = ("ordered", "equal")


def t_closeness(classes: np.ndarray, sensitive: np.ndarray, distance: str = "ordered"
                ) -> np.ndarray:
    """The EMD of each record's equivalence class to the whole table.

    ``classes``: integer ids of the equivalence classes (n); ``sensitive``: integer codes
    of the sensitive values (n), numbered in the order of the values for ``ordered``,
    -1 for missing. Missing sensitive values are left out of both distributions; a class
    without an observed sensitive value gets 0 (it tells nothing), as does every class
    when the table holds fewer than two distinct values."""
    if distance not in DISTANCES:
        raise ValueError(f"distance must be one of {DISTANCES}, not {distance!r}")
    classes = np.asarray(classes, dtype=np.int64)
    sensitive = np.asarray(sensitive, dtype=np.int64)
    if classes.shape != sensitive.shape or classes.ndim != 1:
        raise ValueError("classes and sensitive must be 1-dimensional arrays of the same length")
    if classes.size == 0:
        return np.zeros(0)
    cls, _ = row_ids(classes[:, None])
    n_classes = int(cls.max()) + 1
    out = np.zeros(n_classes)
    seen = sensitive >= 0
    if not seen.any():
        return out[cls]
    # the observed values renumbered 0..m-1 in their order
    values, code = np.unique(sensitive[seen], return_inverse=True)
    code = code.reshape(-1)
    m = values.size
    if m < 2:
        return out[cls]
    c_seen = cls[seen]
    q = np.bincount(code, minlength=m) / code.size
    # distinct (class, value) pairs, sorted by class then value (row_ids' order)
    pair, rep = row_ids(np.column_stack([c_seen, code]))
    count = np.bincount(pair).astype(float)
    pair_class = c_seen[rep]
    pair_value = code[rep]
    total = np.bincount(pair_class, weights=count, minlength=n_classes)
    p = count / total[pair_class]
    has = total > 0
    if distance == "equal":
        # sum |p - q| over the values the class holds, plus q over those it lacks
        held = np.bincount(pair_class, weights=np.abs(p - q[pair_value]), minlength=n_classes)
        q_held = np.bincount(pair_class, weights=q[pair_value], minlength=n_classes)
        out[has] = 0.5 * (held[has] + np.clip(1.0 - q_held[has], 0.0, None))
    else:
        out[has] = _ordered_emd(pair_class, pair_value, p, q, n_classes)[has]
    return np.clip(out, 0.0, 1.0)[cls]


def _ordered_emd(pair_class: np.ndarray, pair_value: np.ndarray, p: np.ndarray,
                 q: np.ndarray, n_classes: int) -> np.ndarray:
    """``1/(m-1) sum_{i<m-1} |P_i - Q_i|`` per class, with P and Q the cumulative
    distributions (the last term is 0). P is constant between consecutive values of the
    class, Q increases: on a run [a, b) where P = c the sum of |c - Q_i| splits where Q
    crosses c, and is read off prefix sums of Q."""
    m = q.size
    Q = np.cumsum(q)[:-1]  # Q_0 .. Q_{m-2}
    Q = np.minimum(Q, 1.0)
    S = np.concatenate([[0.0], np.cumsum(Q)])  # S[k] = Q_0 + ... + Q_{k-1}
    # cumulative P within each class (pairs are sorted by class, then value)
    P = np.cumsum(p)
    first = np.ones(p.size, dtype=bool)
    first[1:] = pair_class[1:] != pair_class[:-1]
    start = np.flatnonzero(first)
    offset = np.repeat(np.concatenate([[0.0], P[start[1:] - 1]]),
                       np.diff(np.append(start, p.size)))
    P = P - offset
    # runs: [0, first value) with P = 0, then [value_j, next value or m-1) with P_j
    last = np.ones(p.size, dtype=bool)
    last[:-1] = pair_class[1:] != pair_class[:-1]
    nxt = np.empty(p.size, dtype=np.int64)
    nxt[:-1] = pair_value[1:]
    nxt[last] = m - 1
    run_a = np.concatenate([np.zeros(start.size, dtype=np.int64), pair_value])
    run_b = np.concatenate([pair_value[start], np.maximum(nxt, pair_value)])
    run_c = np.concatenate([np.zeros(start.size), P])
    run_class = np.concatenate([pair_class[start], pair_class])
    run_b = np.minimum(run_b, m - 1)
    run_a = np.minimum(run_a, run_b)
    k = np.clip(np.searchsorted(Q, run_c, side="left"), run_a, run_b)
    below = run_c * (k - run_a) - (S[k] - S[run_a])
    above = (S[run_b] - S[k]) - run_c * (run_b - k)
    total = np.bincount(run_class, weights=below + above, minlength=n_classes)
    return total / (m - 1)
