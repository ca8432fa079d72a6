"""The Hierarchies page: a hierarchy built in the page is written to the recipe (shown in
the diff) and used by ``anonymize`` and ``global_recode`` in a run; bad settings get a
message and leave the recipe as it was."""

from __future__ import annotations

import re
from html import unescape

import pandas as pd
import pytest

import sdcflow
from sdcflow.ui.content.hierarchy_builders import BuilderError, intervals, masking
from sdcflow.ui.content.hierarchy_recipe import anonymize_spec, targets, value_counts
from sdcflow.ui.server.app import create_app

from ..conftest import session_client

# sdcMicro's testdata, five keys generalised by anonymize to 5-anonymity; relat has no
# hierarchy yet (the recipe asks for one: the page builds it)
RECIPE = """\
# keys of sdcMicro's testdata generalised by anonymize
sdcflow: 1
name: hierarchy-test
seed: 7
data: {builtin: testdata}
variables:
  urbrur: {role: key, type: categorical}
  sex: {role: key, type: categorical}
  age: {role: key, type: integer}
  relat: {role: key, type: categorical}
  water: {role: key, type: categorical}
steps:
  - id: anon
    method: anonymize
    params:
      targets: [{k_anonymity: 5}]
      suppression_limit: 0.02
      hierarchies:
        urbrur: {mask: true}
        sex: {mask: true}
        water: {mask: true}
        age: {width: 5, levels: 3}
  - {id: risk, measure: k_anonymity, params: {k: 5}}
checks:
  - "risk.violations[5] == 0"
release: {path: anon.csv}
"""
RELAT_GROUPS = {"g1_name": "family", "g1_groups": "head: 1\ncore: 2, 3\nrelative: 4, 5, 6\n"
                "other: 7, 8, 9", "g2_name": "household",
                "g2_groups": "core: head, core\nothers: relative, other"}


def _client(tmp_path, text: str = RECIPE):
    project = tmp_path / "project"
    project.mkdir()
    (project / "anon.yaml").write_text(text)
    app = create_app(project, recipe="anon.yaml")
    return session_client(app), app, project


@pytest.fixture
def hierarchy_client(tmp_path):
    return _client(tmp_path)


def _query(**fields) -> str:
    from urllib.parse import urlencode

    return urlencode(fields)


def test_the_preview_shows_paths_and_records(hierarchy_client):
    client, app, _ = hierarchy_client
    # the recipe does not validate yet (relat has no hierarchy): the page still reads
    # the data to build one
    response = client.get("/hierarchies?" + _query(variable="relat", builder="grouping",
                                                   **RELAT_GROUPS))
    assert response.status_code == 200
    preview = unescape(response.text[response.text.index('id="hierarchy-preview"'):])
    # testdata's relat: 1000 heads, 805 + 2576 core (2, 3): 3381; 4380 + ... all 4580
    assert "head</span> <span class=\"count\">1000" in preview
    assert "core</span> <span class=\"count\">3381" in preview
    assert "*</span> <span class=\"count\">4580" in preview
    assert app.state.workbench.workspace.draft == RECIPE  # a preview writes nothing


def test_grouping_written_as_declared_levels_is_used_by_anonymize(hierarchy_client):
    client, app, project = hierarchy_client
    query = _query(variable="relat", builder="grouping", **RELAT_GROUPS)
    response = client.post(f"/hierarchies/write?{query}", data={"target": "declared"})
    assert response.status_code == 200 and 'id="written"' in response.text
    ws = app.state.workbench.workspace
    assert re.search(r"^\+.*hierarchy", ws.diff(), re.MULTILINE) and "family" in ws.diff()
    ws.save()
    recipe = sdcflow.load_recipe(project / "anon.yaml")
    assert recipe.variables["relat"].hierarchy == {
        "family": {"1": "head", "2": "core", "3": "core", "4": "relative", "5": "relative",
                   "6": "relative", "7": "other", "8": "other", "9": "other"},
        "household": {"head": "core", "core": "core", "relative": "others",
                      "other": "others"},
        "top": {"core": "*", "others": "*"}}
    result = sdcflow.run(recipe, write=False)
    node = next(s.info["node"] for s in result.steps if s.node == "anon")
    level = ["relat", "family", "household", "top"][node["relat"]]
    assert level == "family"  # (5-anonymity needs the first level of groups)
    original = pd.read_csv(sdcflow.__path__[0] + "/data/datasets/testdata.csv")
    released = result.data["relat"]
    kept = released.notna()
    mapping = {"relat": {str(v): str(v) for v in range(1, 10)},
               "family": recipe.variables["relat"].hierarchy["family"]}
    mapping["household"] = {k: recipe.variables["relat"].hierarchy["household"][v]
                            for k, v in mapping["family"].items()}
    mapping["top"] = {str(v): "*" for v in range(1, 10)}
    expected = original["relat"].astype(str).map(mapping[level])
    assert (released[kept].astype(str) == expected[kept]).all()


def test_intervals_written_as_breaks_generalise_as_the_width_form(tmp_path):
    # (2-anonymity: age then stays at intervals of 20 years, a level below the top)
    client, app, project = _client(tmp_path, RECIPE.replace("k_anonymity: 5", "k_anonymity: 2")
                                   .replace("[5]", "[2]").replace("{k: 5}", "{k: 2}"))
    # relat first (the recipe needs it), then age as ARX's interval wizard: from 0,
    # width 5, 3 levels each merging 2: the same intervals as {width: 5, levels: 3}
    client.post("/hierarchies/write?" + _query(variable="relat", builder="grouping",
                                               **RELAT_GROUPS), data={"target": "declared"})
    reference_text = app.state.workbench.workspace.draft
    query = _query(variable="age", builder="intervals", lower=0, width=5, levels=3, merge=2)
    response = client.post(f"/hierarchies/write?{query}", data={"target": "anonymize:anon"})
    assert response.status_code == 200
    ws = app.state.workbench.workspace
    assert "age: {breaks: [[0, 5, 10," in ws.draft
    ws.save()
    built = sdcflow.run(sdcflow.load_recipe(project / "anon.yaml"), write=False)
    (project / "reference.yaml").write_text(reference_text)
    reference = sdcflow.run(sdcflow.load_recipe(project / "reference.yaml"), write=False)
    node = next(s.info["node"] for s in built.steps if s.node == "anon")
    assert node == next(s.info["node"] for s in reference.steps if s.node == "anon")
    assert node["age"] == 3  # intervals of 20 years: a discriminating level
    # the same classes, labelled as the breaks label them ([0,20) for 0-19)
    pairs = pd.crosstab(built.data["age"], reference.data["age"])
    assert ((pairs > 0).sum(axis=1) == 1).all() and ((pairs > 0).sum(axis=0) == 1).all()
    assert set(built.data["age"].dropna()) <= {"[0,20)", "[20,40)", "[40,60)", "[60,80)",
                                               "[80,100]"}


def test_intervals_to_a_global_recode_step(hierarchy_client):
    client, app, _project = hierarchy_client
    query = _query(variable="age", builder="intervals", lower=0, width=10, levels=2,
                   merge=2)
    response = client.post(f"/hierarchies/write?{query}",
                           data={"target": "global_recode", "level": "2"})
    assert response.status_code == 200
    doc_steps = sdcflow.ui.editing.recipe_edit.RecipeDocument.parse(
        app.state.workbench.workspace.draft).steps()
    step = doc_steps[-1]
    assert step["method"] == "global_recode"
    assert step["params"] == {"variable": "age", "breaks": [0, 20, 40, 60, 80, 100],
                              "right": False}


@pytest.mark.parametrize("query, data, message", [
    ({"variable": "age", "builder": "intervals", "lower": "x", "width": 5},
     {"target": "anonymize:anon"}, "lower bound: 'x' is not a number"),
    ({"variable": "age", "builder": "intervals", "lower": 10, "width": 5},
     {"target": "anonymize:anon"}, "above the smallest value"),
    ({"variable": "age", "builder": "intervals", "lower": 0, "width": 5},
     {"target": "declared"}, "cannot be written to 'declared'"),
    ({"variable": "relat", "builder": "grouping", "g1_name": "a", "g1_groups": "x: 1, 2"},
     {"target": "declared"}, "put '3', '4'"),
    ({"variable": "nope", "builder": "masking"}, {"target": "declared"},
     "no declared variable 'nope'"),
])
def test_bad_settings_change_nothing(hierarchy_client, query, data, message):
    client, app, _ = hierarchy_client
    response = client.post(f"/hierarchies/write?{_query(**query)}", data=data)
    assert response.status_code == 400
    found = re.search(r'id="hierarchy-error">(.*?)</p>', response.text, re.DOTALL)
    assert found and message in unescape(found.group(1))
    assert app.state.workbench.workspace.draft == RECIPE


def test_targets_follow_the_recipe_language():
    # declared hierarchies: categorical and ordinal only; groups: not anonymize's own
    assert [t for t, _ in targets("intervals", "integer", ["anon"])] == [
        "anonymize:anon", "global_recode"]
    assert [t for t, _ in targets("grouping", "categorical", ["anon"])] == [
        "declared", "global_recode"]
    assert [t for t, _ in targets("masking", "integer", [])] == []
    h = intervals([0, 9], 0, 5, 1)
    assert anonymize_spec("intervals", h) == {"breaks": [[0, 5, 10]]}
    with pytest.raises(BuilderError):
        anonymize_spec("grouping", h)
    assert anonymize_spec("masking", masking(["10115", "101"])) == {"mask": True,
                                                                     "levels": 5}
    with pytest.raises(BuilderError, match="does not pad"):
        anonymize_spec("masking", masking(["10115", "101"], pad=True))


def test_value_counts_name_numbers_as_the_builders_do():
    assert value_counts(pd.Series([1.0, 1.0, 2.5, None]), True) == {"1": 2, "2.5": 1}
    assert value_counts(pd.Series(["a", "b", "a"]), False) == {"a": 2, "b": 1}


def test_groups_to_a_global_recode_step_at_a_level(tmp_path):
    text = ("sdcflow: 1\nname: recode-test\nseed: 3\ndata: {builtin: testdata}\n"
            "variables:\n  relat: {role: key, type: categorical}\n"
            "steps:\n  - {id: risk, measure: k_anonymity, params: {k: 3}}\n"
            "release: {path: out.csv}\n")
    client, app, project = _client(tmp_path, text)
    query = _query(variable="relat", builder="grouping", **RELAT_GROUPS)
    response = client.post(f"/hierarchies/write?{query}",
                           data={"target": "global_recode", "level": "2"})
    assert response.status_code == 200
    app.state.workbench.workspace.save()
    recipe = sdcflow.load_recipe(project / "anon.yaml")
    assert [s.plugin_name for s in recipe.steps] == ["k_anonymity", "global_recode"]
    assert recipe.steps[1].params == {"variable": "relat", "level": "household"}
    released = sdcflow.run(recipe, write=False).data["relat"]
    original = pd.read_csv(sdcflow.__path__[0] + "/data/datasets/testdata.csv")["relat"]
    expected = original.map({1: "core", 2: "core", 3: "core"}).fillna("others")
    assert (released.astype(str) == expected).all()
