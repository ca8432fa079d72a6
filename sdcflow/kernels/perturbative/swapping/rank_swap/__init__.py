"""Rank swapping and its two variants that resist the transparency attack (Torra, "Data
privacy: supervised approaches for disclosure risk assessment", 2016, "Attacking Rank
Swapping" and "Avoiding Transparency Attack in Rank Swapping"; Torra, "Masking methods",
2013, "Rank swapping"; Nin, Herranz & Torra, "Rethinking rank swapping to decrease
disclosure risk", DKE 64 (2008) 346-364).

The values a_1 <= ... <= a_n of one variable are taken in rank order (ties: stable order
by value, then by record position). The ranks are visited in increasing order; a rank
that is still unswapped picks a partner among the *unswapped* ranks above it and the two
values are exchanged; a rank with no admissible partner keeps its value. The variants
differ only in how the partner is drawn (with ``w = floor(p n / 100)``):

``standard`` (Torra 2016, algorithm "Rank swapping")
    uniformly among the unswapped ranks in ``[i + 1, min(n, i + w)]``: a value moves by
    at most ``w`` ranks, so an intruder who knows ``p`` can bound the masked record to
    the set ``B_j`` of Torra 2016 (at most ``2w`` candidates per variable).
``p_buckets`` (Torra 2016, "Rank swapping p-buckets")
    the ranks are cut into buckets ``B_1, B_2, ...`` of ``w`` consecutive ranks (the
    last one may be shorter, ``w >= 1``); rank ``i`` in bucket ``B_r`` picks bucket
    ``B_s``, ``s >= r``, with ``Pr[B_s | B_r] = (1/K) 2^-(s-r+1)``, then a partner
    uniformly among the unswapped ranks of ``B_s``. ``K`` normalises over the buckets
    that still hold an unswapped rank (other than ``i``), so every bucket above has a
    positive probability and ``B_j`` is the whole file.
``p_distribution`` (Torra 2016, "Rank swapping p-distribution")
    ``l = i + r`` with ``r`` drawn from ``N(0.5 q, 0.5 q)`` (mean and standard deviation,
    ``q = p n / 100`` ranks, not rounded) and rounded to the nearest integer, conditioned
    on ``l`` being an unswapped rank above ``i``; the normal has unbounded support, so
    again every rank above ``i`` is possible.

Torra's (2016) algorithm swaps towards higher ranks only (``l > i``); a value can still move
down, when a lower rank picks it. Every variant permutes the values, so the marginal
distribution (the multiset of values) is kept exactly.

Randomness: the partner choices consume a stream of uniform numbers drawn from the
caller's ``numpy.random.Generator`` (in blocks; the stream is the generator's own
sequence, so the result depends only on its state). The draws are exact: the standard
variant picks the k-th unswapped rank with a Fenwick tree; the p-buckets variant walks
the non-empty buckets (bucket weights below 2^-52 of the first are below the resolution
of a double uniform and are left out); the p-distribution variant draws from the normal
truncated to ``[i + 1, n]`` by inversion and rejects unavailable ranks, and after
``_MAX_REJECTIONS`` rejections samples the conditional distribution directly over the
available ranks up to ``mean + 12 sd`` (the neglected mass is below 1e-25; if no rank is
available there, the nearest available rank above is taken).

The partners are drawn in :mod:`.partners` (with :mod:`.fenwick` and
:mod:`.rounded_normal`), applied to a variable's values in :mod:`.ranked_values`; the
public names are re-exported here.
"""

from .partners import VARIANTS, rank_window, swap_partners
from .ranked_values import apply_rank_swaps, rank_order, rank_swap

__all__ = [
    "VARIANTS",
    "apply_rank_swaps",
    "rank_order",
    "rank_swap",
    "rank_window",
    "swap_partners",
]
