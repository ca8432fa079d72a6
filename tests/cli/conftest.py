import pytest

# A small recipe on sdcMicro's testdata (shipped as builtin data): k-anonymity measured
# before and after recoding age, top coding of income with its information loss, and two
# checks. Steps (and their DAG): before (original data); age10; top; after <- age10;
# loss <- top.
SMALL = """
sdcflow: 1
name: small
seed: 1
data: {builtin: testdata}
variables:
  urbrur: {role: key, type: categorical}
  sex: {role: key, type: categorical}
  age: {role: key, type: integer}
  income: {role: numeric, type: continuous}
steps:
  - {id: before, measure: k_anonymity, input: original, params: {k: [2, 3]}}
  - {id: age10, method: global_recode, params: {variable: age, breaks: [0, 19, 39, 59, 130]}}
  - id: top
    method: top_bottom_code
    params: {variable: income, top: {quantile: 0.99, replace: mean}}
  - {id: after, measure: k_anonymity, params: {k: [2, 3]}}
  - {id: loss, measure: information_loss}
checks:
  - "after.violations[3] <= before.violations[3]"
  - "loss.pil < 50"
release: {path: small.csv}
"""


@pytest.fixture
def small(write_recipe):
    """The path of the small recipe, in a temporary directory of its own."""
    return write_recipe(SMALL, "small.yaml")
