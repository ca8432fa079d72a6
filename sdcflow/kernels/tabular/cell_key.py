"""The cell key method for frequency tables (Thompson, Broadfoot & Elazar, "Methodology
for the automatic confidentialisation of statistical outputs from remote servers at the
Australian Bureau of Statistics", UNECE work session on statistical data
confidentiality, 2013; Giessing & Tent, "Concepts for generalising tools implementing
the cell key method to the case of continuous variables", UNECE 2019), with the
conventions of the R package ``cellKey`` (B. Meindl, version 1.0.2, 2023):

* every record gets a record key, uniform on ``[0, 1)`` rounded to ``digits`` decimals
  (cellKey's ``ck_generate_rkeys(nr_digits = 8)``), drawn once, or read from a column;
  drawn by sdcflow, the key of the record at position ``r`` is the ``r``-th output of a
  counter-based generator (SplitMix64: Steele, Lea & Flood, "Fast splittable
  pseudorandom number generators", OOPSLA 2014) seeded by the recipe's seed, so the keys
  are the same however the records are split into partitions;
* the cell key of a cell is the fractional part of the sum of the record keys of its
  records (``sum %% 1``), so the same records give the same cell key in every table:
  a cell published in two tables gets the same noise (consistency);
* the perturbation of a cell of count ``n`` comes from row ``i = min(n, max i)`` of the
  ptable (:mod:`sdcflow.kernels.tabular.ptable`): the first entry whose ``p_int_ub`` is
  larger than the cell key (the key falls in ``[p_int_lb, p_int_ub)``: a key equal to a
  bound takes the entry above it), its ``v`` is added; cells of count 0 stay 0;
* a weighted count is perturbed as cellKey does: the perturbed count times the cell's
  mean weight.

Record keys are kept as whole numbers of ``10^-digits`` (``digits`` <= 10), so a cell
key is an exact sum modulo ``10^digits`` whatever the order or partition in which the
records are added: the same cell gets the same key in every table, on any engine (a
floating-point sum could differ in its last bit between two tables and, at an interval
bound, change the noise).
"""

from __future__ import annotations

import hashlib

import numpy as np

from ..jit import njit
from .ptable import PTable

MIN_DIGITS, MAX_DIGITS = 5, 10  # cellKey allows 5..20; int64 sums need <= 10 here


def _modulus(digits: int) -> int:
    if isinstance(digits, bool) or not float(digits).is_integer() \
            or not MIN_DIGITS <= digits <= MAX_DIGITS:
        raise ValueError(f"digits of the record keys must be a whole number in "
                         f"{MIN_DIGITS}..{MAX_DIGITS} (got {digits!r})")
    return 10 ** int(digits)


def draw_record_keys(n: int, rng: np.random.Generator, digits: int = 8) -> np.ndarray:
    """``n`` record keys, uniform on ``[0, 1)`` rounded to ``digits`` decimals, as whole
    numbers of ``10^-digits`` (int64)."""
    m = _modulus(digits)
    return np.rint(rng.random(n) * m).astype(np.int64)


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_CHUNK = 1 << 20


def counter_record_keys(seed: int, start: int, n: int, digits: int = 8,
                        stream: str = "record keys") -> np.ndarray:
    """The record keys of the records at positions ``start .. start + n - 1`` (whole
    numbers of ``10^-digits``): SplitMix64 outputs for the counters ``start + i`` from a
    state derived from ``seed`` and the name of the ``stream``, their top 53 bits as a
    uniform number on ``[0, 1)`` (as NumPy's ``random()``), rounded to ``digits``
    decimals. Any split of the positions gives the same keys."""
    m = _modulus(digits)
    digest = hashlib.sha256(f"{int(seed)}:{stream}".encode()).digest()
    state = np.uint64(int.from_bytes(digest[:8], "little"))
    out = np.empty(n, dtype=np.int64)
    for lo in range(0, n, _CHUNK):  # (temporaries of one block, whatever n)
        hi = min(lo + _CHUNK, n)
        z = state + (np.arange(start + lo, start + hi, dtype=np.uint64) + np.uint64(1)) \
            * _GOLDEN
        z = (z ^ (z >> np.uint64(30))) * _MIX1
        z = (z ^ (z >> np.uint64(27))) * _MIX2
        z = z ^ (z >> np.uint64(31))
        uniform = (z >> np.uint64(11)).astype(np.float64) * 2.0 ** -53
        out[lo:hi] = np.rint(uniform * m)
    return out


def record_key_units(keys: np.ndarray, digits: int = 8) -> np.ndarray:
    """Given record keys (numbers in ``[0, 1]``, as cellKey requires) as whole numbers of
    ``10^-digits``, rounded to ``digits`` decimals."""
    m = _modulus(digits)
    x = np.asarray(keys, dtype=float)
    if not np.isfinite(x).all():
        raise ValueError("record keys must not be missing or infinite")
    if ((x < 0) | (x > 1)).any():
        raise ValueError("record keys must lie in [0, 1]")
    return np.rint(x * m).astype(np.int64)


def cell_key_units(group: np.ndarray, units: np.ndarray, n_cells: int,
                   digits: int = 8) -> np.ndarray:
    """The cell keys (whole numbers of ``10^-digits``, in ``[0, 10^digits)``) of cells
    ``0..n_cells-1`` whose records are ``group`` (one cell index per record) with record
    keys ``units``: each cell's sum modulo ``10^digits``, exact (integer sums: the same
    in any order of the records). One pass over the records, no sort."""
    m = _modulus(digits)
    group = np.ascontiguousarray(group, dtype=np.int64)
    units = np.ascontiguousarray(units, dtype=np.int64)
    if group.shape != units.shape or group.ndim != 1:
        raise ValueError("group and units must be 1-dimensional arrays of the same length")
    if group.size and (group.min() < 0 or group.max() >= n_cells):
        raise ValueError("group must hold cell indices 0 .. n_cells - 1")
    return _modular_sums(group, units, int(n_cells), m)


@njit(cache=True)
def _modular_sums(group, units, n_cells, m):  # pragma: no cover - numba
    out = np.zeros(n_cells, dtype=np.int64)
    for i in range(group.size):
        out[group[i]] += units[i] % m  # (below 9.2e18 for up to 9e8 records of a cell)
    for g in range(n_cells):
        out[g] %= m
    return out


def cell_keys(units: np.ndarray, digits: int = 8) -> np.ndarray:
    """Cell keys in ``[0, 1)`` from whole numbers of ``10^-digits``."""
    m = _modulus(digits)
    return (np.asarray(units, dtype=np.int64) % m) / m


def lookup(ptable: PTable, keys: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray,
                                                                          np.ndarray]:
    """cellKey's lookup of frequency tables: for each cell (cell key ``keys`` in
    ``[0, 1)``, original count ``counts``) the perturbation ``v`` and the ptable row
    ``i`` used (-1 for a count of 0 or a count that is not a whole number: no
    perturbation). Counts of at least the last row's ``i`` use that row."""
    keys = np.asarray(keys, dtype=float)
    counts = np.asarray(counts, dtype=float)
    pert = np.zeros(len(keys))
    row = np.full(len(keys), -1.0)
    rows = ptable.rows[ptable.rows > 0]
    if not len(rows):
        return pert, row
    top = rows[-1]
    for d in rows:
        at = counts >= d if d == top else counts == d
        if not at.any():
            continue
        v, _, ub = ptable.row(d)
        idx = np.searchsorted(ub, keys[at], side="right")  # first ub > key
        idx[idx == len(ub)] = 0  # none (a key >= the last bound): R's which.max -> first
        pert[at] = v[idx]
        row[at] = d
    return pert, row


def perturb_counts(ptable: PTable, keys: np.ndarray, counts: np.ndarray,
                   weighted: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The perturbed counts ``counts + v`` (cellKey's ``puwc``) and, given the weighted
    counts, the perturbed weighted counts ``(counts + v) * weighted / counts`` (``pwc``,
    0 for an empty cell)."""
    counts = np.asarray(counts, dtype=float)
    pert, _ = lookup(ptable, keys, counts)
    out = counts + pert
    if weighted is None:
        return out, out.copy()
    weighted = np.asarray(weighted, dtype=float)
    mean_w = np.divide(weighted, counts, out=np.zeros(len(counts)), where=counts > 0)
    return out, out * mean_w
