"""What the data reader reports: problems found in the data, and how they name records."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SHOW = 5  # how many offending records (or lines) a message names


@dataclass(frozen=True)
class Finding:
    """A problem with the data: where in the recipe it shows (``None``: in the data file
    itself; ``key``: at the mapping key rather than the value) and what it is."""

    path: tuple | None
    message: str
    key: bool = False


def records_text(mask: np.ndarray, csv: bool) -> str:
    """The records of ``mask`` as a message names them: how many, then the first few
    (1-based; in a CSV file with the line, the header being line 1)."""
    rows = np.flatnonzero(mask)
    shown = ", ".join(
        f"{r + 1} (line {r + 2})" if csv else str(r + 1) for r in rows[:SHOW]
    )
    more = f" and {len(rows) - SHOW} more" if len(rows) > SHOW else ""
    noun = "record" if len(rows) == 1 else "records"
    return f"{len(rows)} {noun}: {shown}{more}"
