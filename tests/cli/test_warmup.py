"""Compiling the kernels ahead of time (sdcflow.cli.warmup, ``sdcflow compile``)."""

import importlib
import json
import os
import re
import subprocess
import sys

import pytest
from helpers import ROOT

from sdcflow.cli import warmup

PACKAGE = ROOT / "sdcflow"


def _cached_modules() -> set[str]:
    """The modules of sdcflow with a kernel compiled with cache=True."""
    out = set()
    decorated = re.compile(r"^@njit\([^)]*cache=True", re.MULTILINE)
    for path in PACKAGE.rglob("*.py"):
        if decorated.search(path.read_text(encoding="utf-8")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            out.add(".".join(parts))
    return out


def test_every_module_with_cached_kernels_belongs_to_a_family():
    covered = {m for f in warmup.FAMILIES for m in f.modules}
    assert _cached_modules() <= covered
    for module in covered:  # (and the families name modules that exist)
        importlib.import_module(module)


def test_every_family_compiles_every_kernel_of_its_modules():
    # in this process: loaded from the cache, or compiled (the cache is the same code)
    for family in warmup.families():
        assert warmup.compile_family(family) >= 0
    assert warmup.not_compiled(warmup.families()) == []


def test_families_by_name():
    assert [f.name for f in warmup.families(["secondary", "mdav"])] == ["mdav", "secondary"]
    assert len(warmup.families()) == len(warmup.FAMILIES)
    with pytest.raises(ValueError, match="unknown kernel family nope; one of: lattice, linkage"):
        warmup.families(["nope"])


def _compile(tmp_path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env.update(NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "sdcflow.cli", "compile", *args], env=env,
                          capture_output=True, text=True, check=False, timeout=600)


def test_compile_fills_the_cache_directory(tmp_path):
    # a few small families (all of them take half a minute): the cache starts empty
    done = _compile(tmp_path, "--only", "univariate,utility")
    assert done.returncode == 0, done.stderr
    cache = tmp_path / "cache"
    assert done.stdout.startswith(f"compiled 2 kernel families into {cache} in ")
    assert done.stderr == ""  # not a terminal: no progress
    names = {p.name for p in cache.rglob("*.nb*")}
    for kernel in ("univariate.shortest_path", "kmeans._hamerly", "kmeans._inertia",
                   "kmeans._assign_all"):
        assert any(n.startswith(kernel + "-") and n.endswith(".nbi") for n in names), kernel
        assert any(n.startswith(kernel + "-") and n.endswith(".nbc") for n in names), kernel
    assert not any(n.startswith("mdav.") for n in names)
    again = _compile(tmp_path, "--only", "univariate", "--only", "utility",
                     "--format", "json", "--progress")
    assert again.returncode == 0, again.stderr
    summary = json.loads(again.stdout)
    assert summary["cache"] == str(cache) and summary["cached"] is True
    assert [f["family"] for f in summary["families"]] == ["univariate", "utility"]
    assert summary["not_compiled"] == []
    # asked for: one line per family on standard error (not a terminal)
    assert again.stderr.splitlines()[0].startswith("compiled univariate in ")


def test_compile_refuses_an_unknown_family(capsys):
    from sdcflow.cli import main

    assert main(["compile", "--only", "mdav,nope"]) == 2  # before compiling anything
    assert "unknown kernel family nope" in capsys.readouterr().err
