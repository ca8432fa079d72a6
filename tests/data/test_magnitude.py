"""Columns whose sums of squares leave the float range are refused by name, before a
regression, covariance or Mahalanobis distance fails inside its kernel (ipso failed
with exit 4, "cannot convert float NaN to integer", on values near 1e308)."""

import numpy as np
import pytest

from sdcflow.cli import main
from sdcflow.data.magnitude import squares_overflow
from sdcflow.methods.synthetic.ipso import RegressionSynthesis
from sdcflow.plugins import registry


def test_the_bound_by_hand():
    # 2 log10(top) + log10(n * 1e4) must stay below log10(1.797e308) = 308.25
    assert squares_overflow(np.array([1e150, 1.0, np.nan])) is None  # 300 + 4.5 < 308.25
    assert squares_overflow(np.array([1e152, 1.0])) == 1e152  # 304 + 4.3 > 308.25
    assert squares_overflow(np.full(10**6, 1e150)) == 1e150  # 300 + 10 > 308.25
    assert squares_overflow(np.array([np.nan])) is None
    assert squares_overflow(np.zeros(3)) is None


REGRESSIONS = sorted(p.name for p in registry.plugins("method")
                     if isinstance(p, RegressionSynthesis))
STEPS = [f"{{id: s, method: {name}, params: {{variables: [a]}}}}" for name in REGRESSIONS] + [
    "{id: s, method: mv_top_coding, params: {variables: [a, b]}}",
    "{id: s, method: noise, params: {variables: [a, b], method: outdect}}",
]


@pytest.mark.parametrize("step", STEPS)
def test_values_near_the_float_range_are_refused(step, tmp_path, capsys):
    (tmp_path / "huge.csv").write_text("a,b,c\n1e308,2,x\n-1e308,3,y\n1,4,x\n2,5,y\n3,6,x\n"
                                       "4,7,y\n", encoding="utf-8")
    (tmp_path / "r.yaml").write_text(f"""
sdcflow: 1
name: huge
seed: 1
data: {{path: huge.csv}}
variables:
  a: {{role: numeric}}
  b: {{role: key, type: continuous}}
  c: {{role: key}}
steps:
  - {step}
""", encoding="utf-8")
    assert main(["validate", str(tmp_path / "r.yaml")]) == 1
    err = capsys.readouterr().err
    assert "'a' has values up to 1e+308: their sums of squares over 6 records leave the " \
           "range of 64-bit floats" in err and "Traceback" not in err
