"""Noise masking of numeric variables: additive, correlated, correlated with the first two
moments restored exactly, multiplicative noise, and random orthogonal matrix masking.

Every function takes an ``n x p`` float array (``NaN`` = missing; a missing value stays
missing) and, where random, a :class:`numpy.random.Generator`.

* Additive (uncorrelated) noise, Torra, "Masking methods", 2013, "Additive Noise:
  Uncorrelated noise": ``X'_j = X_j + eps_j`` with ``eps_j ~ N(0, k Var(X_j))`` independent,
  so means and covariances are kept, variances become ``(1 + k) Var`` and correlations
  ``rho / (1 + k)`` (in expectation).
* Correlated noise, Torra 2013, "Additive Noise: Correlated noise" (Templ 2019, "Adding
  correlated noise"): ``eps ~ N(0, k Sigma)`` with ``Sigma`` the covariance matrix of X, so
  means and correlations are kept, covariances become ``(1 + k) Sigma``.
* Correlated noise with restored moments: after correlated noise the complete records are
  transformed linearly so that their sample mean vector and sample covariance matrix equal
  those of X exactly. The idea of restoring the first two moments by a linear
  transformation after adding noise is Kim's (J. J. Kim, "A method for limiting disclosure
  in microdata based on random noise and transformation", ASA Proc. Survey Research
  Methods, 1986) and Tendick & Matloff's ("A modified random perturbation method for
  database security", ACM TODS 19(1), 1994); here it is exact in the sample (see
  :func:`restore_moments`).
* Multiplicative noise (Templ 2019 lists it; Kim & Winkler, "Multiplicative noise for
  masking continuous data", US Census Bureau RR 2003/01): ``X' = X f`` with a lognormal
  factor ``f = exp(s u - s^2 / 2)``, ``u ~ N(0, 1)``, ``s^2 = ln(1 + k)``, so
  ``E(f) = 1`` and ``Var(f) = k`` (the moments of ``1 + N(0, k)``) but ``f > 0``: every
  value keeps its sign, zeros stay zero, ``E(X' | X) = X`` and the relative perturbation
  ``X'/X - 1`` has mean 0 and variance ``k``.
* Random orthogonal matrix masking, ROMM, Templ 2019 ("ROMM"): ``Z = A X`` with ``A`` a random
  ``n x n`` orthogonal matrix (``A^{-1} = A^T``) acting on the records, as in Ting,
  Fienberg & Trottini ("Random orthogonal matrix
  masking methodology for microdata release", Int. J. Information and Computer Security
  2(1), 2008). Here ``A`` also fixes the vector of ones (``A 1 = 1``), which makes the
  sample mean vector and the sample covariance matrix of Z equal those of X exactly, and
  keeps every exact linear relation between the variables. ``A`` is never formed (it
  would be ``n x n``): only ``A Q`` matters, where ``X - mean = Q F^T`` with ``Q``
  orthonormal, and for a Haar-distributed ``A`` that is a Haar-distributed orthonormal
  frame in the complement of the ones, drawn as the QR factor, with sign correction, of a
  Gaussian matrix (Langsrud, "Information preserving regression-based tools for
  statistical disclosure control", Statistics and Computing 29, 2019, shows that ROMM
  needs no ``n x n`` matrix).

Memory: the functions work on blocks of rows and in place where they can, so that a call
needs about twice the size of ``x`` (``x`` and the result), whatever the number of records.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

# Eigenvalues of a correlation matrix below this fraction of the largest are zero: the
# data lie (numerically) in a subspace, and noise must stay in it (e.g. an identity
# total = a + b among the variables is then kept exactly).
_RANK_TOL = 1e-10
# Rows per block of the row-wise passes: temporaries stay small (65,536 x p doubles).
_CHUNK = 1 << 16


def _chunks(n: int, rows: np.ndarray | None = None) -> Iterator[slice | np.ndarray]:
    """Blocks of record positions: slices of ``_CHUNK`` rows or, with a boolean mask
    ``rows``, the positions of the masked records in each such slice."""
    for start in range(0, n, _CHUNK):
        block = slice(start, min(start + _CHUNK, n))
        if rows is None:
            yield block
        else:
            where = np.flatnonzero(rows[block]) + start
            if len(where):
                yield where


def _size(block: slice | np.ndarray) -> int:
    return block.stop - block.start if isinstance(block, slice) else len(block)


def _mean(x: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """Column means of the records in ``rows`` (a boolean mask; all if None)."""
    if rows is None:
        return x.mean(axis=0)
    total, count = np.zeros(x.shape[1]), 0
    for block in _chunks(len(x), rows):
        total += x[block].sum(axis=0)
        count += _size(block)
    return total / count


def complete_rows(x: np.ndarray) -> np.ndarray:
    """Records (rows) without a missing value."""
    return ~np.isnan(x).any(axis=1)


def _gram(x: np.ndarray, mean: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """``(x - mean)^T (x - mean)`` over the records in ``rows`` (all if None), accumulated
    over blocks of rows."""
    out = np.zeros((x.shape[1], x.shape[1]))
    for block in _chunks(len(x), rows):
        centred = x[block] - mean
        out += centred.T @ centred
    return (out + out.T) / 2


def moments(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Sample mean vector and sample covariance matrix (divisor ``m - 1``) of the complete
    records of ``x``, and their number ``m`` (NaN moments when ``m < 2``)."""
    full = complete_rows(x)
    m, p = int(full.sum()), x.shape[1]
    if m < 2:
        return np.full(p, np.nan), np.full((p, p), np.nan), m
    rows = None if m == len(x) else full
    mean = _mean(x, rows)
    return mean, _gram(x, mean, rows) / (m - 1), m


def _scales(cov: np.ndarray) -> np.ndarray:
    """Standard deviations to work in the correlation scale (1 for constant variables):
    variables in different units (age, income) would make the eigen-decompositions lose
    the small ones."""
    d = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    d[~(d > 0)] = 1.0
    return d


def _eigen_factor(cov: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``V`` (``p x r``) and ``w`` (``r``) with ``cov = D V diag(w) V^T D``, ``D`` the
    standard deviations, over the ``r`` eigenvalues of the correlation matrix that are not
    (numerically) zero; rows of constant variables are exactly zero."""
    d = _scales(cov)
    corr = cov / np.outer(d, d)
    w, v = np.linalg.eigh((corr + corr.T) / 2)
    keep = w > _RANK_TOL * max(float(w.max(initial=0.0)), 0.0)
    v = v[:, keep] * (np.diag(cov) > 0)[:, None]
    return v, w[keep]


def noise_factor(cov: np.ndarray) -> np.ndarray:
    """``F`` (``p x r``) with ``F F^T = cov``, ``r`` the numerical rank of ``cov``: noise
    ``G F^T`` with ``G`` standard normal has covariance ``cov`` and lies in its range."""
    v, w = _eigen_factor(cov)
    return _scales(cov)[:, None] * v * np.sqrt(w)


def column_variances(x: np.ndarray) -> np.ndarray:
    """The sample variance (divisor m - 1) of the observed values of each column of
    ``x``; 0 for a column with fewer than 2 observed values."""
    x = np.asarray(x, dtype=float)
    observed = (~np.isnan(x)).sum(axis=0)
    return np.array([np.nanvar(x[:, j], ddof=1) if observed[j] >= 2 else 0.0
                     for j in range(x.shape[1])])


def additive_noise(x: np.ndarray, k: float, rng: np.random.Generator, *,
                   variances: np.ndarray | None = None) -> np.ndarray:
    """``x + eps`` with independent ``eps_j ~ N(0, k Var(x_j))`` (Torra 2013, "Uncorrelated
    noise"); ``Var`` is the sample variance of the observed values of each column unless
    ``variances`` is given. The noise is drawn variable by variable (column-major)."""
    x = np.asarray(x, dtype=float)
    n, p = x.shape
    if variances is None:
        variances = column_variances(x)
    out = rng.standard_normal((p, n)).T
    out *= np.sqrt(k * np.nan_to_num(np.asarray(variances, dtype=float)))
    out += x
    return out


def correlated_noise(x: np.ndarray, k: float, rng: np.random.Generator, *,
                     cov: np.ndarray | None = None) -> np.ndarray:
    """``x + eps`` with ``eps ~ N(0, k Sigma)`` (Torra 2013, "Correlated noise"); ``Sigma``
    is the sample covariance of the complete records unless ``cov`` is given. A record
    with missing values gets the noise on its observed values."""
    x = np.asarray(x, dtype=float)
    if cov is None:
        cov = moments(x)[1]
    factor = noise_factor(k * np.nan_to_num(cov))
    out = np.empty(x.shape, order="F")
    for rows in _chunks(len(x)):
        out[rows] = rng.standard_normal((rows.stop - rows.start, factor.shape[1])) @ factor.T
    out += x
    return out


def restore_moments(z: np.ndarray, mean: np.ndarray, cov: np.ndarray, *,
                    out: np.ndarray | None = None,
                    rows: np.ndarray | None = None) -> np.ndarray:
    """The affine transform of the records ``z`` (complete; those in the boolean mask
    ``rows`` if given, the others are copied unchanged) whose sample mean is ``mean`` and
    whose sample covariance is ``cov`` exactly (into ``out``, which may be ``z`` itself).

    ``z' = mean + (z - mean_z) M`` with ``M^T S_z M = S`` (``S_z`` the covariance of
    ``z``): with factors ``S_z = F_z F_z^T``, ``S = F F^T`` and a left inverse ``L`` of
    ``F_z``, ``M = L^T U F^T`` for any ``U`` with orthonormal columns, i.e. ``z'`` is the
    whitened scores of ``z`` recoloured with ``F``. ``U`` is the orthogonal Procrustes
    rotation maximising the covariance between ``z`` and ``z'`` (each variable in units of
    its standard deviation), so the transform moves the records least; it does not depend
    on the order of the variables (as Cholesky factors, ``M = L_z^{-T} L^T``, would). The
    factors come from eigen-decompositions in the correlation scales of ``z`` and ``S``
    (no loss of variables in small units); directions of (numerically) zero variance are
    dropped, so exact linear relations among the columns stay exact. Exactness needs
    ``z`` to vary in every direction ``S`` does."""
    z = np.asarray(z, dtype=float)
    m = len(z) if rows is None else int(rows.sum())
    mean_z = _mean(z, rows)
    sz = _gram(z, mean_z, rows) / (m - 1)
    dz = _scales(sz)
    vz, wz = _eigen_factor(sz)
    whiten = vz / np.sqrt(wz) / dz[:, None]  # L^T: the scores (z - mean_z) L^T
    fz = dz[:, None] * vz * np.sqrt(wz)
    fx = noise_factor(cov)
    left, _, right = np.linalg.svd(fx.T @ (fz / (_scales(cov) ** 2)[:, None]),
                                   full_matrices=False)
    transform = whiten @ (right.T @ left.T) @ fx.T
    if out is None:
        out = np.empty(z.shape, order="F") if rows is None else z.copy(order="F")
    for block in _chunks(len(z), rows):
        out[block] = (z[block] - mean_z) @ transform + mean
    return out


def correlated_restored(x: np.ndarray, k: float, rng: np.random.Generator, *,
                        known_moments: tuple | None = None) -> np.ndarray:
    """Correlated noise (:func:`correlated_noise`), then the complete records transformed
    by :func:`restore_moments` so that their sample mean vector and covariance matrix
    equal those of the complete records of ``x``. Records with a missing value keep the
    correlated noise only (a linear map of the variables needs all of them). Constant
    variables stay exactly as they are. ``known_moments``: :func:`moments` of ``x`` when
    the caller has them already."""
    x = np.asarray(x, dtype=float)
    mean, own_cov, m = moments(x) if known_moments is None else known_moments
    z = correlated_noise(x, k, rng, cov=own_cov)
    if m >= 2:
        full = complete_rows(x)
        restore_moments(z, mean, own_cov, out=z, rows=None if full.all() else full)
        constant = np.diag(own_cov) == 0
        z[:, constant] = x[:, constant]
    return z


def multiplicative_noise(x: np.ndarray, k: float, rng: np.random.Generator) -> np.ndarray:
    """``x f`` with independent lognormal factors ``f = exp(s u - s^2/2)``,
    ``s^2 = ln(1 + k)``: ``E(f) = 1``, ``Var(f) = k``, ``f > 0`` (module docstring). The
    factors are drawn variable by variable (column-major)."""
    x = np.asarray(x, dtype=float)
    s2 = np.log1p(k)
    out = rng.standard_normal(x.shape[::-1]).T
    out *= np.sqrt(s2)
    out -= s2 / 2
    np.exp(out, out=out)
    out *= x
    return out


# --- random orthogonal matrix masking ------------------------------------------------


def _sign_corrected_qr(b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Thin QR with a non-negative diagonal of R: for a Gaussian ``b`` the Q factor is then
    Haar-distributed (Mezzadri, "How to generate random matrices from the classical
    compact groups", Notices AMS 54, 2007)."""
    q, r = np.linalg.qr(b)
    signs = np.where(np.diag(r) < 0, -1.0, 1.0)
    return q * signs, r * signs[:, None]


def haar_orthogonal(n: int, rng: np.random.Generator) -> np.ndarray:
    """A Haar-distributed (uniformly random) ``n x n`` orthogonal matrix: the Q factor of a
    standard normal matrix with the signs of R's diagonal made positive (Mezzadri 2007)."""
    return _sign_corrected_qr(rng.standard_normal((n, n)))[0]


def haar_orthogonal_fixing_ones(n: int, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random ``n x n`` orthogonal matrix ``A`` with ``A 1 = 1``: a Haar
    rotation of the complement of the vector of ones. Dense, for small ``n`` (the
    reference against which :func:`romm` is tested)."""
    ones = np.full((n, 1), 1 / np.sqrt(n))
    basis = _sign_corrected_qr(np.hstack([ones, np.eye(n)[:, : n - 1]]))[0][:, 1:]
    h = haar_orthogonal(n - 1, rng) if n > 1 else np.zeros((0, 0))
    return ones @ ones.T + basis @ h @ basis.T


def _orthonormalise_centred(g: np.ndarray, rows: np.ndarray | None = None) -> None:
    """``g`` (``n x r``, in place) replaced by the Q factor of the QR decomposition, with a
    positive diagonal of R, of ``g`` projected onto the complement of the ones (which is
    what the QR of ``[1, g]`` gives after its first column). CholeskyQR2 (Fukaya et al.,
    2014): two passes of ``g <- g R^{-1}``, ``R^T R = g^T g``; exact to rounding for the
    well-conditioned matrices used here, and needs no ``n x r`` workspace. ``R``'s
    diagonal is positive, so this is the sign-corrected QR of Mezzadri (2007). With
    ``rows`` (a boolean mask), only those rows of ``g`` are the matrix."""
    for _ in range(2):
        mean = _mean(g, rows)
        upper = np.linalg.cholesky(_gram(g, mean, rows)).T
        inverse = np.linalg.solve(upper, np.eye(len(upper)))
        for block in _chunks(len(g), rows):
            g[block] = (g[block] - mean) @ inverse


@dataclass(frozen=True)
class Rotation:
    """The ``n x n`` orthogonal matrix ``A`` of a ROMM draw, known by what it does: it maps
    the orthonormal frame ``source`` (columns orthogonal to the ones) onto ``target`` and
    fixes the vector of ones. Concretely ``A = H_r ... H_1``, the Householder reflections
    sending ``source[:, j]`` (as moved by the previous ones) onto ``target[:, j]``: each
    reflection's vector is orthogonal to the ones and to the targets already reached, so
    it fixes both."""

    source: np.ndarray
    target: np.ndarray

    def _reflections(self) -> list[tuple[np.ndarray, float]]:
        q = self.source.copy()
        out = []
        for j in range(q.shape[1]):
            v = q[:, j] - self.target[:, j]
            vv = float(v @ v)
            if vv > 1e-30:
                q[:, j:] -= np.outer(v, 2 * (v @ q[:, j:]) / vv)
                out.append((v, vv))
        return out

    def apply(self, y: np.ndarray) -> np.ndarray:
        """``A y`` for an ``n x m`` array ``y``, in O(n m r)."""
        y = np.array(y, dtype=float)
        for v, vv in self._reflections():
            y -= np.outer(v, 2 * (v @ y) / vv)
        return y

    def matrix(self) -> np.ndarray:
        """``A`` itself (``n x n``: for tests and small data)."""
        return self.apply(np.eye(len(self.source)))


def romm(x: np.ndarray, rng: np.random.Generator, *, lam: float | None = None,
         rotation: bool = False, rows: np.ndarray | None = None) -> tuple[
        np.ndarray, Rotation | None]:
    """Random orthogonal matrix masking of complete records: ``Z = A X`` with ``A``
    orthogonal, ``A 1 = 1`` (module docstring). Returns ``Z`` and, with ``rotation``,
    ``A`` as a :class:`Rotation` (which keeps two ``n x r`` frames: for tests). With
    ``rows`` (a boolean mask) only those records are the matrix ``X`` and are rotated
    (the result is the same as for ``x[rows]``); the others are returned unchanged.

    With ``X - mean = Q F^T`` (``F`` a factor of ``X^T X`` centred, from its
    eigen-decomposition in the correlation scale; ``Q`` orthonormal and orthogonal to the
    ones, ``r`` columns, ``r`` the rank), ``Z = mean + Q' F^T`` where ``Q'`` is the
    sign-corrected QR factor of an ``n x r`` standard normal matrix projected off the ones:
    a Haar frame there, so ``Z`` has the law of ``H X`` with ``H`` Haar-distributed among
    the orthogonal matrices fixing the ones (any other factor ``F U`` gives the same law,
    the Haar measure being invariant). With ``lam`` the Gaussian matrix is replaced by
    ``Q + lam G``, which keeps ``A`` near the identity for small ``lam`` (Langsrud 2019's
    lambda: ``(I + lam M) Q = Q + lam G``). This is not sdcMicro's
    ``addNoise(method = "ROMM")``, which orthonormalises ``I + p M`` and multiplies the
    uncentred records by it: its means change, and the same ``p`` moves the values about
    ``sqrt(mean(x^2) / Var(x))`` times more. Either way here ``Z^T Z = X^T X`` and the
    column sums are kept, hence the sample mean vector and covariance matrix exactly;
    constant variables stay exactly as they are."""
    x = np.asarray(x, dtype=float)
    n, p = x.shape
    m = n if rows is None else int(rows.sum())
    if m < 2:
        return x.copy(order="F"), (Rotation(np.zeros((m, 0)), np.zeros((m, 0)))
                                   if rotation else None)
    mean = _mean(x, rows)
    gram = _gram(x, mean, rows)
    v, w = _eigen_factor(gram)
    d = _scales(gram)
    to_source = v / np.sqrt(w) / d[:, None]  # Q = (X - mean) to_source
    factor = d[:, None] * v * np.sqrt(w)  # F
    r = factor.shape[1]
    out = np.empty((n, p), order="F") if rows is None else x.copy(order="F")
    frame = out[:, :r]  # the new frame Q' is built in the result's own memory
    for block in _chunks(n, rows):
        draw = rng.standard_normal((_size(block), r))
        frame[block] = draw if lam is None else (x[block] - mean) @ to_source + lam * draw
    _orthonormalise_centred(frame, rows)
    found = None
    if rotation:
        chosen = slice(None) if rows is None else rows
        found = Rotation((x[chosen] - mean) @ to_source, frame[chosen].copy())
    for block in _chunks(n, rows):
        out[block] = frame[block] @ factor.T + mean
    constant = np.diag(gram) == 0
    out[:, constant] = x[:, constant]
    return out, found
