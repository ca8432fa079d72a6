"""Graph data as sdcflow holds it: a dataset whose records are the edges of an undirected
simple graph, two declared variables naming their end nodes (``source`` and ``target``,
categorical or integer node labels). Graph methods and measures name these two variables
in their parameters; this module declares those parameters and checks, and converts
between such a dataset and the node-index arrays of :mod:`sdcflow.kernels.graphs`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from ..kernels.graphs.edges import index_nodes, repeated_edges, self_loops
from ..plugins.limits import over
from .dataset import Dataset, Metadata

EDGE_PARAMS = {
    "source": {"type": "string", "minLength": 1,
               "description": "The variable holding one end node of each edge."},
    "target": {"type": "string", "minLength": 1,
               "description": "The variable holding the other end node of each edge."},
}
NODE_TYPES = ("categorical", "integer")


def edge_variables(params: Mapping) -> list[tuple[tuple, str]]:
    """The ``(params path, name)`` pairs of the two node variables."""
    return [((key,), params[key]) for key in ("source", "target")
            if isinstance(params.get(key), str)]


def edge_list_problems(params: Mapping, meta: Metadata, *,
                       alone: bool) -> Iterable[tuple[tuple, str]]:
    """Findings on the declarations: the two node variables declared, different, of the
    same type, categorical or integer; with ``alone`` (a method, which rebuilds the
    records), no other declared variable, since new edges would have no value for it."""
    source, target = params.get("source"), params.get("target")
    for key, name in (("source", source), ("target", target)):
        var = meta.variables.get(name)
        if var is None:
            if name not in meta.broken:
                yield (key,), f"'{name}' is not a declared variable"
        elif var.type not in NODE_TYPES:
            yield (key,), (f"'{name}' is {var.type}: node labels must be categorical or "
                           "integer")
    if source == target:
        yield ("target",), f"source and target are both '{source}': an edge has two ends"
        return
    vs, vt = meta.variables.get(source), meta.variables.get(target)
    if vs is not None and vt is not None and vs.type != vt.type:
        yield ("target",), (f"'{source}' is {vs.type} and '{target}' {vt.type}: both ends "
                            "of an edge must hold labels of the same type")
    if alone:
        others = [n for n in meta.variables if n not in (source, target)]
        if others:
            yield (), (f"a graph method rebuilds the edge list, so the data may hold only "
                       f"the two node variables; declare no others (found "
                       f"{', '.join(others)})")


def _edges(count: int) -> str:
    return "1 edge" if count == 1 else f"{count} edges"


def _rows(positions: np.ndarray) -> str:
    shown = ", ".join(str(int(r) + 1) for r in positions[:5])
    return shown + (" ..." if len(positions) > 5 else "")


def edge_data_problems(params: Mapping, data: Dataset) -> Iterable[tuple[tuple, str]]:
    """Findings on the edge list itself: no edges, missing node labels, self loops, an
    edge given twice (in either direction), with the record numbers (1-based)."""
    source, target = params["source"], params["target"]
    if source not in data.frame or target not in data.frame:
        return
    if len(data) == 0:
        yield (), "the edge list has no edges"
        return
    missing = (data.frame[source].isna() | data.frame[target].isna()).to_numpy()
    if missing.any():
        yield ("source",), (f"{_edges(int(missing.sum()))} with a missing end node (records "
                            f"{_rows(np.flatnonzero(missing))}); every edge needs both ends")
        return
    _, u, v = nodes_and_edges(data, params)
    loops = self_loops(u, v)
    if len(loops):
        yield ("source",), (f"{_edges(len(loops))} joining a node to itself (records "
                            f"{_rows(loops)}); the graph must be simple: remove them")
    twice = repeated_edges(u, v)
    if len(twice):
        yield ("source",), (f"{_edges(len(twice))} repeating an earlier edge, in either direction"
                            f" (records {_rows(twice)}); the graph is undirected and simple:"
                            " give each edge once")


def nodes_and_edges(data: Dataset, params: Mapping) -> tuple[np.ndarray, np.ndarray,
                                                              np.ndarray]:
    """The node labels (sorted, distinct) and each edge's ends as indices into them."""
    source = data.frame[params["source"]]
    target = data.frame[params["target"]]
    kind = np.int64 if data.variables[params["source"]].type == "integer" else object
    return index_nodes(source.to_numpy(dtype=kind), target.to_numpy(dtype=kind))


def edge_dataset(data: Dataset, params: Mapping, labels: np.ndarray, u: np.ndarray,
                 v: np.ndarray) -> Dataset:
    """A dataset of the edges ``(labels[u], labels[v])``, its columns held as the node
    variables of ``data`` are."""
    names = (params["source"], params["target"])
    frame = pd.DataFrame({name: pd.Series(labels[ends], dtype=data.frame[name].dtype)
                          for name, ends in zip(names, (u, v))})
    return type(data)(frame, {n: data.variables[n] for n in names}, data.constraints)


def two_edge_paths(n: int, u: np.ndarray, v: np.ndarray) -> int:
    """The number of paths of two edges (the sum of the squared degrees): what walking
    every node's neighbours' neighbours costs, which a hub makes quadratic (a star of
    20,000 leaves has 400,000,000)."""
    degrees = np.bincount(np.concatenate([u, v]), minlength=n).astype(np.int64)
    return int(np.dot(degrees, degrees))


def work_problems(estimates: Iterable[tuple[tuple, float, float, str, str]]
                  ) -> Iterable[tuple[tuple, str]]:
    """Findings for the work a graph step would do, checked before it starts: for each
    part ``(params path, amount, limit, noun, what)``, "``what`` makes ``amount``
    ``noun``, more than the limit of ``limit``"."""
    for path, amount, limit, noun, what in estimates:
        if amount > limit:
            yield path, f"{what} makes {over(amount, noun, limit)}"
