"""graph_reidentification and graph_utility: conformance, hand values, and a run."""

import pandas as pd
from helpers import ROOT, small_dataset

from sdcflow import run
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

KARATE = ROOT / "recipes" / "data" / "karate_club.csv"
EDGES = {"source": "a", "target": "b"}


def _edges(pairs, kind="integer"):
    a, b = zip(*pairs)
    if kind == "categorical":
        a, b = [str(x) for x in a], [str(x) for x in b]
    return small_dataset(a=("key", kind, list(a)), b=("key", kind, list(b)))


def test_conformance():
    data = _edges([(1, 2), (2, 3), (1, 3), (3, 4)], "categorical")
    check_method(registry.get("graph_reidentification"), data, EDGES)
    check_method(registry.get("graph_utility"), data, EDGES)


def test_reidentification_against_the_original():
    plugin = registry.get("graph_reidentification")
    path = _edges([(1, 2), (2, 3), (3, 4)])  # the path 1-2-3-4
    star = _edges([(1, 2), (2, 3), (2, 4)])  # released: the star centred on 2
    params = registry.with_defaults(plugin.params, EDGES)
    out = plugin.evaluate(star, params, None, original=path).summary
    # by degree: 1 and 4 (degree 1) have 3 candidates each (1, 3, 4), 2 and 3 (degree 2)
    # none: expected 2/3; by neighbourhood 1 and 4 (an edge seen from its end) likewise
    assert out["nodes"] == 4 and out["unmatched_nodes"] == 0
    assert out["degree"]["re_identified"] == 0
    assert out["degree"]["expected"] == round(2 / 3, 6)
    assert out["neighbourhood"]["expected"] == round(2 / 3, 6)
    # a released edge list on other labels (after relabel_nodes) is counted as unmatched
    other = _edges([(7, 8), (8, 9)])
    assert plugin.evaluate(other, params, None, original=path).summary["unmatched_nodes"] == 3


def test_utility_against_the_original():
    plugin = registry.get("graph_utility")
    params = registry.with_defaults(plugin.params, EDGES)
    path = _edges([(1, 2), (2, 3), (3, 4)])
    star = _edges([(1, 2), (2, 3), (2, 4)])
    out = plugin.evaluate(star, params, None, original=path).summary
    # degree distributions 1,2,2,1 and 3,1,1,1: earth mover's distance (1 + 1) / 4; the
    # path's mean distance (3x1 + 2x2 + 1x3) / 6 = 5/3, the star's (3x1 + 3x2) / 6 = 1.5
    assert out["degree_distance"] == 0.5
    assert out["original"]["mean_path_length"] == round(5 / 3, 6)
    assert out["released"]["mean_path_length"] == 1.5
    assert out["path_length_change"] == round(1.5 - round(5 / 3, 6), 6)
    assert out["original"]["diameter"] == 3 and out["released"]["diameter"] == 2


def test_k_degree_anonymity_leaves_nobody_unique_by_degree(write_recipe, tmp_path):
    (tmp_path / "karate.csv").write_text(KARATE.read_text())
    path = write_recipe("""
        sdcflow: 1
        name: m
        seed: 7
        data: {path: karate.csv}
        variables:
          member_a: {role: key, type: integer}
          member_b: {role: key, type: integer}
        steps:
          - {id: risk_original, measure: graph_reidentification, input: original,
             params: {source: member_a, target: member_b}}
          - {id: kdeg, method: k_degree_anonymity,
             params: {source: member_a, target: member_b, k: 3}}
          - {id: risk, measure: graph_reidentification,
             params: {source: member_a, target: member_b}}
          - {id: utility, measure: graph_utility, params: {source: member_a, target: member_b}}
          - {id: relabel, method: relabel_nodes, params: {source: member_a, target: member_b}}
        checks:
          - "risk.degree.re_identified == 0"
          - "risk.degree.below_k[2] == 0"
        release: {path: m.csv}
    """)
    result = run(path, tmp_path / "out", use_cache=False)
    m = result.measures
    # Zachary's karate club: degrees 17, 16, 12, 10, 9 and 1 occur once (a count on
    # the edge list), so 6 members are re-identified by their degree
    assert m["risk_original"]["degree"]["re_identified"] == 6
    assert all(c["passed"] for c in result.checks)
    increase = next(s.info for s in result.steps if s.node == "kdeg")["degree_increase"]
    # every degree only rises: the earth mover's distance is the mean rise per member
    assert m["utility"]["degree_distance"] == round(increase / 34, 6)
    assert len(pd.read_csv(tmp_path / "out" / "public" / "m.csv")) == \
        m["utility"]["released"]["edges"]


def test_subgraph_attack_against_the_original():
    plugin = registry.get("graph_reidentification")
    path = _edges([(1, 2), (2, 3), (3, 4)])  # the path 1-2-3-4
    star = _edges([(1, 2), (2, 3), (2, 4)])  # released: the star centred on 2
    params = registry.with_defaults(plugin.params, {**EDGES, "attacks": ["subgraph"],
                                                    "edges": 2})
    out = plugin.evaluate(star, params, None, original=path).summary
    # 2 known edges: 1 and 4 know a path of 2 edges from its end, embedded at 1, 3, 4 of
    # the star (through the centre); 2 and 3 know two edges at themselves, embedded only
    # at the centre 2: node 2 is re-identified, 3 is not among its candidates;
    # expected 1/3 + 1 + 0 + 1/3
    assert set(out) == {"reference", "nodes", "unmatched_nodes", "subgraph"}
    assert out["subgraph"] == {"re_identified": 1, "expected": round(5 / 3, 6),
                               "below_k": {"2": 1, "5": 3, "10": 3}, "undecided": 0}


def test_subgraph_attack_in_a_recipe(write_recipe, tmp_path):
    (tmp_path / "karate.csv").write_text(KARATE.read_text())
    path = write_recipe("""
        sdcflow: 1
        name: m
        seed: 1
        data: {path: karate.csv}
        variables:
          member_a: {role: key, type: integer}
          member_b: {role: key, type: integer}
        steps:
          - {id: risk, measure: graph_reidentification,
             params: {source: member_a, target: member_b, attacks: [degree, subgraph]}}
        checks: ["risk.subgraph.re_identified == 0"]
    """)
    result = run(path, tmp_path / "out", use_cache=False)
    risk = result.measures["risk"]
    # the karate club with 4 known edges (candidate counts checked against networkx's
    # monomorphism search in tests/kernels/graphs/test_subgraph_attack.py): nobody is
    # unique, the smallest candidate sets hold 16 members
    assert risk["subgraph"]["re_identified"] == 0
    assert risk["subgraph"]["below_k"]["10"] == 0 and risk["subgraph"]["undecided"] == 0
    assert risk["degree"]["re_identified"] == 6
    assert all(c["passed"] for c in result.checks)


NODES_RECIPE = """
    sdcflow: 1
    name: m
    seed: 1
    data: {path: edges.csv}
    variables:
      a: {role: key, type: integer, nodes: {file: people.csv, id: member}}
      b: {role: key, type: integer}
    steps:
      - {id: risk, measure: graph_reidentification,
         params: {source: a, target: b, attacks: [degree, degree_attributes]}}
      - {id: perturb, method: edge_perturbation, params: {source: a, target: b, fraction: 0.5}}
      - {id: relabel, method: relabel_nodes, params: {source: a, target: b}}
    release: {path: out.csv}
"""


def test_degree_and_attributes_attack_in_a_recipe(write_recipe, tmp_path):
    # the lollipop 1-2, 2-3, 1-3, 3-4 (degrees 2, 2, 3, 1), genders f, m, f, f: by degree
    # 3 and 4 are unique (1 and 2 share degree 2: expected 1 + 1 + 1/2 + 1/2); with the
    # gender 1 and 2 differ too: all four re-identified
    (tmp_path / "edges.csv").write_text("a,b\n1,2\n2,3\n1,3\n3,4\n")
    (tmp_path / "people.csv").write_text("member,gender\n1,f\n2,m\n3,f\n4,f\n")
    result = run(write_recipe(NODES_RECIPE), tmp_path / "out", use_cache=False)
    risk = result.measures["risk"]
    assert risk["degree"]["re_identified"] == 2 and risk["degree"]["expected"] == 3.0
    assert risk["degree_attributes"] == {"re_identified": 4, "expected": 4.0,
                                         "below_k": {"2": 4, "5": 4, "10": 4}}
    # only the perturbed, relabelled edge list is released: the node file is not
    public = sorted(p.name for p in (tmp_path / "out" / "public").iterdir())
    assert public == ["manifest.json", "out.csv", "report.html"]


def test_degree_and_attributes_attack_needs_node_attributes(write_recipe, tmp_path, capsys):
    from helpers import validate_cli

    (tmp_path / "edges.csv").write_text("a,b\n1,2\n2,3\n1,3\n3,4\n")
    (tmp_path / "people.csv").write_text("member,gender\n1,f\n2,m\n3,f\n4,f\n")
    # measured after relabel_nodes, which drops the attributes (they fit the old labels)
    text = NODES_RECIPE.replace("""      - {id: relabel, method: relabel_nodes, params: {source: a, target: b}}
""", "").replace("    steps:\n", """    steps:
      - {id: relabel, method: relabel_nodes, params: {source: a, target: b}}
""")
    code, lines = validate_cli(write_recipe(text), capsys)
    assert code == 1
    assert any("steps[1].params.attacks: the degree_attributes attack needs node attributes: "
               "declare variables.a.nodes" in x for x in lines)
