"""The summary shared by the measures that score each equivalence class on each
sensitive variable against a threshold (t-closeness, beta-likeness): per variable the
largest and mean score over records and the records above the threshold; overall the
records above it on any variable."""

from __future__ import annotations

import numpy as np


def score_stats(values: np.ndarray, above: np.ndarray | None, name: str) -> dict:
    """``max`` and ``mean`` of the records' scores, and ``above_<name>`` when a threshold
    was given (``above``: the records beyond it)."""
    n = values.size
    stats = {"max": float(values.max()) if n else 0.0, "mean": float(values.mean()) if n else 0.0}
    if above is not None:
        stats[f"above_{name}"] = int(above.sum())
    return stats


def class_summary(keys: list[str], n: int, classes: int, per_var: dict, name: str,
                  threshold: float | None, above_any: np.ndarray) -> dict:
    """The measure's summary: the keys, records, classes, each sensitive variable's
    stats, and with a threshold the records above it on any variable (count, percent)."""
    summary: dict = {"variables": keys, "records": n, "classes": classes if n else 0,
                     "sensitive": per_var}
    if threshold is not None:
        summary[name] = threshold
        summary[f"above_{name}"] = int(above_any.sum())
        summary[f"above_{name}_percent"] = round(100.0 * above_any.sum() / n, 3) if n else 0.0
    return summary
