"""The workbench's recipe editing (sdcflow.ui.editing.recipe_edit): every shipped recipe reads and
writes back byte for byte; each edit changes exactly the lines it must (the expected diff
lines are written out by hand from recipes/quickstart.yaml); edited recipes validate;
random sequences of edits keep the comments they do not touch."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from helpers import QUICKSTART, ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.errors import RecipeError
from sdcflow.recipe import load_yaml, recipe_from_text, validate
from sdcflow.ui.editing.recipe_edit import EditError, RecipeDocument, recipe_diff, starter_document

SHIPPED = sorted([*(ROOT / "recipes").glob("*.yaml"), *(ROOT / "tests" / "recipes").rglob("*.yaml")])
QUICK = QUICKSTART.read_text(encoding="utf-8")
COMMENTS = [line.strip() for line in QUICK.splitlines() if "#" in line]


def changes(old: str, new: str) -> list[str]:
    """The changed lines of the diff, '-' and '+' lines in diff order."""
    return [line for line in recipe_diff(old, new).splitlines()
            if line[:1] in "+-" and not line.startswith(("---", "+++"))]


def quick() -> RecipeDocument:
    return RecipeDocument.parse(QUICK, "quickstart.yaml")


def valid(text: str) -> None:
    """sdcflow's own checks (schema and semantics) on the edited text, read from the
    place of the quick start recipe."""
    recipe_from_text(text, "quickstart.yaml", QUICKSTART)


# ---------------------------------------------------------------- round trip

@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_shipped_recipe_round_trips_byte_for_byte(path):
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        # (the corpus's Latin-1 recipe: the workbench, like sdcflow validate, reads
        # UTF-8 text only, which the file is not)
        assert "invalid" in path.parts
        return
    try:
        doc = RecipeDocument.parse(text, path.name)
    except RecipeError as exc:
        # only the corpus's malformed files are refused, with their expected message
        assert "invalid" in path.parts
        expected = [line.split("# expect: ", 1)[1] for line in text.splitlines()
                    if line.startswith("# expect: ")]
        assert any(e in str(exc) for e in expected), (str(exc), expected)
        return
    assert doc.text() == text
    # writing every section back as it reads changes nothing
    for key, value in doc.get([]).items():
        doc.set([key], value)
    assert doc.text() == text
    # disabling and enabling a step again gives the file back byte for byte, and
    # disabling changes one line (a flow step) or adds one ('enabled: false')
    ids = [s["id"] for s in doc.steps() if isinstance(s, dict) and isinstance(s.get("id"), str)
           and "enabled" not in s]
    if ids:
        doc.set_enabled(ids[-1], False)
        diff = changes(text, doc.text())
        assert [d[0] for d in diff] in (["+"], ["-", "+"]), diff
        assert "enabled: false" in diff[-1]
        doc.set_enabled(ids[-1], True)
        assert doc.text() == text


@pytest.mark.parametrize("path", sorted((ROOT / "recipes").glob("*.yaml")), ids=lambda p: p.name)
def test_edits_on_every_shipped_recipe_leave_a_text_that_reads_as_asked(path):
    text = path.read_text(encoding="utf-8")
    doc = RecipeDocument.parse(text)
    edits = [
        lambda: doc.add_step({"method": "local_suppression", "params": {"k": 3}}, 0),
        lambda: doc.add_step({"measure": "k_anonymity"}),
        lambda: doc.move_step(doc.steps()[-1]["id"], 0),
        lambda: doc.move_step(doc.steps()[0]["id"], len(doc.steps()) - 1),
        lambda: doc.remove_step(doc.steps()[1]["id"]),
        lambda: doc.add_check("risk.violations[3] == 0"),
        lambda: doc.set_variable("zz", role="key", type="categorical"),
        lambda: doc.set_variable(next(iter(doc.variables())), role="numeric"),
        lambda: doc.update_step(doc.steps()[0]["id"], params={"k": [2, 3]}),
        lambda: doc.set(["release", "pdf"], True),
    ]
    for edit in edits:
        before = doc.get([])
        try:
            edit()
        except EditError as exc:
            # (only: removing a step whose value an alias (*name) uses further on)
            assert "undefined alias" in str(exc)
            assert doc.get([]) == before
        again = RecipeDocument.parse(doc.text())
        assert again.get([]) == doc.get([])
    # the comments of the recipe as a whole (a removed step takes the comment lines
    # right above it)
    for line in text.splitlines():
        if line.startswith("#"):
            assert line in doc.text()


# ---------------------------------------------------------------- each edit, its lines

def test_set_variable_changes_only_its_line_and_keeps_the_others():
    doc = quick()
    doc.set_variable("age", role="numeric", type="continuous")
    assert changes(QUICK, doc.text()) == [
        "-  age: {role: key, type: integer}",
        "+  age: {role: numeric, type: continuous}",
    ]
    doc.set_variable("age", type=None)  # None removes the field
    assert doc.variables()["age"] == {"role": "numeric"}
    assert changes(QUICK, doc.text())[-1] == "+  age: {role: numeric}"


def test_a_new_variable_is_appended_in_flow_style():
    doc = quick()
    doc.set_variable("roof", role="key", type="categorical")
    assert changes(QUICK, doc.text()) == ["+  roof: {role: key, type: categorical}"]
    lines = doc.text().splitlines()
    assert lines[lines.index("  roof: {role: key, type: categorical}") - 1] == \
        "  ori_hid: {role: household}"
    valid(doc.text())


def test_remove_variable():
    doc = quick()
    doc.remove_variable("savings")
    assert changes(QUICK, doc.text()) == ["-  savings: {role: numeric, type: continuous}"]
    with pytest.raises(KeyError):
        doc.remove_variable("savings")


def test_update_step_params_keeps_the_comment_of_an_unchanged_key():
    doc = quick()
    params = doc.steps()[1]["params"]
    doc.update_step("age10", params={**params, "breaks": [0, 19, 39, 59, 79, 130],
                                     "labels": ["1-19", "20-39", "40-59", "60-79", "80-130"]})
    assert changes(QUICK, doc.text()) == [
        "-      breaks: [0, 9, 19, 29, 39, 49, 59, 69, 79, 130]",
        ('-      labels: ["1-9", "10-19", "20-29", "30-39", "40-49", "50-59", '
         '"60-69", "70-79", "80-130"]'),
        "+      breaks: [0, 19, 39, 59, 79, 130]",
        "+      labels: [\"1-19\", \"20-39\", \"40-59\", \"60-79\", \"80-130\"]",
    ]
    assert "include_lowest: false     # as sdcMicro: the 98 records aged 0 become missing" \
        in doc.text()
    valid(doc.text())


def test_update_step_changes_one_value_in_place_with_its_comment():
    doc = quick()
    doc.set(["steps", 1, "params", "include_lowest"], True)
    assert changes(QUICK, doc.text()) == [
        "-      include_lowest: false     # as sdcMicro: the 98 records aged 0 become missing",
        "+      include_lowest: true     # as sdcMicro: the 98 records aged 0 become missing",
    ]


def test_update_step_in_a_flow_mapping_and_removing_a_field():
    doc = quick()
    doc.update_step("risk", params={"k": [2, 3], "alpha": 0.7})
    assert changes(QUICK, doc.text()) == [
        "-    params: {k: [2, 3, 5], alpha: 0.7}",
        "+    params: {k: [2, 3], alpha: 0.7}",
    ]
    doc = quick()
    doc.update_step("risk_original", input=None)
    assert changes(QUICK, doc.text()) == ["-    input: original"]


def test_disable_and_enable_a_step():
    doc = quick()
    doc.set_enabled("walls_pram", False)
    assert changes(QUICK, doc.text()) == ["+    enabled: false"]
    assert doc.steps()[5] == {"id": "walls_pram", "method": "pram", "enabled": False,
                              "params": {"variables": ["walls"], "retention": 0.8}}
    valid(doc.text())
    doc.set_enabled("walls_pram", True)
    assert doc.text() == QUICK


def test_add_step_makes_its_id_unique_and_writes_like_its_neighbours():
    doc = quick()
    sid = doc.add_step({"id": "risk", "measure": "k_anonymity",
                        "params": {"k": [2, 3, 5], "alpha": 0.7}}, position=3)
    assert sid == "risk_2"
    assert changes(QUICK, doc.text()) == [
        "+  - id: risk_2",
        "+    measure: k_anonymity",
        "+    params: {k: [2, 3, 5], alpha: 0.7}",
    ]
    assert [s["id"] for s in doc.steps()][2:5] == ["risk_age", "risk_2", "water_groups"]
    assert doc.add_step({"method": "local_suppression", "params": {"k": 3}}) == \
        "local_suppression"
    assert doc.add_step({"method": "local_suppression"}) == "local_suppression_2"
    assert doc.steps()[-1] == {"id": "local_suppression_2", "method": "local_suppression"}
    valid(doc.text())


def test_a_long_new_mapping_is_written_in_block_style():
    doc = quick()
    doc.set(["execution"], {"workers": 2})
    assert changes(QUICK, doc.text()) == ["+execution: {workers: 2}"]
    # (inside a flow mapping a new key stays in flow style, however long)
    doc.set(["execution", "names"], [f"variable_{i}" for i in range(8)])
    assert changes(QUICK, doc.text()) == [
        "+execution: {workers: 2, names: [" + ", ".join(f"variable_{i}" for i in range(8))
        + "]}"]
    doc = quick()
    doc.set(["execution"], {"workers": 2, "variables": [f"variable_{i}" for i in range(8)],
                            "options": {"a": 1}})
    assert changes(QUICK, doc.text()) == [
        "+execution:", "+  workers: 2", "+  variables:",
        *[f"+    - variable_{i}" for i in range(8)], "+  options: {a: 1}"]


def test_remove_step_takes_its_comment_lines_with_it():
    doc = quick()
    doc.remove_step("edits")
    assert changes(QUICK, doc.text()) == [
        "-  - id: edits",
        "-    measure: constraints",
        ("-    # age-range holds in the input (checked on load); after age10 age is text "
         "classes,"),
        "-    # which a range cannot be checked on",
        "-    params: {constraints: [income-positive]}",
    ]


def test_move_step_keeps_its_comments_with_it():
    doc = quick()
    doc.move_step("edits", 1)
    assert [s["id"] for s in doc.steps()][:3] == ["risk_original", "edits", "age10"]
    moved = changes(QUICK, doc.text())
    block = ["  - id: edits", "    measure: constraints",
             ("    # age-range holds in the input (checked on load); after age10 age is "
              "text classes,"), "    # which a range cannot be checked on",
             "    params: {constraints: [income-positive]}"]
    assert moved == ["+" + line for line in block] + ["-" + line for line in block]
    doc.move_step("edits", 8)
    assert doc.text() == QUICK
    with pytest.raises(IndexError):
        doc.move_step("edits", 9)
    with pytest.raises(KeyError):
        doc.move_step("nope", 0)


def test_checks_added_and_removed():
    doc = quick()
    assert doc.checks()[0] == "risk.violations[2] <= risk_original.violations[2]"
    doc.add_check("risk.violations[3] == 0")
    doc.add_check("edits.total == 0", message="a record breaks an edit rule")
    assert changes(QUICK, doc.text()) == [
        '+  - "risk.violations[3] == 0"',
        '+  - {expr: "edits.total == 0", message: "a record breaks an edit rule"}',
    ]
    doc.remove_check(0)
    assert changes(QUICK, doc.text())[0] == \
        '-  - "risk.violations[2] <= risk_original.violations[2]"'
    valid(doc.text())
    assert len(doc.checks()) == 4


def test_set_creates_missing_mappings_and_delete_removes():
    doc = quick()
    doc.set(["execution", "workers"], 2)
    assert changes(QUICK, doc.text()) == ["+execution: {workers: 2}"]
    doc.set(["release", "pdf"], False)
    assert changes(QUICK, doc.text())[:2] == [
        "-release: {path: testdata-protected.csv, measures: [risk, edits]}",
        "+release: {path: testdata-protected.csv, measures: [risk, edits], pdf: false}",
    ]
    doc.delete(["release", "pdf"])
    doc.delete(["execution"])
    assert doc.text() == QUICK
    doc.delete(["constraints", 0])
    assert changes(QUICK, doc.text()) == ['-  - {id: age-range, expr: "0 <= age <= 125"}']
    assert doc.get(["variables", "age", "role"]) == "key"
    assert doc.get(["variables", "nope"], "default") == "default"


def test_a_sequence_item_loses_its_first_key_but_not_its_dash():
    doc = quick()
    doc.delete(["steps", 0, "id"])
    assert changes(QUICK, doc.text())[:3] == [
        "-  - id: risk_original", "-    measure: k_anonymity", "+  - measure: k_anonymity"]


def test_values_are_checked_and_quoted_as_needed():
    doc = quick()
    with pytest.raises(EditError, match="finite"):
        doc.set(["name"], math.nan)
    with pytest.raises(EditError, match="cannot be written"):
        doc.set(["name"], object())
    with pytest.raises(EditError, match="not text"):
        doc.set(["release"], {1: "x"})
    assert doc.text() == QUICK
    doc.set(["seed"], np.int64(2026))  # (a NumPy number is written as the number it is)
    assert doc.text() == QUICK
    doc.set(["steps", 0, "params", "k"], (np.int32(2), 3, 5))
    assert doc.text() == QUICK
    for text in ("yes", "NO", "08", "1.5", "null", "~", "", "a: b", "#x", "x #y", "[a]",
                 "- a", "true", "ünï code", "tab\there", "line\nbreak", "\x85\u2028"):
        doc.set(["name"], text)
        assert load_yaml(doc.text(), "r").data["name"] == text
    doc.set(["name"], "quickstart")
    assert doc.text() == QUICK


def test_edits_keep_the_document_valid_for_sdcflow(tmp_path):
    doc = quick()
    doc.set_variable("roof", role="key", type="categorical")
    doc.set_variable("age", role="key", type="integer", description="age in years")
    doc.update_step("risk", params={"k": [2, 3, 5], "alpha": 0.5})
    doc.add_step({"method": "local_suppression", "params": {"k": 3}}, 6)
    doc.set_enabled("income_top", False)
    doc.move_step("walls_pram", 2)
    doc.add_check("risk.violations[3] == 0", "not 3-anonymous")
    valid(doc.text())
    # and with its data and plan, as sdcflow run checks it
    path = tmp_path / "quickstart.yaml"
    path.write_text(doc.text(), encoding="utf-8")
    validated = validate(path)
    assert [ps.node for ps in validated.plan.steps].count("local_suppression") == 1
    assert "income_top" not in [ps.node for ps in validated.plan.steps]
    again = RecipeDocument.parse(doc.text())
    assert again.text() == doc.text() and again.get([]) == doc.get([])


def test_a_file_with_windows_line_ends_keeps_them():
    crlf = QUICK.replace("\n", "\r\n")
    doc = RecipeDocument.parse(crlf)
    doc.set_variable("roof", role="key", type="categorical")
    doc.update_step("age10", params={**doc.steps()[1]["params"], "breaks": [0, 9, 130],
                                     "labels": ["a", "b"]})
    doc.move_step("edits", 0)
    doc.add_step({"method": "local_suppression", "params": {"k": 3}})
    assert doc.text().count("\n") == doc.text().count("\r\n")
    assert doc.text().replace("\r\n", "\n").count("\n") == QUICK.count("\n") + 4
    assert RecipeDocument.parse(doc.text()).steps()[0]["id"] == "edits"


# ---------------------------------------------------------------- errors

@pytest.mark.parametrize("text, where", [
    ("sdcflow: 1\nname: [a, b\nseed: 1\n", "recipe.yaml:3:5: malformed YAML"),
    ("sdcflow: 1\nvariables:\n\tage: {role: key}\n", "recipe.yaml:3:1: malformed YAML: found a tab"),
    ("sdcflow: 1\nname: a\nname: b\n", "recipe.yaml:3:1: duplicate key 'name'"),
    ("- a\n- b\n", "recipe.yaml:1:1: a recipe is a mapping of sections"),
    ("# nothing\n", "recipe.yaml:1:1: the recipe is empty"),
])
def test_malformed_yaml_is_a_recipe_error_at_line_and_column(text, where):
    with pytest.raises(RecipeError) as caught:
        RecipeDocument.parse(text)
    assert str(caught.value).startswith(where), str(caught.value)


def test_the_message_is_the_one_sdcflow_validate_prints(tmp_path, capsys):
    from sdcflow.cli import main

    text = QUICK.replace("  age: {role: key, type: integer}", "  age: {role: key, type: integer")
    path = tmp_path / "quickstart.yaml"
    path.write_text(text)
    with pytest.raises(RecipeError) as caught:
        RecipeDocument.parse(text, "quickstart.yaml")
    assert main(["validate", str(path)]) == 1
    err = capsys.readouterr().err
    line = str(caught.value).split(": ", 1)
    assert re.match(r"quickstart\.yaml:\d+:\d+", line[0])
    assert f"{line[0].split('quickstart.yaml')[1]}: {line[1]}" in err


# ---------------------------------------------------------------- the starter

def test_starter_document_is_what_sdcflow_init_writes_and_validates(tmp_path):
    from sdcflow.cli.starter import starter_recipe

    data = tmp_path / "people.csv"
    rows = ["id,sex,region,income"] + [f"{i},{'mf'[i % 2]},{i % 4},{1000 + 37 * i}"
                                       for i in range(40)]
    data.write_text("\n".join(rows) + "\n")
    doc = starter_document(data)
    seedless = re.compile(r"^seed: \d+", re.MULTILINE)
    assert seedless.sub("", doc.text()) == seedless.sub(
        "", starter_recipe(data, tmp_path / "people.yaml"))
    assert doc.variables()["id"]["role"] == "identifier"
    recipe_from_text(doc.text(), "people.yaml", tmp_path / "people.yaml")
    doc.set_variable("region", role="key", type="categorical")
    doc.set_enabled("suppress", False)
    doc.update_step("risk", params={"k": [2, 3, 5]}, input="original")
    # (no later step refers to the disabled one: still valid)
    recipe_from_text(doc.text(), "people.yaml", tmp_path / "people.yaml")


# ---------------------------------------------------------------- properties

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**12, 10**12)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                max_size=3),
    max_leaves=8)


@settings(max_examples=30)
@given(value=json_values, where=st.sampled_from([["release", "x"], ["steps", 1, "params"],
                                                  ["variables", "age"], ["execution"]]))
def test_any_json_value_is_written_and_read_back(value, where):
    doc = quick()
    doc.set(where, value)
    assert RecipeDocument.parse(doc.text()).get(where) == value
    for comment in COMMENTS[:7]:  # (the opening comment lines are never touched)
        assert comment in doc.text()


STEP_IDS = ["risk_original", "age10", "risk_age", "water_groups", "relat_groups",
            "walls_pram", "income_top", "risk", "edits"]
# the step whose comment lines are inside it (edits) and the step whose parameter has a
# comment (age10) are moved, disabled and enabled, never removed or rewritten
operations = st.one_of(
    st.tuples(st.just("role"), st.sampled_from(["urbrur", "sex", "age", "expend", "new"]),
              st.sampled_from(["key", "numeric", "sensitive", None])),
    st.tuples(st.just("remove_var"), st.sampled_from(["water", "relat", "savings"])),
    st.tuples(st.just("add_step"), st.sampled_from(["local_suppression", "risk", "pram"]),
              st.integers(0, 12)),
    st.tuples(st.just("remove_step"), st.sampled_from(["water_groups", "risk", "income_top",
                                                       "local_suppression"])),
    st.tuples(st.just("move"), st.sampled_from(STEP_IDS), st.integers(0, 12)),
    st.tuples(st.just("enable"), st.sampled_from(STEP_IDS), st.booleans()),
    st.tuples(st.just("add_check"), st.sampled_from(["risk.violations[3] == 0", "x > 1"]),
              st.sampled_from([None, "why"])),
    st.tuples(st.just("remove_check"), st.integers(0, 4)),
    st.tuples(st.just("params"), st.sampled_from(["risk", "risk_age"]),
              st.lists(st.integers(2, 9), min_size=1, max_size=4)),
)


def _apply(doc: RecipeDocument, op) -> None:
    kind, *args = op
    try:
        if kind == "role":
            doc.set_variable(args[0], role=args[1], type="categorical" if args[1] else None)
        elif kind == "remove_var":
            doc.remove_variable(args[0])
        elif kind == "add_step":
            doc.add_step({"id": args[0], "method": "local_suppression", "params": {"k": 3}},
                         min(args[1], len(doc.steps())))
        elif kind == "remove_step":
            doc.remove_step(args[0])
        elif kind == "move":
            doc.move_step(args[0], min(args[1], len(doc.steps()) - 1))
        elif kind == "enable":
            doc.set_enabled(args[0], args[1])
        elif kind == "add_check":
            doc.add_check(args[0], args[1])
        elif kind == "remove_check":
            doc.remove_check(args[0])
        elif kind == "params":
            doc.update_step(args[0], params={"k": args[1]})
    except (KeyError, IndexError):
        pass  # (the step, variable or check was removed before: nothing changes)


@settings(max_examples=20)
@given(ops=st.lists(operations, max_size=6))
def test_random_edits_keep_the_text_stable_and_the_untouched_comments(ops):
    doc = quick()
    for op in ops:
        before = doc.text()
        _apply(doc, op)
        again = RecipeDocument.parse(doc.text())
        assert again.text() == doc.text()
        assert again.get([]) == doc.get([])
        if doc.text() != before:
            assert recipe_diff(before, doc.text())
    for comment in COMMENTS:
        assert comment in doc.text()
