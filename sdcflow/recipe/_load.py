"""Reading a recipe: the file's bytes as UTF-8 text (not a pipe or a device), the YAML with
positions, the schema, then the semantic checks (:mod:`._semantic`); not the data. Every
problem is collected; :class:`RecipeError` reports them all at once."""

from __future__ import annotations

import hashlib
import stat
from collections.abc import Iterable
from pathlib import Path

from ..data.recipe_files import allowed_roots
from ..errors import Problem, RecipeError
from ._model import Recipe
from ._overrides import apply_overrides
from ._schema import recipe_schema, schema_problems
from ._semantic import _semantic
from ._yaml import load_yaml


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError, RuntimeError):  # (RuntimeError: a symlink loop, Python 3.11)
        return str(path)


def load_recipe(path: str | Path, *, allow_paths: Iterable[str | Path] = (),
                overrides: Iterable[str] = ()) -> Recipe:
    """Read and check a recipe file (schema and semantics, not the data). The files it
    names are read from its folder, and from the folders (or files) of ``allow_paths``
    (:mod:`sdcflow.data.recipe_files`). ``overrides``: ``PATH=VALUE`` texts that change
    the file's values before the checks (``--set``, :mod:`._overrides`).

    Raises :class:`RecipeError` listing every problem found."""
    recipe, problems = _check_file(Path(path), allowed_roots(allow_paths), tuple(overrides))
    if recipe is None or any(p.severity == "error" for p in problems):
        raise RecipeError(problems)
    return recipe


def recipe_from_text(text: str, file: str = "<recipe>", path: Path | None = None, *,
                     allow_paths: Iterable[str | Path] = ()) -> Recipe:
    """Check recipe ``text`` as :func:`load_recipe` does (``path`` anchors relative paths)."""
    recipe, problems = _check_text(text, file, path or Path(file), allowed_roots(allow_paths))
    if recipe is None or any(p.severity == "error" for p in problems):
        raise RecipeError(problems)
    return recipe


def as_recipe(recipe: Recipe | str | Path, allow_paths: Iterable[str | Path] = ()) -> Recipe:
    """``recipe`` loaded (:func:`load_recipe`), or as it is when it is loaded already."""
    if isinstance(recipe, Recipe):
        loaded_with(recipe, allow_paths)
        return recipe
    return load_recipe(recipe, allow_paths=allow_paths)


def loaded_with(recipe: Recipe, allow_paths: Iterable[str | Path]) -> None:
    """Refuse ``allow_paths`` other than those a loaded recipe was loaded with: its files
    were read when it was loaded (give them to :func:`load_recipe`)."""
    allowed = allowed_roots(allow_paths)
    if allowed and set(allowed) != set(recipe.allowed):
        raise ValueError("the recipe is loaded already: give allow_paths to load_recipe, "
                         "which reads the files it names")


def _check_file(path: Path, allowed: tuple[Path, ...] = (), overrides: tuple[str, ...] = ()
                ) -> tuple[Recipe | None, list[Problem]]:
    display = _display(path)
    try:
        mode = path.stat().st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):  # reading a pipe would block
            return None, [Problem(display, None, None, "cannot read recipe: not a regular"
                                  " file (a pipe, socket or device)")]
        raw = path.read_bytes()
    except OSError as exc:
        return None, [Problem(display, None, None, f"cannot read recipe: {exc.strerror or exc}")]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        return None, [Problem(display, line, col, "the recipe is not UTF-8 text "
                              f"(byte 0x{raw[exc.start]:02x})")]
    return _check_text(text, display, path, allowed, overrides)


def _check_text(text: str, file: str, path: Path, allowed: tuple[Path, ...] = (),
                overrides: tuple[str, ...] = ()) -> tuple[Recipe | None, list[Problem]]:
    """Schema and semantic checks; returns the recipe (None if unusable) and all problems."""
    doc = load_yaml(text, file)
    problems = list(doc.problems)
    if any(p.severity == "error" for p in problems):
        return None, problems
    applied = []
    if overrides:
        doc, applied, found = apply_overrides(doc, overrides)
        problems += found
    if not isinstance(doc.data, dict):
        return None, problems + [doc.problem((), "a recipe is a mapping of sections "
                                                 "(sdcflow, name, seed, data, ...)")]
    recipe = Recipe(path=path, doc=doc, sha256=hashlib.sha256(text.encode()).hexdigest(),
                    text=text, allowed=allowed, overrides=applied)
    schema = schema_problems(doc, doc.data, recipe_schema())
    problems += schema
    if any(p.path[:1] == ("sdcflow",) for p in schema):
        return None, problems  # another format version: the rest cannot be read as v1
    problems += _semantic(recipe, [p.path for p in schema])
    recipe.warnings = [p for p in problems if p.severity == "warning"]
    return recipe, problems
