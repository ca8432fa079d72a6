"""The figures the report's summary puts side by side: for each risk measure the
numbers that say how exposed the records are, for each utility measure (and method) what
the protection cost. Each function takes a plugin name and that step's result summary
and returns ``(label, value)`` pairs; an unknown plugin gives none."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping

from ..plugins.plain_words import figure


def _get(summary: Mapping, *path):
    value = summary
    for key in path:
        if not isinstance(value, Mapping) or key not in value:
            return None
        value = value[key]
    return value


def risk_figures(plugin: str, summary: Mapping) -> list[tuple[str, object]]:
    """How exposed the records are, by the measure of ``plugin``: records violating
    k-anonymity, expected re-identifications, the share re-identified by linkage..."""
    out: list[tuple[str, object]] = []
    if not isinstance(summary, Mapping):
        return out
    if plugin == "k_anonymity":
        for k, count in (summary.get("violations") or {}).items():
            out.append((f"records violating {k}-anonymity", count))
    elif plugin == "global_risk":
        out.append(("global risk: expected re-identifications",
                    summary.get("expected_reidentifications")))
        out.append(("global risk (% of records)", summary.get("percent")))
        if _get(summary, "household", "percent") is not None:
            out.append(("household risk (% of records)", _get(summary, "household", "percent")))
    elif plugin == "household_risk":
        out.append(("household risk (% of records)", summary.get("percent")))
    elif plugin == "individual_risk":
        if "threshold" in summary:
            out.append((f"records with individual risk above {summary['threshold']}",
                        summary.get("above_threshold")))
        out.append(("highest individual risk", summary.get("max")))
    elif plugin in ("record_linkage", "learned_linkage", "partial_linkage", "schema_linkage",
                    "rank_swap_attack", "microaggregation_attack"):
        out.append(("records re-identified by linkage (%)", summary.get("percent")))
    elif plugin == "l_diversity":
        out.append((f"records in classes below {summary.get('l')}-diversity",
                    summary.get("below_l")))
    elif plugin == "t_closeness":
        out.append(("records in classes farther than t", summary.get("above_t")))
    elif plugin == "beta_likeness":
        out.append(("records in classes above beta-likeness", summary.get("above_beta")))
    elif plugin == "delta_presence":
        out.append(("records in classes outside the delta-presence bounds",
                    summary.get("outside")))
        if "classes_outside" in summary:
            out.append(("population classes outside the delta-presence bounds",
                        summary.get("classes_outside")))
    elif plugin == "reidentification_risk":
        out.append(("average re-identification risk (1/class size)", summary.get("average")))
        if "above_threshold" in summary:
            out.append((f"records with re-identification risk above {summary['threshold']}",
                        summary.get("above_threshold")))
    elif plugin == "suda":
        out.append(("records with a sample unique combination",
                    summary.get("records_with_msu")))
    elif plugin in ("d_risk", "d_risk_rmd"):
        out.append(("records at risk (%)", summary.get("percent")))
    elif plugin == "interval_disclosure":  # a share of values, not of records
        out.append(("values within their interval (%)", summary.get("percent")))
    elif plugin == "graph_reidentification":
        for attack, result in summary.items():
            if isinstance(result, Mapping) and "re_identified" in result:
                out.append((f"nodes re-identified by {attack.replace('_', ' ')}",
                            result["re_identified"]))
    elif plugin == "table_audit":
        out.append(("sensitive cells not protected", summary.get("unprotected")))
    elif plugin == "query_log_linkage":
        out += [("users re-identified by linking their query profiles",
                 summary.get("re_identified")),
                ("highest probability a user is re-identified", summary.get("max_probability"))]
    return [(label, value) for label, value in out if value is not None]


def utility_figures(plugin: str, summary: Mapping) -> list[tuple[str, object]]:
    """What the protection cost, by the measure of ``plugin``: the information loss,
    the values suppressed, the edit constraints broken..."""
    out: list[tuple[str, object]] = []
    if not isinstance(summary, Mapping):
        return out
    if plugin == "information_loss":
        out += [("probabilistic information loss PIL (%)", summary.get("pil")),
                ("IL1s of Yancey, Winkler & Creecy (mean standardised distance)",
                 summary.get("il1s"))]
    elif plugin == "suppressions":
        out.append(("values suppressed", summary.get("total")))
    elif plugin == "categorical_information_loss":
        out += [("mean distance of categorical values", summary.get("distance")),
                ("contingency table loss CTBIL (relative)", summary.get("ctbil_relative"))]
    elif plugin == "constraints":
        out.append(("edit constraint violations", summary.get("total")))
    elif plugin == "score":
        out.append((f"information loss ({summary.get('il_expr')})", summary.get("il")))
    elif plugin == "graph_utility":
        out.append(("degree distribution distance", summary.get("degree_distance")))
    elif plugin == "propensity":
        out.append(("propensity score pMSE", summary.get("pmse")))
    elif plugin == "classification_loss":
        out.append(("classifier accuracy lost", summary.get("loss")))
    elif plugin == "cell_key_utility":
        # (Enderle, Giessing & Tent 2018's measures of a perturbed count table)
        out += [("table cells changed by the noise (share)", summary.get("share_changed")),
                ("mean absolute change of a cell (L1 / cells)",
                 summary["l1"] / summary["cells"] if summary.get("cells") and
                 isinstance(summary.get("l1"), (int, float)) else None),
                ("cells made zero", summary.get("false_zero")),
                ("zero cells made non-zero", summary.get("false_nonzero"))]
    return [(label, value) for label, value in out if value is not None]


def number_text(value) -> str:
    """A figure for people (see :func:`sdcflow.plugins.plain_words.figure`)."""
    return figure(value)


def _decimals(value: float) -> int:
    """Decimals that show ``value`` (0.0001 <= |value| < 10^15) to 4 significant digits,
    trailing zeros left out (1.5: 1, 0.1234: 4, 12.3456: 2)."""
    places = max(0, 3 - math.floor(math.log10(abs(value))))
    text = f"{abs(value):.{places}f}"
    return len(text.rstrip("0").partition(".")[2]) if "." in text else 0


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def number_format(values: Iterable) -> Callable[[object], str]:
    """The one format of a column of numbers, so that its figures read alike: whole
    numbers (Python integers) as :func:`number_text` writes them; the other numbers with
    one number of decimals, the most any of them needs to show 4 significant digits
    (``0.1234`` beside ``12.5000``; ``1.5`` beside ``2.0``), thin spaces between thousands from 10 000, never an
    exponent beside plain numbers: when one of them needs one (below 0.0001 or from
    10^15) every number of the column is written with one (``1.200e+01``). Text,
    missing values and yes/no keep :func:`number_text`."""
    numbers = [float(v) for v in values if _number(v) and math.isfinite(float(v))]
    fractions = [abs(float(v)) for v in values if isinstance(v, float) and math.isfinite(v)
                 and v != 0]
    if any(v >= 1e15 for v in map(abs, numbers)) or any(v < 1e-4 for v in fractions):
        return lambda v: f"{float(v):.3e}" if _number(v) and math.isfinite(float(v)) \
            else number_text(v)
    places = max((_decimals(v) for v in fractions if v != round(v)), default=0)

    def fmt(value) -> str:
        if not isinstance(value, float) or not math.isfinite(value) or \
                (places == 0 and value == round(value)):
            return number_text(value)
        text = f"{value:,.{places}f}"
        return text.replace(",", "\u202f") if abs(value) >= 1e4 else text.replace(",", "")

    return fmt


def number_column(values: Iterable) -> list[str]:
    """The figures of one table column in its one format (see :func:`number_format`)."""
    values = list(values)
    fmt = number_format(values)
    return [fmt(v) for v in values]
