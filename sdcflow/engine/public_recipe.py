"""The recipe's public form: the part of a recipe that may be published, and its hash.

The public manifest says which recipe made the release by a hash. The hash of the recipe
file would give the seed away: the file holds the seed, and with the rest of the recipe
known (offices publish their recipes for transparency), trying seeds 0, 1, 2, ... until
the hash matches finds it in milliseconds. The seed regenerates every random draw of the
run: the noise, PRAM's and the swaps' draws, the cell key method's record keys. So
``public/manifest.json`` carries the hash of the recipe's *public form* instead: the
recipe with everything that is not published removed, written in one canonical way
(JSON, keys sorted, two-space indent, a final newline) that anyone holding the recipe
recomputes (``sdcflow public-recipe RECIPE``, :func:`public_form_text`). Every value in
it may be published, so its hash, searched or not, gives away nothing; and since comments,
layout and quoting are not part of it, two recipes that differ only there have one public
form. The full (internal) manifest keeps the hash of the recipe file, and this one.

The public form keeps: the format's version, the recipe's name, the variables'
declarations (without descriptions and node attribute files, which no release holds),
the tables (without descriptions and the file an aggregated table is read from), the
masking steps and the measures the recipe marks publishable (``release.measures``) with
their ids, plugins, tables, inputs and order, their parameters and grid values as far as
their plugins publish them (:meth:`sdcflow.plugins.registry.Plugin.public`), the checks on those
measures only, and the release (its ``variant`` as far as its parameters are public).

It leaves out: the seed; every parameter a plugin does not publish (a swap rate, the
sensitivity rules, the column of record keys, a population's counts, ...); the measures
that are not published, and the checks on them; the data section (where the input is
and how it is read: the public manifest says nothing of the input); the edit
constraints (they describe the original data and are not published); the execution
section (how the recipe ran, which does not change the release); every description
(free text, published nowhere); comments.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..recipe import Recipe
from .canonical import pretty_json, sha256_text

FORM = 1  # the version of this definition: a change of it changes every public hash

_VARIABLE_INTERNAL = ("description", "nodes")


def published_measures(recipe: Recipe) -> set[str]:
    """The ids of the measure steps whose results the recipe publishes."""
    return set(recipe.release.get("measures", []))


def public_check(recipe: Recipe, check) -> bool:
    """Whether a check involves only published measures (so it is published)."""
    names = check.expr.names if check.expr is not None else ()
    return {name.split(".")[0] for name in names} <= published_measures(recipe)


def public_form(recipe: Recipe) -> dict:
    """The recipe's public form (see the module's description)."""
    doc = recipe.doc.data if isinstance(recipe.doc.data, Mapping) else {}
    published = published_measures(recipe)
    steps = [_public_step(step) for step in recipe.steps
             if step.kind == "method" or step.id in published]
    out = {
        "public_form": FORM,
        "sdcflow": doc.get("sdcflow"),
        "name": recipe.name,
        "variables": {name: {k: v for k, v in decl.items() if k not in _VARIABLE_INTERNAL}
                      for name, decl in (doc.get("variables") or {}).items()
                      if isinstance(decl, Mapping)},
        "steps": steps,
        "checks": [c.text for c in recipe.checks if public_check(recipe, c)],
        "release": _public_release(recipe),
    }
    if doc.get("tables"):
        out["tables"] = [_public_table(t) for t in doc["tables"] if isinstance(t, Mapping)]
    if isinstance(doc.get("privacy_budget"), Mapping):  # (public: the DP budget)
        out["privacy_budget"] = dict(doc["privacy_budget"])
    return out


def public_form_text(recipe: Recipe) -> str:
    """The public form as the text that is hashed (and printed by ``sdcflow
    public-recipe``)."""
    return pretty_json(public_form(recipe))


def public_sha256(recipe: Recipe) -> str:
    """The sha256 of the public form's text (UTF-8): the recipe's hash in the public
    manifest. ``sdcflow public-recipe RECIPE | sha256sum`` gives the same."""
    return sha256_text(public_form_text(recipe))


def _public_step(step) -> dict:
    plugin = step.plugin
    out = {"id": step.id, step.kind: step.plugin_name,
           "params": plugin.public(step.params) if plugin is not None else {}}
    if step.table is not None:
        out["table"] = step.table
    if step.input is not None:
        out["input"] = step.input
    if step.after:
        out["after"] = list(step.after)
    grid = _public_grid(step)
    if grid:
        out["grid"] = grid
    return out


def public_values(plugin, values: Mapping) -> dict:
    """``values`` (parameter -> value, e.g. a grid variant's) without the parameters
    ``plugin`` does not publish."""
    out = {}
    for key, value in values.items():
        public = plugin.public({key: value}) if plugin is not None else {}
        if key in public:
            out[key] = public[key]
    return out


def _public_grid(step) -> dict:
    """The step's grid, the axes of parameters its plugin publishes only."""
    out = {}
    for key, values in step.grid.items():
        public = [public_values(step.plugin, {key: v}) for v in values]
        if all(key in p for p in public):
            out[key] = [p[key] for p in public]
    return out


def _public_release(recipe: Recipe) -> dict:
    release = dict(recipe.release)
    if "variant" in release:
        variant = {k: v for k, v in release["variant"].items()
                   if _variant_key_public(recipe, k, v)}
        if variant:
            release["variant"] = variant
        else:
            del release["variant"]
    return release


def _variant_key_public(recipe: Recipe, key: str, value) -> bool:
    """Whether ``release.variant``'s ``key`` (``param`` or ``step.param``) names a
    published parameter of every gridded step it may refer to."""
    step_id, _, param = key.rpartition(".")
    steps = [s for s in recipe.steps if param in s.grid and (not step_id or s.id == step_id)]
    return bool(steps) and all(param in public_values(s.plugin, {param: value})
                               for s in steps)


def _public_table(table: Mapping) -> dict:
    out = {k: v for k, v in table.items() if k != "description"}
    if isinstance(out.get("from"), Mapping):
        out["from"] = {k: v for k, v in out["from"].items() if k != "path"}
    return out
