"""Node attributes of a graph: a file with one record per node (``id`` the node label,
other columns attributes such as age or gender), declared on a node variable of an edge
list (``variables.NAME.nodes``). The recipe's declaration is resolved at validation (the
file read relative to the recipe, its columns and ids checked); the variable then
carries the attribute values of every node, as text, keyed by the node label's text."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

import pandas as pd

from .csv_input import csv_frame
from .recipe_files import RecipeFileError, RecipeFiles, as_files, file_lines
from .text import TEXT, text_column

MAX_SHOWN = 5


def _shown(values: list) -> str:
    return ", ".join(map(str, values[:MAX_SHOWN])) + (" ..." if len(values) > MAX_SHOWN else "")


def label_text(value) -> str:
    """The text a node label is keyed by (an integer label without a decimal point)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def resolve_nodes(spec: Mapping, files: RecipeFiles | Path, node_type: str
                  ) -> tuple[dict | None, str | None]:
    """The resolved declaration ``{"file", "id", "attributes", "values"}``, or a message
    saying why the file cannot serve: not allowed, not found or not a CSV table
    (:mod:`.recipe_files`), no such column, an id given twice or missing, an attribute
    value missing, an id that is no integer for integer node labels. Messages name lines
    of the file and the columns the recipe names, never what the file holds."""
    ident = spec["id"]
    try:
        file = as_files(files).check(spec["file"], ("file",), "node file", "nodes")
        frame = csv_frame(file, [ident, *(spec.get("attributes") or [])], dtype=TEXT,
                          keep_default_na=False)
    except RecipeFileError as exc:
        return None, exc.message
    columns = [str(c) for c in frame.columns]
    attributes = list(spec.get("attributes") or [c for c in columns if c != ident])
    if ident in attributes:
        return None, f"the id column '{ident}' cannot be an attribute too"
    if not attributes:
        return None, "the node file has no column besides the id: no attribute to use"
    ids = frame[ident].str.strip()
    if node_type == "integer":
        numbers = pd.to_numeric(ids, errors="coerce")
        bad = ids[numbers.isna() | (numbers != numbers.round())].index.tolist()
        if bad:
            return None, (f"node ids that are not integers, as the node labels are (records "
                          f"{_shown([r + 2 for r in bad])} of the node file, counting its "
                          "header as line 1)")
        ids = text_column(numbers.astype("int64"))
    missing = ids[ids == ""].index.tolist()
    if missing:
        return None, f"a missing node id on lines {_shown([r + 2 for r in missing])}"
    twice = ids.duplicated(keep=False).to_numpy()
    if twice.any():  # (by line: the ids are what the file holds)
        return None, f"node ids given twice in the node file ({file_lines(twice)})"
    empty = [a for a in attributes if (frame[a].str.strip() == "").any()]
    if empty:
        return None, (f"missing values in the attribute column {', '.join(empty)}: every "
                      "node needs a value of each attribute")
    values = {str(i): [str(frame[a].iat[r]).strip() for a in attributes]
              for r, i in enumerate(ids)}
    return {"file": spec["file"], "id": ident, "attributes": attributes, "values": values}, None


def unknown_nodes(nodes: Mapping, labels: Iterable) -> tuple[list[str], list[str]]:
    """The graph's node labels without a record in the node file, and the file's ids that
    are no node of the graph (each sorted, as text)."""
    graph = {label_text(v) for v in labels}
    known = set(nodes["values"])
    return sorted(graph - known), sorted(known - graph)


def attribute_rows(nodes: Mapping, labels: Iterable) -> list[tuple]:
    """Each label's attribute values (a tuple of texts; ``None`` for an unknown label)."""
    values = nodes["values"]
    return [tuple(values[k]) if (k := label_text(v)) in values else None for v in labels]
