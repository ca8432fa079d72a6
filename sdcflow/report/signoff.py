"""What makes the internal report a document a methodologist signs, as statistical
offices' release forms have it: the mark "INTERNAL \u2014 do not publish" and a line
naming the recipe, its version and the run's date on every printed page (CSS running
elements, see :mod:`.style`), and a sign-off block (prepared by, reviewed by, decision).

The run's date: a report in an output directory is listed with its sha256 in the run's
``manifest.json``, and two runs of one recipe on the same input must give the same bytes
(whatever the day), so that report carries a date only when the user fixes one with
``SOURCE_DATE_EPOCH`` (the reproducible-builds convention: seconds since 1970-01-01 UTC);
the date and time of every run are in its ``run.json``, the one file of an output
directory that differs between runs. ``sdcflow report`` writes a file no manifest lists,
so it carries the day it was made (or ``SOURCE_DATE_EPOCH``'s)."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from html import escape

from .build import ReportData

MARK = "INTERNAL \u2014 do not publish"


def pinned_date() -> str | None:
    """The date (UTC, ``YYYY-MM-DD``) of ``SOURCE_DATE_EPOCH`` when it is set to a
    number of seconds, else None."""
    value = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if not value.isdigit():
        return None
    try:
        return datetime.fromtimestamp(int(value), UTC).date().isoformat()
    except (OverflowError, OSError, ValueError):
        return None


def today() -> str:
    """The date of a report made now: ``SOURCE_DATE_EPOCH``'s when it is set, else the
    current date (UTC)."""
    return pinned_date() or datetime.now(UTC).date().isoformat()


def run_timestamp() -> str:
    """The run's date and time (UTC, ISO 8601, to the second) for its ``run.json``."""
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace(
        "+00:00", "Z")


def recipe_title(data: ReportData) -> str:
    """The recipe as the report names it: its name and, when it has one, its version."""
    return data.recipe_name + (f", version {data.recipe_version}"
                               if data.recipe_version else "")


def page_style(data: ReportData) -> str:
    """The internal report's mark in the top margin of every printed page: a string in
    the ``@page`` rule, which WeasyPrint and Chromium's printing both draw (a running
    element only WeasyPrint moves into the margin)."""
    if data.external:
        return ""
    return ('<style>@page{@top-center{content:"INTERNAL \\2014  do not publish";'
            "width:100%;background:#a11;color:#fff;font-weight:bold;font-size:9pt;"
            "letter-spacing:.08em;margin-top:.6cm;height:.6cm}}"
            "@media print{.mark{display:none}}</style>")


def page_header(data: ReportData) -> str:
    """The top of the page: the internal report's mark (on screen; printed, the mark is
    :func:`page_style`'s) and the line naming the recipe, its version and the run's date,
    which the printed report repeats at the foot of every page (a running element)."""
    date = data.run_date or ("see run.json" if not data.external else None)
    line = "sdcflow report \u00b7 " + recipe_title(data) + \
        (f" \u00b7 run date: {date}" if date else "")
    mark = "" if data.external else f'<div class="mark">{escape(MARK)}</div>'
    return f'{mark}<div class="runline">{escape(line)}</div>'


_DECISIONS = {
    "failed": ("do not release", "change the recipe and run it again"),
}
_RELEASE = ("release", "release after the changes noted below", "do not release")


def signoff_block(data: ReportData) -> str:
    """The sign-off block of the internal report: what is signed for (recipe, version,
    sha256, run date, verdict of the checks), a line each for who prepared and who
    reviewed the release (name, signature, date), and the decision."""
    failed = sum(1 for c in data.checks if not c["passed"])
    verdict = (f"{failed} of {len(data.checks)} failed: nothing may be released"
               if failed else f"all {len(data.checks)} passed")
    date = data.run_date or ("not in this file (it is hashed in manifest.json, which must "
                             "not change from run to run): see run.json of the run")
    facts = [("recipe", recipe_title(data)), ("recipe sha256", data.recipe_sha256 or ""),
             ("run date", date), ("checks", verdict)]
    rows = "".join(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in facts)
    people = "".join(f"<tr><th>{who}</th><td></td><td></td><td></td></tr>"
                     for who in ("prepared by", "reviewed by"))
    options = _DECISIONS.get(data.status, _RELEASE)
    boxes = "".join(f'<span class="choice">\u2610 {escape(o)}</span>' for o in options)
    return ('<section id="sign-off"><h2>Sign-off</h2>'
            f'<table class="signoff-facts">{rows}</table>'
            '<table class="signatures"><tr><th></th><th>name</th><th>signature</th>'
            f"<th>date</th></tr>{people}</table>"
            f'<p class="decision"><b>Decision:</b> {boxes}</p>'
            '<p class="decision"><b>Conditions, reasons:</b></p>'
            '<div class="notes-box"></div></section>')
