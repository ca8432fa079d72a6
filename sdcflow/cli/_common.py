"""What the commands share: output in text or JSON, the options several take, and
how progress is shown."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def emit(args, text: str, data) -> None:
    if args.format == "json":
        print(json.dumps(data, indent=2, sort_keys=True))
    elif text:
        print(text)


def problems_json(exc) -> list[dict]:
    return [p.as_dict() for p in exc.problems + getattr(exc, "warnings", [])]


def allowed_path(text: str) -> str:
    """An --allow-path: a folder (or file) that exists."""
    if not Path(text).exists():
        raise argparse.ArgumentTypeError(f"no such folder or file: {text}")
    return text


def allow_path(p: argparse.ArgumentParser) -> None:
    p.add_argument("--allow-path", action="append", default=[], type=allowed_path,
                   metavar="DIR",
                   help="let the recipe read files in DIR (a folder, or one file) besides "
                        "its own folder; repeatable (see 'Files a recipe reads' in the "
                        "recipe guide, docs/recipe-guide.md)")


def positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 1 <= value <= 1024:
        raise argparse.ArgumentTypeError(f"must be between 1 and 1024: {value}")
    return value


def show_progress(args) -> bool:
    """Whether to show progress: as ``--progress``/``--no-progress`` say, else when
    standard error is a terminal and the output is text (JSON output is for programs)."""
    if args.progress is not None:
        return args.progress
    return sys.stderr.isatty() and args.format != "json"


def live() -> bool:
    """Whether standard error takes a live display (a terminal that moves the cursor)."""
    from .display import console

    out = console()
    return out.is_terminal and not out.is_dumb_terminal


def line(text: str) -> None:
    print(text, file=sys.stderr, flush=True)
