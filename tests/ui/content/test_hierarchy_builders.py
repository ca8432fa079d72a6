"""The hierarchy builders of the workbench (ARX's wizards): intervals, masking and groups,
checked against hierarchies worked out by hand from the wizards' documented behaviour
(ARX's interval builder: intervals of a width from a lower bound, each level above
merging m intervals of the level below; its redaction builder: one more character
replaced from the right at each level; its grouping builder: named groups of the values
of the level below)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.kernels.non_perturbative.hierarchies import hierarchy_maps
from sdcflow.ui.content.hierarchy_builders import (
    BuilderError,
    Hierarchy,
    grouping,
    intervals,
    masking,
    parse_groups,
)


def test_intervals_by_hand():
    # 0..19 in [0,5) [5,10) [10,15) [15,20]; merged by 2: [0,10) [10,20]; then '*'
    h = intervals([12, 0, 3, 7, 19, 3], lower=0, width=5, levels=2, merge=2)
    assert h.values == ["0", "3", "7", "12", "19"]
    assert h.names == ["width_5", "width_10", "top"]
    assert h.labels[0] == ["[0,5)", "[0,5)", "[5,10)", "[10,15)", "[15,20]"]
    assert h.labels[1] == ["[0,10)", "[0,10)", "[0,10)", "[10,20]", "[10,20]"]
    assert h.labels[2] == ["*"] * 5
    assert h.breaks == [[0, 5, 10, 15, 20], [0, 10, 20]]
    assert h.levels() == {
        "width_5": {"0": "[0,5)", "3": "[0,5)", "7": "[5,10)", "12": "[10,15)",
                    "19": "[15,20]"},
        "width_10": {"[0,5)": "[0,10)", "[5,10)": "[0,10)", "[10,15)": "[10,20]",
                     "[15,20]": "[10,20]"},
        "top": {"[0,10)": "*", "[10,20]": "*"}}


def test_intervals_merge_factors_per_level_and_lower_bound():
    # from 10, width 2: [10,12) ... ; level 2 merges 3 (width 6), level 3 merges 2 (12)
    h = intervals([10, 11, 15, 21.5], lower=10, width=2, levels=3, merge=[3, 2], top=False)
    assert h.values == ["10", "11", "15", "21.5"]
    assert h.labels[0] == ["[10,12)", "[10,12)", "[14,16)", "[20,22]"]
    assert h.labels[1] == ["[10,16)", "[10,16)", "[10,16)", "[16,22]"]
    assert h.labels[2] == ["[10,22]"] * 4  # one interval holds all: no '*' level needed
    assert h.names == ["width_2", "width_6", "width_12"]


def test_intervals_refuse_what_makes_no_hierarchy():
    with pytest.raises(BuilderError, match="above the smallest value"):
        intervals([1, 5], lower=2, width=1, levels=1)
    with pytest.raises(BuilderError, match="width"):
        intervals([1, 5], lower=0, width=0, levels=1)
    with pytest.raises(BuilderError, match="more than"):
        intervals([0, 1e9], lower=0, width=1, levels=1)
    with pytest.raises(BuilderError, match="merges 2 or more"):
        intervals([0, 5], lower=0, width=1, levels=2, merge=1)
    with pytest.raises(BuilderError, match="not one"):
        intervals(["a"], lower=0, width=1, levels=1)
    with pytest.raises(BuilderError, match="no number"):
        intervals([None], lower=0, width=1, levels=1)


def test_masking_from_the_right():
    # postcodes: one more character masked at each level, as ARX's redaction builder
    h = masking(["10115", "10117", "20095", "101"])
    assert h.values == ["101", "10115", "10117", "20095"]
    # a shorter code is masked to '*' of its length, so the last level holds two
    # values and a level '*' tops them
    assert h.names == ["mask_1", "mask_2", "mask_3", "mask_4", "mask_5", "top"]
    assert h.labels[0] == ["10*", "1011*", "1011*", "2009*"]
    assert h.labels[1] == ["1**", "101**", "101**", "200**"]
    assert h.labels[4] == ["***", "*****", "*****", "*****"]
    assert masking(["10115", "20095"]).names[-1] == "mask_5"  # one value already
    short = masking(["10115", "10117", "20095"], levels=2)
    assert short.names == ["mask_1", "mask_2", "top"]
    assert short.labels[-1] == ["*"] * 3
    with pytest.raises(BuilderError, match="1 to 5"):
        masking(["10115"], levels=6)


def test_masking_padded_as_arx_by_default():
    # ARX's redaction builder aligns left and pads with '*' before redacting from the
    # right: 101 is 101** and meets 10115 two levels up
    h = masking(["10115", "101"], pad=True)
    assert h.labels[0] == ["101**", "1011*"]
    assert h.labels[1] == ["101**", "101**"]
    assert h.names[-1] == "mask_5"


def test_groups_level_by_level():
    h = grouping(["1", "2", "3", "4"], [
        ("family", {"head": ["1"], "core": ["2", "3"], "other": ["4"]}),
        ("household", {"core": ["head", "core"], "others": ["other"]})])
    assert h.names == ["family", "household", "top"]
    assert h.labels[0] == ["head", "core", "core", "other"]
    assert h.labels[1] == ["core", "core", "core", "others"]
    assert h.levels()["household"] == {"head": "core", "core": "core", "other": "others"}


@pytest.mark.parametrize("levels, message", [
    ([("a", {"x": ["1", "2"]})], "put '3' in a group"),
    ([("a", {"x": ["1", "2", "3", "9"]})], "'9' is not a value"),
    ([("a", {"x": ["1", "2"], "y": ["2", "3"]})], "'2' is in two groups"),
    ([("a", {"x": ["1", "2", "3"]}), ("a", {"y": ["x"]})], "a name of its own"),
    ([], "1 to 20 levels"),
])
def test_groups_refuse_incomplete_levels(levels, message):
    with pytest.raises(BuilderError, match=message):
        grouping(["1", "2", "3"], levels)


def test_parse_groups():
    assert parse_groups("a: 1, 2\n\n b :3") == {"a": ["1", "2"], "b": ["3"]}
    with pytest.raises(BuilderError, match="line 2"):
        parse_groups("a: 1\nb 2")
    with pytest.raises(BuilderError, match="named twice"):
        parse_groups("a: 1\na: 2")


def test_levels_that_do_not_nest_are_refused():
    with pytest.raises(BuilderError, match="not a generalisation"):
        Hierarchy(["1", "2"], ["a", "b"], [["x", "x"], ["p", "q"]])


def test_paths_count_records_and_span_rows():
    h = grouping(["a", "b", "c"], [("g", {"ac": ["a", "c"], "b": ["b"]})])
    rows = h.paths({"a": 2, "b": 5, "c": 1})
    # the values of group 'ac' together, in the order the groups first appear
    assert [r["path"] for r in rows] == [["a", "ac", "*"], ["c", "ac", "*"],
                                         ["b", "b", "*"]]
    assert [r["records"] for r in rows] == [[2, 3, 8], [1, 3, 8], [5, 5, 8]]
    assert [r["span"] for r in rows] == [[1, 2, 3], [1, 0, 0], [1, 1, 0]]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 500), min_size=1, max_size=40),
       st.integers(1, 50), st.integers(1, 4), st.integers(2, 4))
def test_intervals_always_nest_and_hold_every_value(values, width, levels, merge):
    h = intervals(values, lower=0, width=width, levels=levels, merge=merge)
    hierarchy_maps([h.values, *h.labels])  # raises when a level does not nest
    for level, b in zip(h.labels, h.breaks, strict=False):
        for value, label in zip(h.values, level, strict=True):
            lo, hi = (float(t) for t in label.strip("[])").split(","))
            assert lo <= float(value) <= hi and lo in b and hi in b
