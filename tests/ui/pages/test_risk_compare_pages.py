"""The Risk and Compare pages over HTTP (Starlette's test client): the figures they show
are the run's, and their actions edit the recipe (Add to recipe, Release this variant)."""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

from sdcflow.engine import run
from sdcflow.recipe import recipe_from_text, validate

HERE = Path(__file__).resolve().parents[1]


def _open(client, path: str) -> None:
    response = client.post("/open", data={"path": path}, follow_redirects=False)
    assert response.status_code == 303


def _finished(client, status: str) -> str:
    """The page's results once its background job is done (polled as htmx polls)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        html = client.get(status, headers={"HX-Request": "true"}).text
        if "hx-trigger" not in html:
            return html
        time.sleep(0.2)
    raise AssertionError(f"{status} did not finish")


def _cells(html: str, table_id: str) -> list[list[str]]:
    table = re.search(rf'<table[^>]*id="{table_id}".*?</table>', html, re.DOTALL).group(0)
    return [[re.sub(r"<[^>]+>", "", c).strip() for c in
             re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.DOTALL)]
            for row in re.findall(r"<tr.*?</tr>", table, re.DOTALL)]


def test_risk_page_shows_the_runs_k_anonymity(ui_client, ui_project):
    client, app = ui_client
    assert client.get("/risk", follow_redirects=False).status_code == 303  # no recipe yet
    _open(client, "quickstart.yaml")
    first = client.get("/risk")
    assert first.status_code == 200 and 'hx-get="/risk/status"' in first.text
    html = _finished(client, "/risk/status")
    rows = _cells(html, "k-table")[1:]
    shown = {r[0]: int(r[1]) for r in rows}
    result = run(ui_project / "quickstart.yaml", write=False)
    # the run's k_anonymity step on the original data, and sdcMicro's figures for
    # testdata (653 / 1087 / 1781, as tests/engine/test_run.py asserts)
    assert shown == {k: v for k, v in result.measures["risk_original"]["violations"].items()}
    assert shown == {"2": 653, "3": 1087, "5": 1781}
    assert {r[0]: int(r[4]) for r in rows} == {"2": 653, "3": 870, "5": 1070}
    assert 'img src="data:image/svg+xml;base64,' in html
    assert "In the recipe: step <code>risk_original</code>" in html
    # reloading is instant: the result is kept for this draft and data (no new job)
    jobs = app.state.workbench.extras["risk"]
    [key] = jobs.keys()
    assert 'id="k-table"' in client.get("/risk").text
    assert jobs.keys() == [key]


def test_add_to_recipe_adds_the_step_and_keeps_the_figures(ui_client, ui_project):
    client, app = ui_client
    _open(client, "quickstart.yaml")
    _finished(client, "/risk/status")
    response = client.post("/risk/add", data={"measure": "suda"}, follow_redirects=False)
    assert response.status_code == 303
    ws = app.state.workbench.workspace
    # before the first method, in the recipe's own block style
    assert "+  - id: suda_original\n+    measure: suda\n+    input: original\n   - id: age10" \
        in ws.diff()
    assert ws.problems() == []
    page = client.get("/risk").text  # (the same risk recipe: no new computation)
    assert "In the recipe: step <code>suda_original</code>" in page
    assert client.post("/risk/add", data={"measure": "pram"}).status_code == 400
    # without the CSRF token nothing changes
    client.headers.pop("X-CSRF-Token")
    assert client.post("/risk/add", data={"measure": "individual_risk"}).status_code == 403
    assert "individual_risk_original" not in ws.draft


def test_compare_page_shows_the_runs_scores_and_releases_a_variant(ui_client, ui_project):
    client, app = ui_client
    shutil.copyfile(HERE / "data" / "testdata_variants.yaml", ui_project / "variants.yaml")
    _open(client, "variants.yaml")
    html = _finished(client, "/compare/status")
    assert 'id="unchosen"' in html and 'id="ru-map"' in html
    rows = _cells(html, "variants")
    header, body = rows[0], {r[0]: r for r in rows[1:]}
    assert header[:6] == ["variant", "DR", "IL", "score", "rank", "Pareto"]
    # the same recipe with k = 3 released, run as `sdcflow run` runs it
    choice = (ui_project / "variants.yaml").read_text().replace(
        "release: {path: testdata-protected.csv}",
        "release: {path: testdata-protected.csv, variant: {k: 3}}")
    (ui_project / "chosen.yaml").write_text(choice)
    measures = run(ui_project / "chosen.yaml", ui_project / "output").measures
    for k in (2, 3, 5):
        score = measures[f"score[k={k}]"]
        row = body[f"k={k}"]
        assert (float(row[1]), float(row[2]), float(row[3])) == \
            (score["dr"], score["il"], score["score"])
        supp = header.index("values suppressed")
        assert int(row[supp]) == measures[f"supp[k={k}]"]["total"]
    assert [int(body[f"k={k}"][4]) for k in (2, 3, 5)] == [3, 2, 1]  # lowest score first
    assert body["original data"][header.index("records violating 2-anonymity")] == "653"

    response = client.post("/compare/release", data={"variant": "1"}, follow_redirects=False)
    assert response.status_code == 303
    ws = app.state.workbench.workspace
    assert "+release: {path: testdata-protected.csv, variant: {k: 3}}" in ws.diff()
    assert ws.problems() == []
    validate(recipe_from_text(ws.draft, ws.path.name, ws.path))  # with its data
    page = client.get("/compare").text
    assert 'id="diff"' in page  # the change is shown
    html = _finished(client, "/compare/status")
    released = re.search(r'<tr data-variant="k=3" class="released">', html)
    assert released is not None and 'id="unchosen"' not in html
    assert client.post("/compare/release", data={"variant": "7"}).status_code == 400


def test_compare_without_grids_compares_with_the_original_data(ui_client):
    client, _ = ui_client
    _open(client, "quickstart.yaml")
    html = _finished(client, "/compare/status")
    assert 'id="no-grid"' in html and 'href="/steps"' in html and 'id="ru-map"' not in html
    rows = {r[0]: r[1:] for r in _cells(html, "variants")}
    # the quick start's k-anonymity before and after (tests/engine/test_run.py's figures)
    assert rows["original data"][:3] == ["653", "1087", "1781"]
    assert rows["the recipe"][:3] == ["106", "171", "316"]
    assert client.post("/compare/release", data={"variant": "0"}).status_code == 400


def test_unusable_data_or_variables_are_said_plainly(ui_client, ui_project):
    client, _ = ui_client
    text = (ui_project / "quickstart.yaml").read_text()
    (ui_project / "missing.yaml").write_text(
        text.replace("data: {builtin: testdata}", "data: {path: nowhere.csv}"))
    _open(client, "missing.yaml")
    html = _finished(client, "/risk/status")
    assert 'id="risk-error"' in html and "nowhere.csv" in html and "Traceback" not in html
    assert "internal error" not in html
    html = _finished(client, "/compare/status")
    assert 'id="compare-error"' in html and "nowhere.csv" in html
    # no key variable: k-anonymity has nothing to count, and says so
    (ui_project / "nokeys.yaml").write_text(text.replace("role: key", "role: numeric"))
    _open(client, "nokeys.yaml")
    html = _finished(client, "/risk/status")
    assert "no key variables: declare variables with role &#39;key&#39;" in html
