"""Writing a report file on its own (``sdcflow report -o FILE``): like the output
directory, a report file may only replace a report sdcflow wrote for the same recipe,
and it is written atomically."""

from __future__ import annotations

import os
import tempfile
from html import escape
from pathlib import Path

from ..errors import OutputError
from .html import GENERATOR


def write_report(target: Path, html: str, recipe_name: str) -> None:
    """Write ``html`` to ``target``; an existing file is replaced only when it is an
    sdcflow report of recipe ``recipe_name`` (raises :class:`OutputError` otherwise)."""
    target = Path(os.path.abspath(target))
    if os.path.lexists(target):
        if target.is_symlink() or not target.is_file():
            raise OutputError(f"{target} exists and is not a report file; nothing was touched")
        try:
            with open(target, "rb") as fh:
                head = fh.read(4096).decode("utf-8", "replace")
        except OSError as exc:
            raise OutputError(f"cannot read {target}: {exc.strerror or exc}") from None
        mark = f'<meta name="sdcflow-recipe" content="{escape(recipe_name)}">'
        if GENERATOR not in head or mark not in head:
            raise OutputError(f"{target} exists and is not an sdcflow report of recipe "
                              f"'{recipe_name}'; nothing was touched: give another file")
    tmp = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=f".{target.name}.tmp-", dir=target.parent)
        tmp = Path(name)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(html)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
        tmp = None
    except OSError as exc:
        raise OutputError(f"cannot write the report {target}: {exc.strerror or exc}") from None
    finally:
        if tmp is not None:
            tmp.unlink(missing_ok=True)
