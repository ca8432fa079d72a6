"""Graph methods on an edge list: edge_perturbation, k_degree_anonymity, relabel_nodes,
through the plugin conformance checks and through `sdcflow run`."""

from collections import Counter

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from helpers import ROOT, small_dataset, validate_cli

from sdcflow import run
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

KARATE = ROOT / "recipes" / "data" / "karate_club.csv"
EDGES = {"source": "a", "target": "b"}


def _karate(kind="integer"):
    frame = pd.read_csv(KARATE)
    values = {"integer": lambda c: c.tolist(), "categorical": lambda c: c.astype(str).tolist()}
    return small_dataset(a=("key", kind, values[kind](frame["member_a"])),
                         b=("key", kind, values[kind](frame["member_b"])))


@pytest.mark.parametrize("name,params", [
    ("edge_perturbation", {**EDGES, "fraction": 0.2}),
    ("edge_perturbation", {**EDGES, "fraction": 0.2, "mode": "switch"}),
    ("k_degree_anonymity", {**EDGES, "k": 3}),
    ("k_degree_anonymity", {**EDGES, "k": 3, "construction": "havel_hakimi"}),
    ("relabel_nodes", EDGES),
    ("spatial_graph", EDGES),
    ("supernode_generalisation", {**EDGES, "k": 3, "iterations": 200}),
    ("spatial_graph", {**EDGES, "density": "normal"}),
])
@pytest.mark.parametrize("kind", ["integer", "categorical"])
def test_conformance(name, params, kind):
    check_method(registry.get(name), _karate(kind), params)


def _graph(frame):
    return nx.Graph(list(zip(frame["a"].tolist(), frame["b"].tolist())))


def test_relabelled_graph_is_isomorphic_with_new_labels():
    plugin = registry.get("relabel_nodes")
    out = plugin.apply(_karate("categorical"), dict(EDGES), np.random.default_rng(4))
    g, h = _graph(_karate("categorical").frame), _graph(out.data.frame)
    assert sorted(h.nodes, key=int) == [str(i) for i in range(1, 35)]
    assert nx.is_isomorphic(g, h) and out.info == {"nodes": 34, "edges": 78}


def test_the_relabelling_cannot_be_found_by_trying_seeds():
    # an intruder who knows eight friendships of the club (by member number) tries every
    # seed: drawn from the step's generator alone, the relabelling was a function of the
    # seed and the 34 nodes, and the seed whose relabelling maps those friendships onto
    # released edges was found (with it every member's label); keyed by the edge list
    # too, no seed reproduces it (a wrong seed maps the eight onto released edges with
    # probability about (78 / 561)^8, 1.4e-7)
    plugin = registry.get("relabel_nodes")
    data = _karate()
    out = plugin.apply(data, dict(EDGES), np.random.default_rng(2026))
    released = set(zip(out.data.frame["a"], out.data.frame["b"]))
    known = list(zip(data.frame["a"], data.frame["b"]))[::10][:8]

    def maps_known_edges(new):
        return all((min(new[a - 1], new[b - 1]) + 1, max(new[a - 1], new[b - 1]) + 1)
                   in released for a, b in known)

    found = [s for s in range(3000)
             if maps_known_edges(np.random.default_rng(s).permutation(34))]
    assert found == []
    # the same search against the unkeyed draw finds its seed
    new = np.random.default_rng(2026).permutation(34)
    released = {(min(new[a - 1], new[b - 1]) + 1, max(new[a - 1], new[b - 1]) + 1)
                for a, b in zip(data.frame["a"], data.frame["b"])}
    assert [s for s in range(3000)
            if maps_known_edges(np.random.default_rng(s).permutation(34))] == [2026]


def test_spatial_graph_keeps_the_degree_of_every_member():
    plugin = registry.get("spatial_graph")
    data = _karate()
    params = registry.with_defaults(plugin.params, EDGES)
    out = plugin.apply(data, params, np.random.default_rng(11))
    g, h = _graph(data.frame), _graph(out.data.frame)
    # the degree of each member is kept unless the correction dropped an edge at it
    dropped = out.info["dropped"]
    assert sum(g.degree(v) - dict(h.degree).get(v, 0) for v in g.nodes) == 2 * dropped
    assert all(h.degree(v) <= g.degree(v) for v in h.nodes)
    assert out.info["edges_after"] == len(out.data.frame) == 78 - dropped


def test_edge_list_problems_are_reported():
    data = small_dataset(a=("key", "integer", [1, 2, 3, 4, 5]),
                         b=("key", "integer", [2, 1, 3, 5, 2]))
    plugin = registry.get("edge_perturbation")
    found = list(plugin.check_data({**EDGES, "fraction": 0.5}, data))
    # record 3 joins 3 to itself; record 2 (2-1) repeats record 1 (1-2)
    assert found == [
        (("source",), ("1 edge joining a node to itself (records 3); the graph must be "
                      "simple: remove them")),
        (("source",), ("1 edge repeating an earlier edge, in either direction (records 2); "
                      "the graph is undirected and simple: give each edge once"))]
    missing = small_dataset(a=("key", "integer", [1, None]), b=("key", "integer", [2, 3]))
    assert [m for _, m in plugin.check_data({**EDGES, "fraction": 0.5}, missing)] == [
        "1 edge with a missing end node (records 2); every edge needs both ends"]
    # a triangle has no free pair: one edge cannot be added
    triangle = small_dataset(a=("key", "integer", [1, 1, 2]), b=("key", "integer", [2, 3, 3]))
    assert [m for _, m in plugin.check_data({**EDGES, "fraction": 0.5}, triangle)] == [
        "2 edges cannot be added: only 0 pairs of the 3 nodes are not joined"]
    k = registry.get("k_degree_anonymity")
    assert [m for _, m in k.check_data({**EDGES, "k": 4, "max_probes": 10}, triangle)] == [
        "k = 4 is larger than the number of nodes (3)"]


def test_bad_recipes_exit_1(write_recipe, tmp_path, capsys):
    (tmp_path / "edges.csv").write_text("a,b,w\n1,2,x\n2,3,y\n")
    path = write_recipe("""
        sdcflow: 1
        name: g
        seed: 1
        data: {path: edges.csv}
        variables:
          a: {role: key, type: integer}
          b: {role: key}
          w: {role: key}
        steps:
          - {id: p, method: edge_perturbation, params: {source: a, target: c, fraction: 0.1}}
          - {id: k, method: k_degree_anonymity, params: {source: a, target: b, k: 2}}
    """)
    code, lines = validate_cli(path, capsys)
    assert code == 1
    assert any("steps[0].params.target: 'c' is not a declared variable" in x for x in lines)
    assert any("may hold only the two node variables; declare no others (found w)" in x
               for x in lines)
    assert any("'a' is integer and 'b' categorical" in x for x in lines)


def test_perturb_anonymise_relabel_through_run(write_recipe, tmp_path):
    (tmp_path / "karate.csv").write_text(KARATE.read_text())
    path = write_recipe("""
        sdcflow: 1
        name: g
        seed: 7
        data: {path: karate.csv}
        variables:
          member_a: {role: key, type: integer}
          member_b: {role: key, type: integer}
        steps:
          - {id: perturb, method: edge_perturbation,
             params: {source: member_a, target: member_b, fraction: 0.1}}
          - {id: kdeg, method: k_degree_anonymity,
             params: {source: member_a, target: member_b, k: 3}}
          - {id: relabel, method: relabel_nodes, params: {source: member_a, target: member_b}}
        release: {path: g.csv}
    """)
    result = run(path, tmp_path / "out", use_cache=False)
    info = {s.node: s.info for s in result.steps}
    # round(0.1 x 78) = 8 edges deleted and 8 added
    assert info["perturb"]["deleted"] == info["perturb"]["added"] == 8
    released = pd.read_csv(tmp_path / "out" / "public" / "g.csv")
    h = nx.Graph(list(zip(released["member_a"], released["member_b"])))
    assert len(released) == h.number_of_edges() == info["kdeg"]["edges_after"]
    assert min(Counter(dict(h.degree).values()).values()) >= 3  # 3-degree anonymous
    again = run(path, tmp_path / "again", use_cache=False)
    assert (tmp_path / "again" / "public" / "g.csv").read_bytes() == \
        (tmp_path / "out" / "public" / "g.csv").read_bytes()
    assert again.measures == result.measures


def test_k_degree_without_probes_fails_cleanly(write_recipe, tmp_path, capsys):
    from sdcflow.cli import main

    # the star 1-2, 1-3, 1-4: degrees 3, 1, 1, 1 become 3, 3, 1, 1 for k = 2 (cost 2, the
    # least), which no simple graph has (Erdos-Gallai); with no probe allowed the step fails
    (tmp_path / "star.csv").write_text("a,b\n1,2\n1,3\n1,4\n")
    path = write_recipe("""
        sdcflow: 1
        name: star
        seed: 1
        data: {path: star.csv}
        variables:
          a: {role: key, type: integer}
          b: {role: key, type: integer}
        steps:
          - {id: kdeg, method: k_degree_anonymity,
             params: {source: a, target: b, k: 2, max_probes: 0}}
          - {id: relabel, method: relabel_nodes, params: {source: a, target: b}}
        release: {path: out.csv}
    """)
    code = main(["run", str(path), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    assert "no graphical k-anonymous degree sequence in 0 probes: raise max_probes or lower k" \
        in err
    assert not (tmp_path / "out" / "public" / "out.csv").exists()
