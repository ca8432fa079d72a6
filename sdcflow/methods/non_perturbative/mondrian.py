"""``mondrian``: k-anonymity (optionally distinct l-diversity) by Mondrian multidimensional
partitioning (K. LeFevre, D. J. DeWitt, R. Ramakrishnan, "Mondrian multidimensional
k-anonymity", ICDE 2006): the records are cut recursively at medians into groups of at
least k, and every record's key values are replaced by its group's range (or, for numbers,
its mean or median). The partitioning is
:func:`sdcflow.kernels.non_perturbative.mondrian.mondrian`."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd

from ...data.codes import numeric_column
from ...data.text import text_column
from ...kernels.non_perturbative.mondrian import (
    Ordered,
    Tree,
    distinct_codes,
    mondrian,
    ordered_range,
    partition_loss,
    partition_mean,
    partition_median,
    tree,
    tree_ancestor,
)
from ...kernels.semantic.taxonomy import TaxonomyError
from ...plugins.plain_words import figure
from ...plugins.registry import (
    Method,
    MethodResult,
    Output,
    numeric_output,
    register,
    variables_param,
)
from .._semantic import data_taxonomy, hierarchy_taxonomy


@register
class Mondrian(Method):
    name = "mondrian"
    public_params = ("k", "variables", "l", "sensitive", "representation", "strict")
    protects = True
    summary = ("Mondrian multidimensional partitioning: key values generalised to the ranges "
               "of groups of at least k records (optionally l-diverse).")
    # 2: average_class_size is n / groups; the old figure, divided by k, is
    # normalized_average_class_size (LeFevre et al.'s C_AVG)
    version = "2"
    roles = ("key",)
    default_roles = ("key",)
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "k": {"type": "integer", "minimum": 1, "default": 2,
                  "description": "Every group holds at least k records."},
            "variables": variables_param("Key variables partitioned and generalised "
                                         "(default: every variable with role key)."),
            "l": {"type": "integer", "minimum": 1,
                  "description": "Every group holds at least l distinct values of "
                                 "'sensitive' (distinct l-diversity)."},
            "sensitive": {"type": "string",
                          "description": "The sensitive variable of 'l'."},
            "representation": {
                "enum": ["range", "mean", "median"], "default": "range",
                "description": "A number becomes its group's range '[min-max]' (text), mean "
                               "or median; categories always become the group's set "
                               "'{a,b}' or common ancestor in their hierarchy."},
            "strict": {"type": "boolean", "default": True,
                       "description": "Strict partitioning (records of the median value "
                                      "stay together; groups do not overlap); false: "
                                      "relaxed (halves of equal size, ranges may overlap)."},
        },
    }

    def explain(self, params, result):
        text = (f"The records were partitioned (Mondrian, LeFevre et al. 2006) into groups of "
                f"at least {params.get('k')} records")
        if params.get("l"):
            text += (f" with at least {params['l']} distinct values of "
                     f"{params.get('sensitive')}")
        text += ", and each record's key values replaced by its group's."
        if isinstance(result, dict) and "partitions" in result:
            text += (f" {figure(result['partitions'])} groups; normalised certainty penalty "
                     f"{figure(result['ncp'])}.")
        return text

    def reads(self, params, meta):
        return set(self.variables(params, meta)) | ({params["sensitive"]}
                                                     if params.get("sensitive") else set())

    def check(self, params, meta):
        keys = self.variables(params, meta)
        if not keys:
            yield ("variables",), "no key variables: declare variables with role 'key'"
        if ("l" in params) != ("sensitive" in params):
            yield ((("sensitive",) if "l" in params else ("l",)),
                   "l-diversity needs both 'l' and 'sensitive'")
        s = params.get("sensitive")
        if s is not None:
            if s not in meta.variables:
                yield ("sensitive",), f"'{s}' is not a declared variable"
            elif s in keys:
                yield ("sensitive",), f"'{s}' is a key variable; the sensitive one must not be"

    def check_data(self, params, data):
        keys = [v for v in self.variables(params, data.meta) if v in data.frame]
        n = len(data)
        if n == 0:
            yield (), "the data have no records to partition"
            return
        if params["k"] > n:
            yield ("k",), f"k = {params['k']} is larger than the number of records ({n})"
        for name in keys:
            missing = int(data.frame[name].isna().sum())
            if missing:
                yield ("variables",), (f"'{name}' has {missing} missing values: Mondrian "
                                       "partitions complete key values (suppress after it)")
            var = data.variables[name]
            if var.type == "ordinal" and var.order is not None:
                outside = sorted(set(data.frame[name].dropna()) - set(var.order))
                if outside:
                    yield ("variables",), (f"values of '{name}' outside its order: "
                                           f"{outside[:5]}")
            elif not var.is_numeric and (var.taxonomy is not None or var.hierarchy):
                try:
                    data_taxonomy(data, name)
                except TaxonomyError as exc:
                    yield ("variables",), str(exc)
        s = params.get("sensitive")
        if s in data.frame and params.get("l"):
            distinct = data.frame[s].nunique(dropna=True)
            if distinct < params["l"]:
                yield ("l",), (f"'{s}' has {distinct} distinct values: no group can hold "
                               f"l = {params['l']}")

    def outputs(self, params, meta):
        out = {}
        for name in self.variables(params, meta):
            var = meta.variables.get(name)
            if var is None:
                continue
            if var.is_numeric and params["representation"] != "range":
                out[name] = numeric_output(var)
            else:
                out[name] = Output(_generalised(var))
        return out

    def apply(self, data, params, rng):
        keys = self.variables(params, data.meta)
        dims, decode = [], []
        for name in keys:
            dim, names = _dimension(data, name)
            dims.append(dim)
            decode.append(names)
        sens = None
        if params.get("sensitive") and params.get("l"):
            sens = pd.factorize(data.frame[params["sensitive"]], sort=True)[0]
        labels = mondrian(dims, params["k"], sensitive=sens, l=params.get("l", 1),
                          strict=params["strict"])
        columns, new_vars, changed = {}, [], {}
        index = data.frame.index
        for name, dim, names in zip(keys, dims, decode, strict=True):
            var = data.variables[name]
            if var.is_numeric and params["representation"] != "range":
                x = data.frame[name].to_numpy(dtype=float)
                rep = (partition_mean(x, labels) if params["representation"] == "mean"
                       else partition_median(x, labels))
                col, new = numeric_column(rep[labels], index, var)
                changed[name] = int((rep[labels] != x).sum())
            else:
                col = text_column(_labels(dim, names, labels, var)[labels], index=index)
                new = _generalised(var)
                changed[name] = _generalised_records(dim, labels)
            columns[name] = col
            new_vars.append(new)
        loss = partition_loss(dims, labels)
        n, parts = len(labels), loss["partitions"]
        info = {
            "partitions": parts,
            "smallest_partition": loss["smallest"],
            "ncp": round(loss["ncp"], 6),
            "ncp_by_variable": {v: round(x, 6) for v, x in zip(keys, loss["per_dimension"],
                                                                strict=True)},
            "discernibility": loss["discernibility"],
            "average_class_size": round(n / parts, 6) if parts else 0.0,
            "normalized_average_class_size": (round(n / parts / params["k"], 6) if parts
                                              else 0.0),
            "changed": changed,
        }
        return MethodResult(data.with_columns(columns, new_vars), info)


def _dimension(data, name: str):
    """The kernel's dimension for a variable, and the names of its codes."""
    var = data.variables[name]
    col = data.frame[name]
    if var.is_numeric:
        codes, uniques = pd.factorize(col.to_numpy(dtype=float), sort=True)
        return Ordered(codes, np.asarray(uniques, dtype=float)), np.asarray(uniques, float)
    if var.taxonomy is not None or var.hierarchy:
        tax, codes = data_taxonomy(data, name)
        dim, old = tree(tax.parent, codes)
        return dim, np.asarray(tax.names, dtype=object)[old]
    if var.type == "ordinal" and var.order is not None:
        cats = list(var.order)
        codes = pd.Categorical(col, categories=cats).codes.astype(np.int64)
    else:
        codes, cats = pd.factorize(col, sort=True)
    return (Ordered(codes, np.arange(len(cats), dtype=float), numeric=False),
            np.asarray(list(cats), dtype=object))


def _number(x: float, integer: bool) -> str:
    return str(int(x)) if integer else np.format_float_positional(x, trim="-")


def _labels(dim, names, labels, var) -> np.ndarray:
    """The generalised value of each partition, as text."""
    if isinstance(dim, Tree):
        return names[tree_ancestor(dim, labels)]
    if var.is_numeric:
        lo, hi = ordered_range(dim.codes, labels)
        whole = var.type == "integer"
        return np.array([_number(names[a], whole) if a == b else
                         f"[{_number(names[a], whole)}-{_number(names[b], whole)}]"
                         for a, b in zip(lo.tolist(), hi.tolist(), strict=True)], dtype=object)
    part, code = distinct_codes(dim.codes, labels, len(names))
    bounds = np.flatnonzero(np.diff(part)) + 1
    return np.array([str(names[c[0]]) if len(c) == 1 else
                     "{" + ",".join(str(names[x]) for x in c) + "}"
                     for c in np.split(code, bounds)], dtype=object)


def _generalised_records(dim, labels) -> int:
    """Records whose value is replaced by a broader one (a range of several values, a set
    of several categories, an ancestor)."""
    if isinstance(dim, Tree):
        return int((tree_ancestor(dim, labels)[labels] != dim.codes).sum())
    lo, hi = ordered_range(dim.codes, labels)
    return int((lo != hi)[labels].sum())


def _generalised(var):
    """A key variable after partitioning: categorical text; a hierarchy is kept as the
    variable's taxonomy (its values are now concepts of it at any level)."""
    taxonomy = None if var.is_numeric else hierarchy_taxonomy(var)
    return var.evolve(type="categorical", order=None, hierarchy=None, taxonomy=taxonomy)
