"""``sdcflow run``: run a recipe, say what was released, or which check failed and
what the run left in its output directory."""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path

from ._common import emit, line, live, show_progress
from .run_output import finished


def _run_progress(args):
    """The progress of ``sdcflow run`` (what :func:`sdcflow.run` takes) and the context
    that shows it: rich's bars on a terminal, one line per finished step on standard error
    elsewhere (with ``--progress``), or nothing (also with ``-q``, unless
    ``--progress``)."""
    if not show_progress(args) or (args.quiet and args.progress is None):
        return None, contextlib.nullcontext()
    if live():
        from .display import LiveDisplay, console

        display = LiveDisplay(console())
        return display, display
    return line, contextlib.nullcontext()


def cmd_run(args) -> int:
    from ..engine import run
    from ..errors import CheckFailed, SdcflowError
    from .exploration import load_explored, override_entries, override_lines, selection

    if args.dry_run:
        from .dry_run import dry_run

        if selection(args):
            raise SdcflowError("--dry-run shows the whole run: leave out --select and "
                               "--until ('sdcflow plan RECIPE --select ...' shows what a "
                               "partial run runs)")
        recipe = load_explored(args)
        text, data = dry_run(recipe, args.out, allow_paths=args.allow_path)
        emit(args, "\n".join([*override_lines(recipe), text]),
             {**data, "overrides": override_entries(recipe)})
        return 0
    recipe = load_explored(args)
    progress, shown = _run_progress(args)
    try:
        with shown:
            result = run(recipe, args.out, use_cache=not args.no_cache,
                         progress=progress, engine=args.engine, scheduler=args.scheduler,
                         workers=args.workers, allow_paths=args.allow_path,
                         selection=selection(args) or None)
    except CheckFailed as exc:
        return _not_released(args, exc)
    except SdcflowError as exc:
        for note in _left_in_place(args):
            exc.add_note(note)
        raise
    return finished(args, result)


def _left_in_place(args) -> list[str]:
    """For a run that stopped with an error (before it could decide to release or not):
    that the output directory still holds an earlier release, which this run neither
    replaced nor withdrew (so that nobody takes it for this run's)."""
    from ..engine import default_out_dir
    from ..engine.outputs import earlier_release
    from ..errors import SdcflowError
    from ..recipe import load_recipe

    try:
        target = Path(args.out) if args.out is not None else \
            default_out_dir(load_recipe(args.recipe))
        files = earlier_release(target)
    except (SdcflowError, OSError):  # an unreadable recipe names no output directory
        return []
    if not files:
        return []
    return [(f"note: {target} still holds the release of an earlier run "
             f"({', '.join(files)}): this run stopped before its checks and neither "
             "replaced nor withdrew it")]


def _not_released(args, exc) -> int:
    """What ``sdcflow run`` says when a check failed (exit 3): each failed check with its
    figures and threshold, that nothing was released, the earlier release it withdrew
    from DIR and where the report of the failed run is (JSON: the same on standard
    output)."""
    result = exc.result
    for note in result.notes:
        print(f"note: {note}", file=sys.stderr)
    from .exploration import override_entries, override_lines
    from .run_output import headline

    out = result.out_dir
    recipe = result.validated.recipe if result.validated is not None else None
    if args.format == "json":
        figures = headline(result)
        print(json.dumps({"released": False, "failures": exc.failures,
                          "checks": result.checks, "measures": result.measures,
                          "notes": result.notes, "out": str(out) if out else None,
                          "withdrawn": result.withdrawn, "write_error": exc.write_error,
                          "risk": figures["risk"], "utility": figures["utility"],
                          "costs": figures["costs"],
                          "overrides": override_entries(recipe)},
                         indent=2, sort_keys=True))
    lines = [*override_lines(recipe), *exc.failures, "nothing was released"]
    if result.withdrawn:
        lines.append(f"withdrew the earlier release from {out}: "
                     + ", ".join(result.withdrawn) + " (this recipe does not stand behind "
                     "it)")
    if out is not None:
        lines.append(f"the report of the failed run is {out / 'report.html'} (internal: do "
                     "not publish)")
    if exc.write_error:
        lines.append(f"sdcflow: {exc.write_error}")
        lines.append("the output directory was left as it was: a release in it was NOT "
                     "withdrawn, and this recipe does not stand behind it: do not publish it")
    for text in lines:
        print(text, file=sys.stderr)
    return 3
