"""A step's parameters as the Steps page takes them: a YAML mapping, read by sdcflow's own
safe YAML reader and checked against the plugin's parameter schema (the one ``sdcflow
methods NAME`` prints), with the schema checker's messages."""

from __future__ import annotations

import json

from ..recipe._schema import schema_problems
from ..recipe._yaml import load_yaml


def parse_params(schema: dict, text: str) -> tuple[dict | None, list[str]]:
    """The parameters written in ``text`` (empty: none) and what is wrong with them."""
    if not text.strip():
        text = "{}"
    doc = load_yaml(text, "params")
    problems = [p.message for p in doc.problems if p.severity == "error"]
    if problems:
        return None, problems
    if not isinstance(doc.data, dict):
        return None, ["write the parameters as a mapping, one 'name: value' per line"]
    problems = [p.message.replace("recipe: ", "params: ", 1)
                for p in schema_problems(doc, doc.data, schema)]
    return (None, problems) if problems else (doc.data, [])


def parse_values(text: str) -> tuple[list | None, str | None]:
    """A grid's values: a YAML list (``[5, 10]``, or one value per line ``- 5``)."""
    doc = load_yaml(text or "[]", "grid")
    errors = [p.message for p in doc.problems if p.severity == "error"]
    if errors:
        return None, "; ".join(errors)
    if not isinstance(doc.data, list) or not doc.data:
        return None, "write the values as a list, e.g. [3, 5]"
    return doc.data, None


def params_text(params: dict) -> str:
    """Parameters as the editor shows them: one ``name: value`` line each (values in
    flow style, JSON being YAML)."""
    return "".join(f"{k}: {json.dumps(v)}\n" for k, v in (params or {}).items())


def summary(params: dict, limit: int = 110) -> str:
    """A one-line summary of a step's parameters."""
    text = ", ".join(f"{k}={json.dumps(v, separators=(',', ':'))}"
                     for k, v in (params or {}).items())
    return text if len(text) <= limit else text[:limit - 1] + "…"
