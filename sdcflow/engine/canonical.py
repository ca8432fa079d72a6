"""Plain, canonical JSON: the one serialisation behind fingerprints, hashes and outputs."""

from __future__ import annotations

import hashlib
import json
import math

import numpy as np


def jsonable(value):
    """Plain JSON values: NumPy scalars to Python, NaN/inf to None, tuples to lists."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def canonical_json(value) -> str:
    """Compact JSON with sorted keys: equal values give equal text."""
    return json.dumps(jsonable(value), sort_keys=True, separators=(",", ":"), allow_nan=False)


def pretty_json(value) -> str:
    """The JSON of an output file: indented, keys sorted, newline-terminated."""
    return json.dumps(jsonable(value), indent=2, sort_keys=True, allow_nan=False) + "\n"


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
