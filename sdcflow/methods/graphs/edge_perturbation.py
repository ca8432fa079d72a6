"""``edge_perturbation``: random deletion, addition or switching of edges of a graph (the
kernel and its references are in :mod:`sdcflow.kernels.graphs.perturbation`)."""

from __future__ import annotations

from typing import ClassVar

from ...data.edge_list import EDGE_PARAMS, edge_dataset, nodes_and_edges
from ...kernels.graphs.perturbation import MODES, non_edges_count, perturb_edges
from ...plugins.limits import MAX_CELLS, over
from ...plugins.plain_words import figure
from ...plugins.registry import MethodResult, register
from ._graph_method import GraphMethod


@register
class EdgePerturbation(GraphMethod):
    name = "edge_perturbation"
    protects = True
    summary = "Delete, add or switch randomly chosen edges of a graph (an edge list)."
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["source", "target", "fraction"],
        "properties": {
            **EDGE_PARAMS,
            "fraction": {"type": "number", "exclusiveMinimum": 0, "maximum": 1,
                         "description": "Edges perturbed, as a share of the edges: m = "
                                        "round(fraction x edges)."},
            "mode": {"enum": list(MODES), "default": "add_delete",
                     "description": "add_delete: delete m edges, add m new ones (Hay et al. "
                                    "2008); add or delete: only one half; switch: m degree-"
                                    "preserving switches (Ying and Wu 2008)."},
        },
    }
    public_params = ("source", "target", "mode")  # the perturbed share helps an intruder

    def explain(self, params, result):
        # the mode the recipe uses, not every mode (the summary lists them all)
        what = {
            "add_delete": ("Randomly chosen edges of the graph were deleted and as many "
                           "new ones added (random perturbation; Hay et al. 2008)"),
            "add": "Randomly chosen new edges were added to the graph",
            "delete": "Randomly chosen edges of the graph were deleted",
            "switch": ("Pairs of randomly chosen edges were switched, every node keeping "
                       "its degree (Ying and Wu 2008)"),
        }[params.get("mode", "add_delete")]
        if isinstance(result, dict) and isinstance(result.get("perturbed"), int):
            return f"{what}: {figure(result['perturbed'])} edges perturbed."
        return what + "."

    def check_data(self, params, data):
        problems = list(super().check_data(params, data))
        yield from problems
        if problems or len(data) == 0:
            return
        labels, u, _ = nodes_and_edges(data, params)
        m = round(params["fraction"] * len(u))
        free = non_edges_count(len(labels), len(u))
        if params.get("mode") == "delete" and m >= len(u):
            yield ("fraction",), (f"fraction {params['fraction']} deletes all {len(u)} edges: "
                                  "the released graph would have none")
        elif params.get("mode", "add_delete") in ("add_delete", "add") and m > free:
            yield ("fraction",), (f"{m} edges cannot be added: only {free} pairs of the "
                                  f"{len(labels)} nodes are not joined")
        elif params.get("mode", "add_delete") in ("add_delete", "add") and 2 * m >= free:
            # (so many that the free pairs are listed to draw from: every pair of nodes)
            pairs = len(labels) * (len(labels) - 1) // 2
            if pairs > MAX_CELLS:
                yield ("fraction",), (f"adding {m} edges, most of the {free} free pairs, "
                                      f"lists every pair of the {len(labels)} nodes: "
                                      f"{over(pairs, 'pairs', MAX_CELLS)}")

    def apply(self, data, params, rng):
        labels, u, v = nodes_and_edges(data, params)
        m = round(params["fraction"] * len(u))
        a, b, info = perturb_edges(len(labels), u, v, m, params["mode"], rng)
        info = {"perturbed": m, **info}
        return MethodResult(edge_dataset(data, params, labels, a, b), info)
