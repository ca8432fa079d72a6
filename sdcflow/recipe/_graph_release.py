"""A released graph never carries its original node labels: the labels of an edge list
identify people (the members of a club, the patients of a contact graph), and
publishing them next to the protected structure undoes every other protection. A recipe
whose steps treat the data as a graph (any graph method or measure names its node
variables with ``source`` and ``target``) and that releases the data is refused unless
the released node variables went through ``relabel_nodes`` (Backstrom, Dwork and
Kleinberg, "Wherefore art thou r3579x?", 2007: the naive anonymisation every graph
release starts with). Also: the ids of a node attribute file are the nodes of the graph
(checked on the data as loaded)."""

from __future__ import annotations

import pandas as pd

from ..data.node_attributes import unknown_nodes
from ..errors import Problem
from ._model import ORIGINAL, Recipe, StepSpec

RELABEL = "relabel_nodes"


def _node_variables(recipe: Recipe, params: dict) -> list[str]:
    """The node variables named by the recipe's graph steps (those whose plugin is a
    graph method or measure), in the order first named."""
    from ..measures.graphs._graph_measure import GraphMeasure
    from ..methods.graphs._graph_method import GraphMethod

    names: list[str] = []
    for step in recipe.steps:
        if not step.ok or not isinstance(step.plugin, (GraphMethod, GraphMeasure)):
            continue
        for key in ("source", "target"):
            name = params.get(step.id, {}).get(key)
            if isinstance(name, str) and name not in names:
                names.append(name)
    return names


def _relabelled(flow, index: dict[str, StepSpec], state, name: str) -> str | None:
    """None when ``name`` went through ``relabel_nodes`` on its way to ``state``; else
    the step that last wrote it (``original``: as loaded)."""
    history = flow.history(state, name)
    if any(p in index and index[p].ok and index[p].plugin.name == RELABEL for p in history):
        return None
    return history[0]


def graph_release_problems(recipe: Recipe, variants: list) -> list[Problem]:
    """A problem at the release when it would publish original node labels: a data
    release (``release.path``) of a recipe with graph steps, in which a node variable
    (not an identifier, which is never released) has not been through ``relabel_nodes``
    (in some grid variant: the first one found is named)."""
    release = recipe.release
    if "path" not in release or not recipe.steps:
        return []
    index = {s.id: s for s in recipe.steps}
    source = release.get("from", recipe.steps[-1].id)
    for variant in variants:
        leaks = {}
        for name in _node_variables(recipe, variant.params):
            var = recipe.variables.get(name)
            if var is None or var.role == "identifier":
                continue
            if source == ORIGINAL:
                leaks[name] = ORIGINAL
                continue
            state = variant.flow.after.get(source)
            if state is None or name not in state.columns:
                continue
            last = _relabelled(variant.flow, index, state, name)
            if last is not None:
                leaks[name] = last
        if leaks:
            return [recipe.doc.problem(("release", "from") if "from" in release else
                                       ("release", "path"), _message(leaks, variant.label))]
    return []


def _message(leaks: dict[str, str], label: str) -> str:
    listed = ", ".join(leaks)
    origin = ", ".join(sorted({"as loaded" if s == ORIGINAL else f"by step '{s}'"
                               for s in leaks.values()}))
    return (f"release: the released edge list would carry the original node labels of "
            f"{listed} (last written {origin}{f', variant {label}' if label else ''}), and "
            f"node labels identify people; add a step {{method: {RELABEL}, params: "
            f"{{source: ..., target: ...}}}} after the graph measures (they match nodes by "
            f"label) and release its output")


def node_file_problems(recipe: Recipe, dataset) -> list[Problem]:
    """Problems of each node attribute file (``variables.NAME.nodes``) with the edge list
    as loaded: a node of the graph without a record, an id that is no node. The graph's
    nodes are the labels of the declaring variable and of the variables named with it in
    the graph steps."""
    out: list[Problem] = []
    params = {s.id: s.params for s in recipe.steps}
    partners = _node_variables(recipe, params)
    for name, var in recipe.variables.items():
        if var.nodes is None or name not in dataset.frame:
            continue
        named = [name, *(p for p in partners if p != name and p in dataset.frame)] \
            if name in partners else [name]
        labels = pd.unique(pd.concat([dataset.frame[c].dropna() for c in named]))
        no_record, no_node = unknown_nodes(var.nodes, labels)
        where = ("variables", name, "nodes", "file")
        file = var.nodes["file"]
        if no_record:
            out.append(recipe.doc.problem(where, (
                f"variables.{name}.nodes: {len(no_record)} node(s) of the graph have no "
                f"record in {file} ({_shown(no_record)}): give every node its attributes")))
        if no_node:
            out.append(recipe.doc.problem(where, (
                f"variables.{name}.nodes: {len(no_node)} id(s) of {file} are no node of the "
                f"graph ({_shown(no_node)}; nodes are the labels of {', '.join(named)})")))
    return out


def _shown(values: list) -> str:
    return ", ".join(values[:5]) + (" ..." if len(values) > 5 else "")
