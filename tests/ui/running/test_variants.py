"""The Compare page's comparison (sdcflow.ui.running.variants): the draft run as `sdcflow run`
runs it, each variant's figures equal to the run's measures, release.variant written so
that chosen_variant picks the variant."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sdcflow.engine import run
from sdcflow.recipe import recipe_from_text, validate
from sdcflow.recipe.grid import chosen_variant
from sdcflow.ui.editing.recipe_edit import RecipeDocument
from sdcflow.ui.running import variants

HERE = Path(__file__).resolve().parents[1]
GRID = (HERE / "data" / "testdata_variants.yaml").read_text(encoding="utf-8")
TESTDATA = HERE.parents[1] / "sdcflow" / "data" / "datasets" / "testdata.csv"


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("compare")
    shutil.copyfile(TESTDATA, folder / "testdata.csv")
    return folder


def test_release_choice_is_what_chosen_variant_reads():
    one = [{"kanon": {"k": 2}}, {"kanon": {"k": 3}}]
    assert variants.release_choice(one[1]) == {"k": 3}
    assert chosen_variant(one, variants.release_choice(one[1])) == 1
    two = [{"a": {"k": 2}, "b": {"p": 5}}, {"a": {"k": 2}, "b": {"p": 10}},
           {"a": {"k": 3}, "b": {"p": 5}}]
    assert variants.release_choice(two[1]) == {"a.k": 2, "b.p": 10}
    assert [chosen_variant(two, variants.release_choice(v)) for v in two] == [0, 1, 2]


def test_a_grid_without_a_choice_runs_as_a_sweep():
    assert "variant" not in (RecipeDocument.parse(GRID).get(["release"]) or {})
    sweep = variants.sweep_text(GRID, "g.yaml")
    assert "path" not in (RecipeDocument.parse(sweep).get(["release"]) or {})
    chosen = GRID.replace("release: {path: testdata-protected.csv}",
                          "release: {path: testdata-protected.csv, variant: {k: 3}}")
    assert variants.sweep_text(chosen, "g.yaml") is None
    assert variants.sweep_text((HERE.parents[1] / "recipes" / "quickstart.yaml").read_text(),
                               "q.yaml") is None


def test_each_variant_shows_the_runs_figures(project):
    path = project / "variants.yaml"
    chosen = GRID.replace("release: {path: testdata-protected.csv}",
                          "release: {path: testdata-protected.csv, variant: {k: 3}}")
    path.write_text(chosen, encoding="utf-8")
    expected = run(path, project / "output", use_cache=False).measures
    comparison = variants.run_draft(chosen, path, project)
    assert comparison.out_dir == project / ".sdcflow-ui" / "compare" / "testdata-variants"
    assert (comparison.out_dir / "public" / "testdata-protected.csv").is_file()
    rows = {r.label: r for r in comparison.rows}
    assert list(rows) == ["original data", "k=2", "k=3", "k=5"]
    assert rows["original data"].figures == {
        f"records violating {k}-anonymity": v for k, v in {"2": 653, "3": 1087,
                                                            "5": 1781}.items()}
    for k in ("2", "3", "5"):
        row = rows[f"k={k}"]
        score = expected[f"score[k={k}]"]
        assert row.figures["information loss (supp.percent.age)"] == score["il"]
        assert row.figures["values suppressed"] == expected[f"supp[k={k}]"]["total"]
        for j, count in expected[f"risk[k={k}]"]["violations"].items():
            assert row.figures[f"records violating {j}-anonymity"] == count
        assert float(row.ranking[0]) == score["dr"] and float(row.ranking[1]) == score["il"]
        assert row.released == (k == "3")
    # local suppression to k-anonymity leaves no record violating k
    assert rows["k=3"].figures["records violating 3-anonymity"] == 0
    assert [p[0] for p in comparison.points] == ["k=2", "k=3", "k=5"]
    assert variants.ru_picture(comparison).startswith("<svg")


def test_releasing_a_variant_makes_the_recipe_valid(project):
    doc = RecipeDocument.parse(GRID)
    path = project / "choice.yaml"
    with pytest.raises(Exception, match="say which variant to release"):
        validate(recipe_from_text(doc.text(), path.name, path))
    doc.set(["release", "variant"], variants.release_choice({"kanon": {"k": 5}}))
    validated = validate(recipe_from_text(doc.text(), path.name, path))
    assert chosen_variant(validated.plan.variants, {"k": 5}) == 2
    assert "release: {path: testdata-protected.csv, variant: {k: 5}}" in doc.text()
