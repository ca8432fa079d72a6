"""sdcflow: declarative, reproducible statistical disclosure control.

The Python API mirrors the command line: :func:`load_recipe`, :func:`validate`,
:func:`plan` and :func:`run`.
"""

from __future__ import annotations

from ._version import __version__
from .engine import RunResult, run
from .errors import CheckFailed, PluginError, Problem, RecipeError, SdcflowError
from .recipe import Recipe, load_recipe, validate


def plan(recipe, *, allow_paths=()):
    """The execution plan of a recipe (validated with its data): a :class:`sdcflow.recipe.plan.Plan`
    (``allow_paths`` as for :func:`run`)."""
    return validate(recipe, allow_paths=allow_paths).plan


__all__ = [
    "CheckFailed",
    "PluginError",
    "Problem",
    "Recipe",
    "RecipeError",
    "RunResult",
    "SdcflowError",
    "__version__",
    "load_recipe",
    "plan",
    "run",
    "validate",
]
