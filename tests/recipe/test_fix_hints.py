"""Errors that point at the fix (sdcflow/recipe/_misplaced.py, sdcflow.errors): the
corpus (tests/recipes/invalid/140-145) has the messages; these are the cases where a hint
would be wrong and must not be given."""

from helpers import validate_cli


def test_no_declaration_hint_when_an_earlier_step_made_the_variable_categorical(
        write_recipe, capsys):
    # age is declared integer; step a recodes it into interval labels, so width on step b
    # fails because of step a, not of the declaration
    path = write_recipe("""
        sdcflow: 1
        name: t
        seed: 1
        data: {builtin: testdata}
        variables:
          age: {role: key, type: integer}
        steps:
          - {id: a, method: global_recode, params: {variable: age, breaks: [0, 20, 130]}}
          - {id: b, method: global_recode, params: {variable: age, width: 10}}
    """)
    code, err = validate_cli(path, capsys)
    assert code == 1
    assert "(made so by step 'a'): width needs a numeric variable; 'age' is ordinal" in \
        err[0]
    assert "declare" not in err[0]


def test_an_unknown_step_key_that_is_no_parameter_keeps_the_did_you_mean(write_recipe,
                                                                           capsys):
    path = write_recipe("""
        sdcflow: 1
        name: t
        seed: 1
        data: {builtin: testdata}
        variables:
          age: {role: key, type: integer}
        steps:
          - {id: a, measure: k_anonymity, parms: {k: 3}}
    """)
    code, err = validate_cli(path, capsys)
    assert code == 1
    assert "steps[0]: unknown key 'parms' (did you mean 'params'?) (allowed: " in err[0]
