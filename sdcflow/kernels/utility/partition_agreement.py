"""Agreement between two partitions of the same records, the k-means partitions of the
original and the protected data (Torra, "Masking methods", 2013, "Specific Information
Loss Measure"): Rand, Jaccard, adjusted Rand, Wallace, Mantaras, from the pair counts of
the contingency table.
"""

from __future__ import annotations

import numpy as np


def contingency(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Cross-tabulation of two labelings (labels renumbered densely)."""
    _, ui = np.unique(u, return_inverse=True)
    _, vi = np.unique(v, return_inverse=True)
    ku, kv = int(ui.max()) + 1 if ui.size else 0, int(vi.max()) + 1 if vi.size else 0
    return np.bincount(ui * kv + vi, minlength=ku * kv).reshape(ku, kv)


def _pairs(counts: np.ndarray) -> int:
    counts = np.asarray(counts, dtype=np.int64).ravel()
    return int((counts * (counts - 1) // 2).sum())


def _entropy(counts: np.ndarray, n: int) -> float:
    p = np.asarray(counts, float).ravel() / n
    p = p[p > 0]
    return float(-(p * np.log(p)).sum())


def partition_agreement(u: np.ndarray, v: np.ndarray) -> dict:
    """Agreement between partitions ``u`` (original data) and ``v`` (protected), from the
    pair counts: ``a`` pairs together in both, ``b`` together in u only, ``c`` in v only,
    ``d`` apart in both (``T = n(n-1)/2``):

    * Rand ``(a + d) / T``; Jaccard ``a / (a + b + c)``;
    * adjusted Rand (Hubert & Arabie 1985) ``(a - E) / ((Su + Sv)/2 - E)``, ``Su = a + b``,
      ``Sv = a + c``, ``E = Su Sv / T``;
    * Wallace (1983) ``a / Su`` (u to v: the share of the pairs grouped by u that v keeps
      together) and ``a / Sv`` (v to u);
    * Mantaras distance (Lopez de Mantaras 1991) ``(H(u|v) + H(v|u)) / H(u, v)``
      ``= 2 - (H(u) + H(v)) / H(u, v)``, in [0, 1], 0 for the same partition.

    Indices whose denominator is 0 (e.g. every record its own cluster in both) are 1 when
    the partitions are equal and 0 otherwise; the Mantaras distance is then 0."""
    n = len(u)
    table = contingency(u, v)
    a = _pairs(table)
    su, sv = _pairs(table.sum(axis=1)), _pairs(table.sum(axis=0))
    total = n * (n - 1) // 2
    b, c = su - a, sv - a
    d = total - a - b - c
    same = float(su == sv == a)

    def ratio(num, den):
        return num / den if den else same

    expected = su * sv / total if total else 0.0
    h_uv = _entropy(table, n) if n else 0.0
    mantaras = (2.0 - (_entropy(table.sum(axis=1), n) + _entropy(table.sum(axis=0), n)) / h_uv
                if h_uv > 0 else 0.0)
    return {
        "rand": ratio(a + d, total),
        "jaccard": ratio(a, a + b + c),
        "adjusted_rand": ratio(a - expected, (su + sv) / 2 - expected),
        "wallace_original_to_protected": ratio(a, su),
        "wallace_protected_to_original": ratio(a, sv),
        "mantaras": max(0.0, min(1.0, mantaras)),
        "pairs": {"together_both": a, "together_original_only": b,
                  "together_protected_only": c, "apart_both": d},
    }
