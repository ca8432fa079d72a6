"""No input gives a traceback: random YAML and random recipe-like documents only ever
produce a clean RecipeError (the issue's 'hypothesis test that feeds random YAML')."""

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sdcflow.errors import RecipeError
from sdcflow.recipe import recipe_from_text

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-10, 10**6),
                    st.floats(allow_nan=True), st.text(max_size=12),
                    st.sampled_from(["testdata", "age", "key", "global_recode", "k_anonymity",
                                     "original", "on", "NO", "08", "a + b == c", "k"]))
KEYS = st.sampled_from(["sdcflow", "name", "seed", "data", "variables", "steps", "checks",
                        "release", "constraints", "id", "method", "measure", "params", "role",
                        "type", "builtin", "path", "k", "variable", "breaks", "expr", "grid",
                        "input", "after", "age", "sex"]) | st.text(max_size=6)
DOCS = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) |
                    st.dictionaries(KEYS, inner, max_size=6), max_leaves=30)


def check_clean(text):
    try:
        recipe_from_text(text, "fuzz.yaml")
    except RecipeError as exc:
        assert exc.problems
        for p in exc.problems:
            assert str(p).startswith("fuzz.yaml")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=200))
def test_random_text(text):
    check_clean(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(DOCS)
def test_random_documents(doc):
    check_clean(yaml.safe_dump(doc))


BASE = {"sdcflow": 1, "name": "f", "seed": 1, "data": {"builtin": "testdata"},
        "variables": {"age": {"role": "key", "type": "integer"}, "sex": {"role": "key"}}}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.dictionaries(KEYS, DOCS, max_size=5), max_size=4),
       st.lists(SCALARS | DOCS, max_size=3))
def test_random_steps_and_checks(steps, checks):
    check_clean(yaml.safe_dump({**BASE, "steps": steps, "checks": checks}))
