"""What plugins return and declare about their outputs: measure and method results, and
the metadata a method leaves in the variables it writes (re-exported by
:mod:`sdcflow.plugins.registry`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from ..data.dataset import Dataset, Metadata, Variable


@dataclass
class MeasureResult:
    """What a measure returns: a JSON-serialisable summary (goes to ``measures.json``)
    and optionally a per-record table (available from the Python API)."""

    summary: dict
    per_record: Any = None  # pandas.DataFrame aligned with the evaluated records


@dataclass
class MethodResult:
    """What a masking method returns: the protected dataset and a JSON-serialisable
    ``info`` dict (counts of changed values, ...) recorded in the manifest."""

    data: Dataset
    info: dict


class DataOrder(tuple):
    """The order of an ordinal variable that the data decide when the step runs (e.g. the
    interval labels of ``width``, the values kept by a labelled top code): the categories
    known before (possibly none), and true even when empty, since there will be an order."""

    def __bool__(self) -> bool:
        return True


@dataclass(frozen=True)
class Output:
    """What a method leaves in a variable it writes: ``variable`` is its metadata after
    the step (type, order, hierarchy; the role never changes); ``types`` every type the
    data can give it at run time (default: ``variable.type`` only), e.g. ``("integer",
    "continuous")`` for an integer variable that stays integer only when the new values
    happen to be whole; ``order_from_data``: an ordinal variable whose order the data
    decide (``variable.order`` then lists the categories known before, if any)."""

    variable: Variable
    types: tuple[str, ...] = ()
    order_from_data: bool = False

    def __post_init__(self) -> None:
        if not self.types:
            object.__setattr__(self, "types", (self.variable.type,))


def unchanged(names: Iterable[str], meta: Metadata) -> dict[str, Output]:
    """The outputs of a method that keeps the metadata of the variables ``names``."""
    return {n: Output(meta.variables[n]) for n in names if n in meta.variables}


def numeric_output(var: Variable, *, whole: bool | None = None) -> Output:
    """A numeric variable given new values: continuous stays continuous; integer stays
    integer when ``whole`` is True, becomes continuous when False, and with ``None`` the
    data decide (integer while every new value is whole)."""
    if var.type != "integer" or whole is True:
        return Output(var)
    continuous = var.evolve(type="continuous")
    return Output(continuous) if whole is False else Output(continuous,
                                                             ("continuous", "integer"))
