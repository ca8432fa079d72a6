"""A control character (a NUL byte above all) in any key or value of a recipe is a clean
recipe error, never an internal one: Python's parser refuses NUL with a ValueError
("source code string cannot contain null bytes"), the operating system a path holding
one. Each string of two shipped recipes (one on shipped data, one reading files and
tables) gets a NUL in turn, and the recipe is validated
with its data."""

import copy
from pathlib import Path

import pytest
import yaml

from sdcflow.errors import RecipeError, SdcflowError
from sdcflow.recipe import recipe_from_text, validate

RECIPES = Path(__file__).resolve().parents[2] / "recipes"


def _string_paths(node, prefix=()):
    """The path of every string value, and of every mapping key (as ("key", name))."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield (*prefix, ("key", key))
            yield from _string_paths(value, (*prefix, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _string_paths(value, (*prefix, i))
    elif isinstance(node, str):
        yield prefix


def _inject(doc, path, char):
    doc = copy.deepcopy(doc)
    node = doc
    for part in path[:-1]:
        node = node[part]
    last = path[-1]
    if isinstance(last, tuple):  # a key
        key = last[1]
        node[f"{key[:1]}{char}{key[1:]}" if isinstance(key, str) else key] = node.pop(key)
    else:
        node[last] = f"{node[last][:1]}{char}{node[last][1:]}"
    return doc


@pytest.mark.parametrize("name", ["quickstart", "tables_profession_town"])
def test_control_characters_anywhere_are_recipe_errors(name):
    base = yaml.safe_load((RECIPES / f"{name}.yaml").read_text())
    where = RECIPES / "fuzz.yaml"  # (never written: the recipe's folder, for its files)
    cases = 0
    for path in _string_paths(base):
        for char in ("\x00",):
            text = yaml.safe_dump(_inject(base, path, char), allow_unicode=True)
            try:
                validate(recipe_from_text(text, str(where)))
            except SdcflowError as exc:
                assert "Traceback" not in str(exc)
            cases += 1
    assert cases > 50


def test_nul_in_a_check_names_the_character():
    text = (RECIPES / "quickstart.yaml").read_text().replace(
        '"edits.total == 0"', '"edits.total\\0 == 0"')
    with pytest.raises(RecipeError) as info:
        validate(recipe_from_text(text, str(RECIPES / "q.yaml")))
    assert "control character U+0000 at character 12" in str(info.value)
