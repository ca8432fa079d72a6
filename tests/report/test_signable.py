"""The report a methodologist signs: a failed run's report opens with the failed checks
(figure and threshold) and what the release would have held; the internal report has a
sign-off block, the recipe's version and (when fixed) the run's date; the run's date is
in run.json and never changes the bytes of the release or the manifest's hashes."""

import json
import shutil
from datetime import UTC

import pytest
from helpers import QUICKSTART

from sdcflow import load_recipe, run
from sdcflow.cli import main
from sdcflow.errors import CheckFailed
from sdcflow.report.failed import thresholds


def _recipe(tmp_path, *, failing=False, version=None):
    text = QUICKSTART.read_text()
    if failing:  # quickstart's edit check, turned around: 0 edits is not > 0
        text = text.replace("edits.total == 0", "edits.total > 0")
    if version:
        text = text.replace("name: quickstart\n", f"name: quickstart\nversion: '{version}'\n")
    path = tmp_path / "q.yaml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(("check", "expected"), [
    ("risk.percent[5] < 5", ["< 5"]),
    ("0.05 >= risk.max", ["\u2264 0.05"]),  # read with the figure on the left
    ("1 < a.x <= 3", ["> 1", "\u2264 3"]),  # a chain: both bounds
    ("a.x <= -2 * 3 and b.y != 0", ["\u2264 -2 * 3", "\u2260 0"]),
    ("a.x <= b.y", []),  # two figures: no threshold
    ("not a comparison (", []),
])
def test_thresholds_of_a_check(check, expected):
    assert thresholds(check) == expected


def test_a_failed_run_says_first_what_failed_and_what_would_have_been_released(tmp_path):
    with pytest.raises(CheckFailed) as caught:
        run(_recipe(tmp_path, failing=True), tmp_path / "out")
    html = (tmp_path / "out" / "report.html").read_text()
    body = html[html.index("<h1>"):]
    # the first section is the failed check: its figure and its threshold
    assert body.index("<section") == body.index('<section id="not-released">')
    first = body[:body.index('<section id="summary">')]
    assert ("<td><code>edits.total &gt; 0</code></td><td>edits.total = 0</td>"
            "<td>&gt; 0</td>") in first
    # then what the release would have held: files, variables, records (never values)
    data = caught.value.result.data
    assert (f"<td><code>public/testdata-protected.csv</code></td><td>the protected data: "
            f"{len(data)} records of {data.shape[1]} variables ("
            + ", ".join(data.columns) + ")</td>") in first
    assert "<code>public/manifest.json</code>" in first and "public/report.html" in first
    assert str(data["income"].max()) not in first  # names and counts, not the data


def test_what_a_table_release_would_hold():
    from helpers import ROOT

    from sdcflow.report.failed import would_release

    loaded = load_recipe(ROOT / "recipes" / "tables_profession_town.yaml")
    result = run(loaded, write=False)
    rows = dict(would_release(loaded, result))
    for tid, path in loaded.release["tables"].items():
        cells = len(result.tables[tid].cells)
        assert rows[f"public/{path}"].startswith(f"the protected table {tid}: {cells} cells by ")


def test_the_internal_report_has_a_sign_off_block_and_the_recipe_version(tmp_path):
    result = run(_recipe(tmp_path, version="v2.1-beta"), tmp_path / "out")
    internal = (tmp_path / "out" / "report.html").read_text()
    sign = internal[internal.index('<section id="sign-off">'):]
    sign = sign[:sign.index("</section>")]
    for text in ("<th>prepared by</th>", "<th>reviewed by</th>", "<b>Decision:</b>",
                 "<td>quickstart, version v2.1-beta</td>",
                 f"<td>{result.manifest['recipe']['sha256']}</td>", "all 3 passed"):
        assert text in sign, text
    assert '<div class="mark">INTERNAL \u2014 do not publish</div>' in internal
    external = (tmp_path / "out" / "public" / "report.html").read_text()
    assert 'id="sign-off"' not in external and 'class="mark"' not in external
    assert "v2.1-beta" not in external  # the version is no part of the public form


def test_the_run_date_is_in_run_json_and_never_in_the_hashed_files(tmp_path, monkeypatch):
    recipe = _recipe(tmp_path)
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    a = run(recipe, tmp_path / "a")
    log = json.loads((tmp_path / "a" / "run.json").read_text())
    assert len(log["date"]) == 20 and log["date"].endswith("Z")  # 2026-11-27T11:20:03Z
    assert "run date: see run.json" in (tmp_path / "a" / "report.html").read_text()
    # a date fixed by SOURCE_DATE_EPOCH is shown in the internal report only: the
    # release (public/) and its manifest are the same bytes whatever the date
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")  # 2023-11-14 UTC
    b = run(recipe, tmp_path / "b")
    internal = (tmp_path / "b" / "report.html").read_text()
    assert "<tr><th>run date</th><td>2023-11-14</td></tr>" in internal
    for rel in sorted(p.relative_to(a.public_dir) for p in a.public_dir.rglob("*")):
        assert (a.public_dir / rel).read_bytes() == (b.public_dir / rel).read_bytes(), rel
    assert "2023-11-14" not in (b.public_dir / "report.html").read_text()
    assert {k: v for k, v in a.manifest["files"].items() if k.startswith("public/")} == \
        {k: v for k, v in b.manifest["files"].items() if k.startswith("public/")}


def test_sdcflow_report_stamps_the_day_it_was_made(tmp_path, monkeypatch):
    recipe = tmp_path / "q.yaml"
    shutil.copy(QUICKSTART, recipe)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "86400")  # 1970-01-02
    assert main(["report", str(recipe), "-o", str(tmp_path / "r.html")]) == 0
    assert "run date: 1970-01-02" in (tmp_path / "r.html").read_text()
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    from datetime import datetime

    before = datetime.now(UTC).date().isoformat()
    assert main(["report", str(recipe), "-o", str(tmp_path / "r.html")]) == 0
    after = datetime.now(UTC).date().isoformat()
    html = (tmp_path / "r.html").read_text()
    assert f"run date: {before}" in html or f"run date: {after}" in html


def test_a_version_that_is_not_text_is_a_recipe_problem(tmp_path, capsys):
    from helpers import validate_cli

    recipe = _recipe(tmp_path)
    # unquoted, 2.1 is a number in YAML: said at its line and column, exit 1
    recipe.write_text(recipe.read_text().replace("name: quickstart\n",
                                                 "name: quickstart\nversion: 2.1\n"))
    line = recipe.read_text().splitlines().index("version: 2.1") + 1
    code, err = validate_cli(recipe, capsys)
    assert code == 1
    assert f"{recipe}:{line}:10: version: expected text, got 2.1" in err
