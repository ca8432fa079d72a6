"""The ``reference`` of the measures that compare the protected data with other data
record by record: its parameter schema and the check that the records can be paired."""

from __future__ import annotations

from ..data.dataset import Dataset

REFERENCE = {"type": "string", "default": "original",
             "description": "Compare with the data after this step (default: the original "
                            "data as loaded)."}


def same_records(data: Dataset, original: Dataset, measure: str) -> None:
    """Refuse files with different numbers of records: records are paired by position."""
    if len(data) != len(original):
        raise ValueError(f"the records differ from the reference: {len(data)} protected and "
                         f"{len(original)} reference records ({measure} compares record i of "
                         "the protected data with record i of the reference, so both must "
                         "hold the same records, e.g. not after sampling)")
