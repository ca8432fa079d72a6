"""The documentation site (mkdocs.yml, docs/): it builds with ``mkdocs build --strict``
(every link and anchor resolves), its generated pages cover the whole recipe schema and
every registered plugin, and the pages that list what the repository holds (every plugin,
every shipped recipe, every benchmark) are complete."""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import sdcflow
from sdcflow.plugins import registry

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs" / "hooks"))
import generate


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site, built once for the module as CI builds it."""
    pytest.importorskip("mkdocs", reason="building the site needs the extra sdcflow[docs]")
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", "mkdocs.yml", "-d",
         str(out)], check=False, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return out


def _text(page: Path) -> str:
    """A built page's main text, without tags."""
    content = page.read_text(encoding="utf-8")
    return html.unescape(re.sub(r"<[^>]+>", "", content))


def test_the_site_builds_strictly_with_every_page_of_the_nav(site: Path) -> None:
    for page in ("index.html", "tutorial/index.html", "recipe-guide/index.html",
                 "reference/index.html", "sdcmicro/index.html", "cli/index.html",
                 "methods/perturbative/index.html", "measures/risk/index.html",
                 "recipes/index.html", "plugin-list/index.html", "development/index.html",
                 "benchmarks/index.html"):
        assert (site / page).is_file(), page


def test_the_recipe_reference_names_every_key_of_the_schema(site: Path) -> None:
    schema = json.loads((ROOT / "sdcflow" / "schemas" / "recipe.schema.json").read_text())
    page = (site / "reference" / "index.html").read_text(encoding="utf-8")
    for key in schema["properties"]:
        assert f'id="{key}"' in page, f"no section for {key}"
    text = _text(site / "reference" / "index.html")
    # nested keys, each in its table with its path
    for path in ("data.builtin", "variables.NAME.role", "variables.NAME.level",
                 "variables.NAME.taxonomy.wordnet", "constraints[].tolerance",
                 "tables[].from.path", "steps[].grid", "release.household_ids",
                 "execution.collect_limit"):
        assert path in text, path
    # a key without a description in the schema takes the recipe guide's meaning
    assert "quasi-identifier" in text


def _generated_pages(site: Path, name: str) -> list[str]:
    """The family pages holding the generated block of plugin ``name``."""
    found = []
    for kind in ("methods", "measures"):
        for page in sorted((site / kind).glob("*/index.html")):
            if f"sdcflow methods {name} prints them" in _text(page):
                found.append(f"{kind}/{page.parent.name}")
    return found


def test_every_plugin_is_on_exactly_one_family_page_its_own(site: Path) -> None:
    for plugin in registry.plugins():
        kind, family = generate.family_of(plugin)
        assert _generated_pages(site, plugin.name) == [f"{kind}/{family}"], plugin.name


def test_a_plugin_without_an_entry_gets_a_section_of_its_own() -> None:
    plugin = registry.get("noise")
    page = "# Perturbative\n\n## `rounding` (method)\n\nRounds.\n"
    out = generate.add_plugin_details(page, [plugin])
    assert "## `noise` (method)" in out and "`sdcflow methods noise` prints them" in out
    # ... and a plugin with an entry gets its table inside it, before the next entry
    out = generate.add_plugin_details(
        "## `noise` (method)\n\nAdds noise.\n\n## `rounding` (method)\n", [plugin])
    assert out.index("methods noise` prints") < out.index("## `rounding`")
    assert out.count("## `noise`") == 1


def test_the_overview_pages_list_every_plugin(site: Path) -> None:
    for kind in ("methods", "measures"):
        text = _text(site / kind / "index.html")
        for plugin in registry.plugins():
            if generate.family_of(plugin)[0] == kind:
                assert plugin.name in text, (kind, plugin.name)


def test_the_plugin_list_links_every_plugin_to_its_family_page() -> None:
    # docs/plugin-list.md: the hand-written table of every method and measure (the
    # README's until issue 25)
    page = (ROOT / "docs" / "plugin-list.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `(\w+)` \| .*?\]\(([\w/]+\.md)\) \|$", page, re.MULTILINE))
    for plugin in registry.plugins():
        kind, family = generate.family_of(plugin)
        assert rows.get(plugin.name) == f"{kind}/{family}.md", plugin.name
        assert (ROOT / "docs" / rows[plugin.name]).is_file()


def test_every_shipped_recipe_is_on_the_recipes_page() -> None:
    page = (ROOT / "docs" / "recipes.md").read_text(encoding="utf-8")
    listed = re.findall(r"^\| `([\w.-]+\.yaml)` \|", page, re.MULTILINE)
    shipped = sorted(p.name for p in (ROOT / "recipes").glob("*.yaml"))
    assert sorted(listed) == shipped


def test_every_benchmark_is_on_the_benchmarks_page() -> None:
    page = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    for script in sorted((ROOT / "benchmarks").glob("bench_*.py")):
        assert f"`{script.name}`" in page, script.name


def test_readme_sections_included_in_the_site_exist() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    sections = generate.readme_sections(readme)
    for page in (ROOT / "docs").rglob("*.md"):
        for mark in generate.README_MARK.finditer(page.read_text(encoding="utf-8")):
            assert mark.group("title") in sections, (page.name, mark.group("title"))


def test_readme_links_are_rewritten_into_the_site() -> None:
    readme = ("## A\n\nSee [Outputs](#outputs), [the guide](docs/recipe-guide.md) and "
              "[the schema](schemas/x.json).\n\n## Outputs\n\nx\n")
    anchors = {"outputs": "outputs.md"}
    out = generate.readme_section("A", False, "methods/noise.md", readme, anchors)
    assert "[Outputs](../outputs.md)" in out and "the schema" in out and "x.json" not in out
    assert "[the guide](../recipe-guide.md)" in out


@pytest.fixture(scope="module")
def tutorial_run():
    """The tutorial's recipe, run once without writing (recipes/household_survey.yaml)."""
    recipe = sdcflow.load_recipe(ROOT / "recipes" / "household_survey.yaml")
    return sdcflow.run(recipe, write=False, use_cache=False)


def test_the_tutorial_quotes_the_figures_of_a_run(tutorial_run) -> None:
    # each figure is computed by the run and must be quoted, as written here, in
    # docs/tutorial.md; the original data's k-anonymity counts are also sdcMicro's
    # published ones for testdata (Templ 2019 lecture notes: 653 / 1087 / 1781)
    m = tutorial_run.measures
    info = {step["id"]: step.get("info", {}) for step in tutorial_run.manifest["steps"]}
    page = (ROOT / "docs" / "tutorial.md").read_text(encoding="utf-8")
    page = re.sub(r"\s+", " ", page)

    def vio(step: str) -> str:
        return " / ".join(str(m[step]["violations"][k]) for k in ("2", "3", "5"))

    supp = info["kanon"]["suppressions"]
    top = info["income_top"]["top"]
    pct = " / ".join(f"{m['risk_original']['percent'][k]:g}" for k in ("2", "3", "5"))
    by_var = ", ".join(f"{v} {supp[v]}" for v in ("relat", "water", "age", "sex", "urbrur"))
    hh0, hh = m["hh_original"], m["hh"]
    quoted = [  # each sentence of the page, with the computed figures put in
        f"**{vio('risk_original')}** records ({pct} %) violate 2-, 3- and 5-anonymity",
        (f"as sdcMicro's `indivRisk`): **{m['indiv_original']['above_threshold']}** records "
        f"({m['indiv_original']['above_threshold_percent']:g} %) are above 1 %"),
        (f"the household risk is **{hh0['percent']:.2f} %** "
        f"({hh0['expected_reidentifications']:.1f} expected re-identifications among the "
        f"{hh0['records']} records)"),
        f"Now **{vio('risk_recoded')}** records violate",
        f"It suppresses **{info['kanon']['total']}** values: {by_var}, and no record",
        (f"the walls of **{info['pram_walls']['changed']['walls']}** of the "
        f"{info['pram_walls']['households']} households changed "
        f"({info['pram_walls']['percent_changed']['walls']:g} %; "
        f"{info['pram_walls']['expected_changed']['walls']:.1f} expected)"),
        (f"It codes **{top['coded']}** incomes above {top['threshold']:,.0f}, replaced by their "
        f"mean, {top['replaced_by']:,.0f}."),
        f"After the protection **{vio('risk')}** records violate",
        f"counts the suppressions against the recoded data ({m['supp']['total']}, as above)",
        f"individual risk above 1 % (**{m['indiv']['above_threshold']}**)",
        (f"the global risk is **{m['overall']['expected_reidentifications']:.2f}** expected "
        f"re-identifications ({m['overall']['percent']:.3f} % of the records)"),
        (f"the household risk **{hh['percent']:.2f} %** "
        f"({hh['expected_reidentifications']:.2f} expected re-identifications)"),
    ]
    for sentence in quoted:
        assert sentence in page, f"docs/tutorial.md should say: {sentence!r}"
    assert info["kanon"]["unresolved_records"] == 0
    assert m["hh_original"]["households"] == 1000 and m["risk"]["records"] == 4580
    assert all(check["passed"] for check in tutorial_run.checks)


def test_a_new_family_gets_a_page_and_a_place_in_the_nav(monkeypatch, tmp_path) -> None:
    # the whole build, in this process, with a plugin in a package the docs do not know
    pytest.importorskip("mkdocs", reason="building the site needs the extra sdcflow[docs]")
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    class Newcomer(registry.Measure):
        name = "newcomer"
        kind = "measure"
        summary = "A measure added after the docs were written."

        def evaluate(self, data, params, reference=None):  # pragma: no cover
            raise NotImplementedError

    Newcomer.__module__ = "sdcflow.measures.newfamily.newcomer"
    plugins = [*registry.plugins(), Newcomer()]
    monkeypatch.setattr(registry, "plugins", lambda kind=None: plugins)
    config = load_config(str(ROOT / "mkdocs.yml"), site_dir=str(tmp_path), strict=True)
    build(config)
    page = tmp_path / "measures" / "newfamily" / "index.html"
    assert "sdcflow methods newcomer prints them" in _text(page)
    assert 'href="../measures/newfamily/"' in (tmp_path / "tables" / "index.html").read_text()
    assert "newcomer" in _text(tmp_path / "measures" / "index.html")
