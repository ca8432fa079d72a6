"""``sdcflow cache info|clear`` (sdcflow.engine.cache_admin, sdcflow.cli.cache_command): the
step cache of a recipe's folder, and clearing it without touching anything else."""

import json
import os

import pytest

from sdcflow import run
from sdcflow.cli import main
from sdcflow.engine.cache_admin import CacheBusy, cache_info, clear_cache
from sdcflow.engine.locks import DirectoryLock

RECIPE = """\
sdcflow: 1
name: {name}
seed: 1
data: {{builtin: testdata}}
variables:
  age: {{role: key, type: integer}}
  sex: {{role: key}}
steps:
  - {{id: rec, method: global_recode, params: {{variable: age, breaks: [0, {cut}, 200]}}}}
  - {{id: risk, measure: k_anonymity, params: {{k: 2}}}}
"""


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """A folder of two recipes, each run once (default output directories): the cache
    holds two entries of each (the recode and the measure)."""
    root = tmp_path_factory.mktemp("recipes")
    for name, cut in (("one", 50), ("two", 40)):
        (root / f"{name}.yaml").write_text(RECIPE.format(name=name, cut=cut))
        run(root / f"{name}.yaml")
    (root / "notes.yaml").write_text("not: a recipe\n")
    return root


def _copy(folder, tmp_path):
    import shutil

    dst = tmp_path / "f"
    shutil.copytree(folder, dst, symlinks=True)
    return dst


def test_info_counts_entries_per_recipe(folder, capsys):
    info = cache_info(folder).as_dict()
    assert info["cache"] == str(folder / ".sdcflow-cache") and info["entries"] == 4
    assert info["recipes"]["one.yaml"]["entries"] == 2
    assert info["recipes"]["one.yaml"]["steps_of_last_run"] == 2
    assert "notes.yaml" not in info["recipes"]  # not a recipe
    sizes = sum(f.stat().st_size for f in (folder / ".sdcflow-cache").rglob("*")
                if f.is_file())
    assert info["bytes"] == sizes
    assert main(["cache", "info", str(folder / "one.yaml"), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert list(data["recipes"]) == ["one.yaml"] and data["other_entries"]["entries"] == 2
    assert main(["cache", "info", str(folder)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{folder / '.sdcflow-cache'}: 4 entries, ")
    assert "  one.yaml: 2 of the 2 steps of its last run, " in out


def test_clear_removes_entries_and_leftovers_only(folder, tmp_path, capsys):
    f = _copy(folder, tmp_path)
    root = f / ".sdcflow-cache"
    outside = tmp_path / "outside"
    (outside / "ab").mkdir(parents=True)
    (outside / "ab" / "keep.txt").write_text("mine")
    # things that are not entries: a file of the user's, a folder of another name, a
    # link shaped like an entry's folder (to a folder outside), an entry-shaped link
    (root / "README").write_text("mine")
    (root / "zz").mkdir()
    (root / "zz" / "keep").write_text("mine")
    os.symlink(outside / "ab", root / "cd")
    first = next(p for p in root.iterdir() if len(p.name) == 2 and p.is_dir()
                 and not p.is_symlink())
    os.symlink(outside, first / (first.name + "f" * 62))
    (root / ".tmp-killed").mkdir()  # left by a killed run
    assert main(["cache", "clear", str(f)]) == 0
    assert capsys.readouterr().out.startswith("removed 4 entries (")
    assert cache_info(f).entries == []
    assert (root / "README").read_text() == "mine" and (root / "zz" / "keep").exists()
    assert (outside / "ab" / "keep.txt").read_text() == "mine"
    assert (root / "cd").is_symlink() and (first / (first.name + "f" * 62)).is_symlink()
    assert not (root / ".tmp-killed").exists()
    assert (f / "output" / "one" / "manifest.json").exists()  # the runs' outputs stay


def test_clear_of_a_recipe_removes_its_last_run_entries(folder, tmp_path):
    f = _copy(folder, tmp_path)
    _, removed, _ = clear_cache(f / "one.yaml", only_recipe=True)
    assert removed == 2
    info = cache_info(f).as_dict()
    assert info["entries"] == 2 and info["recipes"]["two.yaml"]["entries"] == 2


def test_clear_waits_for_no_run(folder, tmp_path, capsys):
    f = _copy(folder, tmp_path)
    lock = DirectoryLock(f / ".sdcflow-cache")
    lock.acquire(shared=True)  # as a running run holds it
    try:
        with pytest.raises(CacheBusy):
            clear_cache(f)
        assert main(["cache", "clear", str(f)]) == 1
        assert "a run is using the cache" in capsys.readouterr().err
    finally:
        lock.release()
    assert cache_info(f).as_dict()["entries"] == 4


def test_no_cache_yet_and_no_such_folder(tmp_path, capsys):
    assert main(["cache", "info", str(tmp_path)]) == 0
    assert "no cache yet" in capsys.readouterr().out
    assert main(["cache", "clear", str(tmp_path)]) == 0
    assert not (tmp_path / ".sdcflow-cache").exists()
    assert main(["cache", "info", str(tmp_path / "nope")]) == 1
    assert "no such recipe or folder" in capsys.readouterr().err
