"""``sdcflow ptable D V [JS]``: a ptable of the cell key method built as the R package
``ptable``'s ``create_cnt_ptable(D, V, js, pstay, optim, mono)`` builds it, printed or
written for people, as CSV (the cell key method's ``ptable_file``) or as the file
``ptable::pt_export(SDCtool = "TauArgus")`` writes (see
:mod:`sdcflow.tabular.ptable_files`)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path


def _numbers(kind):
    """One value or a comma-separated list (one per ptable row i >= 1)."""
    def parse(text: str):
        try:
            values = [kind(t) for t in text.split(",")]
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a value or a comma-separated list: {text!r}") \
                from None
        return values[0] if len(values) == 1 else values
    return parse


def _boolean(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("true", "t", "yes", "1"):
        return True
    if lowered in ("false", "f", "no", "0"):
        return False
    raise ValueError(text)


def add_ptable_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("D", type=int, help="largest perturbation |v| (ptable's D)")
    p.add_argument("V", type=float, help="variance of the perturbation (ptable's V)")
    p.add_argument("js", type=int, nargs="?", default=0,
                   help="blocked counts: no perturbed count in 1..js (ptable's js; "
                        "default 0)")
    p.add_argument("--pstay", type=_numbers(float), default=None, metavar="P[,P...]",
                   help="least probability of no change, once or per row i >= 1 "
                        "(default: none, the maximum-entropy solution)")
    p.add_argument("--optim", type=_numbers(int), default=1, metavar="N[,N...]",
                   help="1-3: variance at most V (default 1), 4: exactly V; once or per "
                        "row")
    p.add_argument("--mono", type=_numbers(_boolean), default=True, metavar="B[,B...]",
                   help="probabilities rise towards no change for negative perturbations "
                        "(true or false, default true); once or per row")
    p.add_argument("--format", choices=("text", "csv", "tau-argus", "json"), default="text",
                   help="text for people (default); csv: the six columns i, j, p, v, "
                        "p_int_lb, p_int_ub (a cell_key step reads it as ptable_file); "
                        "tau-argus: the file ptable::pt_export(SDCtool = 'TauArgus') "
                        "writes; json: the columns (cell_key's ptable parameter)")
    p.add_argument("-o", "--output", type=Path, default=None, metavar="FILE",
                   help="write FILE (never replaced) instead of printing")


def write_new_file(path: Path, text: str) -> None:
    """Write ``text`` into ``path``, which must not exist: written beside it and linked
    into place, so that ``path`` is whole or absent and nothing is ever replaced."""
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent or Path("."))
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.link(tmp, path)
    finally:
        os.unlink(tmp)


def cmd_ptable(args) -> int:
    from ..kernels.tabular.ptable import PTableError, count_ptable
    from ..tabular.ptable_files import ptable_csv, ptable_json, ptable_tau_argus, ptable_text

    try:
        table = count_ptable(args.D, args.V, js=args.js, pstay=args.pstay, optim=args.optim,
                             mono=args.mono)
    except PTableError as exc:
        print(f"sdcflow ptable: impossible ptable: {exc}", file=sys.stderr)
        return 1
    if args.format == "json":
        text = json.dumps(ptable_json(table), indent=2) + "\n"
    else:
        text = {"text": ptable_text, "csv": ptable_csv,
                "tau-argus": ptable_tau_argus}[args.format](table)
    if args.output is None:
        sys.stdout.write(text)
        return 0
    try:
        write_new_file(args.output, text)
    except FileExistsError:
        print(f"sdcflow ptable: {args.output} exists: not replaced (choose another name)",
              file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"sdcflow ptable: cannot write {args.output}: {exc.strerror or exc}",
              file=sys.stderr)
        return 1
    print(f"wrote {args.output} ({args.format}, {len(table.i)} entries)", file=sys.stderr)
    return 0
