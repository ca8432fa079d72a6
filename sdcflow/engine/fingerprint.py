"""Step fingerprints: the sha256 of everything a step's result depends on.

A cached result may only be reused when nothing it depends on has changed, so the
fingerprint holds, in canonical JSON:

* the code: sdcflow's version, the plugin's name and version, and the versions of the
  numerical libraries whose results the plugins rely on (NumPy's random streams, SciPy's
  solvers, pandas, pyarrow, numba);
* the step: its node id (which, with the seed, fixes its random stream) and its
  normalised parameters (defaults filled in);
* the recipe's seed;
* the data the step can see: the number of records, and for every column handed to the
  plugin its values' hash and its full declaration (role, type, order, labels,
  hierarchy, missing codes, level, taxonomy);
* every edit constraint in full (id, kind, expression text, condition, consequence,
  domain, tolerance, enforcement): methods choose aggregators and groupings from them
  and measures check them;
* for measures, the reference data (columns with hashes and declarations) and the
  hashes of the results of other measures they combine.

``tests/engine/test_fingerprint.py`` mutates every recipe field a step can see and
asserts that the fingerprint changes.
"""

from __future__ import annotations

import hashlib
from importlib import metadata

import pandas as pd

from .._version import __version__
from ..constraints import Constraint
from ..data import Variable
from .canonical import canonical_json

_LIBRARIES = ("numpy", "scipy", "pandas", "pyarrow", "numba")


def column_hash(series: pd.Series) -> str:
    """sha256 of a column's values and dtype (independent of its index)."""
    h = hashlib.sha256(str(series.dtype).encode())
    h.update(pd.util.hash_pandas_object(series, index=False).to_numpy().tobytes())
    return h.hexdigest()


def variable_spec(var: Variable) -> dict:
    """Every declared field of a variable, as plain JSON."""
    out = {"role": var.role, "type": var.type,
           "order": list(var.order) if var.order is not None else None,
           "labels": dict(var.labels) if var.labels is not None else None,
           "hierarchy": var.hierarchy, "missing": list(var.missing),
           "level": var.level}
    if var.taxonomy is not None:  # (only then: the fingerprints of other recipes stay)
        out["taxonomy"] = var.taxonomy
    if var.nodes is not None:  # (likewise)
        out["nodes"] = var.nodes
    return out


def constraint_spec(c: Constraint) -> dict:
    """Every field of an edit constraint that decides what it means."""
    return {"id": c.id, "kind": c.kind,
            "expr": c.expr.text if c.expr is not None else None,
            "if": c.condition.text if c.condition is not None else None,
            "then": c.then.text if c.then is not None else None,
            "domain": list(c.domain), "tolerance": c.tolerance, "enforce": c.enforce}


def _library_versions() -> dict:
    out = {}
    for name in _LIBRARIES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


LIBRARIES = _library_versions()


def fingerprint(payload: dict) -> str:
    """The sha256 of a step's dependencies (see the module docstring) given as
    ``payload``; the code versions are added here so no caller can forget them."""
    full = {"sdcflow": __version__, "libraries": LIBRARIES, **payload}
    return hashlib.sha256(canonical_json(full).encode()).hexdigest()
