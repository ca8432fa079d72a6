"""A graph is never released with its original node labels (sdcflow.recipe._graph_release)."""

import pandas as pd
import pytest
from helpers import validate_cli

from sdcflow import run
from sdcflow.errors import RecipeError

EDGES = "a,b\n1,2\n2,3\n3,4\n1,3\n"
HEAD = """
    sdcflow: 1
    name: g
    seed: 3
    data: {path: edges.csv}
    variables:
      a: {role: key, type: integer}
      b: {role: key, type: integer}
"""
RELABEL = "  - {id: relabel, method: relabel_nodes, params: {source: a, target: b}}\n"
PERTURB = ("  - {id: perturb, method: edge_perturbation,\n"
           "     params: {source: a, target: b, fraction: 0.5}}\n")
RISK = "  - {id: risk, measure: graph_reidentification, params: {source: a, target: b}}\n"


def _recipe(write_recipe, tmp_path, steps: str, release: str = "release: {path: out.csv}"):
    (tmp_path / "edges.csv").write_text(EDGES)
    body = "steps:\n" + steps + release + "\n"
    return write_recipe(HEAD + "\n".join("    " + line for line in body.splitlines()))


@pytest.mark.parametrize("steps, release, origin", [
    (PERTURB, "release: {path: out.csv}", "by step 'perturb'"),  # no relabelling
    (RISK, "release: {path: out.csv}", "as loaded"),  # a graph measure only
    (RELABEL + PERTURB, "release: {path: out.csv}", None),  # relabelled, then perturbed: ok
    (RELABEL + PERTURB, "release: {path: out.csv, from: original}", "as loaded"),
    (PERTURB + RISK + RELABEL, "release: {path: out.csv, from: perturb}", "by step 'perturb'"),
    (PERTURB + RISK + RELABEL, "release: {path: out.csv}", None),
    (PERTURB, "", None),  # nothing released
])
def test_original_node_labels_are_refused_at_the_release(write_recipe, tmp_path, capsys,
                                                         steps, release, origin):
    path = _recipe(write_recipe, tmp_path, steps, release)
    code, lines = validate_cli(path, capsys)
    refused = [x for x in lines if "would carry the original node labels" in x]
    if origin is None:
        assert code == 0 and not refused
        return
    # one message, at the release (its `from` when given, else its `path`), naming the
    # node variables and where their labels were last written
    assert code == 1 and len(refused) == 1
    assert f"original node labels of a, b (last written {origin})" in refused[0]
    assert "add a step {method: relabel_nodes" in refused[0]
    text = path.read_text().splitlines()
    line = int(refused[0].split(":")[1])
    assert text[line - 1].lstrip().startswith("release:")


def test_an_identifier_node_variable_is_never_released_so_not_refused(write_recipe, tmp_path,
                                                                      capsys):
    # node variables declared as identifiers are dropped from every release
    path = _recipe(write_recipe, tmp_path, RISK)
    path.write_text(path.read_text().replace("{role: key, type: integer}",
                                             "{role: identifier, type: integer}"))
    code, lines = validate_cli(path, capsys)
    assert not any("original node labels" in x for x in lines)
    # (what stops it is the release policy: nothing protects the edges released)
    problems = [x for x in lines if ": " in x and not x.endswith("problem")]
    assert code == 1 and len(problems) == 1 and "nothing protects the released" in problems[0]


def test_a_relabelled_release_runs_and_keeps_the_structure(write_recipe, tmp_path):
    # a cycle of four: no member stands out by the structure, as the risk check says;
    # measured before relabel_nodes (which leaves the structure), it vouches for the
    # relabelled edge list released
    path = _recipe(write_recipe, tmp_path, RISK + RELABEL,
                   "checks: ['risk.neighbourhood.re_identified == 0']\n"
                   "release: {path: out.csv}")
    (tmp_path / "edges.csv").write_text("a,b\n1,2\n2,3\n3,4\n4,1\n")
    run(path, tmp_path / "out", use_cache=False)
    released = pd.read_csv(tmp_path / "out" / "public" / "out.csv")
    # relabelled: the same 4 edges on 1..4, each released (smaller, larger); every
    # member keeps degree 2
    assert len(released) == 4 and set(released["a"]) | set(released["b"]) == {1, 2, 3, 4}
    degrees = pd.concat([released["a"], released["b"]]).value_counts().sort_values()
    assert degrees.tolist() == [2, 2, 2, 2]
    # without the check, relabelling alone protects nothing
    path.write_text(path.read_text().replace(
        "checks: ['risk.neighbourhood.re_identified == 0']", ""))
    with pytest.raises(RecipeError, match="nothing protects the released records"):
        run(path, tmp_path / "again", use_cache=False)


@pytest.mark.parametrize("people, expected", [
    # node 4 of the graph has no record, 9 is no node
    ("member,age\n1,30\n2,40\n3,50\n9,60\n",
     ["variables.a.nodes: 1 node(s) of the graph have no record in people.csv (4)",
      ("variables.a.nodes: 1 id(s) of people.csv are no node of the graph (9; nodes are "
       "the labels of a, b)")]),
    ("member,age\n1,30\n1,40\n",
     ["variables.a.nodes: node ids given twice in the node file (lines 2, 3)"]),
    ("id,age\n1,30\n",
     ["variables.a.nodes: the node file people.csv: it has no column 'member' in its header"]),
])
def test_node_files_are_checked_against_the_graph(write_recipe, tmp_path, capsys, people,
                                                  expected):
    path = _recipe(write_recipe, tmp_path, RISK + RELABEL)
    path.write_text(path.read_text().replace(
        "a: {role: key, type: integer}",
        "a: {role: key, type: integer, nodes: {file: people.csv, id: member}}"))
    (tmp_path / "people.csv").write_text(people)
    code, lines = validate_cli(path, capsys)
    assert code == 1
    for message in expected:
        hits = [x for x in lines if message in x]
        assert hits, (message, lines)
        # at the declaration (line 6 of the recipe: variable a)
        assert hits[0].split(":")[1] == "6"
