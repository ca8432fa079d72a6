"""Lossy compression (Torra, "Masking methods", 2013, "Lossy Compression"; Domingo-Ferrer &
Torra's JPEG-based masking): the numeric data are regarded as an image, records being
rows, variables columns and values pixels, compressed with the lossy part of JPEG, and
the decompressed image is read back as the masked data.

The lossy part of baseline JPEG (ITU-T T.81 / ISO 10918-1, sections A.3 and F.1.1.4,
Annex K.1) is: samples level-shifted by 128, cut into 8 x 8 blocks, each transformed by
the 2-D DCT-II (orthonormal), each coefficient divided by its entry of the quantisation
table and rounded; decoding multiplies back and applies the inverse DCT. Entropy coding is
lossless and therefore left out. The table is the standard luminance table of Annex K.1
scaled for a ``quality`` of 1..100 with the formula of the Independent JPEG Group's
libjpeg (``jcparam.c``): ``scale = 5000 / q`` for ``q < 50``, ``200 - 2 q`` otherwise,
entries ``floor((t scale + 50) / 100)`` clipped to 1..255. Quality 100 gives a table of
ones (coefficients rounded to integers only).
"""

from __future__ import annotations

import numpy as np
from scipy.fft import dctn, idctn

BLOCK = 8

# ITU-T T.81 Annex K.1, Table K.1: luminance quantisation table (row = vertical frequency,
# here along the records; column = horizontal frequency, along the variables).
LUMINANCE = np.array([
    [16, 11, 10, 16, 24, 40, 51, 61],
    [12, 12, 14, 19, 26, 58, 60, 55],
    [14, 13, 16, 24, 40, 57, 69, 56],
    [14, 17, 22, 29, 51, 87, 80, 62],
    [18, 22, 37, 56, 68, 109, 103, 77],
    [24, 35, 55, 64, 81, 104, 113, 92],
    [49, 64, 78, 87, 103, 121, 120, 101],
    [72, 92, 95, 98, 112, 100, 103, 99],
])


def quantisation_table(quality: int) -> np.ndarray:
    """The luminance table scaled for ``quality`` (1..100) as libjpeg does (module
    docstring): quality 50 is Table K.1 itself, 100 all ones."""
    if not 1 <= quality <= 100:
        raise ValueError(f"quality must be in 1..100, not {quality!r}")
    scale = 5000 // quality if quality < 50 else 200 - 2 * quality
    return np.clip((LUMINANCE * scale + 50) // 100, 1, 255)


def jpeg_blocks(image: np.ndarray, table: np.ndarray | None) -> np.ndarray:
    """The image (``h x w``, samples on the 0..255 scale) after JPEG's lossy round trip
    with ``table``; ``table=None`` skips the quantisation (the DCT round trip alone,
    exact up to floating point).

    The image is padded to whole blocks by repeating its last row and column, as libjpeg
    does (edge replication adds no artificial high frequencies), and cropped back."""
    image = np.asarray(image, dtype=float)
    h, w = image.shape
    if h == 0 or w == 0:
        return image.copy()
    padded = np.pad(image - 128.0, ((0, -h % BLOCK), (0, -w % BLOCK)), mode="edge")
    bh, bw = padded.shape[0] // BLOCK, padded.shape[1] // BLOCK
    # (block row, block column, 8, 8): the 2-D transforms run over the last two axes
    blocks = padded.reshape(bh, BLOCK, bw, BLOCK).transpose(0, 2, 1, 3)
    coef = dctn(blocks, axes=(2, 3), norm="ortho")
    if table is not None:
        coef = np.round(coef / table) * table
    out = idctn(coef, axes=(2, 3), norm="ortho")
    return out.transpose(0, 2, 1, 3).reshape(padded.shape)[:h, :w] + 128.0


def _column_ranges(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Minimum, maximum and mean of the observed values of each column (0 for a column
    without any), by blocks of rows (no copy of a column)."""
    p = x.shape[1]
    lo, hi = np.full(p, np.inf), np.full(p, -np.inf)
    total, count = np.zeros(p), np.zeros(p, dtype=np.int64)
    for start in range(0, len(x), 1 << 16):
        block = x[start:start + (1 << 16)]
        observed = ~np.isnan(block)
        # fmin and fmax skip NaN unless every value is NaN
        np.fmin(lo, np.fmin.reduce(block, axis=0), out=lo)
        np.fmax(hi, np.fmax.reduce(block, axis=0), out=hi)
        total += np.where(observed, block, 0.0).sum(axis=0)
        count += observed.sum(axis=0)
    empty = count == 0
    lo[empty], hi[empty] = 0.0, 0.0
    return lo, hi, np.where(empty, 0.0, total / np.maximum(count, 1))


def _samples(raw: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """``raw`` on the 0..255 scale of its columns' ranges (0 for constant columns);
    dividing by the range first keeps tiny ranges (5e-324) finite."""
    span = hi - lo
    out = (raw - lo) / np.where(span > 0, span, 1.0) * 255.0
    out[:, span == 0] = 0.0
    return out


def to_samples(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each column of ``x`` mapped linearly onto 0..255 (its minimum to 0, its maximum to
    255; a constant column to 0). Returns the samples and each column's minimum and range;
    missing values stay NaN."""
    x = np.asarray(x, dtype=float)
    lo, hi, _ = _column_ranges(x)
    return _samples(x, lo, hi), lo, hi - lo


def lossy_compress(x: np.ndarray, quality: int, *, order: np.ndarray | None = None) -> tuple[
        np.ndarray, np.ndarray]:
    """JPEG-based masking of the ``n x p`` array ``x`` (module docstring).

    Each column is scaled to 0..255 (:func:`to_samples`; the samples are not rounded to
    8-bit integers, so that quality 100 only adds the rounding of the coefficients). A
    missing value is filled with its column's mean sample for the compression and stays
    missing in the result. The image rows are the records in ``order`` (default: as
    given), so that records put next to each other by ``order`` share blocks. Decoded
    samples are clipped to 0..255, as a JPEG decoder does, so that every result lies
    within its column's original range, and scaled back; a constant column is unchanged.
    Deterministic: no randomness. The image is processed in bands of whole blocks, so
    memory stays about that of ``x`` and the result.

    Returns the masked values and, per column, the root mean squared change of the
    observed values on the 0..255 scale of the image."""
    x = np.asarray(x, dtype=float)
    n, p = x.shape
    lo, hi, mean = _column_ranges(x)
    fill = _samples(mean[None, :], lo, hi)[0]
    table = quantisation_table(quality)
    out = np.empty((n, p), order="F")
    squares, counts = np.zeros(p), np.zeros(p)
    band = BLOCK * 2048  # 16,384 records: the temporaries of a band stay near 1 MB each
    for start in range(0, n, band):
        rows = slice(start, min(start + band, n)) if order is None else order[start:start + band]
        raw = x[rows]
        missing = np.isnan(raw)
        samples = _samples(raw, lo, hi)
        np.copyto(samples, np.broadcast_to(fill, samples.shape), where=missing)
        decoded = np.clip(jpeg_blocks(samples, table), 0.0, 255.0)
        change = np.where(missing, 0.0, decoded - samples)
        squares += (change ** 2).sum(axis=0)
        counts += (~missing).sum(axis=0)
        values = np.clip(lo + decoded / 255.0 * (hi - lo), lo, hi)
        values[missing] = np.nan
        out[rows] = values
    return out, np.sqrt(squares / np.maximum(counts, 1))
