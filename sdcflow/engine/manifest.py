"""The two manifests of a run: the full one (internal) and the public one.

The full ``manifest.json`` lets the office reproduce and audit the release: recipe and
input hashes, the seed, every step with its parameters, fingerprint, output hash and
what it did (``info``), every file written, the environment. It is internal: the seed
regenerates the random draws of perturbative methods (noise can then be subtracted),
and ``info`` describes the original data.

``public/manifest.json`` is safe to publish: sdcflow's version, the recipe's name and
hash, the released files with their hashes, the masking methods with the parameters
their plugins declare non-disclosive (``Plugin.public_params``), the measures the recipe
marks publishable (``release.measures``) as their plugins' public summaries
(``Measure.public_summary``), and the checks that involve only those measures.
"""

from __future__ import annotations

import platform
import sys

import numpy as np
import pandas as pd

from .. import __version__
from ..constraints.checks import check_figures
from ..plan import Plan, variant_label
from ..recipe import Validated
from .execution import StepRecord

LAYOUT = 2  # 2: public/ holds what may be published, the rest is internal


def full_manifest(validated: Validated, records: list[StepRecord], chosen: int | None,
                  extra: dict | None = None) -> dict:
    """The internal manifest (``files`` is filled in when the outputs are written)."""
    recipe, plan = validated.recipe, validated.plan
    out = {
        "sdcflow": __version__,
        "layout": LAYOUT,
        "recipe": {"file": recipe.path.name, "name": recipe.name, "sha256": recipe.sha256},
        "input": validated.source,
        "seed": recipe.seed,
        "variant": _variant(plan, chosen),
        "steps": [r.as_dict() for r in records],
        "files": {},
        "environment": environment(),
    }
    out.update(extra or {})
    return out


def environment() -> dict:
    return {"python": platform.python_version(), "numpy": np.__version__,
            "pandas": pd.__version__, "platform": sys.platform}


def _variant(plan: Plan, chosen: int | None) -> str | None:
    if chosen is None or not plan.variants[chosen]:
        return None
    return variant_label(plan.variants[chosen])


def published_nodes(validated: Validated, chosen: int) -> dict[str, str]:
    """Measure step id -> node of the released variant, for the measures the recipe
    marks publishable."""
    nodes = validated.plan.nodes_by_variant[chosen]
    return {sid: nodes[sid] for sid in validated.recipe.release.get("measures", [])}


def public_manifest(validated: Validated, records: list[StepRecord], chosen: int,
                    measures: dict, checks: list[dict], released: dict[str, str],
                    extra: dict | None = None) -> dict:
    """The public manifest (``extra``: further entries, e.g. whether household ids were
    replaced)."""
    """The public manifest; ``released``: file (relative to public/) -> sha256."""
    recipe, plan = validated.recipe, validated.plan
    published = published_nodes(validated, chosen)
    in_variant = set(plan.nodes_by_variant[chosen].values())
    steps = []
    by_node = {ps.node: ps for ps in plan.steps}
    for record in records:
        ps = by_node[record.node]
        if record.node not in in_variant:
            continue
        if ps.kind == "measure" and ps.step.id not in published:
            continue
        plugin = ps.step.plugin
        steps.append({"id": ps.step.id, ps.kind: ps.step.plugin_name,
                      "plugin_version": plugin.version,
                      "params": public_params(plugin, record.params)})
    public_measures = {}
    for sid, node in sorted(published.items()):
        ps = by_node[node]
        public_measures[sid] = ps.step.plugin.public_summary(measures[node], ps.params)
    public_checks = []
    for c in checks:
        check = _check(validated, c["check"])
        if {name.split(".")[0] for name in check.expr.names} <= set(published):
            entry = {"check": c["check"], "passed": c["passed"]}
            # the figures again, from what is published of the measures only
            figures = check_figures(check.expr, public_measures)
            if figures:
                entry["figures"] = figures
            public_checks.append(entry)
    out = {
        "sdcflow": __version__,
        "layout": LAYOUT,
        "recipe": {"name": recipe.name, "sha256": recipe.sha256},
        "variant": _variant(plan, chosen),
        "released": dict(sorted(released.items())),
        "steps": steps,
        "measures": public_measures,
        "checks": public_checks,
    }
    out.update(extra or {})
    return out


def public_params(plugin, params: dict) -> dict:
    """The parameters of a step that its plugin declares safe to publish."""
    allowed = plugin.public_params
    if allowed is None:
        return dict(params)
    return {k: v for k, v in params.items() if k in allowed}


def _check(validated: Validated, text: str):
    return next(c for c in validated.recipe.checks if c.text == text)
