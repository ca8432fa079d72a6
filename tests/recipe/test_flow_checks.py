"""Release checks (and ``score`` expressions) validated against what each measure
declares its summary contains (sdcflow.recipe._result_checks): a misspelt key, a
subscript that is not among the keys, a mapping compared with a number, text ordered
with ``<`` are recipe mistakes, reported by ``sdcflow validate`` at the check's position
with exit 1, before anything runs (exit 3 is kept for checks that really fail)."""

from typing import ClassVar

import pytest
from helpers import validate_cli

from sdcflow.plugins import registry
from sdcflow.plugins.registry import Measure, MeasureResult

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
"""


def validate(write_recipe, capsys, text: str) -> tuple[int, list[str], str]:
    path = write_recipe(HEAD + text)
    return (*validate_cli(path, capsys), str(path))


def test_misspelt_result_key_is_named_with_the_right_one(write_recipe, capsys):
    code, err, name = validate(write_recipe, capsys, """\
steps:
  - {id: r, measure: k_anonymity, params: {k: [2, 3, 5]}}
checks:
  - "r.violation[3] == 0"
""")
    assert code == 1
    # line 13, column 5: where the check's text starts in the recipe
    assert f"{name}:13:5: checks[0]: r has no 'violation'; did you mean 'violations'?" in err


def test_subscript_not_among_the_k_values(write_recipe, capsys):
    code, err, name = validate(write_recipe, capsys, """\
steps:
  - {id: risk, measure: k_anonymity, params: {k: [2, 3, 5]}}
checks:
  - {expr: "risk.violations[4] <= 10", message: too many}
""")
    assert code == 1
    assert f"{name}:13:12: checks[0]: risk.violations has no [4]: its keys are the " \
           "values of k (2, 3, 5)" in err


def test_a_mapping_by_variable_compared_with_a_number(write_recipe, capsys):
    code, err, name = validate(write_recipe, capsys, """\
steps:
  - {id: kanon, method: local_suppression, params: {k: 3}}
  - {id: nsupp, measure: suppressions}
checks:
  - "nsupp.percent < 5"
""")
    assert code == 1
    assert f"{name}:14:5: checks[0]: nsupp.percent is a mapping by variable (urbrur, sex, " \
           "age), not a number: compare one of its values, e.g. 'nsupp.percent.urbrur < 5' " \
           "(one check per variable)" in err


def test_a_mapping_in_arithmetic_and_a_list_compared(write_recipe, capsys):
    code, err, _ = validate(write_recipe, capsys, """\
steps:
  - {id: risk, measure: k_anonymity, params: {k: [2, 3]}}
checks:
  - "risk.violations / 2 < 10"
  - "risk.variables == 3"
""")
    assert code == 1
    text = "\n".join(err)
    assert "checks[0]: risk.violations is a mapping by k (2, 3), not a number: use one " \
           "of its values, e.g. 'risk.violations[2] / 2 < 10'" in text
    assert "checks[1]: risk.variables is a list, not a number" in text


def test_text_ordered_with_less_than(write_recipe, capsys):
    code, err, _ = validate(write_recipe, capsys, """\
steps:
  - {id: link, measure: record_linkage, params: {variables: [income]}}
checks:
  - "link.method < 2"
  - "link.method == 2"
""")
    assert code == 1
    text = "\n".join(err)
    assert "checks[0]: link.method is text: it can only be compared with == or != (e.g. " \
           "link.method == 'strongest')" in text
    # record_linkage's method is the text 'strongest' here: comparing it with a number
    # is always false
    assert "checks[1]: link.method is text and 2 is a number: they are never equal" in text


def test_a_value_that_is_always_null(write_recipe, capsys):
    # without a weight variable frequencies reports no Fk (null), so the check could
    # never be evaluated
    code, err, _ = validate(write_recipe, capsys, """\
steps:
  - {id: freq, measure: frequencies}
checks:
  - "freq.Fk.max < 3"
""")
    assert code == 1
    assert any("checks[0]: freq.Fk is always null here (no variable has role weight), so it "
               "has no 'max'" in line for line in err)


def test_a_non_boolean_check_is_refused_at_its_position(write_recipe, capsys):
    code, err, name = validate(write_recipe, capsys, """\
steps:
  - {id: risk, measure: k_anonymity}
checks:
  - "risk.violations[3]"
""")
    assert code == 1
    assert f"{name}:13:5: checks[0]: 'risk.violations[3]' is not a condition" in err[0]


def test_every_grid_variant_is_checked_and_named(write_recipe, capsys):
    code, err, _ = validate(write_recipe, capsys, """\
steps:
  - {id: risk, measure: k_anonymity, grid: {k: [2, 3]}}
checks:
  - "risk.violations[3] <= 100"
""")
    assert code == 1
    assert any("checks[0]: risk.violations has no [3]: its keys are the values of k (2) "
               "(in variant k=2)" in line for line in err)


def test_with_a_released_variant_only_its_checks_count(write_recipe, capsys):
    # the engine evaluates the checks only for the released variant (k = 3)
    code, err, _ = validate(write_recipe, capsys, """\
steps:
  - {id: kanon, method: local_suppression, grid: {k: [2, 3]}}
  - {id: risk, measure: k_anonymity, params: {k: 3}}
  - {id: nsupp, measure: suppressions}
checks:
  - "risk.violations[3] <= 100"
  - "nsupp.total < 500"
release: {path: out.csv, variant: {k: 3}}
""")
    assert (code, err) == (0, [])


def test_score_expressions_must_give_numbers(write_recipe, capsys):
    code, err, name = validate(write_recipe, capsys, """\
steps:
  - {id: kanon, method: local_suppression, params: {k: 3}}
  - {id: nsupp, measure: suppressions}
  - {id: risk, measure: k_anonymity, params: {k: [2, 3]}}
  - id: sc
    measure: score
    params: {il: "nsupp.percent", dr: "risk.violation[3] < 1"}
""")
    assert code == 1
    text = "\n".join(err)
    assert f"{name}:16:18: steps[3].params.il: nsupp.percent is a mapping by variable " \
           "(urbrur, sex, age), not a number: use one of its values, e.g. " \
           "'nsupp.percent.urbrur'" in text
    assert "steps[3].params.dr: risk has no 'violation'; did you mean 'violations'?" in text


def test_score_that_is_a_condition_is_refused(write_recipe, capsys):
    code, err, _ = validate(write_recipe, capsys, """\
steps:
  - {id: risk, measure: k_anonymity, params: {k: [2, 3]}}
  - {id: sc, measure: score, params: {il: "risk.percent[2]", dr: "risk.percent[3] < 5"}}
""")
    assert code == 1
    assert any("steps[1].params.dr: 'risk.percent[3] < 5' is a condition (true or false), "
               "not a number" in line for line in err)


def test_correct_checks_and_scores_validate(write_recipe, capsys):
    code, err, _ = validate(write_recipe, capsys, """\
steps:
  - {id: risk0, measure: k_anonymity, input: original, params: {k: [2, 3]}}
  - {id: kanon, method: local_suppression, params: {k: 3}}
  - {id: risk, measure: k_anonymity, params: {k: [2, 3]}}
  - {id: nsupp, measure: suppressions}
  - {id: sc, measure: score, params: {il: "nsupp.total / 45.8", dr: "risk.percent[2]"}}
checks:
  - "risk.violations[3] <= risk0.violations['3'] and nsupp.percent.age < 5"
  - "max(nsupp.total, 1) >= 1 and sc.score <= 100 and risk.variables != risk0.variables"
  - "not nsupp.reference != 'original'"
""")
    assert (code, err) == (0, [])


class _Opaque(Measure):
    """A third-party measure that declares nothing about its result."""

    name = "opaque_measure_for_tests"
    summary = "A measure without a result declaration (test)."
    params: ClassVar[dict] = {"type": "object", "properties": {}}

    def evaluate(self, data, params, rng, *, original):
        return MeasureResult({"anything": 1})


@pytest.fixture
def opaque(monkeypatch):
    monkeypatch.setitem(registry._plugins, _Opaque.name, _Opaque())


def test_checks_on_an_undeclared_result_pass_with_a_warning(write_recipe, capsys, opaque):
    code, err, _ = validate(write_recipe, capsys, f"""\
steps:
  - {{id: x, measure: {_Opaque.name}}}
checks:
  - "x.whatever[3] < 5"
""")
    assert code == 0
    assert any("warning: checks[0]: opaque_measure_for_tests does not declare what its "
               "result contains, so 'x' is checked only when the recipe runs" in line
               for line in err)


def test_a_problem_of_many_variants_names_three(write_recipe, capsys):
    # the four variants with k = 2 have no [3]
    code, err, _ = validate(write_recipe, capsys, """\
steps:
  - {id: risk, measure: k_anonymity, grid: {k: [2, 3], alpha: [0.25, 0.5, 0.75, 1]}}
checks:
  - "risk.violations[3] <= 100"
""")
    assert code == 1
    assert any("checks[0]: risk.violations has no [3]: its keys are the values of k (2) (in "
               "variants alpha=0.25,k=2; alpha=0.5,k=2; alpha=0.75,k=2 and 1 more)" in line
               for line in err), err
