"""The workbench's pages, in the order of the navigation bar. A page is one module that
declares ``PAGE`` (a :class:`Page`); adding one is adding its module here."""

from __future__ import annotations

from . import data, home, recipe_view, run, steps
from ._page import Page

# the navigation order: Project, Data, Risk, Steps, Compare, Tables, Hierarchies, Run, Recipe
PAGES: list[Page] = [home.PAGE, data.PAGE, steps.PAGE, run.PAGE, recipe_view.PAGE]

__all__ = ["PAGES", "Page"]
