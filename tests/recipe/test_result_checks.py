"""The shapes of expressions over measure results (sdcflow.recipe._result_checks): each
mistake a check can make with a declared result, found without running anything."""

import pytest

from sdcflow.constraints import parse
from sdcflow.plugins.results import (
    ANY,
    COUNT,
    NAMES,
    NUMBER,
    TEXT,
    Keyed,
    ListOf,
    Null,
    Text,
    by_values,
    by_variable,
    record,
)
from sdcflow.recipe._result_checks import expression_problems

SHAPES = {
    "risk": record(variables=NAMES, violations=by_values("k", [2, 3, 5], COUNT),
                   by_stratum=Keyed(by_values("k", [2, 3, 5], COUNT), "stratum")),
    "supp": record(percent=by_variable(["age", "sex"]), total=COUNT, reference=TEXT),
    "link": record(method=Text(("distance",)), percent=NUMBER.with_null(),
                   by_scenario=ListOf(record(percent=NUMBER)), sizes=ListOf(NUMBER)),
    "freq": record(Fk=Null("no variable has role weight")),
    "other": None,  # a measure that declares nothing
    "loose": ANY,
}


def problems(text: str, number: bool = False) -> list[str]:
    expr = parse(text, subscripts=True, condition=not number)
    return expression_problems(expr.tree.body, SHAPES, number=number)


@pytest.mark.parametrize("text", [
    "risk.violations[3] <= 10",
    "risk.violations['5'] == supp.total",  # a key as text, as measures.json has it
    "risk.by_stratum.rural[2] < 3",  # strata are known only from the data
    "supp.percent.age + supp.percent['sex'] < 5",
    "link.percent <= 10",  # may be null at run time: not known before
    "link.by_scenario[0]['percent'] < 50 and max(link.sizes) < 3",
    "link.method == 'distance' and link.method in ['distance', 'weighted']",
    "risk.variables == risk.variables",
    "other.anything[3]['at_all'] < 1",
    "loose.x.y == 'z'",
    "abs(risk.violations[2] - 3) <= round(supp.total / 2)",
])
def test_correct_expressions(text):
    assert problems(text) == []


@pytest.mark.parametrize("text, message", [
    ("risk.violation[3] == 0", "risk has no 'violation'; did you mean 'violations'?"),
    ("risk.nothing_like_it < 1", ("risk has no 'nothing_like_it' (it has: variables, "
                                 "violations, by_stratum)")),
    ("risk.violations[4] < 1", ("risk.violations has no [4]: its keys are the values of k "
                               "(2, 3, 5)")),
    ("supp.percent.agee < 1", ("supp.percent has no 'agee': its keys are the variables "
                              "(age, sex) (did you mean 'age'?)")),
    ("supp.total.age < 1", "supp.total is a count, so it has no 'age'"),
    ("link.by_scenario.percent < 1", ("link.by_scenario is a list: pick an item by its "
                                     "position, e.g. link.by_scenario[0]")),
    ("supp.percent >= 5", ("supp.percent is a mapping by variable (age, sex), not a number: "
                          "compare one of its values, e.g. 'supp.percent.age >= 5' (one "
                          "check per variable)")),
    ("risk.violations[2] < supp.percent", ("supp.percent is a mapping by variable (age, sex), "
                                          "not a number: compare one of its values, e.g. "
                                          "'risk.violations[2] < supp.percent.age' (one "
                                          "check per variable)")),
    ("link.sizes < 3", ("link.sizes is a list, not a number: use min(link.sizes) or "
                       "max(link.sizes)")),
    ("supp.reference > 'a'", ("supp.reference is text: it can only be compared with == or "
                             "!= (e.g. supp.reference == 'some text')")),
    ("supp.reference + 1 > 2", "supp.reference is text, not a number"),
    ("supp.reference in [1, 2]", ("supp.reference is text and [1, 2] holds numbers: it is "
                                 "never among them")),
    ("supp.total in ['a']", ("supp.total is a number and ['a'] holds text: it is never "
                            "among them")),
    ("freq.Fk.max < 2", ("freq.Fk is always null here (no variable has role weight), so it "
                        "has no 'max'")),
    ("freq.Fk == 0", ("freq.Fk is always null here (no variable has role weight): it cannot "
                     "be compared")),
    ("link.method != 'distanse'", ("link.method is one of 'distance' here: it is never "
                                  "'distanse'")),
    ("(supp.total < 1) < 2", "supp.total < 1 is true or false: compare it with == or !="),
])
def test_mistakes(text, message):
    assert problems(text) == [message]


def test_every_mistake_of_a_check_is_reported():
    assert problems("risk.violation[3] == 0 and supp.percent < 5") == [
        "risk has no 'violation'; did you mean 'violations'?",
        ("supp.percent is a mapping by variable (age, sex), not a number: compare one of its "
        "values, e.g. 'risk.violation[3] == 0 and supp.percent.age < 5' (one check per "
        "variable)")]


def test_expressions_that_must_give_a_number():
    assert problems("supp.total / 2", number=True) == []
    assert problems("supp.total < 2", number=True) == [
        "'supp.total < 2' is a condition (true or false), not a number"]
    assert problems("supp.reference", number=True) == [
        "supp.reference is text, not a number"]
    assert problems("risk.violations", number=True) == [
        ("risk.violations is a mapping by k (2, 3, 5), not a number: use one of its values, "
        "e.g. 'risk.violations[2]'")]
