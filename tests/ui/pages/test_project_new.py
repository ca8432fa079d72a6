"""Opening a data file as a new recipe: the starter recipe saved under the name given
(never over an existing file) or held as an unsaved draft; paths outside the project and
files that are no data are refused."""

from __future__ import annotations

from sdcflow.ui.pages.home import recipe_name


def test_a_data_file_becomes_a_saved_starter_recipe(ui_client, ui_project):
    client, app = ui_client
    response = client.post("/new", data={"data": "testdata.csv", "name": "protect",
                                         "how": "save"})
    assert response.status_code == 200 and response.url.path == "/data"
    text = (ui_project / "protect.yaml").read_text()
    assert text.startswith("# A starter recipe written by `sdcflow init` from testdata.csv")
    assert 'data: {path: "testdata.csv"}' in text
    ws = app.state.workbench.workspace
    assert ws.path == ui_project / "protect.yaml" and not ws.changed


def test_a_draft_writes_nothing_until_saved(ui_client, ui_project):
    client, app = ui_client
    before = sorted(p.name for p in ui_project.iterdir())
    response = client.post("/new", data={"data": "testdata.csv", "name": "draft.yaml",
                                         "how": "draft"})
    assert response.status_code == 200
    assert sorted(p.name for p in ui_project.iterdir()) == before
    ws = app.state.workbench.workspace
    assert ws.changed and ws.saved == "" and "sdcflow: 1" in ws.draft
    assert "(unsaved)" in client.get("/data").text
    assert client.post("/recipe/save", data={}).status_code == 200
    assert (ui_project / "draft.yaml").read_text() == ws.draft


def test_an_existing_file_is_never_replaced(ui_client, ui_project):
    client, app = ui_client
    original = (ui_project / "quickstart.yaml").read_bytes()
    for how in ("save", "draft"):
        response = client.post("/new", data={"data": "testdata.csv", "name": "quickstart",
                                             "how": how})
        assert response.status_code == 400 and "exists" in response.text
    assert (ui_project / "quickstart.yaml").read_bytes() == original
    assert app.state.workbench.workspace is None


def test_a_draft_is_not_saved_over_a_file_that_appeared_since(ui_client, ui_project):
    client, _app = ui_client
    client.post("/new", data={"data": "testdata.csv", "name": "late", "how": "draft"})
    (ui_project / "late.yaml").write_text("written by someone else\n")
    response = client.post("/recipe/save", data={})
    assert response.status_code == 409 and "was not saved" in response.text
    assert (ui_project / "late.yaml").read_text() == "written by someone else\n"


def test_paths_outside_the_project_and_non_data_are_refused(ui_client, ui_project):
    client, app = ui_client
    outside = ui_project.parent / "outside.csv"
    outside.write_bytes((ui_project / "testdata.csv").read_bytes())
    for data, name in [("../outside.csv", "x"), ("/etc/passwd", "x"),
                       ("quickstart.yaml", "x"), ("missing.csv", "x"),
                       ("testdata.csv", "../escape.yaml"), ("testdata.csv", "/tmp/x.yaml")]:
        response = client.post("/new", data={"data": data, "name": name, "how": "save"})
        assert response.status_code == 400, (data, name)
    assert not (ui_project.parent / "escape.yaml").exists()
    assert not (ui_project / "x.yaml").exists()
    assert app.state.workbench.workspace is None


def test_recipe_names():
    assert recipe_name("", "sub/data.csv") == "sub/data.yaml"
    assert recipe_name("protect", "data.csv") == "protect.yaml"
    assert recipe_name("p.yml", "sub/data.csv") == "sub/p.yml"
    assert recipe_name("other/p", "sub/data.csv") == "other/p.yaml"
