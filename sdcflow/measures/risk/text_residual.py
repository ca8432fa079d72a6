"""``text_residual``: what a column of documents still discloses under a sanitisation
policy (the parameters of ``sanitise_text``, so that a recipe can give both steps the same
ones), and how much information content it keeps.

* residual: the findings the policy forbids that the released documents still hold, the
  generalisations it writes left aside (a listed term or one below it, a number, an
  identifier, a named entity, a date finer than the precision kept); 0 for documents
  ``sanitise_text`` wrote with the same parameters;
* information kept: the sum of the information content of the concepts the released
  documents name over that of the original documents, overall and per document (D.
  Sanchez, M. Batet, A. Viejo, "Automatic general-purpose sanitization of textual
  documents", IEEE TIFS 8(6), 2013, measure utility as the information content a
  sanitised document keeps; intrinsic IC: N. Seco, T. Veale, J. Hayes, ECAI 2004).

Records are paired by position with the reference (the original data by default)."""

from __future__ import annotations

from collections import Counter
from typing import ClassVar

import numpy as np
import pandas as pd

from ...kernels.semantic.text_sanitisation import information, residual
from ...methods import _text_policy as policy_of
from ...plugins.plain_words import figure
from ...plugins.registry import Measure, MeasureResult, register
from ...plugins.results import COUNT, NUMBER, Keyed, record
from ..reference import REFERENCE, same_records


@register
class TextResidual(Measure):
    name = "text_residual"
    summary = ("Findings a sanitisation policy forbids still in the documents, and the "
               "information content they keep.")
    params: ClassVar[dict] = {**policy_of.PARAMS, "properties": {
        **policy_of.PARAMS["properties"], "reference": REFERENCE}}
    public_params = (*policy_of.PUBLIC, "reference")
    risk_measure = True
    pairs_records = True
    types = ("categorical",)

    def environment(self, params):
        return policy_of.environment(params)

    def check(self, params, meta):
        yield from policy_of.check(params, meta)

    def result_shape(self, params, meta):
        return record(documents=COUNT, residual=COUNT,
                      residual_by_kind=Keyed(COUNT, "kind", tuple(policy_of.kinds(params))),
                      documents_with_residual=COUNT,
                      information_kept=NUMBER.with_null(),
                      information_kept_min=NUMBER.with_null())

    def explain(self, params, result):
        if not isinstance(result, dict) or "residual" not in result:
            return self.summary
        kept = policy_of.kept_words(result)
        tail = (f" They keep {kept} of the information content of the concepts the "
                "original documents named.") if kept else ""
        if result["residual"] == 0:
            return ("No finding the policy forbids remains in the documents (listed terms, "
                    f"numbers, identifiers, dates finer than kept).{tail}")
        return (f"{figure(result['residual'])} findings the policy forbids remain in "
                f"{figure(result['documents_with_residual'])} documents.{tail}")

    def evaluate(self, data, params, rng, *, original):
        same_records(data, original, self.name)
        name = params["variable"]
        var = data.variables[name]
        released = _texts(data.frame[name])
        before = _texts(original.frame[name])
        policy, ic = policy_of.build(params, var, before)
        counts, per_doc = Counter(), np.zeros(len(released), dtype=np.int64)
        for i, text in enumerate(released):
            found = residual(text, policy)
            per_doc[i] = len(found)
            counts.update(s.kind for s in found)
        summary = {
            "documents": len(released),
            "residual": int(per_doc.sum()),
            "residual_by_kind": {k: counts.get(k, 0) for k in policy_of.kinds(params)},
            "documents_with_residual": int((per_doc > 0).sum()),
            "information_kept": None, "information_kept_min": None}
        per_record = {"residual": per_doc}
        if ic is not None:
            a, b = information(released, policy, ic), information(before, policy, ic)
            kept = np.full(len(a), np.nan)
            np.divide(a, b, out=kept, where=b > 0)
            per_record["information_kept"] = kept
            summary["information_kept"] = (round(float(a.sum() / b.sum()), 9)
                                           if b.sum() > 0 else 1.0)
            summary["information_kept_min"] = (round(float(np.nanmin(kept)), 9)
                                               if (b > 0).any() else 1.0)
        return MeasureResult(summary, pd.DataFrame(per_record, index=data.frame.index))


def _texts(column: pd.Series) -> list[str]:
    """Each document as text (a missing one: empty)."""
    return ["" if pd.isna(v) else str(v) for v in column.tolist()]
