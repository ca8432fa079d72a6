"""Every shipped recipe's internal and external report, rendered in headless Chromium
(Debian's chromium; skipped where it is missing): each lays out without a console error
into a page of real height with its sections; and the PDF (WeasyPrint) of the internal
and external report carries a page number on every page and, internal only, the mark
"INTERNAL \u2014 do not publish".

All reports load into one Chromium process (one frame each) so that the test stays
short: a page of the test's own measures each frame once it has loaded and writes the
figures into the DOM, which ``--dump-dom`` prints."""

import json
import re
import shutil
import subprocess

import pytest
from helpers import ROOT

from sdcflow.report.pdf import pdf_problem

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
RECIPES = sorted((ROOT / "recipes").glob("*.yaml"))
MARK = "INTERNAL \u2014 do not publish"

_MEASURE = """<!DOCTYPE html><html><body><pre id="out">pending</pre><script>
const names = %s, results = {};
let left = names.length;
for (const name of names) {
  const frame = document.createElement("iframe");
  frame.style.width = "1000px";
  frame.onload = () => {
    const doc = frame.contentDocument;
    results[name] = {
      height: doc.documentElement.scrollHeight,
      ids: Array.from(doc.querySelectorAll("section[id]"), e => e.id),
      mark: doc.querySelectorAll(".mark").length,
      text: doc.body.innerText.length,
      tables: doc.querySelectorAll("table").length};
    if (--left === 0) document.getElementById("out").textContent = JSON.stringify(results);
  };
  frame.src = name + ".html";
  document.body.appendChild(frame);
}
</script></body></html>"""


@pytest.fixture(scope="module")
def reports(shipped_run) -> dict:
    """Each shipped recipe's reports (its checks failed or not): report name -> HTML
    page."""
    out = {}
    for path in RECIPES:
        done = shipped_run(path.stem)
        out[f"{path.stem}.internal"] = done.internal
        if done.external is not None:
            out[f"{path.stem}.external"] = done.external
    return out


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run "
                                             "installs it)")
def test_every_shipped_report_renders_in_chromium(reports, tmp_path):
    for name, html in reports.items():
        (tmp_path / f"{name}.html").write_text(html, encoding="utf-8")
    index = tmp_path / "index.html"
    index.write_text(_MEASURE % json.dumps(sorted(reports)), encoding="utf-8")
    done = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={tmp_path / 'profile'}", "--allow-file-access-from-files",
         "--enable-logging=stderr", "--v=0", "--virtual-time-budget=60000", "--dump-dom",
         index.as_uri()], capture_output=True, text=True, timeout=180, check=False)
    found = re.search(r'<pre id="out">(.*?)</pre>', done.stdout, re.DOTALL)
    assert found and found.group(1) != "pending", done.stderr[-2000:]
    results = json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    assert set(results) == set(reports)
    # a report has no script and loads nothing: any console message is a fault of its own
    console = [line for line in done.stderr.splitlines() if "CONSOLE" in line]
    assert console == []
    for name, figures in results.items():
        internal = name.endswith(".internal")
        # a page of several screens with its text and tables, not an empty or error page
        assert figures["height"] > 1500 and figures["text"] > 1500, name
        assert figures["tables"] >= 2, name
        assert "summary" in figures["ids"] and "steps" in figures["ids"], name
        assert ("sign-off" in figures["ids"]) == internal, name
        assert ("recipe" in figures["ids"]) == internal, name
        assert figures["mark"] == (1 if internal else 0), name
        if "not-released" in figures["ids"]:  # a failed run: why, before anything else
            assert figures["ids"][0] == "not-released", name


def _margins(page) -> dict[str, str]:
    """The text of each margin box of a WeasyPrint page (its layout tree: the PDF's own
    text is subset glyphs, which only a PDF library reads back)."""
    from weasyprint.formatting_structure import boxes

    def texts(box):
        if isinstance(box, boxes.TextBox):
            yield box.text
        for child in getattr(box, "children", None) or ():
            yield from texts(child)

    return {box.at_keyword: " ".join(texts(box)) for box in page._page_box.children
            if isinstance(box, boxes.MarginBox)}


@pytest.mark.skipif(pdf_problem() is not None, reason="WeasyPrint (or Pango) is missing")
@pytest.mark.parametrize("name", ["quickstart", "tables_profession_town"])
def test_every_pdf_page_has_its_number_and_the_internal_mark(reports, name):
    import weasyprint

    for kind in ("internal", "external"):
        document = weasyprint.HTML(string=reports[f"{name}.{kind}"]).render()
        count = len(document.pages)
        assert count >= 2
        for number, page in enumerate(document.pages, 1):
            margins = _margins(page)
            assert margins["@bottom-right"] == f"page {number} of {count}"
            line = margins["@bottom-left"]
            assert line.startswith("sdcflow report \u00b7 "), line
            # the run's date: not in a report a run hashes (sdcflow.report.signoff)
            assert line.endswith("run date: see run.json") == (kind == "internal"), line
            assert (margins.get("@top-center") == MARK) == (kind == "internal")
