"""What the semantic methods share: a variable's taxonomy, and the checks that its
declaration and the data's values fit it."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from ..data import Dataset, Metadata
from ..data.taxonomy import parents_of, variable_taxonomy
from ..data.text import text_column
from ..kernels.semantic.taxonomy import Taxonomy, TaxonomyError, from_levels


def taxonomy_problems(name: str, path: tuple, meta: Metadata) -> Iterable[tuple[tuple, str]]:
    """A variable that is not categorical, or has neither a taxonomy nor a hierarchy."""
    var = meta.variables.get(name)
    if var is None:
        return
    if var.type != "categorical":
        yield path, f"'{name}' is {var.type}: semantic methods need a categorical variable"
    elif var.taxonomy is None and not var.hierarchy:
        yield path, (f"'{name}' has no taxonomy: declare one (variables.{name}.taxonomy) or a "
                     "hierarchy (categories merged or recoded by global_recode leave none)")
    elif var.taxonomy is None:
        try:
            from_levels(var.hierarchy)
        except TaxonomyError as exc:
            yield path, (f"the hierarchy of '{name}' (variables.{name}.hierarchy) serves as its "
                         f"taxonomy, but is not a tree: {exc}")


def hierarchy_taxonomy(var, tax: Taxonomy | None = None) -> dict | None:
    """The taxonomy a generalised variable carries on (``{"parents": ...}``): its own, else
    that of its hierarchy (``tax``, if built already); None without one, or when the
    hierarchy is no tree (the steps that need it say so)."""
    if var.taxonomy is not None or not var.hierarchy:
        return var.taxonomy
    try:
        return {"parents": parents_of(tax or from_levels(var.hierarchy))}
    except TaxonomyError:
        return None


def data_taxonomy(data: Dataset, name: str) -> tuple[Taxonomy, np.ndarray]:
    """The variable's taxonomy and each record's concept code (-1 if missing).

    Raises :class:`TaxonomyError` naming the values the taxonomy lacks."""
    col = data.frame[name]
    words = sorted(col.dropna().unique().tolist())
    tax = variable_taxonomy(data.variables[name], words)
    index = tax.index()
    unknown = [w for w in words if w not in index]
    if unknown:
        shown = ", ".join(f"'{w}'" for w in unknown[:5])
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        raise TaxonomyError(f"'{name}' has values outside its taxonomy ({len(unknown)}): "
                            f"{shown}{more}")
    codes = pd.Categorical(col, categories=list(tax.names)).codes
    return tax, np.asarray(codes, dtype=np.int64)


def data_problems(data: Dataset, name: str, path: tuple) -> Iterable[tuple[tuple, str]]:
    """Values missing from the taxonomy."""
    if name not in data.frame or name not in data.variables:
        return
    var = data.variables[name]
    if var.taxonomy is None and not var.hierarchy:
        return  # (no taxonomy, or one that failed at its declaration: reported there)
    try:
        data_taxonomy(data, name)
    except TaxonomyError as exc:
        yield path, str(exc)


def as_text(tax: Taxonomy, codes: np.ndarray, index: pd.Index) -> pd.Series:
    """Concept codes as the text column of their names (-1: missing)."""
    names = np.asarray(tax.names, dtype=object)[np.maximum(codes, 0)]
    names[codes < 0] = None
    return text_column(names, index=index)
