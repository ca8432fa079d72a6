"""constraints measure (seed 001 edit constraints)."""

import numpy as np
import pandas as pd

from sdcflow.constraints import Constraint
from sdcflow.data import Dataset, Variable
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("constraints")


def dataset(net, tax, gross):
    frame = pd.DataFrame({"net": net, "tax": tax, "gross": gross}, dtype="float64")
    variables = {c: Variable(c, "numeric", "continuous") for c in frame}
    constraints = (Constraint.from_recipe({"id": "ntg", "expr": "net + tax == gross"}),
                   Constraint.from_recipe({"id": "pos", "expr": "net >= 0"}))
    return Dataset(frame, variables, constraints)


def test_counts_violations_per_constraint():
    data = dataset([10.0, 5, -1], [2.0, 1, 1], [12.0, 7, 0])
    result = PLUGIN.evaluate(data, {}, np.random.default_rng(0), original=data)
    assert result.summary["total"] == 2
    assert result.summary["constraints"]["ntg"]["first_records"] == [2]
    assert result.summary["constraints"]["pos"]["first_records"] == [3]


def test_selected_constraints_only():
    data = dataset([10.0, 5, -1], [2.0, 1, 1], [12.0, 7, 0])
    result = PLUGIN.evaluate(data, {"constraints": ["pos"]}, None, original=data)
    assert list(result.summary["constraints"]) == ["pos"] and result.summary["total"] == 1
    assert PLUGIN.reads({"constraints": ["pos"]}, data.meta) == {"net"}


def test_unknown_constraint_id_is_reported():
    data = dataset([1.0], [1.0], [2.0])
    found = list(PLUGIN.check({"constraints": ["ntgg"]}, data.meta))
    assert found == [(("constraints", 0), "unknown constraint 'ntgg' (did you mean 'ntg'?)")]


def test_conformance():
    check_method(PLUGIN, dataset([1.0, 2], [1.0, 1], [2.0, 3]), {})
