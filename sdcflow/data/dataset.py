"""The Dataset: the records as a pandas DataFrame, and what the recipe says of each variable.

Storage conventions (so every plugin sees the same thing):

* ``categorical`` and ``ordinal`` variables hold text (:data:`sdcflow.data.text.TEXT`,
  pandas 3's ``str`` dtype): codes are compared as written in the file, so ``08`` stays
  ``08``;
* ``integer`` variables are nullable ``Int64``; ``continuous`` ones ``float64``;
* a missing value is ``NA``/``NaN``, whatever the type.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from .text import is_text, text_column

DEFAULT_TYPES = {
    "identifier": "categorical",
    "key": "categorical",
    "numeric": "continuous",
    "sensitive": "categorical",
    "weight": "continuous",
    "household": "categorical",
    "strata": "categorical",
    "pram": "categorical",
}


@dataclass(frozen=True)
class Variable:
    """A variable as declared in the recipe: its role, type and optional metadata."""

    name: str
    role: str
    type: str
    order: tuple | None = None  # categories of an ordinal variable, lowest first
    labels: Mapping | None = None
    hierarchy: Mapping | None = None
    missing: tuple = ()
    level: str = "record"  # "household": the same value for every member of a household
    # a taxonomy of the categories as sdcflow.data.taxonomy resolves the recipe's
    # declaration: {"parents": {concept: parent}} or {"wordnet": "noun" | "verb"}
    taxonomy: Mapping | None = None
    # a graph's node attributes as sdcflow.data.node_attributes resolves the recipe's
    # declaration: {"file", "id", "attributes": [names], "values": {label: [texts]}}
    nodes: Mapping | None = None

    @property
    def is_numeric(self) -> bool:
        return self.type in ("integer", "continuous")

    def evolve(self, **changes) -> Variable:
        return replace(self, **changes)

    @classmethod
    def from_recipe(cls, name: str, spec: Mapping) -> Variable:
        role = spec["role"]
        order = spec.get("order")
        return cls(
            name=name,
            role=role,
            type=spec.get("type", DEFAULT_TYPES[role]),
            order=tuple(str(v) for v in order) if order is not None else None,
            labels=dict(spec["labels"]) if spec.get("labels") else None,
            hierarchy=spec.get("hierarchy"),
            missing=tuple(spec.get("missing", ())),
            level=spec.get("level", "record"),
            taxonomy=spec.get("taxonomy"),
            nodes=spec.get("nodes"),
        )

    def as_dict(self) -> dict:
        out = {"role": self.role, "type": self.type}
        if self.order is not None:
            out["order"] = list(self.order)
        if self.level != "record":
            out["level"] = self.level
        return out


def as_declared(frame: pd.DataFrame, variables: Mapping[str, Variable]) -> pd.DataFrame:
    """``frame`` with every categorical or ordinal column held as text (missing values
    missing), e.g. after a Parquet round trip, which pandas 2.x reads back as Python
    objects; the frame itself if nothing needs converting (it is never changed)."""
    fix = {name: text_column(frame[name]) for name, var in variables.items()
           if var.type in ("categorical", "ordinal") and name in frame.columns
           and not is_text(frame[name])}
    if not fix:
        return frame
    out = frame.copy(deep=False)
    for name, column in fix.items():
        out[name] = column
    return out


def storage_problems(frame: pd.DataFrame, variables: Mapping[str, Variable]) -> list[str]:
    """The columns of ``frame`` declared in ``variables`` that are not held as the storage
    conventions above say (text, ``Int64`` or ``float64``), one sentence each."""
    out = []
    for name, var in variables.items():
        if name not in frame.columns:
            continue
        dtype = frame[name].dtype
        if var.type in ("categorical", "ordinal"):
            ok, want = is_text(frame[name]), "text (sdcflow.data.text.TEXT)"
        elif var.type == "integer":
            ok, want = str(dtype) == "Int64", "Int64"
        else:
            ok, want = dtype == np.float64, "float64"
        if not ok:
            out.append(f"column '{name}' ({var.type}) is held as {dtype}, not {want}")
    return out


@dataclass(frozen=True)
class Metadata:
    """What the recipe declares about the data: variables (by name) and edit constraints."""

    variables: Mapping[str, Variable]
    constraints: tuple = ()
    broken: frozenset = frozenset()  # declared names left out because of their own errors

    def names(self, *roles: str, numeric: bool = False) -> list[str]:
        """Declared variables with one of ``roles`` (integer/continuous only with
        ``numeric``), in declaration order: the default variables of most steps."""
        return [n for n, v in self.variables.items()
                if v.role in roles and (v.is_numeric or not numeric)]


@dataclass
class Dataset:
    """Records (``frame``), the declared variables (by column name) and the recipe's
    edit constraints (:class:`sdcflow.constraints.Constraint`)."""

    frame: pd.DataFrame
    variables: dict[str, Variable] = field(default_factory=dict)
    constraints: tuple = ()

    def __post_init__(self) -> None:
        # every plugin sees text columns as text, however the frame was made
        self.frame = as_declared(self.frame, self.variables)

    @property
    def meta(self) -> Metadata:
        return Metadata(self.variables, self.constraints)

    def __len__(self) -> int:
        return len(self.frame)

    def with_columns(
        self, columns: Mapping[str, pd.Series | np.ndarray],
        variables: Iterable[Variable] = (),
    ) -> Dataset:
        """A copy with ``columns`` replaced (or added) and ``variables`` updated."""
        frame = self.frame.copy(deep=False)
        for name, values in columns.items():
            frame[name] = values
        meta = dict(self.variables)
        for var in variables:
            meta[var.name] = var
        return Dataset(frame, meta, self.constraints)

    def for_release(self) -> pd.DataFrame:
        """The records without identifier variables (which never reach a release)."""
        return self.frame[[n for n in self.frame.columns if self.variables[n].role != "identifier"]]
