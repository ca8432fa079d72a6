"""The recipe corpus: every file in ``invalid/`` must be rejected by ``sdcflow validate``
with exit code 1 and the messages its ``# expect:`` comments name (each a substring of
one ``file:line:col: message`` line); every file in ``valid/`` must validate and run.

An ``# expect:`` line states the correct behaviour, so a recipe whose message is wrong
today fails here until sdcflow is fixed.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

import sdcflow
from sdcflow.cli import main

HERE = Path(__file__).parent
INVALID = sorted((HERE / "invalid").glob("*.yaml"))
VALID = sorted((HERE / "valid").glob("*.yaml"))
EXPECT = re.compile(r"^# expect: (.+?)\s*$")
LINE = re.compile(r"^[^:]+(:\d+:\d+)?: ")


def expectations(path: Path) -> list[str]:
    """The ``# expect:`` substrings from the comment lines at the top of ``path``."""
    out = []
    for raw in path.read_bytes().splitlines():
        line = raw.decode("utf-8", errors="replace")
        if not line.startswith("#"):
            break
        match = EXPECT.match(line)
        if match:
            out.append(match.group(1))
    return out


def test_invalid_corpus_is_large_enough():
    assert len(INVALID) >= 30


def test_valid_corpus_exists():
    assert 3 <= len(VALID)


@pytest.mark.parametrize("path", INVALID, ids=[p.name for p in INVALID])
def test_invalid_recipe(path: Path, capsys):
    expected = expectations(path)
    assert expected, f"{path.name} has no '# expect:' line"
    code = main(["validate", str(path)])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert code == 1, f"exit code {code}, expected 1; stderr:\n{err}"
    for substring in expected:
        assert substring in err, f"expected {substring!r} in stderr:\n{err}"
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines, "no message on stderr"
    for line in lines:
        assert LINE.match(line), f"not a 'file[:line:col]: message' line: {line!r}"


@pytest.mark.parametrize("path", VALID, ids=[p.name for p in VALID])
def test_valid_recipe_validates(path: Path, capsys):
    code = main(["validate", str(path)])
    out, err = capsys.readouterr()
    assert code == 0, f"exit code {code}; stderr:\n{err}"
    assert "Traceback" not in out + err


@pytest.mark.parametrize("path", VALID, ids=[p.name for p in VALID])
def test_valid_recipe_runs(path: Path, tmp_path: Path):
    # a copy of the corpus, so that the run's cache is not written into the source tree
    shutil.copytree(path.parent, tmp_path / "valid")
    path = tmp_path / "valid" / path.name
    out_dir = tmp_path / "out"
    result = sdcflow.run(path, out_dir=out_dir, use_cache=False)
    assert (out_dir / "measures.json").is_file()
    assert (out_dir / "manifest.json").is_file()
    files = result.manifest["files"]
    released = sdcflow.load_recipe(path).release.get("path")
    if released is not None:
        assert f"public/{released}" in files, f"{released} was not released"
        assert (out_dir / "public" / released).is_file()
