"""``subdomain_information_loss``: information loss on subdomains, Winkler's (1998)
analytic validity (means and covariances preserved on a small set of subdomains): the
means, covariances and correlations of the numeric variables on each subdomain of the
original and of the protected data, compared by Torra's (2013) divergences. The
computation and its conventions are in
:mod:`sdcflow.kernels.utility.subdomain_information_loss`.

Each file's subdomains are read from its own values of the subdomain variables (records
need not be paired: after sampling the comparison still holds); a record with a missing
subdomain value belongs to none.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ...errors import did_you_mean
from ...kernels.risk.frequencies import row_ids
from ...kernels.utility.subdomain_information_loss import KINDS, subdomain_information_loss
from ...plugins.distribution import Whole
from ...plugins.plain_words import figure
from ...plugins.registry import Measure, MeasureResult, register, variables_param
from ...plugins.results import COUNT, NAMES, NUMBER, TEXT, Keyed, ListOf, Record, record
from ..reference import REFERENCE
from .categorical_information_loss import shared_codes
from .information_loss import numeric_matrix

MAX_SUBDOMAINS = 10_000


@register
class SubdomainInformationLoss(Measure):
    distribution = Whole()  # statistics of each subdomain over all its records
    name = "subdomain_information_loss"
    public_params = ("variables", "subdomains", "min_records", "reference")
    risk_measure = False
    summary = ("Means, covariances and correlations on each subdomain, original against "
               "protected (Winkler's analytic validity).")
    types = ("integer", "continuous")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["subdomains"],
        "properties": {
            "variables": variables_param("Numeric variables whose means and covariances are "
                                         "compared (default: every variable with role "
                                         "numeric)."),
            "subdomains": {**variables_param("Variables whose combinations of values are "
                                             "the subdomains (e.g. region and sex)."),
                           "maxItems": 5},
            "min_records": {"type": "integer", "minimum": 2, "maximum": 1_000_000,
                            "default": 10,
                            "description": "Subdomains with fewer complete records than "
                                           "this in either file are not compared (default "
                                           "10)."},
            "reference": REFERENCE,
        },
    }

    default_roles = ("numeric",)
    default_numeric = True

    def named_variables(self, params):
        out = super().named_variables(params)
        if isinstance(params.get("subdomains"), list):
            out += [(("subdomains", i), v) for i, v in enumerate(params["subdomains"])
                    if isinstance(v, str)]
        return out

    def variables(self, params, meta):
        if params.get("variables"):
            return list(params["variables"])
        subdomains = set(params.get("subdomains") or ())
        return [n for n in meta.names(*self.default_roles, numeric=True)
                if n not in subdomains]

    def reads(self, params, meta):
        return set(self.variables(params, meta)) | set(params.get("subdomains") or ())

    def check(self, params, meta):
        names = self.variables(params, meta)
        if not names:
            yield ("variables",), "no numeric variables: declare variables with role 'numeric'"
        for i, name in enumerate(params.get("subdomains") or ()):
            if name not in meta.variables:
                if name not in meta.broken:
                    yield ("subdomains", i), (f"'{name}' is not a declared variable"
                                              f"{did_you_mean(name, meta.variables)}")
            elif name in names:
                yield ("subdomains", i), (f"'{name}' cannot both define the subdomains and "
                                          "be compared within them")

    def explain(self, params, result):
        if not isinstance(result, dict) or "worst" not in result:
            return self.summary
        worst = (result["worst"].get("means") or {}).get("mv")
        return (f"Means and covariances compared on {figure(result['compared'])} subdomains "
                f"of {', '.join(result['subdomain_variables'])} (Winkler's analytic validity, "
                f"1998): the largest relative change of a subdomain mean is "
                f"{figure(None if worst is None else 100 * worst)}%.")

    def result_shape(self, params, meta):
        row = Record({"mse": NUMBER.with_null(), "mae": NUMBER.with_null(),
                      "mv": NUMBER.with_null(), "mv_left_out": COUNT})
        one = Record({"records_protected": COUNT, "means": row, "V": row,
                      "R": row.with_null()}, {"records_original": COUNT})
        kinds = Record({k: NUMBER.with_null() for k in KINDS})
        figures = record(means=kinds, V=kinds, R=kinds)
        return record(reference=TEXT, variables=NAMES, subdomain_variables=NAMES,
                      min_records=COUNT, subdomains=Keyed(one, "subdomain"),
                      compared=COUNT, left_out=ListOf(TEXT), worst=figures, mean=figures)

    def public_summary(self, summary, params):
        """Without the original's record counts per subdomain (a frequency table of the
        original data)."""
        out = super().public_summary(summary, params)
        out["subdomains"] = {label: {k: v for k, v in r.items() if k != "records_original"}
                             for label, r in summary["subdomains"].items()}
        return out

    def check_data(self, params, data):
        subdomains = [n for n in params.get("subdomains") or () if n in data.frame]
        if subdomains:
            count = len(data.frame[subdomains].drop_duplicates())
            if count > MAX_SUBDOMAINS:
                yield ("subdomains",), (f"{count} subdomains (at most {MAX_SUBDOMAINS}): "
                                        "choose coarser subdomain variables")

    def evaluate(self, data, params, rng, *, original):
        names = self.variables(params, data.meta)
        subs = list(params["subdomains"])
        for which, ds in (("reference", original), ("protected", data)):
            for name in subs:
                if name not in ds.frame.columns:
                    raise ValueError(f"'{name}' is not in the {which} data")
        x = numeric_matrix(original, names, "reference")
        y = numeric_matrix(data, names, "protected")
        codes_x, codes_y, labels = _subdomain_codes(original.frame, data.frame, subs)
        per, overall = subdomain_information_loss(x, codes_x, y, codes_y, len(labels),
                                                  int(params["min_records"]))
        compared = {labels[d]: r for d, r in enumerate(per) if r is not None}
        return MeasureResult({
            "reference": params["reference"], "variables": names,
            "subdomain_variables": subs, "min_records": int(params["min_records"]),
            "subdomains": compared, "compared": len(compared),
            "left_out": [labels[d] for d, r in enumerate(per) if r is None],
            **overall,
        })


def _subdomain_codes(a, b, names: list[str]) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Each record's subdomain in the frames ``a`` and ``b``, numbered over the
    combinations of values of ``names`` found in either (labels "v1 / v2", in sorted
    order), -1 where a value is missing."""
    per = [shared_codes(a[n], b[n]) for n in names]
    ca = np.column_stack([p[0] for p in per]).astype(np.int64)
    cb = np.column_stack([p[1] for p in per]).astype(np.int64)
    holes_a = a[names].isna().any(axis=1).to_numpy()
    holes_b = b[names].isna().any(axis=1).to_numpy()
    both = np.concatenate([ca[~holes_a], cb[~holes_b]])
    inverse, rep = row_ids(both)  # (ids in lexicographic order of the codes)
    keys = both[rep]
    kept_a = int((~holes_a).sum())
    codes_a = np.full(len(ca), -1, dtype=np.int64)
    codes_b = np.full(len(cb), -1, dtype=np.int64)
    codes_a[~holes_a] = inverse[:kept_a]
    codes_b[~holes_b] = inverse[kept_a:]
    labels = [" / ".join(per[j][2][k] for j, k in enumerate(key)) for key in keys]
    return codes_a, codes_b, labels
