"""Step values as the Steps page writes and shows them: a grid's values (a YAML list read
by sdcflow's own safe reader) and the one-line summary of a step's parameters."""

from __future__ import annotations

import json

from ...recipe._yaml import load_yaml


def parse_values(text: str) -> tuple[list | None, str | None]:
    """A grid's values: a YAML list (``[5, 10]``, or one value per line ``- 5``)."""
    doc = load_yaml(text or "[]", "grid")
    errors = [p.message for p in doc.problems if p.severity == "error"]
    if errors:
        return None, "; ".join(errors)
    if not isinstance(doc.data, list) or not doc.data:
        return None, "write the values as a list, e.g. [3, 5]"
    return doc.data, None


def summary(params: dict, limit: int = 110) -> str:
    """A one-line summary of a step's parameters."""
    text = ", ".join(f"{k}={json.dumps(v, separators=(',', ':'))}"
                     for k, v in (params or {}).items())
    return text if len(text) <= limit else text[:limit - 1] + "…"
