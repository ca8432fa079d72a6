"""microaggregation with robust representatives (sdcMicro's measure = "trim" /
"onestep"), and their interplay with edit constraints."""

import numpy as np
import pandas as pd

from sdcflow.constraints import Constraint
from sdcflow.data import Dataset, Variable
from sdcflow.plugins import registry

PLUGIN = registry.get("microaggregation")


def data(frame, *constraints):
    variables = {c: Variable(c, "numeric", "continuous") for c in frame}
    return Dataset(frame, variables, tuple(Constraint.from_recipe(c) for c in constraints))


def apply(d, **params):
    return PLUGIN.apply(d, registry.with_defaults(PLUGIN.params, params),
                        np.random.default_rng(0))


FRAME = pd.DataFrame({"x": [1.0, 2, 3, 4, 100, 200, 201, 202, 203, 204]})


def test_trim_and_onestep_on_two_groups():
    # k = 5 on one variable: the groups are {1,2,3,4,100} and {200..204} (MDAV)
    trim = apply(data(FRAME), k=5, aggregation="trim", trim=0.2)
    # R: mean(c(1,2,3,4,100), trim = 0.2) = 3, mean(200:204, trim = 0.2) = 202
    assert trim.data.frame["x"].tolist() == [3] * 5 + [202] * 5
    assert trim.info["groups"][0]["aggregation"] == {"x": "trim 0.2"}
    one = apply(data(FRAME), k=5, aggregation="onestep")
    limit = 3 / 1.486 * 1.4826  # median 3, mad 1.4826: 100 clipped to 3 + limit
    np.testing.assert_allclose(one.data.frame["x"][:5], (10 + 3 + limit) / 5)
    # 200..204: median 202, mad 1.4826 * 1 -> limits 202 -+ 2.993: nothing clipped
    np.testing.assert_allclose(one.data.frame["x"][5:], 202)
    mean = apply(data(FRAME), k=5)
    assert mean.data.frame["x"][0] == 22  # the outlier drags the plain mean


def test_linear_constraint_keeps_the_mean():
    # net + tax == gross: the mean keeps it, a trimmed mean would not -> the three
    # variables use the mean and the manifest says so; a free variable is trimmed
    rng = np.random.default_rng(1)
    net, tax = rng.gamma(2, 10, 30), rng.gamma(2, 2, 30)
    frame = pd.DataFrame({"net": net, "tax": tax, "gross": net + tax,
                          "other": rng.gamma(2, 3, 30)})
    d = data(frame, {"id": "sum", "expr": "net + tax == gross", "tolerance": 1e-6})
    out = apply(d, k=3, aggregation="trim", trim=0.2,
                groups=[["net", "tax", "gross"], ["other"]])
    f = out.data.frame
    np.testing.assert_allclose(f["net"] + f["tax"], f["gross"])
    aggregation = {v: a for g in out.info["groups"] for v, a in g["aggregation"].items()}
    assert aggregation == {"net": "mean", "tax": "mean", "gross": "mean", "other": "trim 0.2"}
    assert any("'gross' uses the mean, not aggregation: trim" in n for n in out.info["notes"])


def test_trim_bound_in_schema():
    schema = PLUGIN.params["properties"]["trim"]
    assert schema["exclusiveMaximum"] == 0.5 and schema["minimum"] == 0
