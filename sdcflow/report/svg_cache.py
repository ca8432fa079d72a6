"""Pictures drawn once per process: the report's figure functions are pure (the same
arguments give the same SVG bytes, see :mod:`sdcflow.report.figures`), and a run renders
its internal and its external report, which share most pictures; matplotlib takes most of
a report's time. A bounded cache keyed by the arguments' content (arrays by dtype, shape
and a BLAKE2b digest of their bytes; text arrays value by value) returns the SVG drawn
before."""

from __future__ import annotations

import functools
import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import TypeVar

import numpy as np

ENTRIES = 128  # at most this many pictures kept (each some tens of kB)

_cache: OrderedDict = OrderedDict()
_lock = threading.Lock()
F = TypeVar("F", bound=Callable[..., str])


class _Unkeyable(Exception):
    """An argument whose content has no key here: the picture is drawn, not cached."""


def content_key(value) -> object:
    """A hashable key equal for arguments of equal content (see the module docstring)."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return (type(value).__name__, value)
    if isinstance(value, np.generic):
        return content_key(value.item())
    if isinstance(value, np.ndarray):
        if value.dtype == object:  # (the bytes of an object array are pointers)
            return ("objects", value.shape, tuple(content_key(v) for v in value.ravel()))
        digest = hashlib.blake2b(np.ascontiguousarray(value).tobytes(),
                                 digest_size=16).hexdigest()
        return ("array", value.dtype.str, value.shape, digest)
    if isinstance(value, Mapping):
        return ("mapping", tuple((content_key(k), content_key(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(content_key(v) for v in value))
    raise _Unkeyable


def memoised(function: F) -> F:
    """``function`` (a pure picture function returning SVG text) with its results kept
    for the arguments' content (module docstring)."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        try:
            key = (function.__qualname__, content_key(args),
                   content_key(dict(sorted(kwargs.items()))))
        except _Unkeyable:
            return function(*args, **kwargs)
        with _lock:
            if key in _cache:
                _cache.move_to_end(key)
                return _cache[key]
        svg = function(*args, **kwargs)
        with _lock:
            _cache[key] = svg
            while len(_cache) > ENTRIES:
                _cache.popitem(last=False)
        return svg

    return wrapper  # type: ignore[return-value]


def clear() -> None:
    """Forget every picture (tests that time or count drawing)."""
    with _lock:
        _cache.clear()
