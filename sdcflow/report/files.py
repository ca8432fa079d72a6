"""Writing a report file on its own (``sdcflow report -o FILE``, HTML or PDF): like the
output directory, a report file may only replace a report sdcflow wrote for the same
recipe, and it is written atomically."""

from __future__ import annotations

import os
import tempfile
from html import escape
from pathlib import Path

from ..errors import OutputError
from .html import GENERATOR
from .pdf import pdf_marker


def _ours(head: bytes, tail: bytes, recipe_name: str) -> bool:
    if head.startswith(b"%PDF"):
        return pdf_marker(recipe_name) in tail
    text = head.decode("utf-8", "replace")
    mark = f'<meta name="sdcflow-recipe" content="{escape(recipe_name)}">'
    return GENERATOR in text and mark in text


def write_report(target: Path, content: str | bytes, recipe_name: str) -> None:
    """Write ``content`` (the HTML page, or the PDF's bytes) to ``target``; an existing
    file is replaced only when it is an sdcflow report of recipe ``recipe_name`` (raises
    :class:`OutputError` otherwise)."""
    target = Path(os.path.abspath(target))
    if os.path.lexists(target):
        if target.is_symlink() or not target.is_file():
            raise OutputError(f"{target} exists and is not a report file; nothing was touched")
        try:
            with open(target, "rb") as fh:
                head = fh.read(4096)
                fh.seek(max(0, os.fstat(fh.fileno()).st_size - 4096))
                tail = fh.read()
        except OSError as exc:
            raise OutputError(f"cannot read {target}: {exc.strerror or exc}") from None
        if not _ours(head, tail, recipe_name):
            raise OutputError(f"{target} exists and is not an sdcflow report of recipe "
                              f"'{recipe_name}'; nothing was touched: give another file")
    data = content.encode("utf-8") if isinstance(content, str) else content
    tmp = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=f".{target.name}.tmp-", dir=target.parent)
        tmp = Path(name)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
        tmp = None
    except OSError as exc:
        raise OutputError(f"cannot write the report {target}: {exc.strerror or exc}") from None
    finally:
        if tmp is not None:
            tmp.unlink(missing_ok=True)
