"""The commands that read a recipe without running it: validate, plan, public-recipe,
init and schema."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ._common import emit, problems_json


def cmd_validate(args) -> int:
    from ..errors import RecipeError
    from ..recipe import validate

    status, report = 0, []
    for path in args.recipes:
        try:
            recipe = path
            if args.overrides:  # (each recipe validated with the same --set values)
                from ..recipe import load_recipe

                recipe = load_recipe(path, allow_paths=args.allow_path,
                                     overrides=args.overrides)
            validated = validate(recipe, data=not args.no_data, allow_paths=args.allow_path)
            for w in validated.warnings:
                print(w, file=sys.stderr)
            report.append({"recipe": path, "valid": True,
                           "warnings": [w.as_dict() for w in validated.warnings]})
            if args.format == "text":
                sets = "".join(f" --set {o}" for o in args.overrides)
                print(f"{path}: valid" + (f" (with{sets})" if sets else ""))
        except RecipeError as exc:
            status = 1
            report.append({"recipe": path, "valid": False, "problems": problems_json(exc)})
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
    from ..recipe import validate
    from .exploration import explored_plan, load_explored

    validated = validate(load_explored(args), allow_paths=args.allow_path)
    plan = explored_plan(args, validated)
    if args.format in ("dot", "mermaid"):
        from .plan_graph import plan_dot, plan_mermaid

        text = plan_dot(plan, validated.recipe.name) if args.format == "dot" \
            else plan_mermaid(plan)
        sys.stdout.write(text)
        return 0
    steps = [ps.as_dict() for ps in plan.steps]
    lines = []
    for i, ps in enumerate(plan.steps, 1):
        deps = ", ".join(ps.deps) if ps.deps else "original data"
        what = f"{ps.kind} {ps.step.plugin_name}"
        lines.append(f"{i:>3}. {ps.node:<24} {what:<34} <- {deps}")
    skipped = validated.recipe.disabled_steps()
    lines += validated.recipe.skipped_lines()
    emit(args, "\n".join(lines), {"steps": steps, **({"skipped": skipped} if skipped else {})})
    return 0


def cmd_public_recipe(args) -> int:
    from ..data.recipe_files import RecipeFileError, command_line_file
    from ..engine.canonical import sha256_text
    from ..engine.public_recipe import public_form_text
    from ..errors import OutputError
    from ..recipe import load_recipe

    text = public_form_text(load_recipe(args.recipe, allow_paths=args.allow_path,
                                        overrides=args.overrides))
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
        if not args.overrides:
            print("(a run with --set PATH=VALUE released the recipe with its overrides: "
                  "give the same --set arguments to compare with it)", file=sys.stderr)
        return 1
    print(f"{args.recipe}: matches {path} (public sha256 {digest})")
    return 0


def cmd_init(args) -> int:
    from .starter import write_starter

    target = write_starter(args.data, args.output)
    print(f"wrote {target}: check the lines marked 'check this', then "
          f"'sdcflow validate {target}'")
    return 0


def cmd_schema(args) -> int:
    from ..recipe import recipe_schema

    print(json.dumps(recipe_schema(), indent=2))
    return 0
