"""The workbench in Debian's chromium: the link opens it once, the project lists its files,
a recipe opens; a second browser gets nothing. Screenshots go to tests/ui/screenshots/."""

from __future__ import annotations


def test_open_the_link_then_a_recipe(live_workbench, browser_page, screenshots):
    server = live_workbench()
    page = browser_page
    page.goto(server.url)
    assert page.url == server.base + "/"  # the token left the address bar
    assert page.locator("#recipes").inner_text().strip() == "quickstart.yaml"
    assert "testdata.csv" in page.locator("#data-files").inner_text()
    page.screenshot(path=str(screenshots / "project.png"), full_page=True)
    page.get_by_role("button", name="quickstart.yaml").click()
    page.wait_for_url(server.base + "/recipe")
    assert page.locator("#valid").is_visible()
    assert "name: quickstart" in page.locator("#recipe-text").inner_text()
    page.screenshot(path=str(screenshots / "recipe.png"), full_page=True)


def test_a_second_browser_gets_nothing(live_workbench, chromium):
    server = live_workbench()
    first = chromium.new_context()
    second = chromium.new_context()
    try:
        assert first.new_page().goto(server.url).status == 200
        page = second.new_page()
        response = page.goto(server.url)
        assert response.status == 403
        assert "quickstart" not in page.content()
    finally:
        first.close()
        second.close()
