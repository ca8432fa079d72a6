"""The Tables page: the grid's cell statuses and published values are those of the run's
released table (the same plan and plugins run them: tests compare with ``sdcflow.run``
on the same recipe), the audit's intervals are the run's, the rules form writes the
recipe, and bad input changes nothing."""

from __future__ import annotations

import json
import re
import shutil
from html import unescape

import pandas as pd
import pytest

import sdcflow
from sdcflow.ui.running.table_run import SCRATCH
from sdcflow.ui.server.app import create_app

from ..conftest import ROOT, session_client

CELL = re.compile(r'data-cell="([^"]*)" data-status="([^"]*)" data-published="([^"]*)"')


def grid(html: str) -> dict[str, tuple[str, str]]:
    """cell codes ('P1|M1') -> (status, published value) as the grid shows them."""
    return {codes: (status, published) for codes, status, published in
            CELL.findall(unescape(html))}


def shown(x: float) -> str:
    """A number as the grid writes it: whole with thousands separators, else 2 decimals."""
    return f"{x:,.0f}" if x == round(x) else f"{x:,.2f}"


def _project(tmp_path, recipe: str, data: str | None = None):
    project = tmp_path / "project"
    project.mkdir()
    shutil.copyfile(ROOT / "recipes" / recipe, project / recipe)
    if data:
        (project / "data").mkdir()
        shutil.copyfile(ROOT / "recipes" / "data" / data, project / "data" / data)
    app = create_app(project, recipe=recipe)
    return session_client(app), app, project


@pytest.fixture
def torra(tmp_path):
    return _project(tmp_path, "tables_profession_town.yaml", "profession_town.csv")


def test_the_grid_is_the_released_table(torra, tmp_path):
    client, _app, project = torra
    # before Run: the primary rules only (Torra 2013: (P3, M2) has frequency 1, (P5, M3)
    # is dominated by one contribution of 350 in 363, (P1, M1) has frequency 2)
    first = client.get("/tables").text
    assert re.search(r'id="pending".*<code>secondary</code>, <code>audit</code>', first)
    before = grid(first)
    assert {c for c, (s, _) in before.items() if s == "primary"} == {"P1|M1", "P3|M2",
                                                                    "P5|M3"}
    assert not any(s == "secondary" for s, _ in before.values())
    page = client.post("/tables/run?table=salaries")
    assert page.status_code == 200
    after = grid(page.text)
    assert 'id="pending"' not in page.text
    # the same recipe run as the command line runs it
    out = tmp_path / "out"
    sdcflow.run(sdcflow.load_recipe(project / "tables_profession_town.yaml"), out_dir=out)
    internal = pd.read_csv(out / "tables" / "salaries.csv", dtype=str, keep_default_na=False)
    public = pd.read_csv(out / "public" / "salaries-protected.csv", dtype=str,
                         keep_default_na=False)
    assert len(after) == len(internal) == 24
    for _, row in internal.iterrows():
        assert after[f"{row.profession}|{row.town}"][0] == row.status
    assert {c for c, (s, _) in after.items() if s == "secondary"} == {
        "P1|M2", "P1|M3", "P3|M1", "P5|M1"}  # the optimal pattern of four cells
    for _, row in public.iterrows():
        published = after[f"{row.profession}|{row.town}"][1]
        assert (published == "") == (row.status == "suppressed")
        if published:
            assert float(published) == float(row.value)
    # the workbench's scratch copy holds the run's very bytes
    scratch = project / SCRATCH / "profession-town"
    assert (scratch / "tables" / "salaries.csv").read_bytes() == \
        (out / "tables" / "salaries.csv").read_bytes()
    # the audit's intervals, as the run's audit lists them
    measures = json.loads((out / "measures.json").read_text())["measures"]["audit"]
    text = unescape(page.text)
    for cell in measures["cells"]:
        lower, upper = shown(cell["lower"]), shown(cell["upper"])
        codes = cell["cell"].replace(" x ", "|")
        block = text[text.index(f'data-cell="{codes}"'):]
        block = block[:block.index("</td>")]
        assert f"[{lower}, {upper}]" in block
    assert "Every sensitive cell is protected" in text


def test_rules_written_from_the_form_change_the_grid(torra):
    client, app, _ = torra
    ws = app.state.workbench.workspace
    response = client.post("/tables/rules?table=salaries",
                           data={"source": "salaries", "freq": "40", "dom_n": "1",
                                 "dom_k": "50"})
    assert response.status_code == 200
    assert "params: {rules: [{freq: 40}, {dominance: {n: 1, k: 50}}]}" in ws.draft
    assert ws.diff().count("\n+  ") == 1  # one line changed
    cells = grid(response.text)
    # every inner cell of profession_town.csv with a frequency below 40 (13 of 15: all
    # but (P1, M2), 72, and (P4, M3)) is now primary
    primary = {c for c, (s, _) in cells.items() if s == "primary"}
    frame = pd.read_csv(ROOT / "recipes" / "data" / "profession_town.csv")
    small = {f"{r.profession}|{r.town}" for r in frame.itertuples()
             if 0 < r.freq < 40 and r.profession != "Total" and r.town != "Total"}
    assert len(small) == 13 and small <= primary


@pytest.mark.parametrize("data, message", [
    ({"source": "salaries", "freq": "three"}, "not a whole number"),
    ({"source": "salaries", "dom_n": "1"}, "needs both n and k"),
    ({"source": "salaries"}, "at least one rule"),
    ({"source": "salaries", "p_percent": "-5"}, "p_percent"),
])
def test_bad_rules_change_nothing(torra, data, message):
    client, app, _ = torra
    before = app.state.workbench.workspace.draft
    response = client.post("/tables/rules?table=salaries", data=data)
    assert response.status_code == 400
    assert message in unescape(re.search(r'id="table-error">(.*?)</p>', response.text).group(1))
    assert app.state.workbench.workspace.draft == before


def test_cell_key_cells_are_perturbed_as_released(tmp_path):
    client, _app, project = _project(tmp_path, "testdata_cell_key.yaml")
    page = client.post("/tables/run?table=cube&rows=water&cols=roof&at_urbrur=1")
    assert page.status_code == 200
    cells = grid(page.text)
    # a plane of the three-dimensional cube: urbrur fixed at 1 by the selector
    assert 'name="at_urbrur"' in page.text and all(c.startswith("1|") for c in cells)
    out = tmp_path / "out"
    sdcflow.run(sdcflow.load_recipe(project / "testdata_cell_key.yaml"), out_dir=out)
    public = pd.read_csv(out / "public" / "cube.csv", dtype=str)
    internal = pd.read_csv(out / "tables" / "cube.csv", dtype=str)
    plane = public[public.urbrur == "1"]
    assert len(plane) == len(cells)
    perturbed = 0
    for (_, row), (_, orig) in zip(plane.iterrows(), internal[public.urbrur == "1"].iterrows(),
                                   strict=True):
        status, published = cells[f"1|{row.water}|{row.roof}"]
        assert float(published) == float(row.value)
        changed = float(row.value) != float(orig.value)
        assert (status == "perturbed") == changed
        perturbed += changed
    assert perturbed > 0


def test_a_recipe_without_tables_says_so(ui_client):
    client, _app = ui_client
    client.post("/open", data={"path": "quickstart.yaml"})
    page = client.get("/tables")
    assert page.status_code == 200 and 'id="no-tables"' in page.text


def test_a_recipe_that_does_not_validate_shows_its_problems(torra):
    client, app, _ = torra
    ws = app.state.workbench.workspace
    ws.set_draft(ws.draft.replace("method: sensitivity_rules", "method: sensitivity_rulez"))
    page = client.get("/tables")
    assert page.status_code == 200
    assert "sensitivity_rulez" in page.text and 'id="table-problems"' in page.text


def test_a_scratch_folder_the_workbench_did_not_write_is_left_alone(torra):
    client, _app, project = torra
    folder = project / SCRATCH / "profession-town"
    folder.mkdir(parents=True)
    (folder / "mine.txt").write_text("the user's")
    page = client.post("/tables/run?table=salaries")
    assert page.status_code == 400 and "not written by the workbench" in page.text
    assert (folder / "mine.txt").read_text() == "the user's"


def test_linked_tables_show_their_faces_of_the_cover_table(tmp_path):
    # tables_linked.yaml: income by urbrur x water and by urbrur x roof protected together
    client, _app, project = _project(tmp_path, "tables_linked.yaml")
    out = tmp_path / "out"
    sdcflow.run(sdcflow.load_recipe(project / "tables_linked.yaml"), out_dir=out)
    audit = json.loads((out / "measures.json").read_text())["measures"]["audit"]["cells"]
    client.post("/tables/run?table=by_water")
    for tid, other in (("by_water", "water"), ("by_roof", "roof")):
        page = client.get(f"/tables?table={tid}").text
        cells = grid(page)
        internal = pd.read_csv(out / "tables" / f"{tid}.csv", dtype=str)
        assert {f"{r.urbrur}|{r[other]}": r.status for _, r in internal.iterrows()} == {
            c: s for c, (s, _) in cells.items()}
        # each suppressed cell has the interval the audit of the cover table gives it
        # (the cover's cell: the other linked table's variable at its total)
        text = unescape(page)
        for c, (status, _) in cells.items():
            if status not in ("primary", "secondary"):
                continue
            urbrur, code = c.split("|")
            key = [urbrur, code, "Total"] if other == "water" else [urbrur, "Total", code]
            found = next(a for a in audit if a["cell"] == " x ".join(key))
            block = text[text.index(f'data-cell="{c}"'):]
            block = block[:block.index("</td>")]
            assert f"[{shown(found['lower'])}, {shown(found['upper'])}]" in block
