"""Node attribute files of a graph (sdcflow.data.node_attributes)."""

import pytest

from sdcflow.data.node_attributes import attribute_rows, resolve_nodes, unknown_nodes


def _write(tmp_path, text, name="people.csv"):
    (tmp_path / name).write_text(text)
    return {"file": name, "id": "member"}


def test_resolved_values_keyed_by_label_text(tmp_path):
    spec = _write(tmp_path, "member,age,gender\n1,30,f\n02,41,m\n3, 30 ,f\n")
    nodes, message = resolve_nodes(spec, tmp_path, "integer")
    assert message is None
    # integer ids are read as numbers (02 is node 2), values stripped, every other column
    # an attribute by default
    assert nodes == {"file": "people.csv", "id": "member", "attributes": ["age", "gender"],
                     "values": {"1": ["30", "f"], "2": ["41", "m"], "3": ["30", "f"]}}
    only_age, _ = resolve_nodes({**spec, "attributes": ["age"]}, tmp_path, "integer")
    assert only_age["values"]["2"] == ["41"]
    # integer labels as the kernels see them (numpy or Python, even a whole float)
    assert attribute_rows(nodes, [2, 3.0, 9]) == [("41", "m"), ("30", "f"), None]
    assert unknown_nodes(nodes, [1, 2, 4]) == (["4"], ["3"])


@pytest.mark.parametrize("text, spec, node_type, expected", [
    (None, {}, "integer", "the node file people.csv: no such file"),
    ("person,age\n1,30\n", {}, "integer",
     "the node file people.csv: it has no column 'member' in its header"),
    ("member,age\n1,30\n", {"attributes": ["gender"]}, "integer",
     "the node file people.csv: it has no column 'gender' in its header"),
    ("member,age\n1,30\n", {"attributes": ["member"]}, "integer",
     "the id column 'member' cannot be an attribute too"),
    ("member\n1\n2\n", {}, "integer", "no column besides the id"),
    ("member,age\n1,30\nx,40\n", {}, "integer",
     "node ids that are not integers, as the node labels are (records 3 of"),
    ("member,age\n1,30\n1,40\n", {}, "integer", "node ids given twice in the node file (lines 2, 3)"),
    ("member,age\na,30\n,40\n", {}, "categorical", "a missing node id on lines 3"),
    ("member,age\na,30\nb,\n", {}, "categorical", "missing values in the attribute column age"),
])
def test_bad_node_files_say_why(tmp_path, text, spec, node_type, expected):
    base = {"file": "people.csv", "id": "member", **spec}
    if text is not None:
        (tmp_path / "people.csv").write_text(text)
    nodes, message = resolve_nodes(base, tmp_path, node_type)
    assert nodes is None and expected in message
