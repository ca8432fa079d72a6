"""The generalisation hierarchy of each key variable for ``anonymize``: declared in the
recipe (``variables.NAME.hierarchy`` or its taxonomy) or generated (intervals, masking),
built on the values the data hold."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...data import Dataset
from ...data.dataset import Variable
from ...kernels.non_perturbative.hierarchies import (
    hierarchy_maps,
    interval_levels,
    mask_levels,
    width_levels,
    with_top,
)
from ...kernels.non_perturbative.recode import hierarchy_mapping, number_text
from .._semantic import data_taxonomy

HIERARCHY_PARAM = {
    "type": "object",
    "additionalProperties": False,
    "description": "How the variable is generalised (default: its declared hierarchy, "
                   "else its taxonomy).",
    "properties": {
        "declared": {"const": True, "description": "The levels of variables.NAME.hierarchy."},
        "taxonomy": {"const": True, "description": "Level l: each concept's ancestor l "
                                                   "levels above the deepest values."},
        "width": {"type": "number", "exclusiveMinimum": 0,
                  "description": "Intervals of this width, then twice it, four times..."},
        "levels": {"type": "integer", "minimum": 1, "maximum": 20,
                   "description": "With width: how many interval levels (default 3); with "
                                  "mask: how many characters are masked at most."},
        "origin": {"type": "number", "default": 0,
                   "description": "With width: where the intervals start."},
        "breaks": {"type": "array", "minItems": 1, "maxItems": 20,
                   "items": {"type": "array", "minItems": 2, "items": {"type": "number"}},
                   "description": "The interval limits of each level, finest first."},
        "mask": {"const": True, "description": "Level l replaces the last l characters by "
                                               "'*'."},
        "top": {"type": "boolean", "default": True,
                "description": "Generated hierarchies end with a level '*' (every value "
                               "one)."},
    },
    # (inside allOf, so that `sdcflow methods` reads the parameter as an object)
    "allOf": [{
        "oneOf": [{"required": [k]} for k in ("declared", "taxonomy", "width", "breaks",
                                              "mask")],
        "x-error": "give exactly one of 'declared', 'taxonomy', 'width', 'breaks' or 'mask'",
    }],
}


@dataclass
class Built:
    """A variable's hierarchy on the data: each record's level-0 code (the missing
    values one more code, mapped to itself), the maps and each level's labels."""

    codes: np.ndarray
    maps: np.ndarray
    names: list[list[str]]
    missing: bool


def spec_for(var: Variable, params: Mapping) -> dict:
    """The hierarchy parameters of the variable, the default filled in."""
    given = params.get("hierarchies", {}).get(var.name)
    if given is not None:
        return {"top": True, "origin": 0, **given}
    if var.hierarchy:
        return {"declared": True}
    return {"taxonomy": True}


def spec_problems(var: Variable, spec: Mapping, path: tuple) -> Iterable[tuple[tuple, str]]:
    """Declarations the hierarchy needs."""
    name = var.name
    if ("width" in spec or "breaks" in spec) and not var.is_numeric:
        yield path, f"intervals need a numeric variable; '{name}' is {var.type}"
    if "declared" in spec and not var.hierarchy:
        yield path, (f"'{name}' has no declared hierarchy (variables.{name}.hierarchy); "
                     "give hierarchies.{name} (width, breaks, mask or taxonomy)")
    if "taxonomy" in spec and var.taxonomy is None and not var.hierarchy:
        yield path, (f"'{name}' has no hierarchy nor taxonomy: declare one, or give "
                     f"hierarchies.{name} (width, breaks or mask)")
    if "taxonomy" in spec and var.is_numeric:
        yield path, f"a taxonomy needs a categorical variable; '{name}' is {var.type}"
    if "levels" in spec and not ("width" in spec or "mask" in spec):
        yield path, "'levels' goes with 'width' or 'mask'"
    for i, b in enumerate(spec.get("breaks", [])):
        if any(hi <= lo for lo, hi in itertools.pairwise(b)):
            yield (*path, "breaks", i), "breaks must be strictly increasing"


def build(data: Dataset, name: str, spec: Mapping) -> Built:
    """The hierarchy of ``name`` on the data (raises ValueError subclasses with a message
    for the user: values outside the intervals, levels that do not nest, values outside
    the taxonomy)."""
    var = data.variables[name]
    col = data.frame[name]
    if "taxonomy" in spec:
        tax, concept = data_taxonomy(data, name)
        used = np.unique(concept[concept >= 0])
        depth = int(tax.depth[used].max(initial=0))
        levels = [[tax.names[c] for c in tax.ancestor_at(used, depth - lv)]
                  for lv in range(depth + 1)]
        codes = np.searchsorted(used, concept)
        codes[concept < 0] = -1
    else:
        codes, uniques = pd.factorize(col, sort=True)
        values = np.asarray(uniques)
        if var.is_numeric:
            x = values.astype(float)
            first = [number_text(v) for v in x]
        else:
            x, first = None, [str(v) for v in values]
        if "declared" in spec:
            levels = [first] + [[hierarchy_mapping(var.hierarchy, level).get(v, v)
                                 for v in first] for level in var.hierarchy]
        elif "width" in spec:
            levels = [first] + width_levels(x, spec["width"], spec.get("levels", 3),
                                            spec.get("origin", 0),
                                            integer=var.type == "integer")
        elif "breaks" in spec:
            levels = [first] + interval_levels(x, spec["breaks"])
        else:
            levels = [first] + mask_levels(first, spec.get("levels"))
        if spec.get("top", True) and "declared" not in spec:
            levels = with_top(levels)
    maps, names = hierarchy_maps(levels)
    codes = np.asarray(codes, dtype=np.int64)
    missing = bool((codes < 0).any())
    if missing:  # one more code at every level, for the missing values
        extra = np.array([[len(nm)] for nm in names], dtype=np.int64)
        maps = np.hstack([maps, extra])
        codes = np.where(codes < 0, maps.shape[1] - 1, codes)
    return Built(codes, maps, names, missing)


def released(built: Built, level: int, suppressed: np.ndarray) -> np.ndarray:
    """The generalised labels at ``level`` (object array, None for missing values and
    suppressed records)."""
    names = np.array(list(built.names[level]) + [None], dtype=object)
    out = names[built.maps[level][built.codes]]
    out[suppressed] = None
    return out
