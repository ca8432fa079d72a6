"""The two manifests of a run: the full one (internal) and the public one.

The full ``manifest.json`` lets the office reproduce and audit the release: recipe and
input hashes, the seed, every step with its parameters, fingerprint, output hash and
what it did (``info``), every file written, the environment. It is internal: the seed
regenerates the random draws of perturbative methods (noise can then be subtracted),
and ``info`` describes the original data.

``public/manifest.json`` is safe to publish: sdcflow's version, the recipe's name and
the hash of its public form (never of the recipe file, whose text holds the seed: see
:mod:`sdcflow.engine.public_recipe`), the released files with their hashes, the masking
methods with the parameters their plugins publish (``Plugin.public_params``, opt-in), the
released variant as far as its parameters are public, the measures the recipe marks
publishable (``release.measures``) as their plugins' public summaries
(``Measure.public_summary``), and the checks that involve only those measures. Nothing
in it is a function of the seed.
"""

from __future__ import annotations

import platform
import sys

import numpy as np
import pandas as pd

from .._version import __version__
from ..constraints.checks import check_figures
from ..recipe import Validated
from ..recipe.plan import Plan, variant_label
from .public_recipe import public_check, public_sha256, public_values
from .records import StepRecord

LAYOUT = 2  # 2: public/ holds what may be published, the rest is internal


def full_manifest(validated: Validated, records: list[StepRecord], chosen: int | None,
                  extra: dict | None = None) -> dict:
    """The internal manifest (``files`` is filled in when the outputs are written)."""
    recipe, plan = validated.recipe, validated.plan
    out = {
        "sdcflow": __version__,
        "layout": LAYOUT,
        "recipe": {"file": recipe.path.name, "name": recipe.name, "sha256": recipe.sha256,
                   "public_sha256": public_sha256(recipe),
                   # --set: the file's values this run changed (its sha256 is the file's;
                   # public_sha256 is of the recipe as run)
                   **({"overrides": [o.as_dict() for o in recipe.overrides]}
                      if recipe.overrides else {})},
        "input": validated.source,
        "seed": recipe.seed,
        "variant": _variant(plan, chosen),
        "steps": [r.as_dict() for r in records],
        # what protects each released artefact, the attacks acknowledged and why
        **({"release_policy": recipe.policy.as_dict()} if recipe.policy is not None
           and chosen is not None else {}),
        # the privacy budget, each DP step's spend and the total (public: see below)
        **({"privacy": recipe.privacy} if recipe.privacy is not None else {}),
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
    """The public manifest; ``released``: file (relative to public/) -> sha256;
    ``extra``: further entries (e.g. whether household ids were replaced)."""
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
                      "params": plugin.public(record.params)})
    public_measures = {}
    for sid, node in sorted(published.items()):
        ps = by_node[node]
        public_measures[sid] = ps.step.plugin.public_summary(measures[node], ps.params)
    public_checks = []
    for c in checks:
        check = _check(validated, c["check"])
        if public_check(recipe, check):
            entry = {"check": c["check"], "passed": c["passed"]}
            # the figures again, from what is published of the measures only
            figures = check_figures(check.expr, public_measures)
            if figures:
                entry["figures"] = figures
            public_checks.append(entry)
    out = {
        "sdcflow": __version__,
        "layout": LAYOUT,
        "recipe": {"name": recipe.name, "public_sha256": public_sha256(recipe)},
        "variant": public_variant(validated, chosen),
        "released": dict(sorted(released.items())),
        "steps": steps,
        "measures": public_measures,
        "checks": public_checks,
    }
    if recipe.privacy is not None:
        # DP's budget and spends are public by design: an analyst needs them to judge
        # the noise, and they give away nothing of the data (the seed stays internal)
        out["privacy"] = recipe.privacy
    out.update(extra or {})
    return out


def public_variant(validated: Validated, chosen: int) -> str | None:
    """The label of the released variant, of its published parameters only (a grid over
    an internal parameter, e.g. rank swapping's p, would otherwise publish its value)."""
    plan = validated.plan
    if chosen is None or not plan.variants[chosen]:
        return None
    steps = {s.id: s for s in validated.recipe.steps}
    public = {sid: public_values(steps[sid].plugin, values)
              for sid, values in plan.variants[chosen].items()}
    public = {sid: values for sid, values in public.items() if values}
    return variant_label(public) if public else None


def _check(validated: Validated, text: str):
    return next(c for c in validated.recipe.checks if c.text == text)
