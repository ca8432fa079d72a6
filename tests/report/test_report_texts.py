"""The internal and external reports of every shipped recipe say what was done and
nothing that is not there: every method step's cost in the utility cost (its figures in
the internal report only), no text pointing at a picture that is not drawn, no column
of dashes, only the sensitivity rules the recipe gives, and the appendix's keys in plain
words with the raw key as a tooltip. Each recipe is run once per session (the
``shipped_run`` fixture, shared with the other tests of the shipped recipes)."""

import html as htmllib
import re

import pytest
from helpers import ROOT

from sdcflow.report.keys import plain_key

RECIPES = sorted(p.stem for p in (ROOT / "recipes").glob("*.yaml"))
_RUNS: dict = {}


@pytest.fixture
def base(shipped_run):
    return shipped_run


def reports(base, name):
    """(recipe, internal report, external report or None) of shipped recipe ``name``."""
    done = base(name)
    return done.recipe, done.internal, done.external


def pages(base, name) -> list[str]:
    """The internal report of ``name`` and its external one, where there is one."""
    _, internal, external = reports(base, name)
    return [page for page in (internal, external) if page is not None]


def _section(page: str, anchor: str) -> str:
    start = page.index(f'id="{anchor}"')
    return page[start:page.find("</section>", start)]


def _rows(table: str) -> list[list[str]]:
    return [[htmllib.unescape(re.sub(r"<[^>]+>", "", c)) for c in
             re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row)]
            for row in re.findall(r"<tr>(.*?)</tr>", table)]


def _utility(page: str) -> str:
    summary = _section(page, "summary")
    start = summary.find("<h3>Utility cost</h3>")
    return summary[start:summary.find("<h3>", start + 5)] if start >= 0 else ""


def _method_steps(recipe: dict) -> list[str]:
    return [s["id"] for s in recipe["steps"] if "method" in s]


@pytest.mark.parametrize("name", RECIPES)
def test_every_method_step_has_its_cost(base, name):
    recipe, internal, external = reports(base, name)
    for page, public in ((internal, False), (external, True)):
        if page is None:
            continue
        costs = re.search(r'<table class="costs">.*?</table>', _utility(page))
        assert costs, f"{name}: no table of the methods' costs"
        rows = {r[0]: r for r in _rows(costs.group(0))[1:]}
        assert sorted(rows) == sorted(_method_steps(recipe))
        for step, (_, _, cost) in rows.items():
            if public:  # a method's result is internal
                assert cost == "in the internal report (the method's figures are not " \
                               "published)"
            else:
                assert cost and "counts nothing" not in cost, (name, step, cost)
        if public:  # the comparison with the original data is internal
            assert 'class="changes"' not in page


def _change(page: str, variable: str) -> list[str]:
    table = re.search(r'<table class="changes">.*?</table>', _utility(page)).group(0)
    return next(r for r in _rows(table) if r[0] == variable)


def test_generalisation_to_star_is_a_cost(base):
    # the case: anonymize generalised age to "*" for every record; 65 records
    # (ARX-style suppression, all their keys) are missing instead
    _, internal, _ = reports(base, "testdata_anonymize")
    assert _change(internal, "age")[1:5] == [
        "anon", "4515 records", "65 records",
        ("88 \u2192 1 distinct values, all \u201c*\u201d; generalised: each original value "
         "released as one broader value")]
    assert "generalised to hierarchy level age 5" in _utility(internal)


def test_values_made_missing_by_a_recode_are_a_cost(base):
    # quickstart: sdcMicro's globalRecode without the lowest break makes the 98 ages 0
    # missing (Templ 2019); water is household-level: 21 households changed
    _, internal, _ = reports(base, "quickstart")
    assert _change(internal, "age")[2:4] == ["4482 records", "98 records"]
    assert _change(internal, "water")[2] == "21 households"
    assert "values made missing (outside the breaks): 98 values" in _utility(internal)


@pytest.mark.parametrize("name", RECIPES)
def test_no_text_points_at_a_picture_that_is_not_drawn(base, name):
    for page in pages(base, name):
        # a step's text never points at a picture: which pictures a section gets
        # depends on the report (the external one draws no PRAM matrix of a drawn
        # retention, no original data), and each picture has its own caption
        for text in re.findall(r'<section class="step".*?</h3><p>(.*?)</p>', page,
                               re.DOTALL):
            assert not re.search(r"\b(drawn|shown|pictured|see) (below|above)", text), text


@pytest.mark.parametrize("name", RECIPES)
def test_no_column_of_dashes_in_the_risk_table(base, name):
    for page in pages(base, name):
        summary = _section(page, "summary")
        start = summary.find("<h3>Disclosure risk before and after</h3>")
        if start < 0:
            continue
        rows = _rows(summary[start:summary.index("</table>", start)])
        for column in range(1, len(rows[0])):
            assert any(r[column] != "\u2014" for r in rows[1:]), (name, rows[0][column])


def _rule_names(recipe: dict, step_id: str) -> list[str]:
    from sdcflow.tabular import parse_rule

    step = next(s for s in recipe["steps"] if s.get("id") == step_id)
    return [parse_rule(r).name for r in step["params"]["rules"]]


@pytest.mark.parametrize("name", [n for n in RECIPES if "sensitivity_rules" in
                                  (ROOT / "recipes" / f"{n}.yaml").read_text()])
def test_only_the_rules_used_are_named(base, name):
    recipe, internal, external = reports(base, name)
    kinds = ("freq(", "dominance(", "p%", "pq(", "zero")
    for sid in [s["id"] for s in recipe["steps"] if s.get("method") == "sensitivity_rules"]:
        used = _rule_names(recipe, sid)
        text = htmllib.unescape(_section(internal, f"step-{sid}"))
        for kind in kinds:
            assert (kind in text) == any(u.startswith(kind) for u in used), (kind, used)
        if external is not None:  # the rules are internal: none named
            public = htmllib.unescape(_section(external, f"step-{sid}"))
            assert not any(kind in public for kind in kinds)
            assert "kept internal" in public


@pytest.mark.parametrize("name", RECIPES)
def test_appendix_keys_in_plain_words_with_the_raw_key(base, name):
    for page in pages(base, name):
        if 'id="measures"' not in page:
            continue
        appendix = _section(page, "measures")
        cells = re.findall(r"<tr><td([^>]*)>(.*?)</td>", appendix)
        for attrs, text in cells:
            raw = re.fullmatch(r' title="([^"]*)"', attrs)
            assert raw, (name, attrs, text)
            key = htmllib.unescape(raw.group(1))
            assert htmllib.unescape(text) == plain_key(key)
            assert "_" not in htmllib.unescape(text)


def test_household_variables_are_counted_in_households_as_the_tutorial_says(base):
    # the tutorial's recipe: water is household-level (recoded and suppressed per
    # household), relat per person; docs/tutorial.md quotes these figures
    _, internal, _ = reports(base, "household_survey")
    assert _change(internal, "water")[1:4] == ["water_groups, kanon", "18 households",
                                               "16 households"]
    assert _change(internal, "relat")[3] == "120 records"
    cost = _utility(internal)
    assert "<td>water_groups</td><td>global_recode</td><td>values changed: 21 households" \
        in cost
    assert "values changed: 103 households (walls 103)" in cost
    page = re.sub(r"\s+", " ", (ROOT / "docs" / "tutorial.md").read_text())
    for sentence in ("`water_groups`: 21 households", "`pram_walls`: 103 households",
                     "`water` changed in 18 households and missing in 16",
                     "`relat` missing in 120 records",
                     "those of all the members of 16 households"):
        assert sentence in page, sentence


def test_explanations_name_only_the_options_used():
    # what the external report says of a step (public parameters, no result): the
    # options the recipe chose, not every one the plugin knows (its summary lists them)
    from sdcflow.plugins import registry

    anon = registry.get("anonymize").explain(
        {"targets": [{"k_anonymity": 3}], "suppression_limit": 0.02}, None)
    assert "k-anonymity 3" in anon and "at most 2% of the records" in anon
    assert not any(t in anon for t in ("l-diversity", "t-closeness", "beta", "delta"))
    switch = registry.get("edge_perturbation").explain({"mode": "switch"}, None)
    assert "switched" in switch and "deleted" not in switch and "added" not in switch
    rules = registry.get("sensitivity_rules")
    assert rules.explain({"rules": [{"freq": 3}]}, None) == (
        "Primary suppression: table cells are flagged as sensitive by the sensitivity "
        "rules freq(3).")
    assert "p%" not in rules.explain({}, None) and "kept internal" in rules.explain({}, None)
    pram = registry.get("pram").explain({"variables": ["walls"]}, None)
    assert "below" not in pram  # no matrix is drawn where none is known
    samp = registry.get("sampling").explain({"fraction": 0.1, "unit": "household"}, None)
    assert samp.startswith("A random sample of whole households") and "stratified" not in samp
    gen = registry.get("semantic_generalisation")
    by_depth = gen.explain({"variable": "occupation", "depth": 2}, None)
    assert "depth 2" in by_depth and "concepts" not in by_depth and " or " not in by_depth
    listed = gen.explain({"variable": "occupation", "concepts": ["clerk"]}, None)
    assert "'clerk'" in listed and "depth" not in listed
    micro = registry.get("semantic_microaggregation").explain(
        {"variables": ["occupation"], "k": 4, "distance": "lin", "representative": "lcs"},
        None)
    assert "groups of 4 to 7" in micro and "Lin's similarity" in micro
    assert "centroid" not in micro and " or " not in micro


def test_a_graph_counts_edges_not_rows(base):
    # the edge list's rows are edges that its methods delete, add and relabel: the steps
    # count them (8 of the karate club's 78 edges perturbed, 22 degree raises: the
    # figures of the steps' own results), and no row-by-row comparison is made
    _, internal, _ = reports(base, "graph_protection")
    cost = _utility(internal)
    assert 'class="changes"' not in cost and "records removed" not in cost
    assert "edges perturbed: 8; edges: 78 before, 78 after" in cost
    assert "node labels replaced: 34 (no edge changed)" in cost
