"""microaggregation in separate sets of key variables: a warning at validation and the
count of records that are not k-anonymous on the combination."""

import numpy as np
from helpers import small_dataset

from sdcflow.plugins import registry

PLUGIN = registry.get("microaggregation")


def data():
    # x and y each take two values, twice each: every set alone is 2-anonymous already
    # (MDAV with k = 2 groups equal values and keeps them), but the four (x, y) pairs
    # are all different, so all 4 records break 2-anonymity on the combination
    return small_dataset(x=("key", "continuous", [1.0, 1.0, 5.0, 5.0]),
                         y=("key", "continuous", [1.0, 5.0, 1.0, 5.0]),
                         z=("numeric", "continuous", [3.0, 4.0, 8.0, 9.0]))


def run(**params):
    params = registry.with_defaults(PLUGIN.params, params)
    return PLUGIN.apply(data(), params, np.random.default_rng(0)), params


def test_separate_sets_of_keys():
    result, params = run(k=2, groups=[["x"], ["y"]])
    assert result.data.frame["x"].tolist() == [1.0, 1.0, 5.0, 5.0]
    assert result.info["key_sets"] == {"sets": [["x"], ["y"]], "records_below_k": 4}
    assert any("4 records share their combination" in n for n in result.info["notes"])
    warned = list(PLUGIN.warnings(params, data().meta))
    assert len(warned) == 1 and warned[0][0] == ("groups",)
    assert "microaggregated in separate sets (x | y)" in warned[0][1]


def test_keys_together_are_k_anonymous_and_not_warned():
    result, params = run(k=2, variables=["x", "y"])
    assert "key_sets" not in result.info
    assert list(PLUGIN.warnings(params, data().meta)) == []


def test_one_set_of_keys_and_one_of_numerics_is_not_warned():
    _, params = run(k=2, groups=[["x", "y"], ["z"]])
    assert list(PLUGIN.warnings(params, data().meta)) == []


def test_variable_by_variable():
    result, params = run(k=2, variables=["x", "y"], algorithm="individual_ranking")
    assert result.info["key_sets"]["records_below_k"] == 4
    warned = list(PLUGIN.warnings(params, data().meta))
    assert warned[0][0] == ("algorithm",)
    assert "one by one by individual_ranking (x | y)" in warned[0][1]


def test_validate_shows_the_warning(write_recipe, capsys):
    from helpers import validate_cli

    path = write_recipe("""\
        sdcflow: 1
        name: t
        seed: 1
        data: {builtin: testdata}
        variables:
          age: {role: key, type: integer}
          income: {role: key, type: continuous}
        steps:
          - {id: micro, method: microaggregation, params: {k: 3, groups: [[age], [income]]}}
        """)
    code, err = validate_cli(path, capsys)
    assert code == 0
    # line 9, column 66: the groups
    assert any(line.startswith(f"{path}:9:66:") and "warning: " in line and
               "microaggregated in separate sets (age | income)" in line for line in err), err
