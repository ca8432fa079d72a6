"""Plain names of the keys of a result, for the report's appendix: ``C.mae`` reads
"communalities (C) › mean absolute error", ``RF.mv_left_out`` "variable-component
correlations (RF) › cells left out of the mean variation"; the raw key stays with it (the
report puts it in a tooltip), since checks are written with it."""

from __future__ import annotations

import re

# The abbreviations of the measures' results (the information loss measures of Torra,
# "Masking methods", 2013, and Domingo-Ferrer & Torra 2001; the cell key measures of the
# R package cellKey; sdcMicro's names), in words. A key not listed is read as it is,
# underscores as spaces.
NAMES = {
    "X": "values (X)",
    "V": "covariance matrices (V)",
    "S": "variances (S)",
    "R": "correlation matrices (R)",
    "RF": "variable-component correlations (RF)",
    "C": "communalities (C)",
    "F": "component score coefficients (F)",
    "mse": "mean square error",
    "mae": "mean absolute error",
    "mv": "mean variation",
    "mv_left_out": "cells left out of the mean variation",
    "X_mv": "values: mean variation",
    "V_mv": "covariance matrices: mean variation",
    "S_mv": "variances: mean variation",
    "R_mae": "correlation matrices: mean absolute error",
    "RF_mae": "variable-component correlations: mean absolute error",
    "pil": "probabilistic information loss (PIL, %)",
    "il1s": "IL1s (mean standardised distance)",
    "il": "information loss (IL)",
    "dr": "disclosure risk (DR)",
    "il_expr": "information loss: expression",
    "dr_expr": "disclosure risk: expression",
    "pmse": "propensity score mean square error (pMSE)",
    "msu": "minimal sample uniques",
    "msu_by_size": "minimal sample uniques by size",
    "records_with_msu": "records with a minimal sample unique",
    "dis": "data intrusion simulation (DIS)",
    "d1": "absolute deviation of a cell (d1)",
    "d2": "relative deviation of a cell (d2)",
    "d3": "deviation of the square roots (d3)",
    "l1": "L1 distance",
    "l2": "L2 distance",
    "hellinger": "Hellinger distance",
    "ncp": "normalised certainty penalty (NCP)",
}


def plain_part(part: str) -> str:
    """One part of a key in words: a known abbreviation, a quantile ``q10`` as "10 %
    quantile", else the part with spaces for underscores."""
    if part in NAMES:
        return NAMES[part]
    quantile = re.fullmatch(r"q(\d{1,2})", part)
    if quantile:
        return f"{quantile.group(1)} % quantile"
    return part.replace("_", " ")


def plain_key(key: str) -> str:
    """A dotted key of a result in words, its parts joined by " \u203a "."""
    return " \u203a ".join(plain_part(p) for p in str(key).split("."))
