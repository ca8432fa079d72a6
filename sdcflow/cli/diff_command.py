"""``sdcflow diff RUN_A RUN_B``: two runs' manifests, measures, checks and files
compared (see :mod:`sdcflow.cli.run_diff`).

Exit codes, as diff(1) and cmp(1) have them: 0 the runs are the same, 1 they differ,
2 a run cannot be compared (no manifest, unreadable). A difference is not a user
mistake, so 1 here means "differ", as ``sdcflow public-recipe --check`` says "does not
match" with 1."""

from __future__ import annotations

import sys

from ._common import emit

SAME, DIFFER, TROUBLE = 0, 1, 2


def cmd_diff(args) -> int:
    from .run_diff import RunDiffError, diff_runs, diff_text

    try:
        d = diff_runs(args.run_a, args.run_b)
    except RunDiffError as exc:
        print(f"sdcflow diff: {exc}", file=sys.stderr)
        return TROUBLE
    emit(args, diff_text(d), d.as_dict())
    return SAME if d.same else DIFFER
