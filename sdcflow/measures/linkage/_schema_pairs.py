"""The values of the pairs of variables ``schema_linkage`` links: a release's and an
intruder's values as text, codes and numbers, declared code maps and taxonomy levels
applied, and the pairs proposed from the value distributions
(:mod:`sdcflow.kernels.linkage.schema_matching`)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ...data.dataset import Dataset
from ...data.taxonomy import variable_taxonomy
from ...kernels.linkage.schema_matching import (
    FORBIDDEN,
    assign,
    codes_by_pairs,
    codes_by_rank,
    common_depth,
    frequency_profile,
    ks_distance,
    profile_distance,
    standardised,
)
from ...kernels.semantic.taxonomy import TaxonomyError

MAX_CODES_SHOWN = 50  # a proposed code map longer than this is not listed in the result


def as_text(value) -> str:
    """A code as text: 6 and 6.0 are '6' (YAML may write a code as a number)."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def as_texts(column) -> np.ndarray:
    """Values as text (object array), missing as None."""
    out = np.empty(len(column), dtype=object)
    for i, v in enumerate(column):
        out[i] = None if v is None or (isinstance(v, float) and np.isnan(v)) \
            or v is pd.NA else as_text(v)
    return out


def parsed_numbers(texts: np.ndarray) -> tuple[np.ndarray, int]:
    """Text values as numbers (NaN for missing and for text), and the position of the
    first value that is text (-1: none)."""
    present = np.array([t is not None for t in texts], dtype=bool)
    numbers = pd.to_numeric(pd.Series(texts, dtype=object), errors="coerce").to_numpy(float)
    bad = np.flatnonzero(present & np.isnan(numbers))
    return numbers, int(bad[0]) if len(bad) else -1


def as_numbers(texts: np.ndarray) -> np.ndarray | None:
    """Text values as numbers (NaN for missing), or None when one is not a number."""
    numbers, bad = parsed_numbers(texts)
    return None if bad >= 0 else numbers


def truth_positions(release_ids: pd.Series, intruder_ids: np.ndarray) -> np.ndarray:
    """For each released record, the position of its individual's record in the
    intruder's file (-1: absent); identifiers compared as text."""
    index = pd.Index(intruder_ids)
    return np.asarray(index.get_indexer(as_texts(release_ids.to_numpy(dtype=object))),
                      dtype=np.int64)


def translate_codes(values: np.ndarray, codes: Mapping | None) -> np.ndarray:
    """The intruder's codes in the release's (``codes``: intruder code -> release code)."""
    if not codes:
        return values
    table = {as_text(k): as_text(v) for k, v in codes.items()}
    return np.array([None if v is None else table.get(v) for v in values], dtype=object)


def taxonomy_pair(data: Dataset, entry: Mapping, columns: Mapping
                   ) -> tuple[np.ndarray, np.ndarray, int]:
    """Both files' values of a categorical pair taken to their common level of the
    release variable's taxonomy (``level``, else the deepest level every value of both
    files reaches), and that level. TaxonomyError names the values outside it."""
    name = entry["variable"]
    a = as_texts(data.frame[name].to_numpy(dtype=object))
    b = translate_codes(np.asarray(columns[entry["intruder"]], dtype=object), entry.get("codes"))
    words = sorted({v for v in np.concatenate([a, b]) if v is not None})
    tax = variable_taxonomy(data.variables[name], words)
    if tax is None:
        raise TaxonomyError(f"'{name}' has no taxonomy")
    index = tax.index()
    for label, values in (("release", a), ("intruder's file", b)):
        unknown = sorted({v for v in values if v is not None and v not in index})
        if unknown:
            shown = ", ".join(f"'{w}'" for w in unknown[:5])
            more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
            raise TaxonomyError(f"the {label} has values of '{name}' outside its taxonomy "
                                f"({len(unknown)}): {shown}{more}")

    def codes(values):
        return np.array([index[v] if v is not None else -1 for v in values], dtype=np.int64)

    ca, cb = codes(a), codes(b)
    level = entry.get("level")
    if level is None:
        level = common_depth([tax.depth[ca[ca >= 0]], tax.depth[cb[cb >= 0]]])
    names = np.asarray(tax.names, dtype=object)

    def lift(c):
        out = np.full(len(c), None, dtype=object)
        ok = c >= 0
        out[ok] = names[tax.ancestor_at(c[ok], int(level))]
        return out

    return lift(ca), lift(cb), int(level)


def shared_codes(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes of two text columns over their common vocabulary (-1: missing)."""
    both = pd.Series(np.concatenate([a, b]), dtype=object)
    codes, _ = pd.factorize(both, sort=True)
    codes = np.asarray(codes, dtype=np.int64)
    return codes[:len(a)], codes[len(a):]


def propose(data: Dataset, names: list[str], intruder: dict, candidates: list[str],
             max_distance: float, truth: np.ndarray | None
             ) -> tuple[list[dict], list[dict]]:
    """The pairs proposed from the value distributions (see
    :mod:`sdcflow.kernels.linkage.schema_matching`), and the assigned pairs rejected for a
    distance above ``max_distance``; the codes of a categorical pair by the individuals in
    both files (``truth``) or, without, by frequency rank."""
    rel = []
    for name in names:
        var = data.variables[name]
        if var.is_numeric:
            rel.append(("numeric", pd.to_numeric(data.frame[name], errors="coerce")
                        .to_numpy(float)))
        else:
            rel.append(("categorical", as_texts(data.frame[name].to_numpy(dtype=object))))
    other = [(as_numbers(intruder[c]), intruder[c]) for c in candidates]
    cost = np.full((len(rel), len(other)), FORBIDDEN)
    profiles = {}
    for i, (kind, values) in enumerate(rel):
        for j, (numbers, texts) in enumerate(other):
            if kind == "numeric":
                if numbers is not None:
                    cost[i, j] = ks_distance(values, numbers)
                continue
            if i not in profiles:
                profiles[i] = frequency_profile(pd.factorize(pd.Series(values,
                                                                       dtype=object))[0])
            if ("j", j) not in profiles:
                profiles["j", j] = frequency_profile(pd.factorize(pd.Series(texts,
                                                                            dtype=object))[0])
            cost[i, j] = profile_distance(profiles[i], profiles["j", j])
    kept = assign(cost, max_distance)
    chosen = {(i, j) for i, j, _ in kept}
    rejected = [{"variable": names[i], "intruder": candidates[j], "distance": round(d, 6)}
                for i, j, d in assign(cost, FORBIDDEN - 1e-9) if (i, j) not in chosen]
    pairs = []
    for i, j, d in kept:
        kind, values = rel[i]
        numbers, texts = other[j]
        out = {"variable": names[i], "intruder": candidates[j], "kind": kind,
               "source": "proposed", "distance": round(d, 6), "level": None, "codes": None,
               "code_map": None}
        if kind == "numeric":
            out.update(_a=standardised(values), _b=standardised(numbers))
        else:
            ra, ia = (pd.factorize(pd.Series(x, dtype=object), sort=True) for x in
                      (values, texts))
            rank = codes_by_rank(ra[0], ia[0]) if truth is None else \
                codes_by_pairs(ra[0], ia[0], truth)
            out["code_map"] = "frequency" if truth is None else "matched"
            mapped = np.array([None if c < 0 or rank[c] < 0 else ra[1][rank[c]]
                               for c in ia[0]], dtype=object)
            if len(ia[1]) <= MAX_CODES_SHOWN:
                out["codes"] = [[str(ia[1][k]), str(ra[1][rank[k]]) if rank[k] >= 0 else ""]
                                for k in range(len(ia[1]))]
            out["_a"], out["_b"] = shared_codes(values, mapped)
        pairs.append(out)
    return pairs, rejected
