"""``semantic_generalisation``: replace each category by its ancestor at a level of the
variable's taxonomy, or by the broader concept listed that subsumes it (generalisation
with a hierarchy of concepts: P. Samarati, "Protecting respondents' identities in
microdata release", IEEE TKDE 13(6), 2001; S. Martinez, D. Sanchez, A. Valls,
"Semantic adaptive microaggregation of categorical microdata", Computers & Security
31(5), 2012, on taxonomies such as WordNet)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ...plugins.distribution import Rows, Whole
from ...plugins.registry import Method, MethodResult, Output, register
from .._semantic import (
    as_text,
    data_problems,
    data_taxonomy,
    hierarchy_taxonomy,
    taxonomy_problems,
)


@register
class SemanticGeneralisation(Method):
    distribution = Rows()  # each value on its own (WordNet's tree: see distributes)

    def distributes(self, params, meta):
        var = meta.variables.get(params["variable"])
        if var is not None and var.taxonomy is not None and "wordnet" in var.taxonomy:
            return Whole()  # the tree is built on the data's words: all of them at once
        return Rows()

    name = "semantic_generalisation"
    public_params = ("variable", "depth", "concepts")
    protects = True
    summary = "Generalise a category to a level of its taxonomy, or to listed broader concepts."
    roles = ("key", "sensitive", "pram", "strata")
    types = ("categorical",)
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["variable"],
        "properties": {
            "variable": {"type": "string", "description": "The variable to generalise."},
            "depth": {"type": "integer", "minimum": 0,
                      "description": "Every concept deeper than this (edges from the "
                                     "taxonomy's root, 0: the root) becomes its ancestor at "
                                     "this depth."},
            "concepts": {"type": "array", "minItems": 1, "uniqueItems": True,
                         "items": {"type": "string"},
                         "description": "Broader concepts: each value they subsume becomes "
                                        "the nearest of them above it (others are kept)."},
        },
        "oneOf": [{"required": ["depth"]}, {"required": ["concepts"]}],
        "x-error": "give exactly one of 'depth' or 'concepts'",
    }

    def explain(self, params, result):
        """The option the recipe chose: a level of the taxonomy, or listed concepts."""
        name = params.get("variable", "the variable")
        if "depth" in params:
            return (f"Each value of {name} was replaced by its broader concept at depth "
                    f"{params['depth']} of its taxonomy (the root at depth 0); values "
                    "no deeper were kept.")
        if params.get("concepts"):
            shown = ", ".join(f"'{c}'" for c in params["concepts"][:8])
            more = f" and {len(params['concepts']) - 8} more" if len(params["concepts"]) > 8 else ""
            return (f"Each value of {name} below one of the concepts {shown}{more} was "
                    "replaced by the nearest of them above it in its taxonomy; other "
                    "values were kept.")
        return self.summary

    def check(self, params, meta):
        yield from taxonomy_problems(params["variable"], ("variable",), meta)
        var = meta.variables.get(params["variable"])
        if var is None or var.taxonomy is None and not var.hierarchy or "concepts" not in params:
            return
        if var.taxonomy is not None and "parents" in var.taxonomy:
            known = var.taxonomy["parents"]
        elif var.taxonomy is None:
            known = {str(c) for level in var.hierarchy.values()
                     for pair in level.items() for c in pair}
        else:
            return  # (WordNet: the concepts are known once the data's words are)
        for i, c in enumerate(params["concepts"]):
            if c not in known:
                yield ("concepts", i), f"'{c}' is not a concept of the taxonomy of '{var.name}'"

    def outputs(self, params, meta):
        var = meta.variables.get(params["variable"])
        if var is None:
            return {}
        return {var.name: Output(_generalised(var))}

    def check_data(self, params, data):
        name = params["variable"]
        problems = list(data_problems(data, name, ("variable",)))
        yield from problems
        if problems or "concepts" not in params or name not in data.variables:
            return
        index = data_taxonomy(data, name)[0].index()
        for i, c in enumerate(params["concepts"]):
            if c not in index:
                yield ("concepts", i), f"'{c}' is not a concept of the taxonomy of '{name}'"

    def apply(self, data, params, rng):
        name = params["variable"]
        var = data.variables[name]
        tax, codes = data_taxonomy(data, name)
        present = codes >= 0
        out = codes.copy()
        if "depth" in params:
            out[present] = tax.ancestor_at(codes[present], params["depth"])
        else:
            index = tax.index()
            wanted = np.zeros(len(tax.names), dtype=bool)
            wanted[[index[c] for c in params["concepts"]]] = True
            for value in np.unique(codes[present]):
                target = next((a for a in tax.ancestors(int(value)) if wanted[a]), int(value))
                out[codes == value] = target
        column = as_text(tax, out, data.frame.index)
        changed = int((out != codes).sum())
        # every depth of the taxonomy, so that partitions' counts add up key by key
        counts = np.bincount(tax.depth[out[present]], minlength=int(tax.depth.max()) + 1)
        levels = {str(d): int(n) for d, n in enumerate(counts)}
        info = {"changed": changed, "records_by_depth": levels}
        return MethodResult(data.with_columns({name: column}, [_generalised(var, tax)]), info)


def _generalised(var, tax=None):
    """The variable after generalisation: still categorical, with its taxonomy (that of
    its hierarchy, if it had only a hierarchy), so that later semantic steps can use it."""
    return var.evolve(type="categorical", order=None, hierarchy=None,
                      taxonomy=hierarchy_taxonomy(var, tax))
