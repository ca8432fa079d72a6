"""What the linkage measures that match records by an identifier kept in both files share
(``partial_linkage``, ``schema_linkage``): the identifier variable (``match_on``), the
columns they read, and the checks that it identifies every record."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import pandas as pd

from ...data.dataset import Metadata
from ...plugins.registry import Finding


class MatchedById:
    """A measure matching the records of two files by the identifier ``match_on``."""

    @staticmethod
    def match_variable(params: Mapping, meta: Metadata) -> str | None:
        """``match_on``, else the one variable with role identifier (None: none or
        several)."""
        if params.get("match_on"):
            return params["match_on"]
        ids = meta.names("identifier")
        return ids[0] if len(ids) == 1 else None

    def reads(self, params, meta):
        match = self.match_variable(params, meta)
        return set(self.variables(params, meta)) | ({match} if match else set())

    def match_problems(self, params: Mapping, meta: Metadata) -> Iterator[Finding]:
        """No identifier, or one that is not declared."""
        match = self.match_variable(params, meta)
        if match is None:
            yield ("match_on",), ("name the variable identifying the individuals in both "
                                  "files (match_on), or declare exactly one variable with "
                                  "role identifier")
        elif match not in meta.variables:
            yield ("match_on",), f"'{match}' is not a variable of the data"


def id_problem(ids: pd.Series) -> str | None:
    """What keeps ``ids`` from identifying each record (missing or repeated values), as
    the end of a sentence whose subject is the column; None when they do."""
    if ids.isna().any():
        return (f"is missing in {int(ids.isna().sum())} records: every record needs its "
                "identifier")
    if ids.duplicated().any():
        return f"repeats {int(ids.duplicated().sum())} values: it must identify each record"
    return None
