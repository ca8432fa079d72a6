"""The options of exploration that ``sdcflow run`` and ``sdcflow plan`` share: ``--set
PATH=VALUE`` (:mod:`sdcflow.recipe._overrides`) and the partial runs ``--select STEP``,
``--select STEP+``, ``--until STEP`` (:mod:`sdcflow.engine.partial`)."""

from __future__ import annotations

import argparse


def exploration(p: argparse.ArgumentParser) -> None:
    """``--set``, and the partial runs ``--select``/``--until``."""
    overrides_option(p)
    part = p.add_mutually_exclusive_group()
    part.add_argument("--select", action="append", default=[], metavar="STEP[+]",
                      help="run only STEP and the steps it needs; STEP+ also every step "
                           "downstream of it; repeatable. A partial run never releases")
    part.add_argument("--until", default=None, metavar="STEP",
                      help="run the steps up to and including STEP (in the plan's order); "
                           "a partial run never releases")


def overrides_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--set", action="append", default=[], metavar="PATH=VALUE",
                   dest="overrides",
                   help="use this value instead of the recipe file's, e.g. --set "
                        "steps.kanon.params.k=5 (a step by its id; the value read as "
                        "YAML); repeatable; checked as the recipe is and recorded in the "
                        "manifest")


def load_explored(args):
    """The recipe of ``args`` with its ``--set`` overrides (the path itself without)."""
    if not args.overrides:
        return args.recipe
    from ..recipe import load_recipe

    return load_recipe(args.recipe, allow_paths=args.allow_path, overrides=args.overrides)


def selection(args):
    """The partial run ``args`` ask for (false when none)."""
    from ..engine.partial import Selection

    return Selection(tuple(args.select), args.until)


def explored_plan(args, validated):
    """The plan of ``validated``, or its part that ``--select``/``--until`` run."""
    chosen = selection(args)
    if not chosen:
        return validated.plan
    from ..engine.partial import partial_plan, selected_nodes

    return partial_plan(validated.plan, selected_nodes(validated.recipe, validated.plan,
                                                       chosen))


def override_lines(recipe) -> list[str]:
    """What the ``--set`` arguments changed, one line each."""
    return [f"with --set {o.path}={_shown(o.value)} (the recipe file is not changed)"
            for o in getattr(recipe, "overrides", [])]


def override_entries(recipe) -> list[dict]:
    return [o.as_dict() for o in getattr(recipe, "overrides", [])]


def _shown(value) -> str:
    import json

    return value if isinstance(value, str) else json.dumps(value)
