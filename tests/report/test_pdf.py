"""The report as PDF (WeasyPrint): written by a run with release.pdf and by sdcflow report
-o FILE.pdf, the same bytes on every run, with the report's sections, never replacing a
file that is not a report of the same recipe."""

import shutil

import pytest
from helpers import QUICKSTART

from sdcflow import run
from sdcflow.cli import main
from sdcflow.report.pdf import pdf_problem

pytestmark = pytest.mark.skipif(pdf_problem() is not None,
                                reason="WeasyPrint (or the Pango library) is missing")


def _pdf_recipe(tmp_path):
    recipe = tmp_path / "q.yaml"
    recipe.write_text(QUICKSTART.read_text().replace(
        "release: {path: testdata-protected.csv,", "release: {pdf: true, path: "
        "testdata-protected.csv,"))
    return recipe


def test_a_run_writes_both_reports_as_pdf_byte_identical(tmp_path):
    recipe = _pdf_recipe(tmp_path)
    a = run(recipe, tmp_path / "a", use_cache=False)
    b = run(recipe, tmp_path / "b")  # from the cache
    for rel in ("report.pdf", "public/report.pdf"):
        data = (a.out_dir / rel).read_bytes()
        assert data.startswith(b"%PDF-") and data == (b.out_dir / rel).read_bytes()
        assert a.manifest["files"][rel] == b.manifest["files"][rel]
    # both are in the manifest's list of files with their sha256
    assert {"report.pdf", "public/report.pdf"} <= set(a.manifest["files"])


def test_the_pdf_holds_the_report_sections(tmp_path):
    import weasyprint

    recipe = _pdf_recipe(tmp_path)
    result = run(recipe, tmp_path / "out")
    document = weasyprint.HTML(string=result.report()).render()
    anchors = set().union(*(page.anchors for page in document.pages))
    assert {"summary", "steps", "step-walls_pram", "key-variables", "recipe"} <= anchors
    assert len(document.pages) >= 4  # A4 pages: the summary, steps with pictures, ...
    external = weasyprint.HTML(string=result.external_report()).render()
    anchors = set().union(*(page.anchors for page in external.pages))
    assert "summary" in anchors and "recipe" not in anchors


def test_report_command_writes_a_pdf_and_replaces_only_its_own(tmp_path, capsys):
    recipe = tmp_path / "q.yaml"
    shutil.copy(QUICKSTART, recipe)
    target = tmp_path / "r.pdf"
    assert main(["report", str(recipe), "-o", str(target)]) == 0
    first = target.read_bytes()
    assert first.startswith(b"%PDF-")
    assert main(["report", str(recipe), "-o", str(target)]) == 0  # its own: replaced
    assert target.read_bytes() == first
    other = tmp_path / "other.pdf"
    other.write_bytes(b"%PDF-1.7 someone else's document")
    capsys.readouterr()
    assert main(["report", str(recipe), "-o", str(other)]) == 1
    assert "is not an sdcflow report of recipe 'quickstart'" in capsys.readouterr().err
    assert other.read_bytes() == b"%PDF-1.7 someone else's document"
    # --pdf picks the default name
    assert main(["report", str(recipe), "--pdf"]) == 0
    assert (tmp_path / "output" / "quickstart.report.pdf").read_bytes() == first


def test_release_pdf_without_weasyprint_is_a_recipe_problem(tmp_path, monkeypatch, capsys):
    from sdcflow.report import pdf

    monkeypatch.setattr(pdf, "pdf_problem", lambda: pdf.MISSING)
    recipe = _pdf_recipe(tmp_path)
    assert main(["validate", str(recipe)]) == 1
    captured = capsys.readouterr()
    err = captured.out + captured.err
    assert "release.pdf: a PDF report needs WeasyPrint: pip install 'sdcflow[pdf]'" in err


def test_pdfs_made_at_different_times_in_one_process_are_identical(monkeypatch):
    # fontTools stamps each embedded font subset with the current time (its head table)
    # unless SOURCE_DATE_EPOCH is set: the PDF must not depend on the clock, and a user's
    # own SOURCE_DATE_EPOCH is left as it was
    import os
    import time

    from sdcflow.report.pdf import pdf_bytes

    html = "<html><body><h1>Report</h1><p>Records 4580, suppressed 12 \u2014 \u00e9</p></body></html>"
    now = time.time()
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    monkeypatch.setattr(time, "time", lambda: now)
    first = pdf_bytes(html, "clock")
    monkeypatch.setattr(time, "time", lambda: now + 86_400 * 400)
    assert pdf_bytes(html, "clock") == first
    assert "SOURCE_DATE_EPOCH" not in os.environ
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    pdf_bytes(html, "clock")
    assert os.environ["SOURCE_DATE_EPOCH"] == "1700000000"
