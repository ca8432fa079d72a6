"""``sdcflow report``: run a recipe (cached) and write its report, also when a check
fails."""

from __future__ import annotations

from pathlib import Path


def cmd_report(args) -> int:
    from ..engine import default_out_dir, run
    from ..errors import CheckFailed, OutputError
    from ..recipe import load_recipe
    from ..report import pdf_bytes, write_report
    from ..report.signoff import today

    recipe = load_recipe(args.recipe, allow_paths=args.allow_path, overrides=args.overrides)
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
    # (a report file no manifest hashes: it carries the day it was made)
    html = result.external_report() if args.external else result.report(run_date=today())
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
        from ..engine.checks import failure_text

        for check in failed:
            print(f"  {failure_text(check)}")
    return 0
