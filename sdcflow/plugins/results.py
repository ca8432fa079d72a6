"""What a measure's summary contains: a small typed description ("shape") that a
measure declares once (:meth:`sdcflow.plugins.registry.Measure.result_shape`), as a function of its
resolved parameters and of the variables' metadata.

Validation reads the shapes to check the release checks and the expressions of
``score`` before anything runs (an unknown key, a subscript that is not among the keys,
a mapping compared with a number); :func:`conformance` compares a real summary with its
declaration, so that the declarations cannot drift from what the measures return.

The shapes describe the summary as written to ``measures.json`` (plain JSON: keys are
text, NumPy numbers are numbers, NaN is ``null``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field


class Shape:
    """A description of a JSON value."""

    nullable: bool = False

    def describe(self) -> str:  # pragma: no cover - every shape overrides it
        raise NotImplementedError

    def with_null(self) -> Shape:
        """The same shape, also allowing ``null``."""
        from dataclasses import replace

        return replace(self, nullable=True)


@dataclass(frozen=True)
class Number(Shape):
    """A number (``integer``: a whole number, e.g. a count)."""

    integer: bool = False
    nullable: bool = False

    def describe(self) -> str:
        return "a count" if self.integer else "a number"


@dataclass(frozen=True)
class Text(Shape):
    """Text (``values``: the possible values, when they are a fixed few)."""

    values: tuple | None = None
    nullable: bool = False

    def describe(self) -> str:
        return "text"


@dataclass(frozen=True)
class Flag(Shape):
    """``true`` or ``false``."""

    nullable: bool = False

    def describe(self) -> str:
        return "true/false"


@dataclass(frozen=True)
class Null(Shape):
    """Always ``null`` with these parameters (``why``: e.g. "no weight variable")."""

    why: str = ""
    nullable: bool = True

    def describe(self) -> str:
        return f"always null here ({self.why})" if self.why else "always null here"


@dataclass(frozen=True)
class Record(Shape):
    """A mapping with known keys: ``fields`` are always there, ``optional`` ones may be
    (e.g. when the data decide)."""

    fields: Mapping[str, Shape] = field(default_factory=dict)
    optional: Mapping[str, Shape] = field(default_factory=dict)
    nullable: bool = False

    def key(self, name: str) -> Shape | None:
        return self.fields.get(name) or self.optional.get(name)

    def names(self) -> list[str]:
        return [*self.fields, *self.optional]

    def describe(self) -> str:
        return f"a mapping with the keys {_listing(self.names())}"


@dataclass(frozen=True)
class Keyed(Shape):
    """A mapping whose keys are values of something: ``by`` says what (``"variable"``, a
    parameter such as ``"k"``, ``"stratum"``), ``keys`` lists them when they are known
    before the data are read (as text), ``value`` is the shape of every value."""

    value: Shape
    by: str = "key"
    keys: tuple[str, ...] | None = None
    nullable: bool = False

    def describe(self) -> str:
        if self.keys is None:
            return f"a mapping by {self.by}"
        return f"a mapping by {self.by} ({_listing(self.keys)})"


@dataclass(frozen=True)
class ListOf(Shape):
    """A list whose items all have the shape ``item``."""

    item: Shape
    nullable: bool = False

    def describe(self) -> str:
        return "a list"


@dataclass(frozen=True)
class Anything(Shape):
    """Anything (not described further)."""

    nullable: bool = True

    def describe(self) -> str:
        return "a value"


NUMBER = Number()
COUNT = Number(integer=True)
TEXT = Text()
FLAG = Flag()
ANY = Anything()
NAMES = ListOf(TEXT)  # e.g. the variables a measure used


def record(optional: Mapping[str, Shape] | None = None, **fields: Shape) -> Record:
    """``record(total=COUNT, percent=NUMBER)``: a mapping with these keys."""
    return Record(dict(fields), dict(optional or {}))


def by_variable(names: Iterable[str], value: Shape = NUMBER) -> Keyed:
    """A mapping from each of the variables ``names`` to a ``value``."""
    return Keyed(value, "variable", tuple(str(n) for n in names))


def by_values(of: str, values: Iterable, value: Shape = NUMBER) -> Keyed:
    """A mapping from each value of the parameter ``of`` (e.g. each ``k``) to a ``value``."""
    return Keyed(value, of, tuple(dict.fromkeys(value_key(v) for v in values)))


def value_key(value) -> str:
    """A parameter value as a key of :func:`by_values` (2.0 -> '2', 0.1 -> '0.1')."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _listing(keys: Iterable, at_most: int = 8) -> str:
    keys = [str(k) for k in keys]
    shown = ", ".join(keys[:at_most])
    return shown + (f", ... ({len(keys)} in all)" if len(keys) > at_most else "") or "none"


def conformance(shape: Shape, value, where: str = "summary") -> list[str]:
    """What in the JSON ``value`` does not fit ``shape`` (empty when it conforms); each
    item names the place (``summary.violations.3``)."""
    if value is None:
        return [] if shape.nullable else [f"{where} is null, declared {shape.describe()}"]
    if isinstance(shape, Anything):
        return []
    if isinstance(shape, Null):
        return [f"{where} is {_json_kind(value)}, declared {shape.describe()}"]
    if isinstance(shape, Number):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return [f"{where} is {_json_kind(value)}, declared {shape.describe()}"]
        if shape.integer and not float(value).is_integer():
            return [f"{where} is {value!r}, declared a whole number"]
        return []
    if isinstance(shape, Text):
        if not isinstance(value, str):
            return [f"{where} is {_json_kind(value)}, declared text"]
        if shape.values is not None and value not in shape.values:
            return [f"{where} is {value!r}, declared one of {list(shape.values)}"]
        return []
    if isinstance(shape, Flag):
        return [] if isinstance(value, bool) else [(f"{where} is {_json_kind(value)}, "
                                                   "declared true/false")]
    if isinstance(shape, ListOf):
        if not isinstance(value, list):
            return [f"{where} is {_json_kind(value)}, declared a list"]
        return [p for i, item in enumerate(value) for p in conformance(shape.item, item,
                                                                       f"{where}[{i}]")]
    if not isinstance(value, dict):
        return [f"{where} is {_json_kind(value)}, declared {shape.describe()}"]
    out = []
    if isinstance(shape, Record):
        for name in shape.fields:
            if name not in value:
                out.append(f"{where} has no '{name}', which is declared")
        for name, item in value.items():
            declared = shape.key(name)
            if declared is None:
                out.append(f"{where}.{name} is not declared")
            else:
                out += conformance(declared, item, f"{where}.{name}")
        return out
    if isinstance(shape, Keyed):
        if shape.keys is not None and set(value) != set(shape.keys):
            out.append(f"{where} has the keys {_listing(value)}, declared "
                       f"{_listing(shape.keys)}")
        for name, item in value.items():
            out += conformance(shape.value, item, f"{where}.{name}")
        return out
    raise TypeError(f"unknown shape {shape!r}")  # pragma: no cover


def _json_kind(value) -> str:
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the text {value!r}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__
