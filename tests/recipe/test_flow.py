"""Validation along the data flow (sdcflow.recipe._flow): every step is checked against
the variables as they are at that step (types made by earlier methods, variables
removed) and a measure that pairs records with its reference is refused after a step
that changed the records; ``sdcflow validate`` reports these at the step's position with
exit 1 instead of ``sdcflow run`` failing."""

from typing import ClassVar

import pytest
from helpers import validate_cli

import sdcflow
from sdcflow.plugins import registry
from sdcflow.plugins.registry import Method, MethodResult

HEAD = """\
sdcflow: 1
name: t
seed: 1
data: {builtin: testdata}
variables:
  urbrur: {role: key, type: categorical}
  sex: {role: key, type: categorical}
  age: {role: key, type: integer}
  income: {role: numeric, type: continuous}
  sampling_weight: {role: weight, type: continuous}
"""


def validate(write_recipe, capsys, text: str) -> tuple[int, list[str], str]:
    path = write_recipe(HEAD + text)
    return (*validate_cli(path, capsys), str(path))


def test_numeric_recode_after_a_labelled_top_code(write_recipe, capsys):
    # top coding with the label 80+ makes age ordinal text; cutting it into intervals
    # then fails at run time ("could not convert string to float: '80+'")
    code, err, name = validate(write_recipe, capsys, """\
steps:
  - id: age_top
    method: top_bottom_code
    params: {variable: age, top: {value: 80, label: "80+"}}
  - id: age10
    method: global_recode
    params: {variable: age, breaks: [0, 20, 40, 60, 80]}
""")
    assert code == 1
    # line 17, column 37: the breaks of the second step
    assert f"{name}:17:37: steps[1].params.breaks: 'age' is ordinal text at this step " \
           "(made so by step 'age_top'): breaks need a numeric variable; 'age' is ordinal; " \
           "to merge its categories instead, use 'groups'" in err
    assert "declare" not in err  # the declaration is right: step age_top made it so


def test_a_type_the_plugin_does_not_accept_at_this_step(write_recipe, capsys):
    # global_recode makes income ordinal; noise accepts integer or continuous
    code, err, _ = validate(write_recipe, capsys, """\
steps:
  - {id: inc, method: global_recode, params: {variable: income, breaks: [0, 1000, 1e9]}}
  - {id: top, method: noise, params: {variables: [income]}}
""")
    assert code == 1
    assert any("steps[1].params.variables[0]: 'income' is ordinal text at this step (made so "
               "by step 'inc'); noise accepts integer, continuous" in line
               for line in err), err


def test_a_number_for_an_ordinal_made_by_an_earlier_step(write_recipe, capsys):
    # top_bottom_code codes an ordinal by a category of its order, not by a number
    code, err, _ = validate(write_recipe, capsys, """\
steps:
  - {id: inc, method: global_recode, params: {variable: income, breaks: [0, 1000, 1e9]}}
  - {id: top, method: top_bottom_code, params: {variable: income, top: {value: 5}}}
""")
    assert code == 1
    assert any("steps[1].params.top.value: 'income' is ordinal text at this step (made so by "
               "step 'inc'): 'income' is ordinal: give its top category in the declared order "
               "as 'category', not 'value'" in line for line in err), err


def test_merging_intervals_made_by_an_earlier_recode_is_accepted(write_recipe, capsys):
    # global_recode with breaks makes age ordinal, so merging its intervals with groups
    # is right; checked against the declaration (integer) it was refused
    code, err, _ = validate(write_recipe, capsys, """\
steps:
  - id: age10
    method: global_recode
    params: {variable: age, breaks: [0, 20, 40, 130], labels: [young, middle, old]}
  - id: age_groups
    method: global_recode
    params: {variable: age, groups: {adult: [middle, old]}}
""")
    assert (code, err) == (0, [])


def test_a_measure_pairing_records_after_sampling(write_recipe, capsys):
    # information_loss compares record i with record i of the original data; after
    # sampling the records differ (run: "the records differ from the reference")
    code, err, name = validate(write_recipe, capsys, """\
steps:
  - {id: sample, method: sampling, params: {fraction: 0.5}}
  - {id: noisy, method: noise, params: {variables: [income]}}
  - {id: loss, measure: information_loss}
""")
    assert code == 1
    # line 14, column 25: the measure's name
    assert f"{name}:14:25: steps[2]: information_loss compares each record with the same " \
           "record of the original data, but step 'sample' (sampling) changed the records " \
           "before this step: measure before it, or compare with the data after it " \
           "(reference: sample)" in err


def test_a_reference_after_the_same_sampling_is_accepted(write_recipe, capsys):
    code, err, _ = validate(write_recipe, capsys, """\
steps:
  - {id: sample, method: sampling, params: {fraction: 0.5}}
  - {id: noisy, method: noise, params: {variables: [income]}}
  - {id: loss, measure: information_loss, params: {reference: sample}}
  - {id: risk, measure: k_anonymity}
""")
    assert (code, err) == (0, [])


def test_a_reference_whose_records_were_changed(write_recipe, capsys):
    # the measure sees the original records, its reference a sample of them
    code, err, _ = validate(write_recipe, capsys, """\
steps:
  - {id: sample, method: sampling, params: {fraction: 0.5}}
  - {id: supp, measure: suppressions, input: original, params: {reference: sample}}
""")
    assert code == 1
    assert any("steps[1].params.reference: suppressions compares each record with the same "
               "record of the data after step 'sample', but step 'sample' (sampling) changed "
               "the records there" in line for line in err)


def test_a_removed_variable_is_named_with_the_step_that_removed_it(write_recipe, capsys):
    code, err, _ = validate(write_recipe, capsys, """\
steps:
  - {id: drop, method: remove_variables, params: {variables: [income]}}
  - {id: noisy, method: noise, params: {variables: [income]}}
""")
    assert code == 1
    assert any("steps[1].params.variables[0]: 'income' was removed by step 'drop' before "
               "this step" in line for line in err)


def test_each_grid_variant_is_followed(write_recipe, capsys):
    # only the labelled variant makes age text
    code, err, _ = validate(write_recipe, capsys, """\
steps:
  - id: age_top
    method: top_bottom_code
    params: {variable: age}
    grid: {top: [{value: 80}, {value: 80, label: "80+"}]}
  - {id: age10, method: global_recode, params: {variable: age, breaks: [0, 40, 130]}}
""")
    assert code == 1
    assert any("steps[1].params.breaks: 'age' is ordinal text at this step (made so by step "
               "'age_top'): breaks need a numeric variable" in line for line in err)


def test_a_type_the_data_may_give_is_a_warning(write_recipe, capsys):
    # top coding by the mean of the tail may give fractional ages (continuous), which
    # categorical_information_loss does not accept; whole ones keep age integer
    code, err, _ = validate(write_recipe, capsys, """\
steps:
  - {id: age_top, method: top_bottom_code,
     params: {variable: age, top: {value: 80, replace: mean}}}
  - {id: cil, measure: categorical_information_loss, params: {variables: [age]}}
""")
    assert code == 0
    assert any("warning: steps[1].params.variables[0]: 'age' may be continuous at this "
               "step (made so by step 'age_top'), which categorical_information_loss does "
               "not accept; it stays integer only if the data allow" in line for line in err)


class _Opaque(Method):
    """A third-party method that declares nothing about what it does to the variables."""

    name = "opaque_method_for_tests"
    summary = "A method without output declarations (test)."
    params: ClassVar[dict] = {"type": "object", "properties": {
        "variable": {"type": "string"}}}

    def apply(self, data, params, rng):
        return MethodResult(data, {})


@pytest.fixture
def opaque(monkeypatch):
    monkeypatch.setitem(registry._plugins, _Opaque.name, _Opaque())


def test_an_undeclared_method_keeps_the_metadata(write_recipe, capsys, opaque):
    # nothing is known of what it does: age is taken to be integer still (as declared)
    code, err, _ = validate(write_recipe, capsys, f"""\
steps:
  - {{id: x, method: {_Opaque.name}, params: {{variable: age}}}}
  - {{id: top, method: top_bottom_code, params: {{variable: age, top: {{value: 80}}}}}}
""")
    assert (code, err) == (0, [])


def test_the_plan_carries_the_metadata_each_step_sees(write_recipe):
    path = write_recipe(HEAD + """\
steps:
  - {id: age10, method: global_recode, params: {variable: age, breaks: [0, 40, 130]}}
  - {id: risk, measure: k_anonymity}
""")
    plan = sdcflow.validate(path, data=False).plan
    assert plan.node("age10").meta.variables["age"].type == "integer"
    # R's cut labels for the breaks 0, 40, 130 with include_lowest (the default)
    assert plan.node("risk").meta.variables["age"].order == ("[0,40]", "(40,130]")


def test_a_constraint_on_a_variable_made_text_is_a_warning(write_recipe, capsys):
    # after the recode age holds interval labels: the range cannot be checked and the
    # measure would count no violations (applicable: false), so a check on its total
    # would pass without checking anything
    code, err, _ = validate(write_recipe, capsys, """\
constraints:
  - {id: age-range, expr: "0 <= age <= 125"}
  - {id: income-positive, expr: "income >= 0"}
steps:
  - {id: age10, method: global_recode, params: {variable: age, breaks: [0, 40, 130]}}
  - {id: edits, measure: constraints}
  - {id: edits_income, measure: constraints, params: {constraints: [income-positive]}}
""")
    assert code == 0
    assert [line.split(": ", 1)[1] for line in err if "warning" in line] == [
        ("warning: steps[1].params: 'age' is ordinal text at this step (made so by step "
        "'age10'): constraint 'age-range' on 'age' cannot be checked on the data this step "
        "sees (text can only be compared with == or !=): it will count no violations; check "
        "it before the recode, or leave it out with 'constraints'")]


def test_a_cycle_through_input_and_other_problems_are_reported_together(write_recipe,
                                                                        capsys):
    code, err, _ = validate(write_recipe, capsys, """\
steps:
  - {id: c, method: top_bottom_code, params: {variable: age, top: {value: 3}}, input: d}
  - {id: d, method: top_bottom_code, params: {variable: income, top: {value: 3}}, input: c}
  - {id: e, measure: k_anonymity}
checks: ["e.violation[2] < 1"]
""")
    assert code == 1
    text = "\n".join(err)
    assert "steps form a cycle through 'input': c -> d -> c" in text
    assert "checks[0]: e has no 'violation'; did you mean 'violations'?" in text


def test_data_checks_of_a_step_that_sees_recoded_values(write_recipe, capsys, tmp_path):
    # pram's matrix names the merged category 2-3, as the step sees walls after the
    # recode; checked against the values as loaded (2, 3, 9) it was refused ("category
    # '2' has no row in the matrix"). The data checks of such a step wait for the run.
    text = """\
  walls: {role: pram}
steps:
  - {id: wg, method: global_recode, params: {variable: walls, groups: {"2-3": ["2", "3"]}}}
  - id: pr
    method: pram
    params:
      variables: [walls]
      matrix:
        walls:
          "9": {"9": 0.9, "2-3": 0.1}
          "2-3": {"9": 0.1, "2-3": 0.9}
release: {path: out.csv}
"""
    code, err, path = validate(write_recipe, capsys, text)
    assert (code, err) == (0, [])
    result = sdcflow.run(path, tmp_path / "out", use_cache=False)
    assert set(result.data["walls"].dropna()) <= {"9", "2-3"}
