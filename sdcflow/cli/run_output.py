"""What ``sdcflow run`` prints when it finished: its headline (released or not, each
check with its figures, the risk before and after, the utility cost) in a few lines;
with ``-v`` each step with its time and whether it came from the cache, and the files
written; with ``-q`` nothing (the exit code says it). The risk and utility figures are
the report's own (:func:`sdcflow.report.build.risk_before_after`,
:func:`~sdcflow.report.build.utility_cost`), so that the command line and the report
never say two different things."""

from __future__ import annotations

import sys

from ._common import emit
from .exploration import override_entries, override_lines

QUIET, NORMAL, VERBOSE = 0, 1, 2


def finished(args, result) -> int:
    """What ``sdcflow run`` says of a run that reached its verdict without a failed check
    (or of a partial run): the ``--set`` overrides, released or not and where, each check
    with its figures (a partial run: the checks it could not evaluate), the risk before
    and after, the utility cost; with ``-v`` the steps and files; then what to publish.
    Its exit code: 0, or 3 when a check of a partial run failed (said on standard
    error, also with ``-q``)."""
    from ..engine.checks import check_text, failure_text

    level = verbosity(args)
    if level:
        for note in result.notes:
            print(f"note: {note}", file=sys.stderr)
    figures = headline(result)
    recipe = result.validated.recipe
    fields = {"out": str(result.out_dir), "measures": result.measures,
              "checks": result.checks, "notes": result.notes, **figures,
              "steps": step_entries(result), "overrides": override_entries(recipe)}
    text = override_lines(recipe)
    partial = result.partial
    if partial is None:
        fields.update(released=True, public=str(result.public_dir)
                      if result.public_manifest is not None else None)
        text.append(f"released into {result.out_dir}" if result.publishes else
                    f"measures written into {result.out_dir} (no data released)")
        end = [(f"publish {result.public_dir} (and nothing else: the other files are "
               "internal)")] if result.public_manifest is not None else []
    else:
        fields.update(released=False, partial=partial)
        text.append(f"partial run ({_asked(partial)}): {_ran(result)} ran; nothing was "
                    "released")
        end = [(f"measures and report written into {result.out_dir} (internal: do not "
               "publish)")]
    text += [f"  check passed: {check_text(c)}" for c in result.checks if c["passed"]]
    text += [f"  not evaluated (its measures did not run): {c}"
             for c in (partial or {}).get("not_evaluated", [])]
    text += headline_lines(figures)
    if level >= VERBOSE:
        text += step_lines(result) + ["files:"] + file_lines(result)
    if level or args.format == "json":
        emit(args, "\n".join(text + end), fields)
    failed = [c for c in result.checks if not c["passed"]]
    for c in failed:
        print(failure_text(c), file=sys.stderr)
    return 3 if failed else 0


def _asked(partial: dict) -> str:
    """The options of a partial run: ``--select risk+`` ..."""
    return " ".join([*(f"--select {s}" for s in partial.get("select", [])),
                     *([f"--until {partial['until']}"] if "until" in partial else [])])


def _ran(result) -> str:
    """How many steps a partial run ran (of how many, without a grid)."""
    plan, ran = result.validated.plan, len(result.partial["steps"])
    if len(plan.variants) == 1:
        return f"{ran} of {len(plan.nodes_by_variant[0])} steps"
    return f"{ran} steps"


def verbosity(args) -> int:
    """How much ``sdcflow run`` says: ``-q`` nothing but errors, ``-v`` everything."""
    if getattr(args, "quiet", False):
        return QUIET
    return VERBOSE if getattr(args, "verbose", False) else NORMAL


def headline(result) -> dict:
    """The risk before/after and the utility cost of a run, as the internal report
    gives them: ``{"risk": [{figure, before, after}], "utility": [{figure, value}],
    "costs": [{step, method, cost}]}`` (each method step's cost in words)
    (empty lists when the recipe measures none before and after)."""
    from ..report import report_data
    from ..report.costs import method_costs

    if result.validated is None:
        return {"risk": [], "utility": [], "costs": []}
    data = report_data(result.validated, result, released_ok=True, preview=True)
    # every method's cost, as the report's utility cost lists it: a headline of the
    # utility measures alone would understate what was done (age generalised to '*')
    costs = [{"step": step.id, "method": step.plugin,
              "cost": method_costs(step.plugin, step.released_result)}
             for step in data.method_steps()]
    return {"risk": [{"figure": label, "before": before, "after": after}
                     for label, before, after in data.risk],
            "utility": [{"figure": label, "value": value} for label, value in data.utility],
            "costs": costs}


def headline_lines(figures: dict) -> list[str]:
    """The headline's figures for people: one line each, ``before -> after``."""
    from ..report.headline import number_text

    lines = []
    for row in figures["risk"]:
        lines.append(f"  risk (before -> after): {row['figure']}: {number_text(row['before'])} -> "
                     f"{number_text(row['after'])}")
    for row in figures.get("costs", ()):
        what = "; ".join(row["cost"]) or "(its result counts nothing)"
        lines.append(f"  cost of {row['step']} ({row['method']}): {what}")
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
