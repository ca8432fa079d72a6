"""``k_degree_anonymity``: a graph in which every degree is shared by at least ``k``
nodes (Liu and Terzi 2008; the kernel is :mod:`sdcflow.kernels.graphs.k_degree`)."""

from __future__ import annotations

from typing import ClassVar

from ...data.edge_list import EDGE_PARAMS, edge_dataset, nodes_and_edges
from ...errors import PluginError
from ...kernels.graphs.k_degree import k_degree_anonymise, probe_steps
from ...plugins.limits import MAX_LOOP_STEPS
from ...plugins.registry import MethodResult, register
from ._graph_method import GraphMethod


@register
class KDegreeAnonymity(GraphMethod):
    version = "2"  # 2: the Supergraph construction by default
    name = "k_degree_anonymity"
    public_params = ("source", "target", "k", "construction", "max_probes")
    protects = True
    k_counts_nodes = True
    summary = "Anonymise the degree sequence (Liu-Terzi) and construct a graph with it."
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["source", "target", "k"],
        "properties": {
            **EDGE_PARAMS,
            "k": {"type": "integer", "minimum": 2,
                  "description": "Every degree of the released graph is the degree of at "
                                 "least k nodes."},
            "construction": {"enum": ["supergraph", "havel_hakimi"], "default": "supergraph",
                             "description": "supergraph: keep every edge and add edges "
                                            "(falls back to havel_hakimi when stuck); "
                                            "havel_hakimi: build a new graph."},
            "max_probes": {"type": "integer", "minimum": 0, "maximum": 100000,
                           "default": 1000,
                           "description": "Degrees raised at random before giving up when "
                                          "the anonymised degrees make no simple graph."},
        },
    }

    def work(self, params, n, u, v):
        # probing runs the dynamic programme again and again, until a graphical sequence
        # is found, max_probes or MAX_LOOP_STEPS (when it stops): one probe must fit
        k = params["k"]
        return [(("k",), probe_steps(n, k), MAX_LOOP_STEPS, "steps",
                 (f"one probe of k = {k} on {n} nodes (a dynamic programme of nodes x (k + 2) "
                 "steps)"))]

    def apply(self, data, params, rng):
        labels, u, v = nodes_and_edges(data, params)
        try:
            a, b, info = k_degree_anonymise(len(labels), u, v, params["k"], rng,
                                            max_probes=params["max_probes"],
                                            construction=params["construction"],
                                            max_steps=MAX_LOOP_STEPS)
        except ValueError as exc:  # (probing found no graphical sequence)
            advice = "lower k" if "steps allow" in str(exc) else "raise max_probes or lower k"
            raise PluginError(self.name, f"{exc}: {advice}") from None
        return MethodResult(edge_dataset(data, params, labels, a, b), info)
