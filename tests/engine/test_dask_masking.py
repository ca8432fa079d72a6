"""The Dask engine on the ordinal top code (row by row), mv_top_coding and
fuzzy_c_regression (collected: the whole data on one worker): the release equals the
in-memory engine's."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("distributed")

from sdcflow import run

RECIPE = """
sdcflow: 1
name: masking-parts
seed: 11
data: {path: DATA}
variables:
  band: {role: key, type: ordinal, order: ["0-17", "18-39", "40-64", "65-74", "75+"]}
  age: {role: key, type: integer}
  income: {role: numeric}
  expend: {role: numeric}
steps:
  - {id: top, method: top_bottom_code, params: {variable: band, top: {category: "65-74", label: "65+"}}}
  - {id: mv, method: mv_top_coding, params: {variables: [income, expend]}}
  - {id: syn, method: fuzzy_c_regression, params: {variables: [expend], predictors: [age], clusters: 2}}
release: {path: protected.parquet}
"""


def test_release_equals_the_in_memory_engine(tmp_path):
    rng = np.random.default_rng(4)
    n = 240
    age = rng.integers(0, 95, n)
    bands = np.array(["0-17", "18-39", "40-64", "65-74", "75+"])
    income = rng.lognormal(9, 0.6, n)
    frame = pd.DataFrame({"band": bands[np.searchsorted([18, 40, 65, 75], age, side="right")],
                          "age": age, "income": income,
                          "expend": 0.6 * income + rng.normal(0, 500, n)})
    parts = tmp_path / "parts"
    parts.mkdir()
    for i, rows in enumerate(np.array_split(np.arange(n), 3)):
        frame.iloc[rows].to_parquet(parts / f"part-{i}.parquet", index=False)
    frame.to_parquet(tmp_path / "whole.parquet", index=False)
    (tmp_path / "dask.yaml").write_text(RECIPE.replace("DATA", "parts"))
    (tmp_path / "memory.yaml").write_text(RECIPE.replace("DATA", "whole.parquet"))
    run(tmp_path / "dask.yaml", tmp_path / "dask", engine="dask", workers=1)
    run(tmp_path / "memory.yaml", tmp_path / "memory")
    released = pd.read_parquet(tmp_path / "dask" / "public" / "protected.parquet")
    expected = pd.read_parquet(tmp_path / "memory" / "public" / "protected.parquet")
    pd.testing.assert_frame_equal(released, expected)
    assert set(released["band"]) <= {"0-17", "18-39", "40-64", "65+"}
    assert (released["expend"] != frame["expend"]).all()
