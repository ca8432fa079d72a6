"""The Fellegi & Sunter (1969) model of record linkage ("A theory for record linkage", JASA
64) with conditionally independent agreements: the m and u probabilities estimated by EM
from the counts of the agreement patterns (Jaro 1989, "Advances in record-linkage
methodology as applied to matching the 1985 Census of Tampa, Florida", JASA 84; Winkler
1988), and the weight of every pattern.
"""

from __future__ import annotations

import numpy as np


def fellegi_sunter_em(counts: np.ndarray, c: int, *, p: float | None = None,
                      estimate_p: bool = False, max_iter: int = 5000, tol: float = 1e-9
                      ) -> dict:
    """EM estimates of the Fellegi-Sunter model with conditionally independent agreements
    (Jaro 1989; Winkler 1988) from the number of pairs with each agreement pattern
    (``counts[g]``, bit ``j`` of ``g``: variable ``j`` agrees).

    Returns ``m`` (P(agree | match)), ``u`` (P(agree | non-match)), ``p`` (share of
    matches among the pairs), ``iterations`` and ``converged``. Starts from ``m_j = 0.9``,
    ``u_j`` = the share of all pairs that agree on ``j``, and ``p`` (default: one match
    per record, ``sqrt(pairs) / pairs``), which stays fixed unless ``estimate_p``: here
    the number of matches is known (each protected record comes from one original), and
    a free ``p`` lets EM drift to a class of close non-matching pairs. Probabilities are
    kept within ``[1e-9, 1 - 1e-9]`` so that the weights stay finite."""
    counts = np.asarray(counts, dtype=float)
    total = counts.sum()
    patterns = np.arange(1 << c)
    gamma = ((patterns[:, None] >> np.arange(c)) & 1).astype(float)  # (npat, c)
    eps = 1e-9
    if total <= 0:
        return {"m": [0.5] * c, "u": [0.5] * c, "p": 0.0, "iterations": 0, "converged": True}
    u = np.clip(counts @ gamma / total, eps, 1 - eps)
    m = np.full(c, 0.9)
    p = p if p is not None else min(1.0, np.sqrt(total) / total)
    p = float(np.clip(p, eps, 1 - eps))
    converged = False
    it = 0
    for it in range(1, max_iter + 1):
        lm = gamma @ np.log(m) + (1 - gamma) @ np.log1p(-m) + np.log(p)
        lu = gamma @ np.log(u) + (1 - gamma) @ np.log1p(-u) + np.log1p(-p)
        g = 1.0 / (1.0 + np.exp(lu - lm))  # P(match | pattern)
        wm = counts * g
        wu = counts - wm
        sm, su = wm.sum(), wu.sum()
        new_p = float(np.clip(sm / total, eps, 1 - eps)) if estimate_p else p
        new_m = np.clip(wm @ gamma / sm, eps, 1 - eps) if sm > 0 else m
        new_u = np.clip(wu @ gamma / su, eps, 1 - eps) if su > 0 else u
        change = max(abs(new_p - p), np.abs(new_m - m).max(), np.abs(new_u - u).max())
        m, u, p = new_m, new_u, new_p
        if change < tol:
            converged = True
            break
    return {"m": m.tolist(), "u": u.tolist(), "p": p, "iterations": it,
            "converged": converged}


def pattern_weights(m, u) -> np.ndarray:
    """The Fellegi-Sunter weight of every agreement pattern ``g``:
    ``sum_j log(m_j/u_j)`` over agreeing variables plus ``log((1-m_j)/(1-u_j))`` over the
    others."""
    m = np.asarray(m, dtype=float)
    u = np.asarray(u, dtype=float)
    c = len(m)
    gamma = ((np.arange(1 << c)[:, None] >> np.arange(c)) & 1).astype(float)
    return gamma @ np.log(m / u) + (1 - gamma) @ (np.log1p(-m) - np.log1p(-u))
