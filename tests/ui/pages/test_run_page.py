"""The Run page: ``sdcflow run`` on the saved recipe as a subprocess (saving the draft
first), one run at a time, cancel, the outcome with the manifest's files and hashes, and
the output files served read-only from the output folder only."""

from __future__ import annotations

import hashlib
import time

from sdcflow.ui.running.runner import release_files, run_command


def _open(client):
    assert client.post("/open", data={"path": "quickstart.yaml"}).status_code == 200


def _wait(app, seconds=120):
    job = app.state.workbench.extras["runner"].job
    deadline = time.monotonic() + seconds
    while job.running and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not job.running
    return job


def test_save_and_run_releases_as_the_cli_does(ui_client, ui_project):
    client, app = ui_client
    _open(client)
    ws = app.state.workbench.workspace
    ws.set_draft(ws.draft.replace("name: quickstart", "name: quickstart  # from the UI"))
    assert "Save and run" in client.get("/run").text
    assert client.post("/run/start", data={}).status_code == 200
    assert "# from the UI" in (ui_project / "quickstart.yaml").read_text()  # saved first
    job = _wait(app)
    assert job.command[-3:] == ["run", "--progress", "quickstart.yaml"]
    assert job.returncode == 0 and job.outcome() == "released"
    html = client.get("/run/progress").text
    assert 'data-outcome="released"' in html and "check passed" in html
    out = ui_project / "output" / "quickstart"
    release = out / "public" / "testdata-protected.csv"
    digest = hashlib.sha256(release.read_bytes()).hexdigest()
    assert digest in html and "public/testdata-protected.csv" in html
    assert {f["path"] for f in release_files(out)} >= {"public/testdata-protected.csv",
                                                       "report.html"}
    # the report is served read-only with its own policy: styles, no script, sandboxed
    report = client.get("/files/output/quickstart/report.html")
    assert report.status_code == 200 and report.headers["content-type"].startswith("text/html")
    assert "sandbox" in report.headers["content-security-policy"]
    assert "script-src" not in report.headers["content-security-policy"]


def test_only_output_files_are_served(ui_client, ui_project):
    client, _ = ui_client
    _open(client)
    (ui_project.parent / "secret.txt").write_text("secret")
    for path in ("testdata.csv", "quickstart.yaml", "../secret.txt", "output/../../secret.txt",
                 "output/quickstart/nothing.html"):
        response = client.get(f"/files/{path}")
        assert response.status_code == 404, path
        assert "secret" not in response.text


def test_one_run_at_a_time_and_cancel(ui_client, ui_project):
    client, app = ui_client
    _open(client)
    assert client.post("/run/start", data={}).status_code == 200
    # (the quick start takes seconds: sdcflow's import alone takes longer than this)
    busy = client.post("/run/start", data={})
    assert busy.status_code == 409 and "a run is going on" in busy.text
    client.post("/run/cancel", data={})
    job = _wait(app)
    assert job.cancelled and job.outcome() == "cancelled" and job.returncode != 0
    assert "The run was cancelled" in client.get("/run").text
    assert not (ui_project / "output" / "quickstart" / "public").exists()
    # nothing outside the project was written
    assert sorted(p.name for p in ui_project.parent.iterdir()) == ["project"]


def test_a_failing_recipe_says_so(ui_client, ui_project):
    client, app = ui_client
    _open(client)
    ws = app.state.workbench.workspace
    ws.set_draft(ws.draft.replace('"edits.total == 0"', '"edits.total == 1"'))
    client.post("/run/start", data={})
    job = _wait(app)
    assert job.returncode == 3 and job.outcome() == "not released: a check failed"
    html = client.get("/run").text
    assert "nothing was released" in html and 'id="not-released"' in html


def test_an_earlier_release_is_not_shown_as_this_runs(ui_client, ui_project):
    client, app = ui_client
    _open(client)
    client.post("/run/start", data={})
    assert _wait(app).outcome() == "released"
    assert 'id="stale-output"' not in client.get("/run").text
    ws = app.state.workbench.workspace
    ws.set_draft(ws.draft.replace("data: {builtin: testdata}", "data: {path: gone.csv}"))
    client.post("/run/start", data={})
    job = _wait(app)
    assert job.outcome() == "error" and job.returncode == 1
    html = client.get("/run").text
    # the CLI's note and the page both say the release there is an earlier run's
    assert "still holds the release of an earlier run" in html
    assert 'id="stale-output"' in html


def test_the_command_is_the_cli():
    from pathlib import Path

    command = run_command(Path("/x/r.yaml"))
    assert command[1:] == ["-m", "sdcflow", "run", "--progress", "r.yaml"]
