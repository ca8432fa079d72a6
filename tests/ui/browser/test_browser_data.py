"""The Data page in Debian's chromium: identifiers flagged loudly (a banner and red rows)
and their values hidden; a role set in the page lands in the recipe."""

from __future__ import annotations


def test_identifiers_are_flagged_in_the_browser(tmp_path, live_workbench, browser_page,
                                                screenshots):
    project = tmp_path / "people"
    project.mkdir()
    rows = "".join(f"{1000 + i},Person {i},{1 + i % 2},{20 + i % 7}\n" for i in range(30))
    (project / "people.csv").write_text("persid,fullname,sex,age\n" + rows)
    (project / "people.yaml").write_text(
        "sdcflow: 1\nname: people\nseed: 1\ndata: {path: people.csv}\nvariables:\n"
        "  persid: {role: key}  # a mistake: a person number released as a key\n"
        "  fullname: {role: identifier}\n  sex: {role: key}\n  age: {role: key}\n"
        "steps:\n  - {id: risk, measure: k_anonymity, params: {k: [3]}}\n")
    server = live_workbench(recipe="people.yaml", project=project)
    page = browser_page
    page.goto(server.url)
    page.goto(server.base + "/data")
    banner = page.locator("#identifier-banner")
    assert "persid" in banner.inner_text() and "would be released" in banner.inner_text()
    assert "fullname" in banner.inner_text()
    for name in ("persid", "fullname"):
        row = page.locator(f'tr[data-variable="{name}"]')
        assert "identifier" in row.get_attribute("class")
        assert "identifier: hidden" in row.inner_text()
        # the red of an identifier row (app.css: #fde7e7)
        assert row.locator("td").first.evaluate(
            "e => getComputedStyle(e).backgroundColor") == "rgb(253, 231, 231)"
    assert "Person" not in page.content() and "1000" not in page.content()
    page.screenshot(path=str(screenshots / "data-identifiers.png"), full_page=True)
    row = page.locator('tr[data-variable="persid"]')
    row.locator('select[name="role"]').select_option("identifier")
    with page.expect_navigation():
        row.locator("button.set").click()
    assert "persid: {role: identifier}  # a mistake" in server.app.state.workbench \
        .workspace.draft
    assert "would be released" not in page.locator("#identifier-banner").inner_text()
