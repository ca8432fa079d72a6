"""Record linkage between a protected file and the original it was made from, for disclosure
risk (Torra, "Data privacy: supervised approaches for disclosure risk assessment", 2016,
"Disclosure risk assessment": re-identification by record linkage; Torra, "Masking methods",
2013, "Rank swapping: Example II", DLD and PLD), and interval disclosure. NumPy, SciPy (k-d
trees) and numba; no pandas.

Records are aligned by position: protected record ``i`` was made from original record ``i``,
so a link of protected record ``i`` is *correct* when it goes to original record ``i``.

* Distance-based record linkage (DBRL): each protected record is linked to the nearest
  original record, for the squared Euclidean distance on coordinates prepared by the
  caller (:func:`standardize`, :func:`weighted`, :func:`mahalanobis_transform`).
* Probabilistic record linkage (PRL): Fellegi & Sunter (1969), "A theory for record
  linkage", JASA 64, with the m and u probabilities estimated by EM on the counts of the
  agreement patterns of all pairs (Jaro 1989, "Advances in record-linkage methodology as
  applied to matching the 1985 Census of Tampa, Florida", JASA 84; Winkler 1988), under
  conditional independence; each protected record is linked to the original(s) of highest
  weight. The pattern counts of all pairs are exact; for large files they come from the
  pairs that agree on two variables or more (few, found on unit grids) and from
  one-variable counts, so 100,000 x 100,000 pairs need no pass over every pair.

Ties are kept, not broken: a link reports how many originals share the best distance (or
weight) and whether the record's own original is one of them; its *credit* is
``1 / ties`` when it is (the expected number of correct links when ties are broken at
random) and 0 otherwise.

Each concept has its module, re-exported here so that ``from
sdcflow.kernels.linkage.linkage import ...`` keeps working: :mod:`.links` (the links and
their credit), :mod:`.coordinates` (z-scores, weights, Mahalanobis, agreement
coordinates), :mod:`.distance_linkage` (DBRL), :mod:`.pattern_counts` and
:mod:`.pair_scan` (the agreement patterns of all pairs), :mod:`.fellegi_sunter` (EM and
weights), :mod:`.probabilistic_linkage` (PRL), and interval disclosure in
:mod:`sdcflow.kernels.risk.interval_disclosure`.
"""

from __future__ import annotations

from ..risk.interval_disclosure import interval_disclosure
from .coordinates import agreement_coordinates, mahalanobis_transform, standardize, weighted
from .distance_linkage import BLOCK_ELEMENTS, KDTREE_MAX_DIM, nearest_links
from .fellegi_sunter import fellegi_sunter_em, pattern_weights
from .links import Links
from .pattern_counts import PRL_MAX_DIM, PRL_PAIRS_DIRECT, pattern_counts
from .probabilistic_linkage import PRL_MAX_CELLS, probabilistic_links

__all__ = [
    "BLOCK_ELEMENTS",
    "KDTREE_MAX_DIM",
    "PRL_MAX_CELLS",
    "PRL_MAX_DIM",
    "PRL_PAIRS_DIRECT",
    "Links",
    "agreement_coordinates",
    "fellegi_sunter_em",
    "interval_disclosure",
    "mahalanobis_transform",
    "nearest_links",
    "pattern_counts",
    "pattern_weights",
    "probabilistic_links",
    "standardize",
    "weighted",
]
