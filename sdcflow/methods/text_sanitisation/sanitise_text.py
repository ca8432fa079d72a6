"""``sanitise_text``: sanitise a column of documents. Sensitive terms are replaced by their
generalisation in the variable's taxonomy (D. Sanchez, M. Batet, A. Viejo, "Automatic
general-purpose sanitization of textual documents", IEEE TIFS 8(6), 2013; the
replacement subsumes at least t leaves: B. Anandan et al., "t-Plausibility: Generalizing
words to desensitize text", Transactions on Data Privacy 5(3), 2012), numbers by an
interval, dates by their month or year, identifiers by the name of their kind, and
optionally named entities by their label, instead of being blacked out. The kernel is
:mod:`sdcflow.kernels.semantic.text_sanitisation`."""

from __future__ import annotations

from collections import Counter
from typing import ClassVar

import numpy as np

from ...data.text import text_column
from ...kernels.semantic.taxonomy import TaxonomyError
from ...kernels.semantic.text_sanitisation import information, sanitise
from ...plugins.distribution import Rows, Whole, sum_info
from ...plugins.plain_words import figure
from ...plugins.registry import Method, MethodResult, register, unchanged
from .. import _text_policy as policy_of


@register
class SanitiseText(Method):
    name = "sanitise_text"
    summary = ("Sanitise documents: sensitive terms generalised in a taxonomy, numbers, "
               "dates and identifiers coarsened.")
    params: ClassVar[dict] = policy_of.PARAMS
    public_params = policy_of.PUBLIC
    protects = True
    roles = ("sensitive", "key")
    types = ("categorical",)
    distribution = Rows()  # each document on its own
    draws_values = False  # (documents: the report shows no bars of them)

    def distributes(self, params, meta):
        if params.get("ic") == "corpus":
            return Whole()  # (the IC, and with max_ic what is sensitive, counts every document)
        var = meta.variables.get(params["variable"])
        if var is not None and var.taxonomy is not None and "wordnet" in var.taxonomy:
            return Whole()  # (one WordNet tree, read once)
        return Rows()

    def environment(self, params):
        return policy_of.environment(params)

    def check(self, params, meta):
        yield from policy_of.check(params, meta)

    def check_data(self, params, data):
        var = data.variables.get(params["variable"])
        if var is None:
            return
        try:
            policy_of.build(params, var)
        except (TaxonomyError, ValueError) as exc:
            yield ("terms",), str(exc)

    def outputs(self, params, meta):
        return unchanged([params["variable"]], meta)

    def combine_info(self, infos, params):
        out = sum_info(infos)
        if "information_before" in out:
            out["information_kept"] = _kept(out)
        return out

    def explain(self, params, result):
        if not isinstance(result, dict) or "replaced" not in result:
            return self.summary
        kept = policy_of.kept_words(result)
        tail = (f"; the documents keep {kept} of the information content of the "
                "concepts they named") if kept else ""
        return (f"{figure(result['replaced'])} findings in {figure(result['changed'])} "
                f"documents were replaced by a generalisation (terms by a broader concept, "
                f"dates by their {params.get('dates', 'year')}){tail}.")

    def apply(self, data, params, rng):
        name = params["variable"]
        column = data.frame[name]
        present = column.notna().to_numpy()
        texts = [str(v) for v in column[present].tolist()]
        policy, ic = policy_of.build(params, data.variables[name], texts)
        out, kinds = [], Counter()
        changed = 0
        for text in texts:
            new, spans = sanitise(text, policy)
            out.append(new)
            kinds.update(s.kind for s in spans if s.finer)
            changed += new != text
        values = np.full(len(column), None, dtype=object)
        values[present] = out
        info = {"documents": len(texts), "changed": changed,
                "replaced": sum(kinds.values()),
                "by_kind": {k: kinds.get(k, 0) for k in policy_of.kinds(params)}}
        if ic is not None:
            info["information_before"] = float(information(texts, policy, ic).sum())
            info["information_after"] = float(information(out, policy, ic).sum())
            info["information_kept"] = _kept(info)
        series = text_column(values, index=column.index, name=name)
        return MethodResult(data.with_columns({name: series}, []), info)


def _kept(info: dict) -> float:
    """The share of information content kept (1 when the documents named no concept);
    rounded, so that partitions added in another order give the same figure."""
    before = info["information_before"]
    return round(info["information_after"] / before, 9) if before > 0 else 1.0
