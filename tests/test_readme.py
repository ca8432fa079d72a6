"""The README is the repository's landing page (what sdcflow is, the quick start, one
recipe, what a run writes, where the documentation is): the recipe it shows runs and
prints what it quotes, every link goes to a file that exists, it links every page of the
documentation site, and it stays short (the rest is on the site, docs/)."""

from __future__ import annotations

import re

import yaml
from helpers import ROOT

from sdcflow.cli import main

README = ROOT / "README.md"
MAX_LINES = 250  # a landing page; a section that grows beyond belongs on a docs page


def _section(title: str) -> str:
    return README.read_text(encoding="utf-8").split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def _fenced(section: str, language: str) -> list[str]:
    """The code blocks of a section fenced as ``language`` (``""``: without one)."""
    blocks = re.findall(r"^```(\w*)\n(.*?)^```$", section, re.DOTALL | re.MULTILINE)
    return [body for lang, body in blocks if lang == language]


def test_the_readme_is_a_landing_page() -> None:
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"README.md has {lines} lines: move the detail to docs/"


def test_the_readme_recipe_runs_and_prints_what_the_readme_quotes(tmp_path, capsys) -> None:
    # the figures are the run's own; the original counts 653 / 1087 / 1781 are also
    # sdcMicro's published ones for testdata (Templ 2019 lecture notes), as the quick start
    section = _section("A recipe")
    [recipe] = _fenced(section, "yaml")
    [printed] = _fenced(section, "")
    assert yaml.safe_load(recipe)["data"] == {"builtin": "testdata"}
    path = tmp_path / "survey.yaml"
    path.write_text(recipe, encoding="utf-8")
    assert main(["run", str(path), "--out", str(tmp_path / "out"), "--no-cache"]) == 0
    out = capsys.readouterr().out
    for line in printed.strip("\n").splitlines():
        assert line.strip() in out, line
    # ... and writes what "What a run writes" lists
    listing = _fenced(_section("What a run writes"), "")[0]
    for name in re.findall(r"^\s+([\w.-]+\.(?:csv|json|html))\s", listing, re.MULTILINE):
        assert list((tmp_path / "out").rglob(name)), name


def test_every_link_of_the_readme_goes_to_a_file_that_exists() -> None:
    links = re.findall(r"\]\(([^)\s#]+)(?:#[^)]*)?\)", README.read_text(encoding="utf-8"))
    local = [link for link in links if not re.match(r"[a-z]+://", link)]
    assert local
    for link in local:
        assert (ROOT / link).exists(), link


def _nav_pages(nav) -> list[str]:
    pages = []
    for item in nav:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        pages += _nav_pages(value) if isinstance(value, list) else [value]
    return pages


def test_the_readme_links_every_page_of_the_documentation_site() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    readme = README.read_text(encoding="utf-8")
    for page in _nav_pages(config["nav"]):
        if (ROOT / "docs" / page).is_file():  # the recipe reference is generated
            assert f"](docs/{page})" in readme, f"README.md should link docs/{page}"
