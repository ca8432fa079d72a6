"""The HTML report (sdcflow.report): content, escaping, byte stability, R-U map, and a real
headless browser rendering it."""

import shutil
import subprocess

import pytest
from helpers import QUICKSTART, SWEEP_RECIPE

from sdcflow import run
from sdcflow.cli import main
from sdcflow.report import ru_map_svg, ru_points, ru_ranking

# the sweep, with a description that tries to inject markup into the report
SWEEP = SWEEP_RECIPE.replace("name: sweep\n",
                             "name: sweep\ndescription: \"<script>alert('x')</script>\"\n")


def test_run_writes_a_byte_stable_report(tmp_path):
    recipe = tmp_path / "q.yaml"
    shutil.copy(QUICKSTART, recipe)
    first = run(recipe, tmp_path / "a", use_cache=True)  # computed
    second = run(recipe, tmp_path / "b", use_cache=True)  # read back from the cache
    a = (tmp_path / "a" / "report.html").read_bytes()
    assert a == (tmp_path / "b" / "report.html").read_bytes()
    assert first.manifest["files"]["report.html"] == second.manifest["files"]["report.html"]
    html = a.decode()
    assert "<h1>sdcflow report: quickstart</h1>" in html
    assert "Released: every check passed" in html
    # before/after frequencies of a key variable: water 6, 7, 9 merged into 6-9
    # (a new category: original and released are listed apart, each in its own table)
    assert "<tr><td>6-9</td><td class=\"num\">97</td></tr></table></div>" in html
    assert "<tr><td>9</td><td class=\"num\">35</td></tr></table>" in html


def test_recipe_text_is_escaped(write_recipe, tmp_path):
    path = write_recipe(SWEEP)
    assert main(["report", str(path), "-o", str(tmp_path / "r.html")]) == 0
    html = (tmp_path / "r.html").read_text()
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_sweep_report_has_an_ru_map(write_recipe, tmp_path):
    path = write_recipe(SWEEP)
    assert main(["report", str(path), "-o", str(tmp_path / "r.html")]) == 0
    html = (tmp_path / "r.html").read_text()
    assert '<section id="ru-map"><h2>R-U map</h2>' in html and "<figure><svg" in html
    assert "<td>k=2</td>" in html and "<td>k=5</td>" in html


def test_report_is_written_when_a_check_fails(tmp_path, capsys):
    recipe = tmp_path / "q.yaml"
    recipe.write_text(QUICKSTART.read_text().replace("edits.total == 0", "edits.total > 0"))
    assert main(["report", str(recipe), "-o", str(tmp_path / "r.html")]) == 0
    out = capsys.readouterr().out
    assert "1 check(s) failed: a run would release nothing" in out
    assert "  check failed: edits.total > 0 (edits.total = 0)" in out
    html = (tmp_path / "r.html").read_text()
    assert "NOT RELEASED: a check failed" in html and 'class="fail">FAIL' in html


def test_ru_map_svg_is_deterministic():
    points = [("k=2", 0.5, 3.0), ("k=3", 0.2, 5.0)]
    a, b = ru_map_svg(points), ru_map_svg(points)
    assert a == b and a.startswith("<svg") and "R-U map" in a
    assert ru_map_svg([]) == ""
    assert ru_points({"sc[k=2]": {"il": 1, "dr": 2, "score": 1.5, "il_expr": "x"},
                      "risk": {"violations": {}}}) == [("k=2", 2.0, 1.0)]


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _chromium(args, profile, timeout=120):
    return subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--hide-scrollbars", f"--user-data-dir={profile}", *args],
        capture_output=True, text=True, timeout=timeout, check=False)


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run "
                                             "installs it)")
@pytest.mark.parametrize("kind", ["internal", "external"])
def test_report_renders_in_a_headless_browser(tmp_path, kind):
    from PIL import Image

    recipe = tmp_path / "q.yaml"
    shutil.copy(QUICKSTART, recipe)
    result = run(recipe, tmp_path / "out")
    html = result.out_dir / "report.html" if kind == "internal" else \
        result.public_dir / "report.html"
    shot = tmp_path / "shot.png"
    out = _chromium(["--window-size=1100,2400", f"--screenshot={shot}", html.as_uri()],
                    tmp_path / "profile")
    assert shot.exists(), out.stderr
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # not blank: a good share of the page is drawn (text, tables, the status box,
    # pictures) in many colours (a blank or error page has a handful)
    image = Image.open(shot).convert("RGB")
    pixels = list(image.get_flattened_data()) if hasattr(image, "get_flattened_data") \
        else list(image.getdata())
    drawn = sum(1 for p in pixels if p != (255, 255, 255)) / len(pixels)
    assert drawn > 0.04 and len(set(pixels)) > 100
    dom = _chromium(["--dump-dom", html.as_uri()], tmp_path / "profile2").stdout
    for section in ('id="summary"', 'id="steps"', 'id="step-walls_pram"',
                    'id="key-variables"', "<svg"):
        assert section in dom
    assert ('id="recipe"' in dom) == (kind == "internal")


def test_ru_ranking_rows_by_hand():
    # three variants: k=2 (DR 2, IL 1, score 1.5), k=3 (DR 1, IL 2, score 1.5: tied first),
    # k=5 (DR 2, IL 3, score 2.5: third, dominated by k=2)
    measures = {"sc[k=2]": {"il": 1, "dr": 2, "score": 1.5, "il_expr": "x"},
                "risk": {"violations": {}},
                "sc[k=3]": {"il": 2, "dr": 1, "score": 1.5, "il_expr": "x"},
                "sc[k=5]": {"il": 3, "dr": 2, "score": 2.5, "il_expr": "x"}}
    assert ru_ranking(measures) == [["k=2", "2", "1", "1.5", "1", "yes"],
                                    ["k=3", "1", "2", "1.5", "1", "yes"],
                                    ["k=5", "2", "3", "2.5", "3", ""]]
    assert ru_ranking({"risk": {}}) == []


def test_sweep_report_ranks_the_variants(write_recipe, tmp_path):
    path = write_recipe(SWEEP)
    assert main(["report", str(path), "-o", str(tmp_path / "r.html")]) == 0
    html = (tmp_path / "r.html").read_text()
    assert "<th>rank</th>" in html and "<th>Pareto</th>" in html
