"""Utility of a protected table against the original, whatever protected it (cell key,
suppression, rounding, adjustment, differential privacy), so that several protections of
one table can be compared figure by figure.

Each cell has its original value ``o``, its original size (its number of contributors,
which for an unweighted frequency table is ``o`` itself) and either a published value
``p`` or none (suppressed). Over the published cells the deviations are those the cell
key method's utility measures use (:func:`~sdcflow.kernels.tabular.perturbation_utility.
count_table_utility`, after cellKey's ``ck_cnt_measures`` and Eurostat's census
guidelines): the absolute error ``|p - o|`` (summed: the L1 distance, Shlomo, Tudor &
Groom, "Data swapping for protecting census tables", PSD 2010), the relative absolute
error ``|p - o| / o`` (of the cells with ``o > 0``), false zeros (``o > 0`` published 0)
and false positives (``o = 0`` published above 0). Every published cell counts, those
published as 0 too: cellKey leaves them out of its deviations by default, but a false
zero is an error like any other, and leaving them out would favour the method that
makes them.

A suppressed cell has no published value, so no error: its loss is not a number and
is reported apart, as the number and share of cells suppressed. To put the protections
on one scale nevertheless, ``loss_percent`` is the mean over the cells of the share of
each cell's information lost: ``min(1, |p - o| / o)`` for a published cell (for a zero
cell 0 when published 0, else 1) and 1 for a suppressed cell (all of it lost).

Errors by cell size. A fixed amount of noise hurts small cells most, and small cells are
the ones protection is about, so the errors are also given per class of original size:
0, then classes from 1 up to each bound of ``bounds`` (by default 1-2, 3-4, 5-9, 10-19,
20-49, 50-99, 100+: 1-2 are the counts a minimum-frequency rule of 3 and the cell key
method of the 2021 census (no published 1 or 2) treat as unsafe, 3-4 the counts below
the threshold of 5 many offices use; above them the classes widen roughly by halves of
decades, as relative error falls with size).

Risk. The share of cells of original size 1 to ``small`` that are published with their
exact original value: at ``small = 1``, the disclosure risk measure of Shlomo, Tudor &
Groom (2010): the proportion of cells of size one left unperturbed. A suppressed cell is
not published exactly.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from .perturbation_utility import count_table_utility

DEFAULT_BOUNDS = (3, 5, 10, 20, 50, 100)


def size_class_labels(bounds) -> list[str]:
    """The names of the classes of original size: ``0``, then ``1-2``, ``3-4``, ...,
    ``100+`` for ``bounds`` 3, 5, ..., 100 (a class of one size is named by it alone)."""
    edges = [1, *(int(b) for b in bounds)]
    labels = ["0"]
    for lo, hi in pairwise(edges):
        labels.append(str(lo) if hi - lo == 1 else f"{lo}-{hi - 1}")
    labels.append(f"{edges[-1]}+")
    return labels


def size_classes(sizes: np.ndarray, bounds) -> np.ndarray:
    """Per cell, the index of its class of original size (0 for size 0, 1 for 1 up to the
    first bound, ...)."""
    edges = np.asarray([1, *bounds], dtype=float)
    return np.searchsorted(edges, np.asarray(sizes, dtype=float), side="right")


def _errors(o: np.ndarray, p: np.ndarray) -> dict:
    """The deviations of published cells (cellKey's d1, d2 with every cell counted)."""
    return count_table_utility(o, p, exclude_zeros=False)


def table_utility(original, published, suppressed, sizes, bounds=DEFAULT_BOUNDS,
                  small: int = 1) -> dict:
    """The utility of a protected table (see the module docstring): ``original`` and
    ``published`` values per cell (``published`` is read only where the cell is not
    ``suppressed``), ``sizes`` the cells' original numbers of contributors."""
    o = np.asarray(original, dtype=float)
    p = np.asarray(published, dtype=float)
    sup = np.asarray(suppressed, dtype=bool)
    n_of = np.asarray(sizes, dtype=float)
    if not (o.ndim == 1 and o.shape == p.shape == sup.shape == n_of.shape):
        raise ValueError("original, published, suppressed and sizes must be four vectors "
                         "of one length")
    if list(bounds) != sorted(set(bounds)) or (len(bounds) and min(bounds) < 2):
        raise ValueError("the size classes' bounds must increase, from 2 on")
    if not np.isfinite(o).all() or (o < 0).any():
        raise ValueError("original values must be finite and non-negative")
    pub = ~sup
    n = len(o)
    allp = _errors(o[pub], p[pub])  # (refuses missing or negative published values)
    nonzero = pub & (o > 0)
    rel = _errors(o[nonzero], p[nonzero])["d2"]["mean"]
    n_pub = int(pub.sum())

    # the share of each cell lost: capped relative error, 1 when suppressed
    lost = np.ones(n)
    diff = np.abs(p[pub] - o[pub])
    lost[pub] = np.where(o[pub] > 0,
                         np.minimum(1.0, np.divide(diff, o[pub], out=np.ones_like(diff),
                                                   where=o[pub] > 0)),
                         (diff > 0).astype(float))

    classes = size_classes(n_of, bounds)
    by_size = {}
    for k, label in enumerate(size_class_labels(bounds)):
        in_class = classes == k
        shown = in_class & pub
        err = _errors(o[shown], p[shown])
        by_size[label] = {
            "cells": int(in_class.sum()),
            "suppressed": int((in_class & sup).sum()),
            "exact": int((shown & (p == o)).sum()),
            "mean_abs_error": err["d1"]["mean"],
            "max_abs_error": err["d1"]["max"],
            "mean_rel_error": None if k == 0 else err["d2"]["mean"],
        }
    at_risk = (n_of >= 1) & (n_of <= small)
    exact_small = int((at_risk & pub & (p == o)).sum())
    return {
        "cells": n,
        "published": n_pub,
        "suppressed": n - n_pub,
        "share_suppressed": (n - n_pub) / n if n else 0.0,
        "changed": allp["changed"],
        "share_changed": allp["changed"] / n if n else 0.0,
        "l1": allp["l1"],
        "l2": allp["l2"],
        "hellinger": allp["hellinger"],
        "mean_abs_error": allp["d1"]["mean"],
        "mean_rel_error": rel,
        "false_zero": allp["false_zero"],
        "false_positive": allp["false_nonzero"],
        "loss_percent": float(100 * lost.mean()) if n else 0.0,
        "small_cells_exact": {
            "small": int(small),
            "cells": int(at_risk.sum()),
            "exact": exact_small,
            "percent": 100 * exact_small / int(at_risk.sum()) if at_risk.any() else None,
        },
        "by_size": by_size,
    }
