"""Recipes: YAML with positions, the JSON Schema, and the semantic checks."""

from ._load import as_recipe, load_recipe, recipe_from_text
from ._model import ORIGINAL, CheckSpec, Recipe, StepSpec, TableSpec
from ._schema import recipe_schema
from ._validate import Validated, validate
from ._yaml import YamlDocument, load_yaml

__all__ = [
    "ORIGINAL",
    "CheckSpec",
    "Recipe",
    "StepSpec",
    "TableSpec",
    "Validated",
    "YamlDocument",
    "as_recipe",
    "load_recipe",
    "load_yaml",
    "recipe_from_text",
    "recipe_schema",
    "validate",
]
