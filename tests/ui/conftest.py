"""Fixtures of the workbench tests: a project folder, an HTTP client that holds the
session, a live server in a thread and a page of Debian's chromium driven by Playwright."""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TESTDATA = ROOT / "sdcflow" / "data" / "datasets" / "testdata.csv"
CHROMIUM = Path("/usr/bin/chromium")
# Debian's chromium as root, on a machine without network (see .ci/run)
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-quic"]


@pytest.fixture
def ui_project(tmp_path) -> Path:
    """A project folder holding sdcMicro's testdata (testdata.csv) and the quick start
    recipe (quickstart.yaml, which reads the built-in testdata)."""
    project = tmp_path / "project"
    project.mkdir()
    shutil.copyfile(TESTDATA, project / "testdata.csv")
    shutil.copyfile(ROOT / "recipes" / "quickstart.yaml", project / "quickstart.yaml")
    return project


def session_client(app):
    """A Starlette test client that has spent the app's token (it holds the session cookie
    and sends the CSRF header)."""
    from starlette.testclient import TestClient

    access = app.state.workbench.access
    client = TestClient(app, base_url="http://127.0.0.1:8765")
    response = client.get(f"/?token={access.token}", follow_redirects=False)
    assert response.status_code == 303
    client.headers["X-CSRF-Token"] = access.csrf
    return client


@pytest.fixture
def ui_client(ui_project):
    """(client, app) for the workbench on ``ui_project``."""
    from sdcflow.ui.server.app import create_app

    app = create_app(ui_project)
    return session_client(app), app


class LiveServer:
    """A workbench served by uvicorn in a thread: ``url`` (with the one-time token),
    ``base`` and ``app``."""

    def __init__(self, app, port: int) -> None:
        import uvicorn

        self.app = app
        self.base = f"http://127.0.0.1:{port}"
        self.url = f"{self.base}/?token={app.state.workbench.access.token}"
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                                    log_level="warning", access_log=False))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def start(self) -> None:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the workbench server did not start")
            time.sleep(0.02)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


@pytest.fixture
def live_workbench(ui_project):
    """A function starting the workbench on ``ui_project`` (optionally with a recipe open)
    in a thread; servers stop at the end of the test."""
    from sdcflow.ui.server.app import create_app
    from sdcflow.ui.server.serve import free_port

    servers = []

    def start(recipe: str | None = None, project: Path | None = None) -> LiveServer:
        server = LiveServer(create_app(project or ui_project, recipe=recipe), free_port())
        server.start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture(scope="session")
def chromium():
    """Debian's chromium under Playwright (no browser download); the browser tests skip
    where it is not installed (.ci/run installs it)."""
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def browser_page(chromium):
    """A page of a fresh browser context (its own cookies: a second browser)."""
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(20_000)
    yield page
    context.close()


@pytest.fixture
def screenshots() -> Path:
    """The folder the browser tests write their screenshots to (looked at when a screen
    changes): tests/ui/screenshots/ is ignored by git."""
    folder = ROOT / "tests" / "ui" / "screenshots"
    folder.mkdir(exist_ok=True)
    return folder


def follow(page, locator, timeout: float = 120_000) -> None:
    """Click ``locator`` and wait for the page it leads to (a form post and its redirect,
    or a link): after a click alone, a check can read the page before it was replaced,
    and ``wait_for_url`` returns at once when the new page has the same address."""
    with page.expect_navigation(timeout=timeout):
        locator.click()
