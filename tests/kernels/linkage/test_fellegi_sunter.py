"""The Fellegi-Sunter model: EM estimates and pattern weights
(sdcflow.kernels.linkage.fellegi_sunter)."""

import numpy as np
import pytest

from sdcflow.kernels.linkage.fellegi_sunter import fellegi_sunter_em, pattern_weights


def test_pattern_weights():
    m, u = [0.9, 0.8], [0.1, 0.4]
    w = pattern_weights(m, u)
    # pattern 0b01: variable 0 agrees, variable 1 does not
    assert w[0b01] == pytest.approx(np.log(0.9 / 0.1) + np.log(0.2 / 0.6))
    assert w[0b11] == pytest.approx(np.log(9) + np.log(2))
    assert w[0b00] == pytest.approx(np.log(0.1 / 0.9) + np.log(0.2 / 0.6))


def test_em_recovers_the_parameters_from_expected_counts():
    # pattern counts exactly as the model expects them, with conditional independence:
    # the true parameters are the maximum of the likelihood, and EM (p fixed at the truth)
    # returns them
    m = np.array([0.95, 0.8, 0.7])
    u = np.array([0.05, 0.2, 0.1])
    p, pairs = 0.01, 1e6
    counts = []
    for g in range(8):
        bits = np.array([(g >> j) & 1 for j in range(3)])
        pm = np.prod(np.where(bits, m, 1 - m))
        pu = np.prod(np.where(bits, u, 1 - u))
        counts.append(pairs * (p * pm + (1 - p) * pu))
    em = fellegi_sunter_em(np.array(counts), 3, p=p, max_iter=20000, tol=1e-12)
    assert em["converged"]
    np.testing.assert_allclose(em["m"], m, atol=1e-6)
    np.testing.assert_allclose(em["u"], u, atol=1e-6)
