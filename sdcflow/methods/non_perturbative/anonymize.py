"""``anonymize``: state the privacy targets (k-anonymity, l-diversity, t-closeness,
beta-likeness, delta-presence against a population file, an average re-identification
risk) and a suppression limit, and get the full-domain
generalisation of the key variables with the least information loss that meets them,
the records of classes that still fail suppressed, as ARX does (F. Kohlmayer, F. Prasser,
C. Eckert, A. Kemper & K. Kuhn, "Flash: efficient, stable and optimal k-anonymity",
2012; F. Prasser & F. Kohlmayer, "Putting statistical disclosure control into practice:
the ARX data anonymization tool", 2015). The search is
:func:`sdcflow.kernels.privacy.lattice.search`, the losses are in
:mod:`sdcflow.kernels.privacy.loss`, the hierarchies in
:mod:`sdcflow.kernels.non_perturbative.hierarchies`."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd

from ...data import Dataset
from ...data.text import text_column
from ...errors import PluginError, did_you_mean
from ...kernels.privacy import lattice
from ...kernels.privacy.loss import LOSSES, SUPPRESSION_LOSSES, WEIGHTED
from ...measures.risk.delta_presence import POPULATION_COUNTS
from ...plugins.plain_words import figure, names
from ...plugins.registry import Method, MethodResult, Output, register, variables_param
from . import _anonymize_targets as targets_of
from ._hierarchies import HIERARCHY_PARAM, Built, build, released, spec_for, spec_problems

SENSITIVE = {"type": "string", "description": "The sensitive variable."}
TARGET = {
    "type": "object", "minProperties": 1, "maxProperties": 1, "additionalProperties": False,
    "properties": {
        "k_anonymity": {"type": "integer", "minimum": 1,
                        "description": "Every class holds at least k records."},
        "l_diversity": {
            "type": "object", "additionalProperties": False, "required": ["l", "variable"],
            "properties": {"l": {"type": "number", "minimum": 1,
                                 "description": "The l of l-diversity."},
                           "variable": SENSITIVE,
                           "kind": {"enum": ["distinct", "entropy", "recursive"],
                                    "default": "distinct",
                                    "description": "Which l-diversity (see below)."},
                           "c": {"type": "number", "exclusiveMinimum": 0,
                                 "description": "The c of recursive (c, l)-diversity."}},
            "description": "Every class holds l distinct values of the sensitive variable "
                           "(distinct), an entropy of at least log l (entropy), or is "
                           "recursive (c, l)-diverse: its most frequent value's count below "
                           "c times the sum of the counts from the l-th most frequent on "
                           "(recursive, with c)."},
        "t_closeness": {
            "type": "object", "additionalProperties": False, "required": ["t", "variable"],
            "properties": {"t": {"type": "number", "minimum": 0, "maximum": 1,
                                 "description": "The largest distance allowed."},
                           "variable": SENSITIVE,
                           "distance": {"enum": ["equal", "ordered", "hierarchical"],
                                        "default": "equal",
                                        "description": "The ground distance between "
                                                       "values: all equal, by their order, "
                                                       "or in the hierarchy."}},
            "description": "Every class's distribution of the sensitive variable lies within "
                           "Earth Mover's Distance t of the whole input's (hierarchical: "
                           "over the sensitive variable's declared hierarchy)."},
        "beta_likeness": {
            "type": "object", "additionalProperties": False, "required": ["beta", "variable"],
            "properties": {"beta": {"type": "number", "minimum": 0,
                                    "description": "The largest relative gain allowed."},
                           "variable": SENSITIVE},
            "description": "In every class, a sensitive value more frequent there (q) than "
                           "in the whole input (p) has (q - p) / p at most beta."},
        "delta_presence": {
            "type": "object", "additionalProperties": False, "required": ["population"],
            "properties": {
                "population": {"type": "string", "minLength": 1,
                               "description": "CSV file of the population (relative to the "
                                              "recipe) with the key variables as columns, "
                                              "coded as the data."},
                "delta_min": {"type": "number", "minimum": 0, "maximum": 1, "default": 0,
                              "description": "The least share allowed."},
                "delta_max": {"type": "number", "minimum": 0, "maximum": 1, "default": 1,
                              "description": "The largest share allowed."}},
            "description": "In every class, the share of its population records that are "
                           "in the data lies within [delta_min, delta_max]."},
        "average_risk": {"type": "number", "exclusiveMinimum": 0, "maximum": 1,
                         "description": "The mean over the released records of 1 / (size of "
                                        "their class) is at most this."},
    },
    "x-error": ("each target is one of k_anonymity, l_diversity, t_closeness, beta_likeness, "
                "delta_presence, average_risk"),
}


@register
class Anonymize(Method):
    name = "anonymize"
    protects = True
    summary = ("Least-loss full-domain generalisation meeting privacy targets (k-anonymity, "
               "l-diversity, t-closeness, beta-likeness, delta-presence, average risk), with "
               "a suppression limit.")
    # the population's key combinations stay internal (a register may not be public)
    public_params = ("targets", "suppression_limit", "variables", "hierarchies", "loss",
                     "suppression_loss", "weights", "practical_monotonicity")
    # 2: average_class_size is n / classes (ARX's AECS), the old figure divided by k is
    # normalized_average_class_size; delta-presence fails a node with a population class
    # absent from the data; 3: width levels reaching below zero are labelled "-10 to -1"
    # (was "-10--1"); 4: a faster search checks other nodes (nodes_checked), the same
    # optimum; 5: t-closeness's and delta-presence's excess bounds tag more nodes
    # (nodes_checked again), the same optimum; 6: Flash's paths go on to the successor
    # keeping fewest distinct values, delta-presence is checked on joint class tables of
    # data and population (nodes_checked again), the same optimum
    version = "6"
    makes_missing = True  # the key values of suppressed records
    roles = ("key",)
    default_roles = ("key",)
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["targets"],
        "properties": {
            "targets": {"type": "array", "minItems": 1, "items": TARGET,
                        "description": "The privacy targets every release class must meet."},
            "suppression_limit": {
                "type": "number", "minimum": 0, "maximum": 1, "default": 0,
                "description": "Share of the records that may be suppressed (their key "
                               "values made missing) when their classes fail the targets."},
            "variables": variables_param("Key variables (default: every variable with role "
                                         "key)."),
            "hierarchies": {"type": "object", "additionalProperties": HIERARCHY_PARAM,
                            "description": "Per key variable, how it is generalised."},
            "loss": {"enum": list(LOSSES), "default": "precision",
                     "description": "The information loss minimised."},
            "suppression_loss": {
                "enum": list(SUPPRESSION_LOSSES), "default": "full",
                "description": "How a suppressed record is charged in precision, "
                               "discernibility and non_uniform_entropy: full (as a value "
                               "generalised to the top), arx_monotonic (as ARX's monotonic "
                               "metrics, e.g. DM*: not charged beyond its class at the "
                               "node) or arx_non_monotonic (as ARX's non-monotonic "
                               "metrics: in the entropy, a suppressed value covers the "
                               "suppressed records only)."},
            "practical_monotonicity": {
                "type": "boolean", "default": False,
                "description": "Search as if every target were monotone (ARX's option of "
                               "that name): faster with suppression and targets that are "
                               "not monotone, but the optimum may be missed. The node "
                               "chosen is checked in full (if it fails, the exact search "
                               "runs instead)."},
            "population_counts": {
                **POPULATION_COUNTS,
                "description": "The delta_presence population's key combinations and their "
                               "counts (filled from its 'population' file when the recipe "
                               "is read)."},
            "weights": {"type": "object",
                        "additionalProperties": {"type": "number", "minimum": 0,
                                                 "maximum": 1e6},
                        "description": "Per key variable, its weight in the loss (default 1; "
                                       "precision and non_uniform_entropy)."},
        },
    }

    def _sensitive(self, params) -> list[tuple[tuple, str]]:
        out = []
        for i, target in enumerate(params.get("targets", [])):
            for kind in ("l_diversity", "t_closeness", "beta_likeness"):
                if isinstance(target.get(kind), dict) and "variable" in target[kind]:
                    out.append((("targets", i, kind, "variable"), target[kind]["variable"]))
        return out

    def read_files(self, params, files):
        """The delta_presence target's population file, read relative to the recipe."""
        return targets_of.read_population(params, files)

    def reads(self, params, meta):
        return set(self.variables(params, meta)) | {v for _, v in self._sensitive(params)}

    def outputs(self, params, meta):
        # the chosen level is known only from the data: every key becomes category text
        return {v: Output(meta.variables[v].evolve(type="categorical", order=None,
                                                   hierarchy=None, taxonomy=None))
                for v in self.variables(params, meta) if v in meta.variables}

    def explain(self, params, result):
        if not isinstance(result, dict) or "node" not in result:
            # (the external report): the targets the recipe gives, not every kind the
            # plugin knows, as its summary lists them
            targets = [_target_text(t) for t in params.get("targets") or ()]
            text = ("Full-domain generalisation: each key variable generalised to one level "
                    "of its hierarchy, the combination of least loss meeting "
                    f"{names(targets) or 'the privacy targets'}")
            if params.get("suppression_limit") is not None:
                text += (f", with at most {figure(100 * params['suppression_limit'])}% of "
                         "the records suppressed")
            return text + "."
        levels = ", ".join(f"{v} at level {lv}" for v, lv in result["node"].items())
        count = result.get("suppressed_records")
        records = "1 record was" if count == 1 else f"{figure(count)} records were"
        return (f"The least-loss generalisation of the key variables meeting "
                f"{', '.join(result.get('targets_met', []))} was found among "
                f"{figure(result.get('lattice_size'))} combinations of levels ({levels}); "
                f"{records} suppressed.")

    def check(self, params, meta):
        keys = self.variables(params, meta)
        if not keys:
            yield ("variables",), "no key variables: declare variables with role 'key'"
        for name in keys:
            var = meta.variables.get(name)
            if var is None:
                continue
            if var.level == "household":
                yield ("variables",), (f"'{name}' is household-level: anonymize suppresses "
                                       "per record and would leave it visible through the "
                                       "other members; generalise it with global_recode")
            path = ("hierarchies", name) if name in params.get("hierarchies", {}) else (
                "variables",)
            yield from spec_problems(var, spec_for(var, params), path)
        for field in ("hierarchies", "weights"):
            for name in params.get(field, {}):
                if name not in keys:
                    yield (field, name), (f"'{name}' is not one of the key variables "
                                          f"{keys}{did_you_mean(name, keys)}")
        if params.get("weights") and params["loss"] not in WEIGHTED:
            yield ("weights",), (f"the {params['loss']} loss does not add up over variables: "
                                 f"weights need one of {list(WEIGHTED)}")
        for path, name in self._sensitive(params):
            if name not in meta.variables:
                yield path, f"'{name}' is not a declared variable{did_you_mean(name, meta.variables)}"
            elif name in keys:
                yield path, f"'{name}' is a key variable; the sensitive variable must not be one"
        ks = [t["k_anonymity"] for t in params["targets"] if "k_anonymity" in t]
        if len(ks) > 1:
            yield ("targets",), "give k_anonymity once"
        yield from targets_of.problems(params, meta, keys)

    def check_data(self, params, data):
        n = len(data)
        if n == 0:
            yield (), "the data hold no records"
            return
        for i, target in enumerate(params["targets"]):
            if target.get("k_anonymity", 0) > n:
                yield ("targets", i, "k_anonymity"), (
                    f"k = {target['k_anonymity']} is larger than the number of records ({n})")
        keys = self.variables(params, data.meta)
        size = 1
        for name in keys:
            var = data.variables[name]
            spec = spec_for(var, params)
            path = ("hierarchies", name) if name in params.get("hierarchies", {}) else (
                "variables",)
            if "declared" in spec:
                known = {str(k) for k in next(iter(var.hierarchy.values()))}
                values = {str(v) for v in data.frame[name].dropna().unique()}
                if values - known:
                    yield path, (f"values of '{name}' missing from its hierarchy: "
                                 f"{sorted(values - known)[:5]}")
                    continue
            try:
                size *= len(build(data, name, spec).maps)
            except ValueError as exc:
                yield path, f"the hierarchy of '{name}': {exc}"
        yield from targets_of.data_problems(params, data, keys)
        if size > lattice.MAX_NODES:
            yield ("hierarchies",), (f"the hierarchies make {size:,} combinations of levels, "
                                     f"more than {lattice.MAX_NODES:,}: use fewer levels")

    def apply(self, data, params, rng):
        keys = self.variables(params, data.meta)
        n = len(data)
        population = None
        source = data
        if any("delta_presence" in t for t in params["targets"]):
            # the hierarchies built on the data and the population together, so that the
            # population's records have codes (and classes at each node) too
            pop = targets_of.population_frame(params, data, keys)
            frame = pd.concat([data.frame[keys].reset_index(drop=True), pop],
                              ignore_index=True)
            source = Dataset(frame, {v: data.variables[v] for v in keys})
        built = [build(source, name, spec_for(data.variables[name], params)) for name in keys]
        codes = (np.column_stack([b.codes for b in built]) if built
                 else np.zeros((len(source), 0), dtype=np.int64))
        if source is not data:
            population, codes = codes[n:], codes[:n]
            built = [Built(b.codes[:n], b.maps, b.names, b.missing) for b in built]
        targets, k = targets_of.kernel_targets(params, data, population,
                                               [b.maps for b in built])
        weights = [float(params.get("weights", {}).get(v, 1.0)) for v in keys]
        limit = float(params["suppression_limit"])
        result = lattice.search(codes, [b.maps for b in built], targets, params["loss"],
                                suppression_limit=limit, weights=weights, k=k,
                                suppression_loss=params["suppression_loss"],
                                practical_monotonicity=params["practical_monotonicity"])
        if result.node is None:
            raise PluginError(self.name, (
                f"no combination of hierarchy levels ({result.lattice_size:,}) meets "
                f"{', '.join(t.name for t in targets)} with at most {limit:g} of the records "
                "suppressed: allow more suppression or give hierarchies with more levels"))
        columns = {}
        for j, name in enumerate(keys):
            out = released(built[j], result.node[j], result.suppressed)
            columns[name] = text_column(out).set_axis(data.frame.index)
        new_vars = [data.variables[v].evolve(type="categorical", order=None, hierarchy=None,
                                             taxonomy=None) for v in keys]
        info = {
            "lattice_size": result.lattice_size,
            "nodes_checked": result.checked,
            "node": {v: int(lv) for v, lv in zip(keys, result.node, strict=True)},
            "loss": params["loss"],
            "suppression_loss": params["suppression_loss"],
            "practical_monotonicity": params["practical_monotonicity"],
            "loss_value": float(result.loss),
            "targets_met": [t.name for t in targets],
            "suppressed_records": int(result.suppressed.sum()),
        }
        return MethodResult(data.with_columns(columns, new_vars), info)


def _target_text(target) -> str:
    """A privacy target as the recipe gives it: ``k_anonymity 3``, ``l_diversity (l 2,
    variable walls)``."""
    if not isinstance(target, dict) or len(target) != 1:
        return str(target)
    (kind, value), = target.items()
    if isinstance(value, dict):
        value = "(" + ", ".join(f"{k} {v}" for k, v in value.items()) + ")"
    return f"{kind.replace('_', '-')} {value}"
