"""Exact integer noise for differential privacy: the discrete Laplace and the discrete
Gaussian distributions, sampled with integer arithmetic only, by the algorithms of
C. L. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for Differential
Privacy", *Advances in Neural Information Processing Systems* 33 (NeurIPS 2020),
Algorithms 1-3 -- the samplers the OpenDP Library itself uses for its integer
mechanisms (``make_laplace`` and ``make_gaussian`` on integer domains).

Why sdcflow draws the noise and not OpenDP: OpenDP reads its random bits from the
operating system and cannot be seeded, while sdcflow promises the same release, byte for
byte, from the recipe's seed. OpenDP *constructs* every measurement (domain, metric,
mechanism, scale) and computes its privacy map (:mod:`sdcflow.dp`); the noise of that
scale is drawn here, with the same exact samplers, from the step's generator.

The random bits are not the generator's output itself: a 256-bit key is drawn from the
step's generator once, and the bits are BLAKE2b of (key, block counter), a keyed hash
used as a pseudo-random function in counter mode. A non-cryptographic generator such as
PCG64 can be reconstructed from a few of its outputs (its state is 128 bits of a linear
congruential generator), and with its state every later draw -- the noise of every
other cell -- would follow from noise an intruder could estimate; a keyed cryptographic
hash leaves nothing to invert short of the key. The key still follows from the recipe's
seed, which is why the seed is never published.

Scales are exact rationals (a float scale, as OpenDP's constructors take it, is a dyadic
rational: ``fractions.Fraction`` holds it exactly), so the distribution sampled is exactly
the one whose privacy OpenDP's map states.
"""

from __future__ import annotations

import hashlib
from fractions import Fraction

import numpy as np

__all__ = ["KeyedBits", "discrete_gaussian", "discrete_gaussian_pmf", "discrete_laplace",
           "discrete_laplace_pmf", "dp_noise"]

_BLOCK = 64  # bytes of one BLAKE2b output


class KeyedBits:
    """Uniform random integers from BLAKE2b in counter mode under a 256-bit key."""

    def __init__(self, key: bytes):
        if len(key) != 32:
            raise ValueError("the key must be 32 bytes")
        self._key = key
        self._counter = 0
        self._pool = 0  # unread bits, as an integer
        self._bits = 0

    @classmethod
    def from_generator(cls, rng: np.random.Generator) -> KeyedBits:
        """A stream keyed by 256 bits drawn from ``rng`` (the step's generator)."""
        return cls(rng.bytes(32))

    def _refill(self) -> None:
        block = hashlib.blake2b(self._counter.to_bytes(16, "little"), key=self._key,
                                digest_size=_BLOCK).digest()
        self._counter += 1
        self._pool |= int.from_bytes(block, "little") << self._bits
        self._bits += 8 * _BLOCK

    def bits(self, k: int) -> int:
        """``k`` uniform random bits as an integer in ``[0, 2^k)``."""
        while self._bits < k:
            self._refill()
        out = self._pool & ((1 << k) - 1)
        self._pool >>= k
        self._bits -= k
        return out

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` (rejection sampling: exact)."""
        if n <= 0:
            raise ValueError("n must be positive")
        k = (n - 1).bit_length()
        while True:
            u = self.bits(k)
            if u < n:
                return u


def _bernoulli(p: Fraction, bits: KeyedBits) -> bool:
    """Bernoulli(p) for a rational ``p`` in [0, 1], exactly."""
    return bits.below(p.denominator) < p.numerator


def _bernoulli_exp(gamma: Fraction, bits: KeyedBits) -> bool:
    """Bernoulli(exp(-gamma)) for a rational ``gamma >= 0`` (Canonne, Kamath & Steinke
    2020, Algorithm 1): exact, with integer arithmetic only."""
    while gamma > 1:  # exp(-gamma) = exp(-1)^floor(gamma) * exp(-(gamma - floor(gamma)))
        if not _bernoulli_exp(Fraction(1), bits):
            return False
        gamma -= 1
    k = 1
    while _bernoulli(gamma / k, bits):
        k += 1
    return k % 2 == 1


def discrete_laplace(scale: Fraction, bits: KeyedBits) -> int:
    """One draw of the discrete Laplace distribution of scale ``t``,
    ``P(x) proportional to exp(-|x| / t)`` on the integers (Canonne, Kamath & Steinke
    2020, Algorithm 2, with ``t = num/den``)."""
    scale = Fraction(scale)
    if scale <= 0:
        raise ValueError("the scale must be positive")
    s, t = scale.denominator, scale.numerator  # scale t/s
    while True:
        u = bits.below(t)
        if not _bernoulli_exp(Fraction(u, t), bits):
            continue
        v = 0
        while _bernoulli_exp(Fraction(1), bits):
            v += 1
        y = (u + t * v) // s
        negative = bits.bits(1) == 1
        if negative and y == 0:
            continue
        return -y if negative else y


def discrete_gaussian(sigma: Fraction, bits: KeyedBits) -> int:
    """One draw of the discrete Gaussian distribution of scale ``sigma``,
    ``P(x) proportional to exp(-x^2 / (2 sigma^2))`` on the integers (Canonne, Kamath &
    Steinke 2020, Algorithm 3)."""
    sigma = Fraction(sigma)
    if sigma <= 0:
        raise ValueError("the scale must be positive")
    sigma2 = sigma * sigma
    t = int(sigma) + 1
    while True:
        y = discrete_laplace(Fraction(t), bits)
        gamma = (abs(y) - sigma2 / t) ** 2 / (2 * sigma2)
        if _bernoulli_exp(gamma, bits):
            return y


def dp_noise(rng: np.random.Generator, n: int, mechanism: str, scale: float) -> np.ndarray:
    """``n`` independent draws (int64) of the discrete ``mechanism`` (``"laplace"`` or
    ``"gaussian"``) of the float ``scale`` OpenDP calibrated, from one key drawn from the
    step's generator ``rng``."""
    draw = {"laplace": discrete_laplace, "gaussian": discrete_gaussian}[mechanism]
    bits = KeyedBits.from_generator(rng)
    exact = Fraction(scale)
    return np.fromiter((draw(exact, bits) for _ in range(n)), dtype=np.int64, count=n)


def discrete_laplace_pmf(x: np.ndarray, scale: float) -> np.ndarray:
    """The exact probabilities of the discrete Laplace of ``scale`` at the integers ``x``:
    ``(1 - q) / (1 + q) q^|x|`` with ``q = exp(-1/scale)``."""
    q = np.exp(-1.0 / scale)
    return (1 - q) / (1 + q) * q ** np.abs(np.asarray(x, dtype=float))


def discrete_gaussian_pmf(x: np.ndarray, sigma: float) -> np.ndarray:
    """The probabilities of the discrete Gaussian of scale ``sigma`` at the integers
    ``x``, normalised over ``|x| <= 40 sigma + 40`` (the rest has mass below 1e-300)."""
    span = int(40 * sigma) + 40
    support = np.arange(-span, span + 1, dtype=float)
    norm = np.exp(-support ** 2 / (2 * sigma ** 2)).sum()
    return np.exp(-np.asarray(x, dtype=float) ** 2 / (2 * sigma ** 2)) / norm
