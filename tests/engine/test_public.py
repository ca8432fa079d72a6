"""public/ (sdcflow.engine.manifest, runner): what a run says may be published holds
nothing disclosive. For every shipped recipe, public/ is scanned for the original values
of suppressed cells and of masked records, identifiers and the seed, and searched as an
intruder would search it for the seed (every seed 0 .. 100 000 tried)."""

import hashlib
import json
import re
import shutil

import pandas as pd
import pytest
from helpers import QUICKSTART, ROOT

from sdcflow import load_recipe, run
from sdcflow.cli import main
from sdcflow.data.io import builtin_path
from sdcflow.engine.execution import step_rng
from sdcflow.engine.public_recipe import public_sha256

RECIPES = sorted((ROOT / "recipes").glob("*.yaml"))
NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?![\w.])")


def tokens(text: str) -> set[str]:
    """The numbers in a text, each as written and in its canonical float form."""
    out = set()
    for t in NUMBER.findall(text):
        out.add(t)
        out.add(repr(float(t)))
    return out


# the text of a picture's axis ticks: the scale of the axis (round numbers matplotlib
# picks), not values of the data
TICK_LABEL = re.compile(r'(<g id="[xy]tick_\d+">(?:(?!</text>).)*?<text[^>]*>)[^<]*(</text>)',
                        re.DOTALL)


# a published work cited in a sentence: "(Domingo-Ferrer & Mateo-Sanz 2002)"
CITATION_YEAR = re.compile(r"(?<=[A-Za-z.] )(19|20)\d\d(?=[);,])")


def without_tick_labels(text: str) -> str:
    """``text`` without the labels of picture axes and the years of citations."""
    return CITATION_YEAR.sub("", TICK_LABEL.sub(r"\1\2", text))


def _numbers_in(doc):
    """Every number in a JSON document."""
    if isinstance(doc, dict):
        for value in doc.values():
            yield from _numbers_in(value)
    elif isinstance(doc, list):
        for value in doc:
            yield from _numbers_in(value)
    elif isinstance(doc, (int, float)) and not isinstance(doc, bool):
        yield float(doc)


def _rounded_figure(token: str, text: str, figures: list[float]) -> bool:
    """Whether ``token`` (a number found in ``text``, canonical or as written) is only a
    published figure rounded for display: each way the text writes it is the rounding of
    a figure that is not itself that number."""
    value = float(token)
    written = [t for t in NUMBER.findall(text) if float(t) == value]
    def shown_as(t: str) -> bool:
        step = 10.0 ** -(len(t.split(".")[1]) if "." in t else 0)
        return any(f != value and abs(f - value) <= step / 2 for f in figures)
    return bool(written) and all(shown_as(t) for t in written)


def canonical(values) -> set[str]:
    return {repr(float(v)) for v in values}


@pytest.fixture(scope="module")
def released(shipped_run):
    """Every shipped recipe run once (the session's ``shipped_run``): recipe file name ->
    (result, output directory)."""
    out = {}
    for path in RECIPES:
        result = shipped_run(path.stem).result
        out[path.name] = (result, result.out_dir)
    return out


@pytest.mark.parametrize("path", RECIPES, ids=[p.name for p in RECIPES])
def test_public_holds_only_the_release_its_manifest_and_the_external_report(released, path):
    result, out = released[path.name]
    recipe = load_recipe(path)
    public = out / "public"
    if result.public_manifest is None:  # a sweep without a released variant
        assert not public.exists()
        return
    files = sorted(p.relative_to(public).as_posix() for p in public.rglob("*") if p.is_file())
    expected = [recipe.release["path"]] if "path" in recipe.release else []
    expected += list(recipe.release.get("tables", {}).values())
    assert files == sorted(expected + ["manifest.json", "report.html"])
    manifest = json.loads((public / "manifest.json").read_text())
    # (what became of the household ids, when the records released hold them)
    households = {"household_ids"} if result.data is not None and any(
        v.role == "household" and n in result.data for n, v in recipe.variables.items()) \
        else set()
    # (a recipe with a privacy budget publishes it, with each DP step's spend)
    privacy = {"privacy"} if recipe.privacy is not None else set()
    assert set(manifest) == {"sdcflow", "layout", "recipe", "variant", "released", "steps",
                             "measures", "checks"} | households | privacy
    # the recipe named by its public form's hash, never by the file's (which holds the seed)
    assert manifest["recipe"] == {"name": recipe.name, "public_sha256": public_sha256(recipe)}
    assert result.manifest["recipe"]["public_sha256"] == public_sha256(recipe)
    for rel, digest in manifest["released"].items():
        assert result.manifest["files"][f"public/{rel}"] == digest
    # only the measures the recipe marks publishable, and only methods otherwise
    published = recipe.release.get("measures", [])
    assert sorted(manifest["measures"]) == sorted(published)
    kinds = {s["id"]: s for s in manifest["steps"]}
    for step in recipe.steps:
        if step.kind == "measure":
            assert (step.id in kinds) == (step.id in published)
        for entry in kinds.values():
            assert "info" not in entry and "fingerprint" not in entry
    text = (public / "manifest.json").read_text() + (public / "report.html").read_text()
    assert "seed" not in text.lower()


@pytest.mark.parametrize("path", RECIPES, ids=[p.name for p in RECIPES])
def test_public_holds_no_original_value_of_a_suppressed_cell_or_masked_record(released, path):
    result, out = released[path.name]
    public = out / "public"
    if not public.exists():
        return
    recipe = load_recipe(path)
    secrets: set[str] = set()
    # the seed and the input's hash (the seed regenerates the noise of perturbative methods)
    full = json.loads((out / "manifest.json").read_text())
    secret_text = {full["input"]["sha256"]} if full.get("input") else set()
    # tables: the original value of every suppressed cell (frequencies are small counts,
    # which occur everywhere in a text: the release file's blank cells are tested in
    # tests/test_tables_engine.py)
    published: set[str] = set()
    data_files = set()
    for tid, rel in recipe.release.get("tables", {}).items():
        cells = pd.read_csv(out / "tables" / f"{tid}.csv")
        hidden = cells["status"] != "safe"
        published |= canonical(cells.loc[~hidden, "value"])
        secrets |= canonical(cells.loc[hidden, "value"])
        data_files.add(rel)
    # microdata: each original number of a record that the release changed (top coded,
    # perturbed, aggregated, suppressed)
    if result.data is not None and "path" in recipe.release:
        from sdcflow import validate

        original = validate(path).data.frame
        # methods that rebuild the records (graph methods, sampling) leave no record pairs:
        # then every distinctive original number the release does not hold is a secret
        paired = result.data.index.equals(original.index)
        for name in result.data.columns:
            if name not in original:  # a new variable (query logs' group pseudonyms)
                continue
            before, after = original[name], result.data[name]
            if not pd.api.types.is_numeric_dtype(before.dtype):
                continue
            if not paired:
                values = before.dropna().astype("float64")
                secrets |= canonical(values[values.abs() >= 1000]) - canonical(after.dropna())
                published |= canonical(after.dropna())
                continue
            if pd.api.types.is_numeric_dtype(after.dtype):
                changed = before.notna() & (after.isna() | (after.astype("float64") != before))
                published |= canonical(after.dropna())
            else:  # recoded into classes: every value changed
                changed = before.notna()
            values = before[changed].astype("float64")
            # distinctive numbers only (4 digits or more): small counts occur everywhere
            secrets |= canonical(values[values.abs() >= 1000])
        data_files.add(recipe.release["path"])
    # a number the release publishes anyway (another record's or cell's value, the number
    # of records) is no secret
    if result.data is not None and "path" in recipe.release:
        published.add(repr(float(len(result.data))))
    secrets -= published
    # the published measures' figures at full precision: a report shows them rounded, and
    # a rounded statistic may read like an original value (sdcMicro's IL1s of 1409.37 shown
    # as 1409 beside an income of 1409); a figure equal to the original value is a hit
    figures = list(_numbers_in(json.loads((public / "manifest.json").read_text())
                               .get("measures", {})))
    found = {}
    for file in sorted(p for p in public.rglob("*") if p.is_file()):
        if file.relative_to(public).as_posix() in data_files:
            continue  # the release itself: its values are the published ones
        text = without_tick_labels(file.read_text("utf-8"))
        hits = {t for t in tokens(text) & secrets if not _rounded_figure(t, text, figures)}
        hits |= {s for s in secret_text if s in text}
        if hits:
            found[file.name] = sorted(hits)[:5]
    assert not found, f"original values in public/: {found}"
    assert secrets or secret_text  # the scan looked for something


SEARCHED = 100_001  # seeds 0 .. 100 000: an intruder's first try, a second on one core
HEX = re.compile(r"[0-9a-f]{16,64}")
SEED_LINE = re.compile(r"^seed:[ \t]*(\d+)[ \t]*$", re.MULTILINE)


def seeds_found_by_hash(text: str, published: str) -> list[int]:
    """The seeds whose recipe file (``text`` with its seed replaced) has a sha256 that
    ``published`` holds, whole or as the first 16 digits a report shows: the attack on a
    public manifest that carries the hash of the recipe file, with the rest of the
    recipe known."""
    found = HEX.findall(published)
    prefixes = {t[:16] for t in found}
    m = SEED_LINE.search(text)
    head = hashlib.sha256(text[:m.start(1)].encode())
    tail = text[m.end(1):].encode()
    out = []
    for seed in range(SEARCHED):
        candidate = head.copy()
        candidate.update(str(seed).encode())
        candidate.update(tail)
        if candidate.hexdigest()[:16] in prefixes:
            out.append(seed)
    return out


def public_text(public) -> str:
    return "".join(p.read_text("utf-8", errors="replace")
                   for p in sorted(public.rglob("*")) if p.is_file())


@pytest.mark.parametrize("path", RECIPES, ids=[p.name for p in RECIPES])
def test_no_seed_is_found_by_searching_public_for_the_recipe_hash(released, path):
    _, out = released[path.name]
    if not (out / "public").exists():
        return
    text = path.read_text("utf-8")
    assert seeds_found_by_hash(text, public_text(out / "public")) == []
    # the same search finds the seed where the recipe file's hash is (the internal
    # manifest): public/ carried it before, and the test would catch it there again
    internal = (out / "manifest.json").read_text()
    assert seeds_found_by_hash(text, internal) == [load_recipe(path).seed]


def test_no_seed_is_found_from_the_released_household_ids(released):
    # the released ids were the households' numbers in a random order drawn from the
    # seed; read in the order the households appear, they were that draw, which trying
    # seeds reproduces (quickstart's seed 2026 was found in 0.2 s)
    _, out = released["quickstart.yaml"]
    ids = pd.read_csv(out / "public" / "testdata-protected.csv", usecols=["ori_hid"])
    drawn = pd.unique(ids["ori_hid"].dropna()).astype(int)
    assert len(drawn) == 1000
    for seed in [*range(3000), load_recipe(QUICKSTART).seed]:
        old = step_rng(seed, "release:household_ids").permutation(len(drawn)) + 1
        assert not (old == drawn).all(), seed
    # nor are they testdata's own ids, which run 1 .. 1000 down the file (numbering the
    # households in order of appearance would have given them back)
    original = pd.read_csv(builtin_path("testdata"), usecols=["ori_hid"])["ori_hid"]
    assert pd.unique(original).tolist() == list(range(1, 1001))
    assert sorted(drawn.tolist()) == list(range(1, 1001))
    assert (ids["ori_hid"].to_numpy() != original.to_numpy()).mean() > 0.99


def test_identifiers_and_the_seed_never_reach_public(write_recipe, tmp_path):
    data = tmp_path / "people.csv"
    data.write_text("name,age,sex,income\nAnn Smith,30,f,52311\nBob Jones,40,m,61822\n"
                    "Cid Brown,50,m,70455\n")
    path = write_recipe("""
        sdcflow: 1
        name: ids
        seed: 987654321
        data: {path: people.csv}
        variables:
          name: {role: identifier}
          age: {role: key, type: integer}
          sex: {role: key}
          income: {role: numeric}
        steps:
          - {id: noise, method: noise, params: {variables: [income], k: 0.5}}
          - {id: risk, measure: k_anonymity, params: {k: 1}}
        release: {path: people.csv, measures: [risk]}
    """)
    result = run(path, tmp_path / "out")
    text = "".join(p.read_text() for p in result.public_dir.rglob("*") if p.is_file())
    for secret in ("Ann Smith", "Bob", "987654321", "52311", "61822", "70455"):
        assert secret not in text
    internal = (tmp_path / "out" / "manifest.json").read_text()
    assert '"seed": 987654321' in internal


def test_the_external_report_shows_no_original_data(tmp_path):
    recipe = tmp_path / "q.yaml"
    shutil.copy(QUICKSTART, recipe)
    result = run(recipe, tmp_path / "out")
    internal = (tmp_path / "out" / "report.html").read_text()
    external = (result.public_dir / "report.html").read_text()
    assert "Internal report: holds original data, do not publish" in internal
    assert "<h2>Recipe</h2>" in internal
    assert "External report (safe to publish)" in external
    assert "<h2>Recipe</h2>" not in external and "risk_original" not in external
    # key variables: the released frequencies only (the internal one has both columns,
    # or both tables where the release has new categories: water's merged 6-9)
    assert "<th>sex</th><th>original</th><th>released</th>" in internal
    assert "<th>water</th><th>original</th>" in internal
    assert "<th>water</th><th>released</th>" in external
    assert "<th>original</th>" not in external


def test_publishable_measures_go_through_their_public_summary(tmp_path):
    shutil.copytree(ROOT / "recipes" / "data", tmp_path / "data")
    recipe = tmp_path / "t.yaml"
    shutil.copy(ROOT / "recipes" / "tables_profession_town.yaml", recipe)
    result = run(recipe, tmp_path / "out")
    public = json.loads((result.public_dir / "manifest.json").read_text())
    # the audit's verdict is published, its cells (original values) are not
    assert public["measures"]["audit"] == {"passed": True, "suppressed": 7, "unprotected": 0}
    assert "cells" in result.measures["audit"]
    # the sensitivity rules' thresholds stay internal
    primary = next(s for s in public["steps"] if s["id"] == "primary")
    assert primary["params"] == {} and primary["method"] == "sensitivity_rules"
    # the check's figure comes from the published summary
    assert public["checks"] == [{"check": "audit.unprotected == 0", "passed": True,
                                 "figures": {"audit.unprotected": 0}}]


def test_checks_about_unpublished_measures_stay_internal(tmp_path):
    recipe = tmp_path / "q.yaml"
    shutil.copy(QUICKSTART, recipe)
    result = run(recipe, tmp_path / "out")
    checks = json.loads((result.public_dir / "manifest.json").read_text())["checks"]
    # risk_original is not published, so the check comparing with it is not either
    assert [c["check"] for c in checks] == ["risk.violations[5] <= 400", "edits.total == 0"]


@pytest.mark.parametrize("measures, message", [
    ("[riks]", "release.measures: no step 'riks' (did you mean 'risk'?)"),
    ("[age10]", "release.measures: 'age10' is a method; only the results of measure steps"),
])
def test_release_measures_are_checked(tmp_path, capsys, measures, message):
    recipe = tmp_path / "q.yaml"
    recipe.write_text(QUICKSTART.read_text().replace("measures: [risk, edits]",
                                                     f"measures: {measures}"))
    assert main(["validate", str(recipe)]) == 1
    assert message in capsys.readouterr().err

