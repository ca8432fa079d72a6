"""Where a step's internal files go (sdcflow.engine.runner.step_file): ``steps/NODE.NAME``,
a grid variant's node made a safe file name that no other variant shares."""

from sdcflow.engine.runner import step_file


def test_a_plain_node_keeps_its_name():
    assert step_file("ck", "ptable.csv") == "steps/ck.ptable.csv"


def test_a_grid_node_is_a_safe_name_of_its_own():
    a = step_file('ck[label="a/b"]', "ptable.csv")
    b = step_file('ck[label="a_b"]', "ptable.csv")
    assert a.startswith("steps/ck_label=_a_b__-") and a.endswith(".ptable.csv")
    assert a != b  # the same letters kept, told apart by the node's hash
    name = a.split("/", 1)[1]
    assert "/" not in name and '"' not in name and "[" not in name
