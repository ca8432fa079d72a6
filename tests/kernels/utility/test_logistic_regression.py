"""Logistic regression (sdcflow.kernels.utility.logistic_regression), against a general
optimiser."""

import numpy as np
from scipy.optimize import minimize

from sdcflow.kernels.utility.logistic_regression import logistic_fit


def test_logistic_fit_matches_a_general_optimiser():
    rng = np.random.default_rng(8)
    x = rng.normal(size=(300, 3))
    t = (rng.random(300) < 1 / (1 + np.exp(-(0.3 + x @ [1.0, -0.5, 0.2])))).astype(float)
    design = np.column_stack([np.ones(300), x])

    def nll(b):
        eta = design @ b
        return np.sum(np.logaddexp(0, eta) - t * eta)

    reference = minimize(nll, np.zeros(4), method="BFGS", options={"gtol": 1e-10}).x
    probs, fit = logistic_fit(lambda a, b: design[a:b], 300, 4, t)
    assert fit["converged"]
    np.testing.assert_allclose(probs, 1 / (1 + np.exp(-(design @ reference))), atol=1e-6)
