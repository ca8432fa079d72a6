"""``sdcflow plan --format dot|mermaid`` (sdcflow.cli.plan_graph): the plan drawn as a graph."""

import re

from helpers import QUICKSTART

from sdcflow import validate
from sdcflow.cli import main
from sdcflow.cli.plan_graph import plan_dot, plan_mermaid

# step ids are names, but a grid over a text value puts it into the node's id (JSON):
# quotes, a backslash, '#', '<' and '>', which the two languages treat specially
RECIPE = r"""
sdcflow: 1
name: t
seed: 1
data: {builtin: testdata}
variables:
  age: {role: key, type: integer}
  sex: {role: key}
steps:
  - id: top
    method: top_bottom_code
    params: {variable: age}
    grid: {top: [{value: 80, label: 'say "hi" \n #1 <b>'}, {value: 90}]}
  - {id: risk, measure: k_anonymity, params: {k: 2}}
"""

_DOT_STRING = r'"(?:[^"\\]|\\.)*"'
_DOT_NODE = re.compile(rf"^  (\w+) \[shape=(\w+), label=({_DOT_STRING})\];$")
_DOT_EDGE = re.compile(r"^  (\w+) -> (\w+);$")


def _dot_unquote(text: str) -> str:
    """A DOT quoted string's text (its escapes read as Graphviz reads them)."""
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), text[1:-1])


def _parse_dot(text: str):
    lines = text.splitlines()
    assert lines[0].startswith("digraph ") and lines[0].endswith(" {") and lines[-1] == "}"
    nodes, edges = {}, []
    for line in lines[1:-1]:
        if m := _DOT_NODE.match(line):
            if m.group(1) == "original":
                assert m.group(2, 3) == ("cylinder", '"original data"')
                continue
            nodes[m.group(1)] = (m.group(2), _dot_unquote(m.group(3)))
        elif m := _DOT_EDGE.match(line):
            edges.append((m.group(1), m.group(2)))
        else:  # the graph's attributes
            assert line in ("  rankdir=TB;", '  node [fontname="Helvetica"];'), line
    return nodes, edges


def _expected(plan):
    labels = {f"s{n}": f"{ps.node}\n{ps.kind} {ps.step.plugin_name}"
              for n, ps in enumerate(plan.steps, 1)}
    ids = {ps.node: f"s{n}" for n, ps in enumerate(plan.steps, 1)}
    edges = [(ids[d] if d else "original", ids[ps.node])
             for ps in plan.steps for d in (ps.deps or [None])]
    return labels, edges


def test_dot_of_quickstart_has_a_node_per_step_and_its_dependencies():
    plan = validate(QUICKSTART).plan
    nodes, edges = _parse_dot(plan_dot(plan, "quickstart"))
    labels, expected_edges = _expected(plan)
    assert {k: v[1] for k, v in nodes.items()} == labels
    assert sorted(edges) == sorted(expected_edges)
    # from the quickstart's plan (tests/test_plan.py): risk depends on the three recodes
    by_label = {v[1].split("\n")[0]: k for k, v in nodes.items()}
    assert {a for a, b in edges if b == by_label["risk"]} == {
        by_label["age10"], by_label["relat_groups"], by_label["water_groups"]}
    assert nodes[by_label["age10"]][0] == "box" and nodes[by_label["risk"]][0] == "ellipse"


def test_dot_escapes_quotes_and_backslashes_of_step_ids(write_recipe):
    plan = validate(write_recipe(RECIPE)).plan
    text = plan_dot(plan, 'a "name"')
    assert text.startswith('digraph "a \\"name\\"" {\n')
    nodes, edges = _parse_dot(text)
    labels, expected_edges = _expected(plan)
    assert {k: v[1] for k, v in nodes.items()} == labels
    assert labels["s1"] == ('top[top={"label":"say \\"hi\\" \\\\n #1 <b>","value":80}]\n'
                            'method top_bottom_code')
    assert sorted(edges) == sorted(expected_edges)
    assert len(nodes) == 4  # two variants of each step


_MERMAID_NODE = re.compile(r'^  (s\d+)(\[|\()"([^"]*)"(\]|\))$')
_MERMAID_EDGE = re.compile(r"^  (\w+) --> (\w+)$")
_ENTITIES = {"#quot;": '"', "#35;": "#", "#lt;": "<", "#gt;": ">"}


def _mermaid_unescape(text: str) -> str:
    return re.sub(r"#\w+;", lambda m: _ENTITIES[m.group(0)], text).replace("<br/>", "\n")


def test_mermaid_flowchart_with_escaped_labels(write_recipe):
    plan = validate(write_recipe(RECIPE)).plan
    lines = plan_mermaid(plan).splitlines()
    assert lines[:2] == ["flowchart TD", '  original[("original data")]']
    nodes, edges = {}, []
    for line in lines[2:]:
        if m := _MERMAID_NODE.match(line):
            assert "#" not in m.group(3).replace("#quot;", "").replace("#35;", "") \
                .replace("#lt;", "").replace("#gt;", "")
            nodes[m.group(1)] = (m.group(2), _mermaid_unescape(m.group(3)))
        else:
            m = _MERMAID_EDGE.match(line)
            assert m, line
            edges.append(m.groups())
    labels, expected_edges = _expected(plan)
    # (the "<b>" of the id comes back from its entity codes, the <br/> is the line break)
    assert {k: v[1] for k, v in nodes.items()} == labels
    assert sorted(edges) == sorted(expected_edges)
    assert nodes["s1"][0] == "[" and nodes["s3"][0] == "("  # method, measure


def test_plan_command_formats(capsys):
    assert main(["plan", "--format", "dot", str(QUICKSTART)]) == 0
    assert capsys.readouterr().out.startswith('digraph "quickstart" {\n')
    assert main(["plan", "--format", "mermaid", str(QUICKSTART)]) == 0
    assert capsys.readouterr().out.startswith("flowchart TD\n")
