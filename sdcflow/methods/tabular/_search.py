"""What the table methods that search for an optimum (a MILP solved by HiGHS: controlled
rounding, controlled adjustment, optimal secondary suppression) share: without a
``time_limit`` the search of a large table may go on for hours, so that a table of more
than :data:`~sdcflow.plugins.limits.MAX_SEARCH_CELLS` cells needs one, checked when the recipe
is validated."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from ...plugins.limits import MAX_SEARCH_CELLS, count


def untimed_search(params: Mapping, cells: int, what: str, advice: str,
                   applies: bool = True) -> Iterator[tuple[tuple, str]]:
    """A finding when ``what`` (the search, in words) would search ``cells`` cells
    without a time limit, more than the limit; ``advice`` says what to do."""
    if applies and "time_limit" not in params and cells > MAX_SEARCH_CELLS:
        yield (), (f"{what} of a table of {count(cells)} cells, without a time limit, may "
                   f"search for hours (the limit without one is {count(MAX_SEARCH_CELLS)} "
                   f"cells): {advice}")
