"""sanitise_text on the Dask engine: document by document (Rows), the same release bytes
for 1 and 2 workers, equal to the in-memory engine's, and the information kept combined
from the partitions' figures."""

import hashlib
import shutil

import pandas as pd
import pytest
from helpers import ROOT

pytest.importorskip("distributed")

from sdcflow import run


def _digest(path) -> dict:
    return {p.relative_to(path).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(path.rglob("*")) if p.is_file()}


def test_dask_release_equals_the_in_memory_release(tmp_path):
    notes = pd.read_csv(ROOT / "recipes" / "data" / "clinic_notes.csv", dtype=str)
    (tmp_path / "parts").mkdir()
    for i, cut in enumerate(range(0, 12, 4)):
        notes.iloc[cut:cut + 4].to_parquet(tmp_path / "parts" / f"p{i}.parquet", index=False)
    notes.to_parquet(tmp_path / "whole.parquet", index=False)
    (tmp_path / "data").mkdir()
    shutil.copy(ROOT / "recipes" / "data" / "health_terms.json", tmp_path / "data")
    text = (ROOT / "recipes" / "text_sanitisation.yaml").read_text().replace(
        "clinic-notes-sanitised.csv", "notes.parquet")
    (tmp_path / "dask.yaml").write_text(text.replace("data/clinic_notes.csv", "parts"))
    (tmp_path / "memory.yaml").write_text(text.replace("data/clinic_notes.csv",
                                                       "whole.parquet"))
    memory = run(tmp_path / "memory.yaml", tmp_path / "memory")
    one = run(tmp_path / "dask.yaml", tmp_path / "one", engine="dask", workers=1)
    two = run(tmp_path / "dask.yaml", tmp_path / "two", engine="dask", workers=2)
    assert _digest(tmp_path / "one" / "public" / "notes.parquet") == \
        _digest(tmp_path / "two" / "public" / "notes.parquet")
    released = pd.read_parquet(tmp_path / "two" / "public" / "notes.parquet")
    expected = pd.read_parquet(tmp_path / "memory" / "public" / "notes.parquet")
    assert released["note"].tolist() == expected["note"].tolist()
    info = {s.node: s.info for s in two.steps}["sanitise"]
    mem = {s.node: s.info for s in memory.steps}["sanitise"]
    assert info["replaced"] == mem["replaced"] == 42
    assert info["information_kept"] == pytest.approx(mem["information_kept"], abs=1e-9)
    assert one.measures["audit"]["residual"] == two.measures["audit"]["residual"] == 0
