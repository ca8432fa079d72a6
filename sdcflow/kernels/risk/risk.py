"""Per-record disclosure risk of key combinations: the individual risk (Benedetti &
Franconi; Franconi & Polettini 2004), the household (hierarchical) risk and the distinct
and entropy l-diversity (Machanavajjhala et al. 2007). Pure NumPy, no pandas.

The frequencies ``fk`` and ``Fk`` these functions start from come from
:func:`sdcflow.kernels.risk.frequencies.frequencies`.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ..jit import njit
from ..privacy.models import distinct_l_diversity, entropy_l_diversity
from .frequencies import row_ids

METHODS = ("approx", "exact")

# Where sdcMicro's closed form for the exact risk is accurate (its alternating terms grow
# with fk and p): p <= 1/2 and fk <= 8, or fk <= 20 and fk * p <= 1. Elsewhere the
# hypergeometric series of _exact_risk converges fast.
_CLOSED_FORM_MAX_FK = 8
_CLOSED_FORM_SMALL_P_MAX_FK = 20
_SERIES_TOL = 1e-17


def individual_risk(
    fk: np.ndarray, Fk: np.ndarray | None = None, method: str = "approx", qual: float = 1.0
) -> np.ndarray:
    """The individual risk of re-identification of each record from its sample frequency
    ``fk`` and estimated population frequency ``Fk`` (sdcMicro's ``indivRisk``, after
    Benedetti & Franconi, and Franconi & Polettini (2004), "Individual risk estimation in
    mu-Argus: a review", PSD 2004, LNCS 3050, 262-272).

    With ``p = fk / Fk``, the risk is E(1/F_k | f_k) when F_k - f_k is negative binomial
    with size f_k and probability p:

    * ``fk = 1``: ``p/(1-p) * log(1/p)``;
    * ``fk = 2``: ``p/(1-p) - (p/(1-p))**2 * log(1/p)``;
    * ``fk > 2``: ``method="approx"``: ``p / (fk - (1 - p))``; ``method="exact"``:
      ``(p/(1-p))**fk * (A (1 + BB) + (-1)**fk log p)`` with ``A = (p**(1-fk) - 1)/(fk-1)``,
      ``B(i) = (fk-1-i)**2 / ((i+1)(fk-2-i)) * (p**(i+2-fk) - 1)/(p**(i+1-fk) - 1)`` and
      ``BB = sum_{m=0}^{fk-3} (-1)**(m+1) prod_{i=0}^{m} B(i)``;
    * ``fk == Fk`` (weights of 1): ``1/fk``; this is also used where ``Fk < fk`` (weights
      below 1), where ``p > 1`` and the formulas above have no meaning (sdcMicro
      computes them regardless);

    then multiplied by ``qual``. Without ``Fk`` (no sampling weights: the data are the
    population) the risk is ``1/fk`` and ``qual`` is not applied, as sdcMicro's
    ``indivRisk(survey = FALSE)``. A missing ``Fk`` gives a missing risk.

    Non-integer ``fk`` (``alpha < 1`` and records with missing key values) is handled so:
    ``1 < fk < 2`` uses the ``fk = 2`` formula (the formula of ``ceil(fk)``), and a
    non-integer ``fk > 2`` uses the approx formula with both methods, because the exact
    series is defined for an integer ``fk`` only. (sdcMicro gives ``1 < fk < 2`` risk 0,
    and runs its exact series to ``floor(fk) - 3``.)

    The formulas are evaluated once per distinct ``(fk, Fk)`` pair. The values are those
    of sdcMicro's formulas, computed without their cancellation: the closed forms for
    ``fk >= 2`` lose precision where their alternating terms cancel (``p > 1/2``, or a
    large ``fk * p``), and ``(p/(1-p))**fk`` underflows for large fk. So outside
    ``p <= 1/2`` with ``fk <= 8``, or with ``fk <= 20`` and ``fk * p <= 1``, the same
    expectation is summed as ``p/fk * 2F1(1, 1; fk+1; 1-p)``, a series of positive terms.
    Both agree with the closed form evaluated in 400-digit arithmetic to a relative 1e-12
    (sdcMicro's own evaluation loses digits for larger fk * p, e.g. 8 of them at fk = 20,
    p = 1/2, and gives NaN once ``p**(1-fk)`` overflows, e.g. fk > 155 at p = 0.01).
    """
    fk, Fk = _risk_inputs(fk, Fk, method)
    if Fk is None:
        return 1.0 / fk
    if fk.size == 0:
        return np.zeros(0)
    # fk and Fk are constant within a key combination: evaluate each distinct pair once
    _, f_code = np.unique(fk, return_inverse=True)
    _, F_code = np.unique(Fk, return_inverse=True)
    pair, rep = row_ids(np.column_stack([f_code.reshape(-1), F_code.reshape(-1)]))
    risk = _pair_risk(fk[rep], Fk[rep], method)
    return risk[pair] * qual


def class_individual_risk(
    classes: np.ndarray, fk: np.ndarray, Fk: np.ndarray | None = None,
    method: str = "approx", qual: float = 1.0
) -> np.ndarray:
    """The individual risk of each record (:func:`individual_risk`) from the frequencies
    of the key combinations: ``fk``, ``Fk`` of each combination and ``classes``, the
    combination of each record (as
    :func:`~sdcflow.kernels.risk.frequencies.class_frequencies` gives them).

    Equal, bit for bit, to ``individual_risk(fk[classes], Fk[classes], method, qual)``
    (the formulas are elementwise, and ``qual`` multiplies each value once), but the
    formulas are evaluated once per combination, which the frequency step has already
    found, instead of finding the distinct ``(fk, Fk)`` pairs again among the records
    (two sorts of all of them); the values are then spread to the records."""
    fk, Fk = _risk_inputs(fk, Fk, method)
    classes = np.asarray(classes, dtype=np.int64)
    if classes.ndim != 1:
        raise ValueError("classes must be a 1-dimensional array")
    if classes.size and (classes.min() < 0 or classes.max() >= fk.size):
        raise ValueError("classes must be ids of the combinations, 0 .. len(fk) - 1")
    if Fk is None:
        return spread(1.0 / fk, classes)
    if fk.size == 0:
        return np.zeros(classes.size)
    return spread(_pair_risk(fk, Fk, method) * qual, classes)


def _risk_inputs(fk, Fk, method: str) -> tuple[np.ndarray, np.ndarray | None]:
    """``fk`` and ``Fk`` as float arrays, checked, and the method checked."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, not {method!r}")
    fk = np.asarray(fk, dtype=float)
    if Fk is None:
        return fk, None
    Fk = np.asarray(Fk, dtype=float)
    if fk.shape != Fk.shape or fk.ndim != 1:
        raise ValueError("fk and Fk must be 1-dimensional arrays of the same length")
    return fk, Fk


# below this many records numpy's gather is as fast as starting the threads
_PARALLEL_SPREAD = 1 << 18


def spread(values: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``values[index]`` (float values, int64 index within range): on both cores for many
    records (each output element is written by one thread from one input: the same
    result whatever the threads)."""
    if index.size < _PARALLEL_SPREAD:
        return values[index]
    return _gather(np.ascontiguousarray(values, dtype=float),
                   np.ascontiguousarray(index, dtype=np.int64))


@njit(cache=True, parallel=True)
def _gather(values, index):  # pragma: no cover - numba
    out = np.empty(index.size)
    for i in prange(index.size):
        out[i] = values[index[i]]
    return out


def _pair_risk(f: np.ndarray, F: np.ndarray, method: str) -> np.ndarray:
    """The risk (before ``qual``) of distinct ``(fk, Fk)`` pairs."""
    risk = np.full(f.shape, np.nan)
    population = F <= f  # False where Fk is missing: the risk stays missing
    risk[population] = 1.0 / f[population]
    survey = F > f
    f, F = f[survey], F[survey]
    p = f / F
    q = (F - f) / F  # 1 - p, without the cancellation of 1 - f/F when p is close to 1
    rounded = np.round(f)
    # sums of alpha can miss an integer by an ulp: call those integers
    integer = np.abs(f - rounded) <= 1e-9 * f
    count = np.where(integer, rounded, np.ceil(f))
    out = np.empty(f.shape)
    small = count <= 2
    exact = small | (integer if method == "exact" else np.zeros_like(small))
    out[exact] = _exact_risk(count[exact], p[exact], q[exact])
    approx = ~exact
    out[approx] = p[approx] / (f[approx] - q[approx])
    risk[survey] = out
    return risk


def _exact_risk(f: np.ndarray, p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """E(1/F | f) for integer ``f >= 1`` when F - f is negative binomial(f, p); ``q = 1-p``.

    This is ``(p/f) * 2F1(1, 1; f+1; q)``: from E(1/F) = int_0^1 E(t**(F-1)) dt =
    p**f int_0^1 t**(f-1) (1 - q t)**(-f) dt = (p**f/f) 2F1(f, f; f+1; q), and Euler's
    transformation 2F1(a, b; c; z) = (1-z)**(c-a-b) 2F1(c-a, c-b; c; z). sdcMicro's
    formulas for fk = 1, 2 and the exact one for fk > 2 are its closed forms (the
    expansion around q = 1), used here where they are accurate."""
    out = np.empty(f.shape)
    odds = p / q
    log_inv_p = np.log1p(q / p)  # log(1/p), accurate also when p is close to 1
    one = f == 1
    out[one] = odds[one] * log_inv_p[one]
    two = (f == 2) & (p <= 0.5)
    out[two] = odds[two] - odds[two] ** 2 * log_inv_p[two]
    closed = (f > 2) & (p <= 0.5) & (
        (f <= _CLOSED_FORM_MAX_FK) | ((f <= _CLOSED_FORM_SMALL_P_MAX_FK) & (f * p <= 1)))
    out[closed] = _closed_form(f[closed], p[closed], q[closed], log_inv_p[closed])
    series = ~(one | two | closed)
    out[series] = p[series] / f[series] * _hyp2f1_11(f[series], q[series])
    return out


def _closed_form(f: np.ndarray, p: np.ndarray, q: np.ndarray, log_inv_p: np.ndarray
                 ) -> np.ndarray:
    """sdcMicro's exact formula for integer ``f > 2``, rearranged so that no power of
    ``p`` with a negative exponent is formed (it overflows for small ``p``):
    ``(p/q)**f * A = p (1 - p**(f-1)) / ((f-1) q**f)`` and the ratio in ``B(i)`` is
    ``p (1 - p**(f-2-i)) / (1 - p**(f-1-i))``."""
    if f.size == 0:
        return np.zeros(0)
    log_p = -log_inv_p
    bb = np.zeros(f.shape)
    prod = np.ones(f.shape)
    sign = -1.0
    for i in range(int(f.max()) - 2):  # m = i runs to f - 3
        active = f - 3 >= i
        fa, la = f[active], log_p[active]
        b = ((fa - 1 - i) ** 2 / ((i + 1) * (fa - 2 - i)) * p[active]
             * np.expm1((fa - 2 - i) * la) / np.expm1((fa - 1 - i) * la))
        prod[active] *= b
        bb[active] += sign * prod[active]
        sign = -sign
    eins_a = -p * np.expm1((f - 1) * log_p) / ((f - 1) * q ** f)
    eins = np.exp(f * (log_p - np.log(q)))
    parity = np.where(f % 2 == 0, 1.0, -1.0)
    return eins_a * (1 + bb) + eins * parity * log_p


def _hyp2f1_11(f: np.ndarray, z: np.ndarray) -> np.ndarray:
    """``2F1(1, 1; f+1; z)`` for ``f >= 1``, ``0 <= z < 1``: the sum of the positive terms
    ``t_0 = 1``, ``t_{n+1} = t_n z (n+1)/(f+1+n)``. Used where it converges fast: ``z <= 1/2`` (the
    ratio is below 1/2), ``f > 20`` (``t_n <= 1/C(f+n, n)``), or ``8 < f <= 20`` with
    ``z < 1 - 1/f``: about a hundred terms at most."""
    total = np.ones(f.shape)
    term = np.ones(f.shape)
    idx = np.arange(f.size)
    n = 0
    while idx.size:
        term_i = term[idx] * z[idx] * (n + 1) / (f[idx] + 1 + n)
        term[idx] = term_i
        total[idx] += term_i
        idx = idx[term_i > _SERIES_TOL * total[idx]]
        n += 1
    return total


def household_risk(risk: np.ndarray, household: np.ndarray) -> np.ndarray:
    """The household (hierarchical) risk of each record: ``1 - prod_{i in h} (1 - r_i)``
    over the records of its household ``h``, the probability that at least one member is
    re-identified when re-identifications are independent (sdcMicro's ``measure_risk``
    with ``hid``; Franconi & Polettini 2004).

    ``household``: integer household ids (n), -1 for a missing id; a record with a missing
    id is a household of its own (sdcMicro leaves its risk missing). A missing risk makes
    its household's risk missing."""
    risk = np.asarray(risk, dtype=float)
    household = np.asarray(household, dtype=np.int64)
    if risk.shape != household.shape or risk.ndim != 1:
        raise ValueError("risk and household must be 1-dimensional arrays of the same length")
    n = risk.size
    if n == 0:
        return np.zeros(0)
    ids = household.copy()
    missing = ids < 0
    ids[missing] = ids.max(initial=0) + 1 + np.arange(int(missing.sum()))
    groups, _ = row_ids(ids[:, None])
    size = int(groups.max()) + 1
    # the product as sign * exp(sum of logs): vectorised, and exact for risks above 1
    # (possible with qual > 1), where 1 - r is negative, as sdcMicro's prod()
    survive = 1.0 - risk
    with np.errstate(divide="ignore", invalid="ignore"):
        # log1p keeps the precision of small risks, where log(1 - r) would lose it
        log_abs = np.where(risk <= 1, np.log1p(-risk), np.log(risk - 1))
    zero = np.bincount(groups, weights=(survive == 0), minlength=size) > 0
    negative = np.bincount(groups, weights=(survive < 0), minlength=size) % 2 == 1
    log_sum = np.bincount(groups, weights=np.where(survive == 0, 0.0, log_abs), minlength=size)
    # -expm1 keeps the precision of small risks, where 1 - exp(...) would lose it
    out = np.where(negative, 1.0 + np.exp(log_sum), -np.expm1(log_sum))
    out[zero & ~np.isnan(log_sum)] = 1.0
    return out[groups]


def l_diversity(classes: np.ndarray, sensitive: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct and entropy l-diversity of each record's equivalence class
    (Machanavajjhala, Kifer, Gehrke & Venkitasubramaniam (2007), "l-Diversity: Privacy
    Beyond k-Anonymity", ACM TKDD 1(1), definitions 3.3 and 4.1).

    ``classes``: integer ids of the equivalence classes (n); ``sensitive``: integer codes
    of the sensitive values (n), -1 for missing. Distinct l is the number of distinct
    non-missing sensitive values in the class; entropy l is ``exp(H)`` with ``H = -sum
    p_s log p_s`` (natural log) over the distribution of the non-missing sensitive values
    in the class. A class without a non-missing sensitive value gets 0 for both."""
    classes = np.asarray(classes, dtype=np.int64)
    sensitive = np.asarray(sensitive, dtype=np.int64)
    if classes.shape != sensitive.shape or classes.ndim != 1:
        raise ValueError("classes and sensitive must be 1-dimensional arrays of the same length")
    if classes.size == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    cls, _ = row_ids(classes[:, None])
    # the per-class values of the privacy-model kernels, spread to the records
    return (distinct_l_diversity(cls, sensitive)[cls],
            entropy_l_diversity(cls, sensitive)[cls])
