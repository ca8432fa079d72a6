"""R's default random numbers (Mersenne-Twister, ``set.seed``'s initial scrambling, and
``rnorm`` by inversion), so that a test can rebuild the data of an R package's published
example and compare with its printed results. Checked against R's well-known first values:
``set.seed(1); rnorm(5)`` is -0.626, 0.184, -0.836, 1.595, 0.330 (see
tests/kernels/risk/test_distance_risk.py)."""

import numpy as np
from scipy import stats

_M32 = 0xFFFFFFFF
_N, _M = 624, 397


def r_unif(seed: int, count: int) -> list[float]:
    """``set.seed(seed); runif(count)`` of R (R's RNG.c: the seed scrambled by 50 steps
    of ``69069 s + 1``, then 625 more fill the Mersenne-Twister state, whose first word
    is the position, set to 624)."""
    s = seed & _M32
    for _ in range(50):
        s = (69069 * s + 1) & _M32
    state = []
    for _ in range(_N + 1):
        s = (69069 * s + 1) & _M32
        state.append(s)
    mt, mti, out = state[1:], _N, []
    for _ in range(count):
        if mti >= _N:
            for kk in range(_N):
                y = (mt[kk] & 0x80000000) | (mt[(kk + 1) % _N] & 0x7FFFFFFF)
                mt[kk] = mt[(kk + _M) % _N] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
            mti = 0
        y = mt[mti]
        mti += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C5680
        y ^= (y << 15) & 0xEFC60000
        y ^= y >> 18
        value = y * 2.3283064365386963e-10  # 2^-32
        half = 0.5 * 2.328306437080797e-10  # R's fixup keeps values inside (0, 1)
        out.append(half if value <= 0 else 1 - half if value >= 1 else value)
    return out


def r_rnorm(seed: int, count: int) -> np.ndarray:
    """``set.seed(seed); rnorm(count)`` of R (inversion: two uniforms per value, the first
    scaled by 2^27, R's snorm)."""
    u = r_unif(seed, 2 * count)
    big = 134217728
    return np.array([stats.norm.ppf((int(big * u[2 * i]) + u[2 * i + 1]) / big)
                     for i in range(count)])
