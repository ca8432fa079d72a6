"""What a page of the workbench declares."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Page:
    """``name`` (unique), ``label`` (the navigation bar's), ``path`` (its address) and its
    Starlette ``routes``; ``needs_recipe``: the navigation shows it only when a recipe is
    open."""

    name: str
    label: str
    path: str
    routes: list = field(default_factory=list)
    needs_recipe: bool = True
