"""The cell key method on the Dask engine: the table and its cell keys built by
map-reduce over partitions of the records equal the in-memory run's, cell for cell
(keys are summed exactly), with keys from a column or drawn by sdcflow."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("distributed")

from sdcflow import run

RECIPE = """
sdcflow: 1
name: ck-dask
seed: 4
data: {path: DATA}
variables:
  region: {role: key}
  sex: {role: key}
  band: {role: key}
  income: {role: numeric}
  rkey: {role: identifier, type: continuous}
tables:
  - {id: count, dims: [region, sex]}
  # (other variables: tables sharing cells, perturbed with other parameters, would give
  # each shared cell two noises, refused by the release policy)
  - {id: pay, dims: [band], response: income}
steps:
  - {id: ck, method: cell_key, table: count, params: {D: 3, V: 2.5, js: 2, KEY}}
  - {id: ckp, method: cell_key, table: pay,
     params: {D: 10, V: 3, KEY, magnitude: {type: top_contr, top_k: 2, p: [0.2, 0.03],
                                            fp: 5000, q: 2, epsilon: [1, 0.5]}}}
release: {tables: {count: count.csv, pay: pay.csv}}
"""


def write(tmp_path, key: str):
    rng = np.random.default_rng(2)
    n = 2000
    frame = pd.DataFrame({"region": rng.integers(1, 6, n).astype(str),
                          "sex": rng.choice(["1", "2"], n),
                          "band": rng.integers(1, 4, n).astype(str),
                          "income": np.round(rng.lognormal(8, 1, n)),
                          "rkey": np.round(rng.random(n), 8)})
    parts = tmp_path / "parts"
    parts.mkdir(exist_ok=True)
    for i, cut in enumerate(np.array_split(np.arange(n), 3)):
        frame.iloc[cut].to_parquet(parts / f"part-{i}.parquet", index=False)
    frame.to_parquet(tmp_path / "whole.parquet", index=False)
    text = RECIPE.replace("KEY", key)
    (tmp_path / "dask.yaml").write_text(text.replace("DATA", "parts"))
    (tmp_path / "memory.yaml").write_text(text.replace("DATA", "whole.parquet"))
    return tmp_path / "dask.yaml", tmp_path / "memory.yaml"


@pytest.mark.parametrize("key", ["record_key: rkey", "digits: 8"], ids=["column", "drawn"])
def test_partitioned_records_give_the_in_memory_perturbed_tables(tmp_path, key):
    # with keys from a column, or drawn by sdcflow (the key of a record depends on its
    # position among all the records, not on its partition)
    dask, memory = write(tmp_path, key)
    run(dask, tmp_path / "d", engine="dask", workers=2)
    run(memory, tmp_path / "m")
    for name in ("count.csv", "pay.csv"):
        assert (tmp_path / "d" / "public" / name).read_bytes() == \
            (tmp_path / "m" / "public" / name).read_bytes()
    changed = pd.read_csv(tmp_path / "m" / "tables" / "count.csv")
    assert (changed["freq"] != changed["original_freq"]).any()
