"""Closed-form maximum-entropy rows (sdcflow.kernels.tabular.max_entropy) against the
published ptable figures and against the numerical solution (SLSQP) of the same
problem."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sdcflow.kernels.tabular.ptable as ptable_module
from sdcflow.kernels.tabular.max_entropy import closed_form_row

EPS = 1e-8


def test_the_symmetric_row_of_ptables_example():
    # ptable's pt_ex_cnts() (D = 2, V = 1.05), row i = 4: v = -2..2 with
    # p = .07012498, .24450007, .37074990, .24450007, .07012498 (its test-examples.R)
    v = np.arange(-2, 3.0)
    p = closed_form_row(v, 1.05, np.full(5, EPS), True, False)
    np.testing.assert_allclose(p, [.07012498, .24450007, .37074990, .24450007, .07012498],
                               atol=1e-8)
    assert p @ v == pytest.approx(0, abs=1e-12) and p @ v**2 == pytest.approx(1.05, abs=1e-12)


def test_a_pooled_block_where_monotony_binds():
    # v = -1..7 (a count of 1, D = 7): p ~ exp(a v) with a < 0 falls from v = -1 to 0,
    # so monotony pools p(-1) = p(0); without monotony p(-1) > p(0)
    v = np.arange(-1, 8.0)
    pooled = closed_form_row(v, 3.0, np.full(9, EPS), True, False)
    assert pooled[0] == pytest.approx(pooled[1], rel=1e-12)
    free = closed_form_row(v, 3.0, np.full(9, EPS), False, False)
    assert free[0] > free[1]
    np.testing.assert_allclose(np.diff(np.log(free)), np.log(free[1] / free[0]), rtol=1e-9)
    for p in (pooled, free):
        assert p.sum() == pytest.approx(1) and p @ v == pytest.approx(0, abs=1e-12)


def test_a_binding_lower_bound_is_left_to_the_numerical_solver():
    lower = np.full(5, EPS)
    lower[2] = 0.9  # pstay 0.9 for v = 0 binds
    assert closed_form_row(np.arange(-2, 3.0), 1.05, lower, True, False) is None


@settings(max_examples=40)
@given(lo=st.integers(1, 6), hi=st.integers(1, 6), V=st.floats(0.3, 6.0),
       mono=st.booleans(), equality=st.booleans())
def test_the_closed_form_is_the_numerical_optimum(lo, hi, V, mono, equality):
    v = np.arange(-lo, hi + 1.0)
    lower = np.full(len(v), EPS)
    exact = closed_form_row(v, V, lower, mono, equality)
    if exact is None:
        return
    with pytest.MonkeyPatch.context() as m:
        m.setattr(ptable_module, "closed_form_row", lambda *a, **k: None)
        numeric = ptable_module._max_entropy(v, V, lower, mono, equality)
    assert numeric is not None
    np.testing.assert_allclose(exact, numeric, atol=2e-6)
    entropy = [-(p * np.log(p)).sum() for p in (exact, numeric)]
    assert entropy[0] >= entropy[1] - 1e-9  # the closed form is at least as good
