"""The ``sdcflow`` command: validate | plan | run | report | methods | public-recipe | init
| schema | compile.

Exit codes (the contract in DESIGN.md): 0 success; 1 invalid recipe or data, or a step
failed; 2 wrong command-line usage; 3 a release check failed (nothing released).
Errors are printed as ``file:line:col: message``, never as a traceback (``--debug``
shows one for bug reports)."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path

from .cli_pipes import reader_went_away, stdout_closed


def _emit(args, text: str, data) -> None:
    if args.format == "json":
        print(json.dumps(data, indent=2, sort_keys=True))
    elif text:
        print(text)


def _problems_json(exc) -> list[dict]:
    return [p.as_dict() for p in exc.problems + getattr(exc, "warnings", [])]


def _allowed_path(text: str) -> str:
    """An --allow-path: a folder (or file) that exists."""
    if not Path(text).exists():
        raise argparse.ArgumentTypeError(f"no such folder or file: {text}")
    return text


def _allow_path(p: argparse.ArgumentParser) -> None:
    p.add_argument("--allow-path", action="append", default=[], type=_allowed_path,
                   metavar="DIR",
                   help="let the recipe read files in DIR (a folder, or one file) besides "
                        "its own folder; repeatable (see 'Files a recipe reads' in the "
                        "README)")


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 1 <= value <= 1024:
        raise argparse.ArgumentTypeError(f"must be between 1 and 1024: {value}")
    return value


def cmd_validate(args) -> int:
    from .errors import RecipeError
    from .recipe import validate

    status, report = 0, []
    for path in args.recipes:
        try:
            validated = validate(path, data=not args.no_data, allow_paths=args.allow_path)
            for w in validated.warnings:
                print(w, file=sys.stderr)
            report.append({"recipe": path, "valid": True,
                           "warnings": [w.as_dict() for w in validated.warnings]})
            if args.format == "text":
                print(f"{path}: valid")
        except RecipeError as exc:
            status = 1
            report.append({"recipe": path, "valid": False, "problems": _problems_json(exc)})
            if args.format == "text":
                for p in exc.warnings + exc.problems:
                    print(p, file=sys.stderr)
                n = len(exc.problems)
                where = exc.problems[0].file if exc.problems else path
                print(f"{where}: {n} problem{'s' if n != 1 else ''}", file=sys.stderr)
    if args.format == "json":
        print(json.dumps(report, indent=2, sort_keys=True))
    return status


def cmd_plan(args) -> int:
    from .recipe import validate

    validated = validate(args.recipe, allow_paths=args.allow_path)
    plan = validated.plan
    steps = [ps.as_dict() for ps in plan.steps]
    lines = []
    for i, ps in enumerate(plan.steps, 1):
        deps = ", ".join(ps.deps) if ps.deps else "original data"
        what = f"{ps.kind} {ps.step.plugin_name}"
        lines.append(f"{i:>3}. {ps.node:<24} {what:<34} <- {deps}")
    _emit(args, "\n".join(lines), {"steps": steps})
    return 0


def _show_progress(args) -> bool:
    """Whether to show progress: as ``--progress``/``--no-progress`` say, else when
    standard error is a terminal and the output is text (JSON output is for programs)."""
    if args.progress is not None:
        return args.progress
    return sys.stderr.isatty() and args.format != "json"


def _live() -> bool:
    """Whether standard error takes a live display (a terminal that moves the cursor)."""
    from .display import console

    out = console()
    return out.is_terminal and not out.is_dumb_terminal


def _line(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _run_progress(args):
    """The progress of ``sdcflow run`` (what :func:`sdcflow.run` takes) and the context
    that shows it: rich's bars on a terminal, one line per finished step on standard error
    elsewhere (with ``--progress``), or nothing."""
    if not _show_progress(args):
        return None, contextlib.nullcontext()
    if _live():
        from .display import LiveDisplay, console

        display = LiveDisplay(console())
        return display, display
    return _line, contextlib.nullcontext()


def cmd_run(args) -> int:
    from .engine import run
    from .errors import CheckFailed, SdcflowError

    if args.dry_run:
        from .dry_run import dry_run

        _emit(args, *dry_run(args.recipe, args.out, allow_paths=args.allow_path))
        return 0
    progress, shown = _run_progress(args)
    try:
        with shown:
            result = run(args.recipe, args.out, use_cache=not args.no_cache,
                         progress=progress, engine=args.engine, scheduler=args.scheduler,
                         workers=args.workers, allow_paths=args.allow_path)
    except CheckFailed as exc:
        return _not_released(args, exc)
    except SdcflowError as exc:
        for note in _left_in_place(args):
            exc.add_note(note)
        raise
    for note in result.notes:
        print(f"note: {note}", file=sys.stderr)
    summary = {"released": True, "out": str(result.out_dir), "measures": result.measures,
               "checks": result.checks, "notes": result.notes,
               "public": str(result.public_dir) if result.public_manifest else None}
    if result.publishes:
        text = [f"released into {result.out_dir}"]
    else:
        text = [f"measures written into {result.out_dir} (no data released)"]
    for name, value in result.manifest["files"].items():
        text.append(f"  {name}  sha256 {value[:16]}...")
    if result.public_manifest is not None:
        text.append(f"publish {result.public_dir} (and nothing else: the other files are "
                    "internal)")
    from .engine.checks import check_text

    for c in result.checks:
        text.append(f"  check passed: {check_text(c)}")
    _emit(args, "\n".join(text), summary)
    return 0


def _left_in_place(args) -> list[str]:
    """For a run that stopped with an error (before it could decide to release or not):
    that the output directory still holds an earlier release, which this run neither
    replaced nor withdrew (so that nobody takes it for this run's)."""
    from .engine import default_out_dir
    from .engine.outputs import earlier_release
    from .errors import SdcflowError
    from .recipe import load_recipe

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
    out = result.out_dir
    if args.format == "json":
        print(json.dumps({"released": False, "failures": exc.failures,
                          "checks": result.checks, "measures": result.measures,
                          "notes": result.notes, "out": str(out) if out else None,
                          "withdrawn": result.withdrawn, "write_error": exc.write_error},
                         indent=2, sort_keys=True))
    lines = [*exc.failures, "nothing was released"]
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
    for line in lines:
        print(line, file=sys.stderr)
    return 3


def cmd_report(args) -> int:
    from .engine import default_out_dir, run
    from .errors import CheckFailed, OutputError
    from .recipe import load_recipe
    from .report import pdf_bytes, write_report

    recipe = load_recipe(args.recipe, allow_paths=args.allow_path)
    try:
        result = run(recipe, write=False, use_cache=not args.no_cache)
    except CheckFailed as exc:
        result = exc.result
        if args.external:
            raise OutputError("a check failed, so nothing may be published: there is no "
                              "external report (the internal one shows why)") from None
    suffix = ".external-report" if args.external else ".report"
    suffix += ".pdf" if args.pdf else ".html"
    target = Path(args.output) if args.output else \
        default_out_dir(recipe).parent / f"{recipe.name}{suffix}"
    html = result.external_report() if args.external else result.report()
    if args.external and html is None:
        raise OutputError("the recipe releases no variant, so there is no external report")
    if args.pdf or target.suffix.lower() == ".pdf":
        write_report(target, pdf_bytes(html, recipe.name), recipe.name)
    else:
        write_report(target, html, recipe.name)
    failed = [c for c in result.checks if not c["passed"]]
    print(f"report written to {target}" + (f" ({len(failed)} check(s) failed: a run "
                                           "would release nothing)" if failed else ""))
    if failed:
        from .engine.checks import failure_text

        for check in failed:
            print(f"  {failure_text(check)}")
    return 0


def cmd_public_recipe(args) -> int:
    from .data.recipe_files import RecipeFileError, command_line_file
    from .engine.canonical import sha256_text
    from .engine.public_recipe import public_form_text
    from .errors import OutputError
    from .recipe import load_recipe

    text = public_form_text(load_recipe(args.recipe, allow_paths=args.allow_path))
    digest = sha256_text(text)
    if args.check is None:
        sys.stdout.write(digest + "\n" if args.sha256 else text)
        return 0
    path = Path(args.check)
    for candidate in (path / "public" / "manifest.json", path / "manifest.json"):
        if path.is_dir() and candidate.is_file():
            path = candidate
            break
    try:  # (a regular file, never a pipe or a device, and bounded: recipe_files)
        manifest = command_line_file(path, "public manifest", "file").content()
        published = json.loads(manifest.decode("utf-8"))["recipe"]["public_sha256"]
    except RecipeFileError as exc:
        raise OutputError(exc.message) from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise OutputError(f"{path}: not a public manifest with the recipe's public sha256 "
                          f"({type(exc).__name__}: {exc})") from None
    if published != digest:
        print(f"{args.recipe}: does not match {path} (public sha256 {digest[:16]}..., "
              f"published {str(published)[:16]}...)", file=sys.stderr)
        return 1
    print(f"{args.recipe}: matches {path} (public sha256 {digest})")
    return 0


def cmd_methods(args) -> int:
    from .describe import methods_command

    return methods_command(args, _emit)


def cmd_compile(args) -> int:
    import time

    from .kernels import warmup
    from .kernels.jit import cache_directory, caching_available

    only = [name for value in args.only or () for name in value.split(",") if name]
    try:
        chosen = warmup.families(only)
    except ValueError as exc:
        print(f"sdcflow compile: {exc}", file=sys.stderr)
        return 2
    cached = caching_available()  # (says so, once, when nothing can be written)
    where, _ = cache_directory()
    start = time.perf_counter()
    done = []
    display = None
    if _show_progress(args) and _live():
        from .display import CompileDisplay, console

        display = CompileDisplay(console(), sum(f.weight for f in chosen))
    with display or contextlib.nullcontext():
        for family in chosen:
            if display is not None:
                display.started(family.name)
            seconds = warmup.compile_family(family)
            done.append({"family": family.name, "seconds": round(seconds, 2)})
            if display is not None:
                display.finished(family.name, family.weight, seconds)
            elif _show_progress(args):
                _line(f"compiled {family.name} in {seconds:.1f}s")
    missing = warmup.not_compiled(chosen)
    for name in missing:
        print(f"sdcflow compile: warning: {name} was not compiled ahead of time (no kernel "
              "family calls it; see sdcflow/kernels/warmup.py)", file=sys.stderr)
    total = time.perf_counter() - start
    what = f"{len(chosen)} kernel famil{'y' if len(chosen) == 1 else 'ies'}"
    if cached:
        place = where or "numba's default cache directory"
        text = f"compiled {what} into {place} in {total:.1f}s"
    else:
        text = (f"compiled {what} in {total:.1f}s, but nothing could be cached: runs will "
                "compile again (set NUMBA_CACHE_DIR to a writable directory)")
    _emit(args, text, {"cache": where if cached else None, "cached": cached,
                       "families": done, "not_compiled": missing,
                       "seconds": round(total, 2)})
    return 0


def cmd_init(args) -> int:
    from .starter import write_starter

    target = write_starter(args.data, args.output)
    print(f"wrote {target}: check the lines marked 'check this', then "
          f"'sdcflow validate {target}'")
    return 0


def cmd_schema(args) -> int:
    from .recipe import recipe_schema

    print(json.dumps(recipe_schema(), indent=2))
    return 0


def build_parser() -> argparse.ArgumentParser:
    from . import __version__
    from .cli_help import command_epilog, main_epilog

    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(
        prog="sdcflow", formatter_class=raw, epilog=main_epilog(),
        description="Declarative, reproducible statistical disclosure control: validate, "
                    "plan and run anonymisation recipes (YAML).")
    parser.add_argument("--version", action="version", version=f"sdcflow {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    sub = parser.add_subparsers(dest="command", required=True)

    def add(name: str, help: str) -> argparse.ArgumentParser:
        """A command, whose --help ends with its examples and the exit codes."""
        return sub.add_parser(name, help=help, description=help[:1].upper() + help[1:] + ".",
                              epilog=command_epilog(name), formatter_class=raw)

    def fmt(p):
        p.add_argument("--format", choices=("text", "json"), default="text",
                       help="text for people (default) or json for programs and CI")

    p = add("validate", help="check recipes (schema, semantics, data)")
    p.add_argument("recipes", nargs="+", metavar="RECIPE")
    p.add_argument("--no-data", action="store_true", help="do not read the data")
    _allow_path(p)
    fmt(p)
    p.set_defaults(func=cmd_validate)

    p = add("plan", help="print the steps in execution order")
    p.add_argument("recipe", metavar="RECIPE")
    _allow_path(p)
    fmt(p)
    p.set_defaults(func=cmd_plan)

    p = add("run", help="run a recipe and release if every check passes")
    p.add_argument("recipe", metavar="RECIPE")
    p.add_argument("--out", type=Path, default=None,
                   help="output directory (default: output/NAME next to the recipe)")
    p.add_argument("--no-cache", action="store_true",
                   help="recompute every step (the cache entries are refreshed)")
    p.add_argument("--dry-run", action="store_true",
                   help="validate (with the data checks) and plan, then print the steps "
                        "that would run and the files that would be written; runs and "
                        "writes nothing")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="show progress (default: on a terminal, unless --format json); "
                        "on standard error, as bars on a terminal, else one line per step")
    p.add_argument("--engine", choices=["memory", "dask"], default=None,
                   help="memory (default) or dask: partitioned data on a Dask cluster "
                        "(overrides the recipe's execution.engine)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="Dask: an existing cluster's scheduler (implies --engine dask)")
    p.add_argument("--workers", type=_positive, default=None, metavar="N",
                   help="Dask: worker processes of the local cluster; in memory: threads "
                        "running independent steps")
    _allow_path(p)
    fmt(p)
    p.set_defaults(func=cmd_run)

    p = add("report", help="run a recipe (cached) and write its HTML (or PDF) report, "
                                      "also when a check fails")
    p.add_argument("recipe", metavar="RECIPE")
    p.add_argument("-o", "--output", type=Path, default=None,
                   help="the HTML file, or a PDF when it ends in .pdf (default: "
                        "output/NAME.report.html next to the recipe)")
    p.add_argument("--no-cache", action="store_true", help="recompute every step")
    p.add_argument("--external", action="store_true",
                   help="the external report (published measures only, as in public/)")
    p.add_argument("--pdf", action="store_true",
                   help="write the report as PDF (A4; needs the extra sdcflow[pdf])")
    _allow_path(p)
    p.set_defaults(func=cmd_report)

    p = add("methods", help="list methods and measures with their parameters")
    p.add_argument("name", nargs="?", metavar="NAME",
                   help="show this method or measure in full: each parameter's type, "
                        "default and description, and an example step in YAML")
    fmt(p)
    p.set_defaults(func=cmd_methods)

    p = add("public-recipe", help="print the recipe's public form, whose sha256 the public "
                                  "manifest carries: the recipe without its seed and "
                                  "everything else that is not published")
    p.add_argument("recipe", metavar="RECIPE")
    p.add_argument("--sha256", action="store_true",
                   help="print the public form's sha256 only")
    p.add_argument("--check", metavar="PATH", default=None,
                   help="compare with a public manifest (or a run's directory or its "
                        "public/): exit 0 when it names this recipe, 1 when not")
    _allow_path(p)
    p.set_defaults(func=cmd_public_recipe)

    p = add("init", help="write a starter recipe from a data file (CSV, Parquet, SPSS, "
                         "Stata or SAS): variables with guessed roles and types, local "
                         "suppression to 3-anonymity and microaggregation, k-anonymity "
                         "measured and checked before release; never replaces a file")
    p.add_argument("data", metavar="DATAFILE", type=Path)
    p.add_argument("-o", "--output", type=Path, default=Path("recipe.yaml"),
                   help="the recipe to write (default: recipe.yaml; never replaced)")
    p.set_defaults(func=cmd_init)

    p = add("schema", help="print the recipe JSON Schema")
    p.set_defaults(func=cmd_schema)

    p = add("compile", help="compile the numeric kernels ahead of time into the "
                                       "cache, so that no run pauses to compile")
    p.add_argument("--only", action="append", metavar="FAMILY",
                   help="compile these kernel families only (comma-separated or repeated): "
                        "mdav, linkage, rank_swap, rank_swap_attack, univariate, utility, "
                        "secondary")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="show progress (default: on a terminal)")
    fmt(p)
    p.set_defaults(func=cmd_compile)
    return parser


def _plain_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """A warning that escapes the numerical code is an sdcflow bug: one line, without the
    source line Python would print."""
    sys.stderr.write(f"sdcflow: warning: {category.__name__}: {message} (please report "
                     "it)\n")


def main(argv: list[str] | None = None) -> int:
    import warnings

    with warnings.catch_warnings():
        warnings.showwarning = _plain_warning
        try:
            status = _main(argv)
            sys.stdout.flush()
            return status
        except BrokenPipeError:
            return reader_went_away()


def _notes(exc) -> int:
    """Print the notes a command added to its error (after the error); its exit code."""
    for note in getattr(exc, "__notes__", ()):
        print(note, file=sys.stderr)
    return exc.exit_code


def _main(argv: list[str] | None) -> int:
    from .errors import InternalError, RecipeError, SdcflowError

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except InternalError as exc:
        if args.debug and exc.__cause__ is not None:
            raise exc.__cause__
        print(f"sdcflow: internal error: {exc}", file=sys.stderr)
        return _notes(exc)
    except RecipeError as exc:
        for p in exc.warnings + exc.problems:
            print(p, file=sys.stderr)
        return _notes(exc)
    except SdcflowError as exc:
        print(f"sdcflow: {exc}", file=sys.stderr)
        return _notes(exc)
    except KeyboardInterrupt:
        print("sdcflow: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        if stdout_closed():
            raise  # the reader of our output went away: main() ends quietly
        if args.debug:
            raise
        print("sdcflow: internal error: BrokenPipeError (run with --debug for details and "
              "please report it)", file=sys.stderr)
        return 4
    except Exception as exc:  # a bug: say so plainly, traceback only on request
        if args.debug:
            raise
        print(f"sdcflow: internal error: {type(exc).__name__}: {exc} "
              "(run with --debug for details and please report it)", file=sys.stderr)
        return 4


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
