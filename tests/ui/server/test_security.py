"""The workbench answers only the browser that came with the token, on this machine: a
spent or wrong token, a second browser, another Host, a cross-site or token-less post get
403 and nothing else; the project folder is never left."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from sdcflow.ui.server.app import create_app
from sdcflow.ui.server.project import OutsideProject, Project


def fresh(app) -> TestClient:
    return TestClient(app, base_url="http://127.0.0.1:8765")


def test_without_the_token_nothing_is_served(ui_project):
    app = create_app(ui_project)
    client = fresh(app)
    for path in ("/", "/recipe", "/static/htmx.min.js", "/static/app.css"):
        response = client.get(path)
        assert response.status_code == 403, path
        assert "testdata" not in response.text and "htmx" not in response.text


def test_the_token_is_exchanged_once_for_a_session(ui_project):
    app = create_app(ui_project, token="secret-token")
    first = fresh(app)
    response = first.get("/?token=secret-token", follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == "/"
    cookie = response.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict")
    assert "secret-token" not in cookie
    assert first.get("/").status_code == 200
    # a second browser with the same link gets nothing, nor does a wrong token
    second = fresh(app)
    assert second.get("/?token=secret-token").status_code == 403
    assert second.get("/").status_code == 403
    assert fresh(create_app(ui_project, token="right")).get("/?token=wrong").status_code == 403


def test_other_hosts_are_refused(ui_project):
    app = create_app(ui_project, token="t")
    client = TestClient(app, base_url="http://evil.example:8765")
    assert client.get("/?token=t").status_code == 403
    # the token was not spent by the refused request
    assert fresh(app).get("/?token=t", follow_redirects=False).status_code == 303


def test_posts_need_the_csrf_token_and_the_same_origin(ui_client):
    client, app = ui_client
    csrf = app.state.workbench.access.csrf
    del client.headers["X-CSRF-Token"]
    assert client.post("/open", data={"path": "quickstart.yaml"}).status_code == 403
    assert client.post("/open", data={"path": "quickstart.yaml", "csrf_token": "x"}
                       ).status_code == 403
    assert client.post("/open", data={"path": "quickstart.yaml"},
                       headers={"X-CSRF-Token": csrf, "Origin": "http://evil.example"}
                       ).status_code == 403
    assert app.state.workbench.workspace is None
    ok = client.post("/open", data={"path": "quickstart.yaml", "csrf_token": csrf})
    assert ok.status_code == 200 and app.state.workbench.workspace is not None


def test_pages_forbid_framing_and_foreign_scripts(ui_client):
    client, _ = ui_client
    headers = client.get("/").headers
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert "script-src 'self'" in headers["content-security-policy"]
    assert headers["x-frame-options"] == "DENY"
    assert headers["referrer-policy"] == "same-origin"


@pytest.mark.parametrize("path", ["../secret.yaml", "/etc/passwd", "a/../../x.yaml",
                                  "link/outside.yaml", "", "x\x00.yaml", "..\\x.yaml"])
def test_paths_outside_the_project_are_refused(ui_project, path):
    outside = ui_project.parent / "outside"
    outside.mkdir()
    (outside / "outside.yaml").write_text("sdcflow: 1\n")
    (ui_project / "link").symlink_to(outside)
    with pytest.raises(OutsideProject):
        Project.at(ui_project).path(path)


def test_opening_a_file_outside_the_project_changes_nothing(ui_client, ui_project):
    client, app = ui_client
    (ui_project.parent / "secret.yaml").write_text("sdcflow: 1\nname: secret\n")
    response = client.post("/open", data={"path": "../secret.yaml"})
    assert response.status_code == 400 and "not a path in the project" in response.text
    assert app.state.workbench.workspace is None


def test_the_listing_holds_only_project_files(ui_project):
    (ui_project / ".hidden").mkdir()
    (ui_project / ".hidden" / "x.yaml").write_text("")
    (ui_project / "output").mkdir()
    (ui_project / "output" / "release.csv").write_text("")
    project = Project.at(ui_project)
    assert project.files((".yaml",)) == ["quickstart.yaml"]
    assert project.files((".csv",)) == ["testdata.csv"]
