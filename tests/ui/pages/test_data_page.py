"""The Data page: the variables table from the data and the recipe, identifiers flagged
and their values hidden, and the forms that declare a variable (each an edit of the
recipe's ``variables``)."""

from __future__ import annotations

import re

import pandas as pd

from sdcflow.ui.content.data_columns import columns_of, read_text_columns


def _open(client, path="quickstart.yaml"):
    assert client.post("/open", data={"path": path}).status_code == 200


def _row(html: str, name: str) -> str:
    match = re.search(rf'<tr data-variable="{name}".*?</tr>', html, re.DOTALL)
    assert match, name
    return match.group(0)


def test_the_table_holds_every_column_with_counts(ui_client):
    client, _ = ui_client
    _open(client)
    html = client.get("/data").text
    # testdata: urbrur has the two codes 1 and 2, none missing (sdcMicro's testdata)
    urbrur = _row(html, "urbrur")
    assert '<td class="num">2</td>' in urbrur and '<td class="num">0</td>' in urbrur
    assert "2 labels" in urbrur and "household" in urbrur
    # an undeclared column of the data is listed, marked undeclared
    assert "(undeclared: dropped)" in _row(html, "roof")
    # the household id's values are not shown
    assert "hidden" in _row(html, "ori_hid") and "1, 2" not in _row(html, "ori_hid")


def test_identifiers_are_flagged_and_their_values_hidden(tmp_path):
    frame = pd.DataFrame({"name": [f"person {i}" for i in range(12)],
                          "persid": [str(i) for i in range(12)],
                          "sex": ["1", "2"] * 6})
    rows = {c.name: c for c in columns_of(frame, {"persid": {"role": "key"},
                                                  "name": {"role": "identifier"}})}
    assert rows["name"].identifier and rows["name"].examples == []
    # guessed an identifier but declared a key: released, so flagged loudly
    assert rows["persid"].released_identifier and rows["persid"].examples == []
    assert not rows["sex"].identifier and rows["sex"].examples == ["1", "2"]


def test_the_banner_names_a_released_identifier(ui_client, ui_project):
    client, _ = ui_client
    csv = ui_project / "people.csv"
    csv.write_text("persid,sex\n" + "".join(f"{i},{1 + i % 2}\n" for i in range(20)))
    (ui_project / "people.yaml").write_text(
        "sdcflow: 1\nname: people\nseed: 1\ndata: {path: people.csv}\n"
        "variables:\n  persid: {role: key}\n  sex: {role: key}\nsteps: []\n")
    _open(client, "people.yaml")
    html = client.get("/data").text
    assert 'id="identifier-banner"' in html and "it would be released" in html
    assert 'class="identifier"' in _row(html, "persid")
    assert "identifier: hidden" in _row(html, "persid")


def test_setting_a_role_edits_the_recipe(ui_client):
    client, app = ui_client
    _open(client)
    response = client.post("/data/variable", data={"name": "roof", "role": "sensitive",
                                                    "type": "categorical",
                                                    "level": "household"})
    assert response.status_code == 200
    ws = app.state.workbench.workspace
    assert "roof: {role: sensitive, type: categorical, level: household}" in ws.draft
    assert "# Quick start" in ws.draft  # the comments stay
    assert "+  roof:" in client.get("/data").text  # the diff is shown


def test_labels_are_set_and_checked(ui_client):
    client, app = ui_client
    _open(client)
    form = {"name": "sex", "role": "key", "type": "categorical", "level": "record"}
    bad = client.post("/data/variable", data={**form, "labels": "1 male"})
    assert bad.status_code == 400 and "write each label as" in bad.text
    ok = client.post("/data/variable", data={**form, "labels": "1: man\n2: woman\n"})
    assert ok.status_code == 200
    ws = app.state.workbench.workspace
    assert "labels: {'1': man, '2': woman}" in ws.draft or '"1": man' in ws.draft


def test_bad_input_shows_the_error_and_changes_nothing(ui_client):
    client, app = ui_client
    _open(client)
    ws = app.state.workbench.workspace
    draft = ws.draft
    unknown = client.post("/data/variable", data={"name": "nosuch", "role": "key"})
    assert unknown.status_code == 400 and "no variable or column named" in unknown.text
    bad_role = client.post("/data/variable", data={"name": "sex", "role": "boss"})
    assert bad_role.status_code == 400
    # the message is in the row of the variable, next to the role field
    assert 'class="field-error">choose a role' in _row(bad_role.text, "sex")
    bad_level = client.post("/data/variable", data={"name": "sex", "role": "key",
                                                    "level": "street"})
    assert bad_level.status_code == 400 and "record or household" in bad_level.text
    assert client.post("/data/undeclare", data={"name": "nosuch"}).status_code == 400
    assert ws.draft == draft


def test_undeclaring_removes_the_declaration(ui_client):
    client, app = ui_client
    _open(client)
    assert client.post("/data/undeclare", data={"name": "savings"}).status_code == 200
    assert "savings:" not in app.state.workbench.workspace.draft


def test_data_outside_the_recipe_folder_are_not_read(ui_project, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "secret.csv").write_text("a\n1\n")
    frame, problems = read_text_columns({"path": "../elsewhere/secret.csv"}, ui_project)
    assert frame is None and problems


def test_without_a_recipe_the_page_sends_home(ui_client):
    client, _ = ui_client
    response = client.get("/data", follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == "/"
