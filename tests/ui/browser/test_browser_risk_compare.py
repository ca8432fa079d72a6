"""The Risk and Compare pages in Debian's chromium: the risks appear after the progress
line (htmx polling under the strict CSP), "Add to recipe" and "Release this variant"
edit the recipe. Screenshots go to tests/ui/screenshots/ (risk.png, compare.png)."""

from __future__ import annotations

import shutil
from pathlib import Path

from ..conftest import follow

HERE = Path(__file__).resolve().parents[1]


def _csp_errors(page) -> list[str]:
    """The console's Content-Security-Policy complaints of ``page``, as they come."""
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text)
            if m.type == "error" and "Content Security Policy" in m.text else None)
    return errors


def test_risk_page_in_the_browser(live_workbench, browser_page, screenshots):
    server = live_workbench(recipe="quickstart.yaml")
    page = browser_page
    errors = _csp_errors(page)
    page.goto(server.url)
    page.locator('nav a[data-page="risk"]').click()
    page.wait_for_url(server.base + "/risk")
    page.locator("#k-table").wait_for(timeout=120_000)
    assert page.locator('#k-table tr[data-k="3"] td.records').inner_text() == "1087"
    # the pictures are drawn (an image that failed has no natural width)
    widths = page.locator("#risk-results figure img").evaluate_all(
        "imgs => imgs.map(i => i.naturalWidth)")
    assert len(widths) == 3 and min(widths) > 100
    follow(page, page.locator("#add-suda"))
    assert page.url == server.base + "/risk"
    assert "suda_original" in page.locator('p.in-recipe[data-measure="suda"]').inner_text()
    assert "(unsaved)" in page.locator("header .open-recipe").inner_text()
    page.screenshot(path=str(screenshots / "risk.png"), full_page=True)
    assert not errors, errors


def test_compare_page_in_the_browser(live_workbench, ui_project, browser_page, screenshots):
    shutil.copyfile(HERE / "data" / "testdata_variants.yaml", ui_project / "variants.yaml")
    server = live_workbench(recipe="variants.yaml")
    page = browser_page
    errors = _csp_errors(page)
    page.goto(server.url)
    page.locator('nav a[data-page="compare"]').click()
    page.locator("#variants").wait_for(timeout=120_000)
    assert page.locator("#ru-map img").evaluate("i => i.naturalWidth") > 100
    follow(page, page.locator('tr[data-variant="k=3"] button.release-variant'))
    page.locator('tr[data-variant="k=3"].released').wait_for(timeout=120_000)
    assert "variant: {k: 3}" in page.locator("#diff").inner_text()
    page.screenshot(path=str(screenshots / "compare.png"), full_page=True)
    assert not errors, errors


def test_compare_without_grids_in_the_browser(live_workbench, browser_page, screenshots):
    server = live_workbench(recipe="quickstart.yaml")
    page = browser_page
    page.goto(server.url)
    page.goto(server.base + "/compare")
    page.locator("#variants").wait_for(timeout=120_000)
    assert page.locator("#no-grid a").get_attribute("href") == "/steps"
    assert page.locator('tr[data-variant="original data"] td').first.inner_text() == "653"
    page.screenshot(path=str(screenshots / "compare-no-grid.png"), full_page=True)
