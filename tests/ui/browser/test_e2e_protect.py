"""A whole protection of sdcMicro's testdata in Debian's chromium, without typing a
recipe: open testdata.csv as a new recipe, set the roles, recode age into classes, replace
the starter's suppression by local suppression to 3-anonymity with a grid of two k, add a
k-anonymity measure and a check, look at the risks, compare the two variants on the R-U
map and release one, preview a step, save, run from the browser. Then the
saved recipe validates, and ``sdcflow run`` from the command line into another folder
writes the same bytes and the same manifest hashes as the browser's run. Screenshots of
each screen go to tests/ui/screenshots/."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pandas as pd

from ..conftest import TESTDATA, follow

ROLES = {"urbrur": "key", "water": "key", "sex": "key", "age": "key", "relat": "key",
         "ori_hid": "household", "sampling_weight": "weight", "roof": "sensitive",
         "walls": "sensitive", "electcon": "sensitive", "hhcivil": "sensitive",
         "expend": "numeric", "income": "numeric", "savings": "numeric",
         "household_weights": "numeric"}


def _step_button(page, step_id, label):
    return page.locator(f'li[data-step="{step_id}"]').get_by_role("button", name=label,
                                                                   exact=True)


def _add_step(page, plugin, step_id, params, before="", shot=None):
    """Add a step through the form generated from the plugin's parameter schema."""
    page.select_option("#plugin-picker", plugin)
    follow(page, page.locator("#choose-plugin"))
    page.fill("#step-id", step_id)
    page.select_option("#step-position", before)
    for name, value in params.items():
        page.fill(f"#add-{name}", value)
    if shot is not None:
        page.screenshot(path=str(shot), full_page=True)
    follow(page, page.locator("#add-step-button"))
    assert page.locator(f'li[data-step="{step_id}"]').count() == 1, page.content()


def _files(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*")
            if p.is_file() and p.name != "run.json"}


def test_protect_testdata_in_the_browser(tmp_path, live_workbench, browser_page,
                                         screenshots):
    project = tmp_path / "only-data"
    project.mkdir()
    shutil.copyfile(TESTDATA, project / "testdata.csv")
    server = live_workbench(project=project)
    page = browser_page
    page.goto(server.url)
    page.screenshot(path=str(screenshots / "e2e-project.png"), full_page=True)

    # open the data file as a new recipe, saved under a new name
    page.select_option("#new-data", "testdata.csv")
    page.fill("#new-name", "protect")
    follow(page, page.locator("#new-save"))
    assert page.url.endswith("/data") and (project / "protect.yaml").is_file()

    # the roles
    for name, role in ROLES.items():
        row = page.locator(f'tr[data-variable="{name}"]')
        row.locator('select[name="role"]').select_option(role)
        follow(page, row.locator("button.set"))
        assert page.locator(f'tr[data-variable="{name}"] select[name="role"]'
                            ).input_value() == role
    assert "ori_hid" not in page.locator("#identifier-banner").inner_text() \
        if page.locator("#identifier-banner").count() else True
    page.screenshot(path=str(screenshots / "e2e-data.png"), full_page=True)

    # risk first: the records violating 3-anonymity of the five key variables, as a
    # groupby counts them (testdata has no missing key value)
    page.goto(server.base + "/risk")
    page.locator("#k-table").wait_for(timeout=240_000)
    keys = pd.read_csv(TESTDATA)[["urbrur", "water", "sex", "age", "relat"]]
    sizes = keys.groupby(list(keys.columns))["age"].transform("size")
    assert page.locator('#k-table tr[data-k="3"] td.records').inner_text() == \
        str(int((sizes < 3).sum()))
    page.screenshot(path=str(screenshots / "e2e-risk.png"), full_page=True)

    # the steps: no microaggregation (numeric variables stay), age into classes, local
    # suppression to 3-anonymity in a grid of k = 3, 4 (k = 3 released), a k-anonymity
    # measure and its check
    page.goto(server.base + "/steps")
    for sid in ("micro", "suppress"):
        follow(page, _step_button(page, sid, "Remove"))
    _add_step(page, "global_recode", "recode_age",
              {"variable": "age", "breaks": "0, 15, 30, 45, 60, 120"}, before="risk_original")
    _add_step(page, "local_suppression", "suppress3", {"k": "3"}, before="risk",
              shot=screenshots / "e2e-steps-form.png")
    _add_step(page, "k_anonymity", "kanon", {"k": "3"})
    page.goto(server.base + "/steps?edit=suppress3")
    page.fill("#grid-param", "k")
    page.fill("#grid-values", "[3, 4]")
    follow(page, page.locator("#set-grid"))
    # compare the two variants on the R-U map and release k = 3
    page.goto(server.base + "/compare")
    page.locator("#variants").wait_for(timeout=240_000)
    assert page.locator('tr[data-variant="k=4"]').count() == 1
    follow(page, page.locator('tr[data-variant="k=3"] button.release-variant'))
    page.locator('tr[data-variant="k=3"].released').wait_for(timeout=240_000)
    page.screenshot(path=str(screenshots / "e2e-compare.png"), full_page=True)
    page.goto(server.base + "/steps?edit=suppress3")
    page.fill("#check-expr", "kanon.violations[3] == 0")
    page.fill("#check-message", "a record violates 3-anonymity")
    follow(page, page.locator("#add-check"))
    assert page.locator("#valid").is_visible(), page.locator("#problems").inner_text()
    follow(page, _step_button(page, "recode_age", "Preview"))
    preview = page.locator("#preview")
    assert "not a release" in preview.inner_text()
    assert "recoded" in preview.inner_text()
    # the report's picture of age in classes, drawn (an <img> of SVG: it has a width)
    picture = preview.locator("figure img").last
    assert picture.evaluate("i => i.complete && i.naturalWidth > 0")
    page.screenshot(path=str(screenshots / "e2e-steps.png"), full_page=True)

    # save, then run from the browser
    follow(page, page.locator("#save"))
    assert not (project / ".sdcflow-ui" / "preview" / "public").exists()
    page.goto(server.base + "/run")
    assert page.locator("#run-button").inner_text() == "Run"
    follow(page, page.locator("#run-button"))
    page.locator("#outcome").wait_for(timeout=240_000)
    assert page.locator("#outcome").get_attribute("data-outcome") == "released", \
        page.locator("#run-log").inner_text()
    assert page.locator("#release-files").is_visible()
    page.screenshot(path=str(screenshots / "e2e-run.png"), full_page=True)
    page.goto(server.base + "/recipe")
    page.screenshot(path=str(screenshots / "e2e-recipe.png"), full_page=True)

    # the saved recipe validates, and the command line reproduces the browser's run
    recipe = project / "protect.yaml"
    text = recipe.read_text()
    assert "recode_age" in text and "grid: {k: [3, 4]}" in text
    cli = [sys.executable, "-m", "sdcflow"]
    assert subprocess.run([*cli, "validate", "protect.yaml"], cwd=project,
                          check=False).returncode == 0
    done = subprocess.run([*cli, "run", "-q", "--out", "cli-run", "protect.yaml"],
                          cwd=project, check=False)
    assert done.returncode == 0
    browser_run = project / "output" / "testdata"
    browser_files, cli_files = _files(browser_run), _files(project / "cli-run")
    assert "public/testdata-protected.csv" in browser_files
    assert browser_files == cli_files
    manifest = json.loads((browser_run / "manifest.json").read_text())["files"]
    assert manifest == json.loads((project / "cli-run" / "manifest.json").read_text()
                                  )["files"]
    # nothing was written outside the project (``project`` is the fixture's other one)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["only-data", "project"]
