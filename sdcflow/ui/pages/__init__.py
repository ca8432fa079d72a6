"""The workbench's pages, in the order of the navigation bar. A page is one module that
declares ``PAGE`` (a :class:`Page`); adding one is adding its module here."""

from __future__ import annotations

from . import hierarchies, home, recipe_view, tables
from ._page import Page

PAGES: list[Page] = [home.PAGE, tables.PAGE, hierarchies.PAGE, recipe_view.PAGE]

__all__ = ["PAGES", "Page"]
