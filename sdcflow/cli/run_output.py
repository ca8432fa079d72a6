"""What ``sdcflow run`` prints when it finished: its headline (released or not, each
check with its figures, the risk before and after, the utility cost) in a few lines;
with ``-v`` each step with its time and whether it came from the cache, and the files
written; with ``-q`` nothing (the exit code says it). The risk and utility figures are
the report's own (:func:`sdcflow.report.build.risk_before_after`,
:func:`~sdcflow.report.build.utility_cost`), so that the command line and the report
never say two different things."""

from __future__ import annotations

QUIET, NORMAL, VERBOSE = 0, 1, 2


def verbosity(args) -> int:
    """How much ``sdcflow run`` says: ``-q`` nothing but errors, ``-v`` everything."""
    if getattr(args, "quiet", False):
        return QUIET
    return VERBOSE if getattr(args, "verbose", False) else NORMAL


def headline(result) -> dict:
    """The risk before/after and the utility cost of a run, as the internal report
    gives them: ``{"risk": [{figure, before, after}], "utility": [{figure, value}]}``
    (empty lists when the recipe measures none before and after)."""
    from ..report import report_data

    if result.validated is None:
        return {"risk": [], "utility": []}
    data = report_data(result.validated, result, released_ok=True, preview=True)
    return {"risk": [{"figure": label, "before": before, "after": after}
                     for label, before, after in data.risk],
            "utility": [{"figure": label, "value": value} for label, value in data.utility]}


def headline_lines(figures: dict) -> list[str]:
    """The headline's figures for people: one line each, ``before -> after``."""
    from ..report.headline import number_text

    lines = []
    for row in figures["risk"]:
        lines.append(f"  risk (before -> after): {row['figure']}: {number_text(row['before'])} -> "
                     f"{number_text(row['after'])}")
    for row in figures["utility"]:
        lines.append(f"  utility cost: {row['figure']}: {number_text(row['value'])}")
    return lines


def step_lines(result) -> list[str]:
    """Each step instance that ran, its time and whether it came from the cache
    (``-v``)."""
    lines = ["steps:"]
    for record in result.steps:
        state = "cached" if record.cached else f"{record.seconds:.2f} s"
        lines.append(f"  {record.node:<24} {record.kind:<8} {record.plugin:<22} {state}")
    return lines


def step_entries(result) -> list[dict]:
    """The steps for ``--format json``: node, seconds, cached."""
    return [{"id": r.node, "seconds": round(r.seconds, 4), "cached": r.cached}
            for r in result.steps]


def file_lines(result) -> list[str]:
    """The files the run wrote with their sha256 (``-v``)."""
    return [f"  {name}  sha256 {value[:16]}..."
            for name, value in result.manifest.get("files", {}).items()]
