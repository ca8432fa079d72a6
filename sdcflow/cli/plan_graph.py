"""A plan drawn as a graph: Graphviz DOT or a Mermaid flowchart (``sdcflow plan --format
dot|mermaid``).

Each step instance is a node labelled with its id (with the grid values of its variant,
as the plan names it: ``mask[k=3]``) and ``method NAME`` or ``measure NAME``; an edge runs
from each step to every step that depends on it; steps that read the original data hang
from a node ``original`` (labelled ``original data``). Step ids are free text in a recipe
(quotes, spaces, brackets, non-ASCII), so the graph's own ids are ``s1, s2, ...`` (plan
order; no step id can collide with them) and the step ids are in the labels, escaped:
DOT labels are quoted strings with ``\\`` and ``"`` escaped; Mermaid labels are quoted
strings with ``"`` and ``#`` written as entity codes (``#quot;``, ``#35;``), ``<`` and
``>`` too (Mermaid renders labels as HTML).
"""

from __future__ import annotations

from ..recipe.plan import Plan

ORIGINAL_LABEL = "original data"


def _edges(plan: Plan) -> list[tuple[str | None, str]]:
    """``(dependency, step)`` in plan order; ``None`` stands for the original data."""
    out: list[tuple[str | None, str]] = []
    for ps in plan.steps:
        if not ps.deps:
            out.append((None, ps.node))
        out += [(dep, ps.node) for dep in ps.deps]
    return out


def _node_ids(plan: Plan) -> dict[str, str]:
    """``s1, s2, ...`` in plan order: graph ids no step id can collide with (a step may
    be called "original")."""
    return {ps.node: f"s{n}" for n, ps in enumerate(plan.steps, 1)}


def _label_lines(plan: Plan) -> dict[str, tuple[str, str]]:
    return {ps.node: (ps.node, f"{ps.kind} {ps.step.plugin_name}") for ps in plan.steps}


def _dot_string(text: str) -> str:
    """A DOT quoted string (the DOT language: ``"`` is escaped by ``\\``; a backslash
    doubled so that no escape sequence such as ``\\n`` or ``\\l`` is read)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")
    return f'"{escaped}"'


def plan_dot(plan: Plan, name: str = "plan") -> str:
    """The plan as a Graphviz ``digraph`` (top to bottom; methods as boxes, measures as
    ellipses)."""
    ids = _node_ids(plan)
    labels = _label_lines(plan)
    kinds = {ps.node: ps.kind for ps in plan.steps}
    lines = [f"digraph {_dot_string(name)} {{", "  rankdir=TB;",
             '  node [fontname="Helvetica"];',
             f'  original [shape=cylinder, label={_dot_string(ORIGINAL_LABEL)}];']
    for node, (first, second) in labels.items():
        shape = "box" if kinds[node] == "method" else "ellipse"
        # the label's line break is DOT's own "\n" escape, between the escaped halves
        label = _dot_string(first)[:-1] + "\\n" + _dot_string(second)[1:]
        lines.append(f"  {ids[node]} [shape={shape}, label={label}];")
    for dep, node in _edges(plan):
        lines.append(f"  {ids[dep] if dep else 'original'} -> {ids[node]};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _mermaid_text(text: str) -> str:
    """Text inside a quoted Mermaid label: ``#`` first (it starts the entity codes),
    then the quote and the HTML brackets as entity codes."""
    for char, code in (("#", "#35;"), ('"', "#quot;"), ("<", "#lt;"), (">", "#gt;"),
                       ("\n", " ")):
        text = text.replace(char, code)
    return text


def plan_mermaid(plan: Plan) -> str:
    """The plan as a Mermaid ``flowchart TD`` (methods as rectangles, measures as
    rounded boxes, the original data as a cylinder)."""
    ids = _node_ids(plan)
    labels = _label_lines(plan)
    kinds = {ps.node: ps.kind for ps in plan.steps}
    lines = ["flowchart TD", f'  original[("{ORIGINAL_LABEL}")]']
    for node, (first, second) in labels.items():
        text = f"{_mermaid_text(first)}<br/>{_mermaid_text(second)}"
        opening, closing = ("[", "]") if kinds[node] == "method" else ("(", ")")
        lines.append(f'  {ids[node]}{opening}"{text}"{closing}')
    for dep, node in _edges(plan):
        lines.append(f"  {ids[dep] if dep else 'original'} --> {ids[node]}")
    return "\n".join(lines) + "\n"
