"""The Tables and Hierarchies pages in Debian's chromium: the grid coloured by cell
status before and after the table steps run, its dimensions swapped, rules written; a
hierarchy of groups built, previewed, written to the recipe and saved, the saved recipe
valid. Screenshots go to tests/ui/screenshots/ (tables.png, hierarchies.png)."""

from __future__ import annotations

import shutil

import sdcflow

from ..conftest import ROOT, follow
from ..pages.test_hierarchies_page import RECIPE

PRIMARY_RGB = "rgb(246, 179, 174)"  # .st-primary in app.css
SECONDARY_RGB = "rgb(252, 217, 160)"  # .st-secondary


def test_tables_grid_run_and_rules(live_workbench, browser_page, screenshots, tmp_path):
    project = tmp_path / "torra"
    (project / "data").mkdir(parents=True)
    shutil.copyfile(ROOT / "recipes" / "tables_profession_town.yaml",
                    project / "tables_profession_town.yaml")
    shutil.copyfile(ROOT / "recipes" / "data" / "profession_town.csv",
                    project / "data" / "profession_town.csv")
    server = live_workbench("tables_profession_town.yaml", project)
    page = browser_page
    page.goto(server.url)
    page.locator("header nav a[data-page=tables]").click()
    page.wait_for_url(server.base + "/tables")
    assert page.locator("td[data-status=primary]").count() == 3
    assert page.locator("td[data-status=secondary]").count() == 0
    follow(page, page.locator("#run-tables"))
    assert page.url.endswith("/tables?table=salaries")
    assert page.locator("td[data-status=secondary]").count() == 4
    cell = page.locator('td[data-cell="P3|M2"]')
    assert cell.evaluate("e => getComputedStyle(e).backgroundColor") == PRIMARY_RGB
    assert page.locator('td[data-cell="P1|M2"]').evaluate(
        "e => getComputedStyle(e).backgroundColor") == SECONDARY_RGB
    assert "×" in cell.inner_text() and "original 22" in cell.inner_text()
    assert "[0, 742]" in cell.inner_text()  # the audit's interval
    assert page.locator("#audit-verdict").is_visible()
    page.screenshot(path=str(screenshots / "tables.png"), full_page=True)
    # towns as rows: htmx swaps the grid in place
    page.select_option("#rows", "town")
    page.wait_for_url("**rows=town**")
    assert page.locator("#grid tbody th").first.inner_text() == "M1"
    assert page.locator('td[data-cell="P3|M2"]').get_attribute("data-status") == "primary"
    # a stricter frequency rule, written to the recipe
    page.fill("#rule-freq", "40")
    follow(page, page.locator("#save-rules"))
    assert page.locator("td[data-status=primary]").count() >= 13
    page.screenshot(path=str(screenshots / "tables-rules.png"), full_page=True)
    follow(page, page.locator("header nav a[data-page=recipe]"))
    assert "{freq: 40}" in page.locator("#diff").inner_text()


def test_hierarchy_of_groups_built_and_saved(live_workbench, browser_page, screenshots,
                                             tmp_path):
    project = tmp_path / "anon"
    project.mkdir()
    (project / "anon.yaml").write_text(RECIPE)
    server = live_workbench("anon.yaml", project)
    page = browser_page
    page.goto(server.url)
    page.goto(server.base + "/hierarchies")
    page.select_option("#variable", "relat")
    page.wait_for_url("**variable=relat**")
    page.select_option("#builder", "grouping")
    page.wait_for_url("**builder=grouping**")
    page.fill("#g1_name", "family")
    page.fill("#g1_groups", "head: 1\ncore: 2, 3\nrelative: 4, 5, 6\nother: 7, 8, 9")
    page.locator("#preview").click()
    page.wait_for_selector("#hierarchy-preview")
    preview = page.locator("#hierarchy-preview").inner_text()
    assert "core (3381)" in preview.replace("\t", " ") or "core\n(3381)" in preview \
        or "3381" in preview
    page.select_option("#target", "declared")
    page.locator("#write-hierarchy").click()
    page.wait_for_selector("#written")
    assert "family:" in page.locator("#diff").inner_text()
    page.screenshot(path=str(screenshots / "hierarchies.png"), full_page=True)
    follow(page, page.locator("header nav a[data-page=recipe]"))
    assert page.locator("#valid").is_visible()
    follow(page, page.locator("#save"))
    recipe = sdcflow.load_recipe(project / "anon.yaml")  # raises when it does not validate
    assert recipe.variables["relat"].hierarchy["family"]["3"] == "core"
