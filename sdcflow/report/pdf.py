"""The report as PDF, for offices that archive and sign PDFs: the same HTML page laid
out on A4 pages by WeasyPrint (the extra ``sdcflow[pdf]``; WeasyPrint also needs the
Pango library of the system). The PDF is the same bytes on every run: WeasyPrint writes no
date, and the document identifier is the recipe's name (which also marks the file as
sdcflow's, so that only such a file is ever replaced)."""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager

MISSING = ("a PDF report needs WeasyPrint: pip install 'sdcflow[pdf]' (WeasyPrint also "
           "needs the Pango library: apt install libpango-1.0-0 libpangoft2-1.0-0)")


def pdf_marker(recipe_name: str) -> bytes:
    """What a PDF report of ``recipe_name`` holds in its trailer: its identifier."""
    return f"/ID [(sdcflow-report:{recipe_name})".encode()


def pdf_problem() -> str | None:
    """Why no PDF can be written here (WeasyPrint or Pango missing), or None."""
    try:
        import weasyprint  # noqa: F401
    except (ImportError, OSError) as exc:
        return f"{MISSING} ({type(exc).__name__}: {str(exc).splitlines()[0][:120]})" \
            if str(exc) else MISSING
    return None


def pdf_bytes(html: str, recipe_name: str) -> bytes:
    """The PDF of the report page ``html``. Raises :class:`OutputError` when WeasyPrint
    cannot be had."""
    from ..errors import OutputError

    problem = pdf_problem()
    if problem is not None:
        raise OutputError(problem)
    import logging

    import weasyprint

    # WeasyPrint logs every CSS property it does not know to the root logger's handlers
    logging.getLogger("weasyprint").setLevel(logging.ERROR)
    with _fixed_font_dates():
        return weasyprint.HTML(string=html).write_pdf(
            pdf_identifier=f"sdcflow-report:{recipe_name}".encode())


_ENV_LOCK = threading.Lock()


@contextmanager
def _fixed_font_dates():
    """Font subsets stamped with one fixed date. Without HarfBuzz's subsetter WeasyPrint
    subsets the embedded fonts with fontTools, which writes the current time into each
    subset's ``head`` table (its creation and modification dates and its checksum), so two
    PDFs of one page made a second apart differ. fontTools takes the time from
    ``SOURCE_DATE_EPOCH`` when it is set (the reproducible-builds convention): set it, to
    the user's value if they gave one, else to 0, while the PDF is written."""
    with _ENV_LOCK:
        before = os.environ.get("SOURCE_DATE_EPOCH")
        os.environ["SOURCE_DATE_EPOCH"] = before if before is not None else "0"
        try:
            yield
        finally:
            if before is None:
                del os.environ["SOURCE_DATE_EPOCH"]
