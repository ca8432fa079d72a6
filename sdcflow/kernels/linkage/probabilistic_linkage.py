"""Probabilistic record linkage (PRL; Torra, "Data privacy: supervised approaches for
disclosure risk assessment", 2016, "Disclosure risk assessment"; Torra, "Masking methods",
2013, "Rank swapping: Example II", PLD): Fellegi & Sunter (1969), with the m and u
probabilities estimated by EM on the counts of the agreement patterns of all pairs
(:mod:`.fellegi_sunter`), under conditional independence; each protected record is linked to
the original(s) of highest weight. The pattern counts of all pairs are exact; for large
files they come from the pairs that agree on two variables or more (few, found on unit
grids: :mod:`.pair_scan`) and from one-variable counts, so 100,000 x 100,000 pairs need no
pass over every pair.
"""

from __future__ import annotations

import numpy as np

from .coordinates import agreement_coordinates
from .fellegi_sunter import fellegi_sunter_em, pattern_weights
from .links import Links
from .pair_scan import _PairScan
from .paired import paired_files
from .pattern_counts import PRL_PAIRS_DIRECT, _own_patterns, pattern_counts

# Per-record pattern counts kept at most (records x 2^variables; 60M int64 = 480 MB).
PRL_MAX_CELLS = 60_000_000


def probabilistic_links(original: np.ndarray, protected: np.ndarray, tolerance: float = 0.1,
                        algorithm: str = "auto", workers: int | None = None) -> Links:
    """Probabilistic record linkage (Fellegi-Sunter, EM): agreement per variable as in
    :func:`agreement_coordinates`, m and u by :func:`fellegi_sunter_em` on the pattern
    counts of all pairs of complete records (the share of matches fixed at one per
    protected record), then each protected record linked to the originals of the highest
    weight (``ties`` of them; ``correct`` when its own original is one). ``info`` holds
    the EM estimates, the pattern counts and the route.

    Routes (same results): ``direct`` (every pair, up to :data:`PRL_PAIRS_DIRECT` pairs),
    ``scan`` (the pairs agreeing on two variables or more, enumerated from unit grids; the
    default for large files unless the agreements are so frequent that this would visit
    more than 3e9 pairs) and ``kdtree`` (per record box counts of the 2^c variable subsets,
    at most :data:`PRL_MAX_DIM` variables)."""
    original, protected = paired_files(original, protected)
    n, c = protected.shape
    so, sp = agreement_coordinates(original, protected, tolerance)
    p_ok, o_ok, own = _own_patterns(so, sp)
    n_p, n_o = int(p_ok.sum()), int(o_ok.sum())
    pairs = n_p * n_o
    if n_p * (1 << c) > PRL_MAX_CELLS:
        raise ValueError(f"probabilistic linkage of {n_p} records on {c} variables counts "
                         f"2^{c} agreement patterns per record ({n_p * (1 << c):,} counts, "
                         f"at most {PRL_MAX_CELLS:,}): use fewer variables or records")
    counts = np.zeros((n, 1 << c), dtype=np.int64)
    if algorithm == "auto":
        algorithm = "direct" if pairs <= PRL_PAIRS_DIRECT else "scan"
    if n_p and n_o and algorithm == "scan":
        scan = _PairScan(sp[p_ok], so[o_ok])
        if scan.feasible():
            counts[p_ok] = scan.counts()
        else:
            algorithm = "kdtree"
    if algorithm != "scan":
        counts, own = pattern_counts(so, sp, algorithm, workers)
    totals = counts.sum(axis=0)
    em = fellegi_sunter_em(totals, c, p=(n_p / pairs if pairs else None))
    w = pattern_weights(em["m"], em["u"])
    present = counts > 0
    best = np.where(present, w[None, :], -np.inf).max(axis=1)
    at_best = present & (w[None, :] == best[:, None])
    ties = np.where(at_best, counts, 0).sum(axis=1)
    has = present.any(axis=1)
    correct = has & (own >= 0) & (w[np.maximum(own, 0)] == best)
    ties[~has] = 0
    info = {"em": em, "pattern_counts": [int(x) for x in totals], "weights": w.tolist(),
            "own_pattern": own, "best_weight": best, "algorithm": algorithm}
    return Links(np.full(n, -1, dtype=np.int64), ties, correct, info)
