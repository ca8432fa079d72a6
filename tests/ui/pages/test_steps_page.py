"""The Steps page: every registered plugin in the picker, steps added with parameters
checked against their schema, edited, moved, disabled, removed, grids, the released
variant, checks, undo, and the preview of a step (a partial run that never releases)."""

from __future__ import annotations

import re

from sdcflow.plugins import registry


def _open(client):
    assert client.post("/open", data={"path": "quickstart.yaml"}).status_code == 200


def _step_ids(draft: str) -> list[str]:
    return re.findall(r"^  - id: (\w+)", draft, re.MULTILINE)


def test_the_picker_lists_every_plugin_with_its_summary(ui_client):
    client, _ = ui_client
    _open(client)
    html = client.get("/steps").text
    for plugin in registry.plugins():
        assert f'<option value="{plugin.name}"' in html, plugin.name
    assert '<optgroup label="Methods">' in html and '<optgroup label="Measures">' in html
    chosen = client.get("/steps?add=global_recode").text
    # one field per parameter of the schema, with its description
    for name, spec in registry.get("global_recode").params["properties"].items():
        assert f'name="p.{name}"' in chosen, name
        assert spec["description"][:30] in chosen.replace("&#39;", "'").replace(
            "&#34;", '"').replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    # a parameter listing variables offers the recipe's variables
    ls = client.get("/steps?add=local_suppression").text
    assert '<select id="add-variables" name="p.variables" multiple' in ls
    assert '<option value="relat"' in ls[ls.index('name="p.variables"'):]


def test_an_unknown_method_is_refused(ui_client):
    client, app = ui_client
    _open(client)
    draft = app.state.workbench.workspace.draft
    assert client.get("/steps?add=no_such").status_code == 400
    response = client.post("/steps/add", data={"plugin": "no_such", "params": ""})
    assert response.status_code == 400 and "no method or measure named" in response.text
    assert app.state.workbench.workspace.draft == draft


def test_adding_a_step_with_bad_params_shows_the_error_at_the_field(ui_client):
    client, app = ui_client
    _open(client)
    draft = app.state.workbench.workspace.draft
    response = client.post("/steps/add", data={"plugin": "global_recode", "id": "r",
                                               "p.variable": "age", "p.breaks": "0, x"})
    assert response.status_code == 400
    # the message is next to its field, and what the user wrote is kept
    field = re.search(r'<div class="field" data-param="breaks">.*?</div>', response.text,
                      re.DOTALL).group(0)
    assert 'value="0, x"' in field
    assert '<span class="field-error">breaks: &#39;x&#39; is not a number</span>' in field
    malformed = client.post("/steps/add", data={"plugin": "local_suppression",
                                                "p.k": "three"})
    assert malformed.status_code == 400
    field = re.search(r'<div class="field" data-param="k">.*?</div>', malformed.text,
                      re.DOTALL).group(0)
    assert "k: &#39;three&#39; is not a whole number" in field
    assert app.state.workbench.workspace.draft == draft


def test_add_edit_move_disable_remove_and_undo(ui_client):
    client, app = ui_client
    _open(client)
    ws = app.state.workbench.workspace
    original = ws.draft
    assert client.post("/steps/add", data={"plugin": "k_anonymity", "id": "kan",
                                           "p.k": "3", "before": "risk"}
                       ).status_code == 200
    ids = _step_ids(ws.draft)
    assert ids[ids.index("kan") + 1] == "risk"
    assert "measure: k_anonymity\n    params: {k: 3}" in ws.draft  # (k: one value or a list)
    assert client.post("/steps/update", data={"id": "kan", "p.k": "2, 4",
                                              "p.variables": ["sex", "age"]}
                       ).status_code == 200
    assert "params: {k: [2, 4], variables: [sex, age]}" in ws.draft
    edit = client.get("/steps?edit=kan").text
    assert 'value="2, 4"' in edit and '<option value="sex" selected>' in edit
    before = _step_ids(ws.draft).index("kan")
    client.post("/steps/move", data={"id": "kan", "direction": "up"})
    assert _step_ids(ws.draft).index("kan") == before - 1
    assert client.post("/steps/move", data={"id": _step_ids(ws.draft)[0],
                                            "direction": "up"}).status_code == 400
    client.post("/steps/enable", data={"id": "kan", "enabled": "0"})
    assert "enabled: false" in ws.draft
    assert 'class="disabled"' in client.get("/steps").text
    client.post("/steps/enable", data={"id": "kan", "enabled": "1"})
    assert "enabled: false" not in ws.draft
    client.post("/steps/remove", data={"id": "kan"})
    assert "kan" not in _step_ids(ws.draft)
    assert client.post("/steps/remove", data={"id": "kan"}).status_code == 400
    while ws.history:
        client.post("/recipe/undo", data={"back": "/steps"})
    assert ws.draft == original


def test_a_grid_and_the_released_variant(ui_client):
    client, app = ui_client
    _open(client)
    ws = app.state.workbench.workspace
    bad = client.post("/steps/grid", data={"id": "walls_pram", "param": "retention",
                                           "values": "0.7"})
    assert bad.status_code == 400 and "as a list" in bad.text
    client.post("/steps/grid", data={"id": "walls_pram", "param": "retention",
                                     "values": "[0.8, 0.9]"})
    # the gridded parameter leaves params (the recipe gives it in one place)
    assert "params: {variables: [walls]}\n    grid: {retention: [0.8, 0.9]}" in ws.draft
    client.post("/steps/variant", data={"id": "walls_pram", "variant": "retention: 0.8"})
    assert "variant: {retention: 0.8}" in ws.draft
    assert ws.problems() == [], [str(p) for p in ws.problems()]
    client.post("/steps/grid", data={"id": "walls_pram", "param": "retention",
                                     "values": ""})
    assert "grid:" not in ws.draft


def test_checks_are_added_and_removed(ui_client):
    client, app = ui_client
    _open(client)
    ws = app.state.workbench.workspace
    count = ws.draft.count("\n  - ")
    assert client.post("/steps/check/add", data={"expr": ""}).status_code == 400
    client.post("/steps/check/add", data={"expr": "risk.violations[3] == 0",
                                          "message": "not 3-anonymous"})
    assert '{expr: "risk.violations[3] == 0", message: not 3-anonymous}' in ws.draft or \
        "risk.violations[3] == 0" in ws.draft
    html = client.get("/steps").text
    assert "not 3-anonymous" in html
    index = html[:html.index("not 3-anonymous")].count('action="/steps/check/remove"')
    client.post("/steps/check/remove", data={"index": str(index)})
    assert ws.draft.count("\n  - ") == count
    assert client.post("/steps/check/remove", data={"index": "99"}).status_code == 400
    assert client.post("/steps/check/remove", data={"index": "x"}).status_code == 400


def test_preview_runs_up_to_the_step_and_never_releases(ui_client, ui_project):
    client, _app = ui_client
    _open(client)
    response = client.post("/steps/preview", data={"id": "risk_original"})
    assert response.status_code == 200
    preview = response.text[response.text.index('id="preview"'):]
    assert "A preview, not a release" in preview
    # sdcMicro's testdata: 1,087 records violate 3-anonymity before protection (the quick
    # start's risk_original, README Quick start)
    assert "records violating 3-anonymity" in preview and "1087" in preview
    folder = ui_project / ".sdcflow-ui" / "preview"
    assert (folder / "manifest.json").is_file() and not (folder / "public").exists()
    # a method's preview draws the report's pictures of the data as it left them
    recode = client.post("/steps/preview", data={"id": "age10"}).text
    recode = recode[recode.index('id="preview"'):]
    assert recode.count('<img src="data:image/svg+xml;base64,') == 2
    assert "age: original values" in recode
    assert "age: records per category, released" in recode
    unknown = client.post("/steps/preview", data={"id": "nosuch"})
    assert "has no step" in unknown.text


def test_a_broken_draft_never_breaks_a_page(ui_client):
    """Malformed YAML, a recipe that is no mapping, sections of the wrong shape: every
    page and action answers (400 for an edit it cannot make), never a server error."""
    client, app = ui_client
    _open(client)
    ws = app.state.workbench.workspace
    posts = [("/data/variable", {"name": "a", "role": "key"}), ("/data/undeclare",
             {"name": "a"}), ("/steps/add", {"plugin": "k_anonymity"}),
             ("/steps/remove", {"id": "x"}), ("/steps/check/add", {"expr": "a"}),
             ("/steps/check/remove", {"index": "0"}),
             ("/steps/grid", {"id": "x", "param": "k", "values": "[1]"}),
             ("/steps/preview", {"id": "x"}), ("/steps/variant", {"id": "x",
                                                                  "variant": "k: 1"})]
    for draft in ["a: [", "- 1\n- 2\n", "sdcflow: 1\ndata: 5\nsteps: 7\nvariables: [1]\n",
                  "sdcflow: 1\ndata: {path: ../x.csv}\nsteps: [1, {id: x}]\nchecks: 3\n"]:
        ws.set_draft(draft)
        for url in ("/data", "/steps", "/run", "/recipe", "/steps?edit=x"):
            assert client.get(url).status_code < 500, (draft, url)
        for url, data in posts:
            assert client.post(url, data=data).status_code < 500, (draft, url)
        if draft in ("a: [", "- 1\n- 2\n"):  # (no edit reads them: nothing changed)
            assert ws.draft == draft
