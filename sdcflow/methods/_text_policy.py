"""What the text sanitisation method and its audit share: the parameters that say what is
sensitive in a text column and how it is generalised, their checks, and the
:class:`~sdcflow.kernels.semantic.text_sanitisation.Policy` they build."""

from __future__ import annotations

import functools
import importlib.util
import re
from collections.abc import Iterable, Mapping

import numpy as np

from ..data.taxonomy import variable_taxonomy
from ..kernels.semantic.taxonomy import TaxonomyError
from ..kernels.semantic.text_sanitisation import (
    DATE_ORDERS,
    IDENTIFIERS,
    Policy,
    concept_index,
    corpus_ic,
    display,
    fold,
    generalisations,
    intrinsic_ic,
    occurrences,
)

MAX_PATTERN = 500  # characters of a recipe's regular expression
NER_MISSING = ("named-entity recognition needs spaCy (pip install 'sdcflow[ner]') and a spaCy "
               "pipeline package installed in the same environment (e.g. pip install "
               "en_core_web_sm from a wheel the office keeps; sdcflow never downloads one)")

PARAMS: dict = {
    "type": "object",
    "additionalProperties": False,
    "required": ["variable"],
    "properties": {
        "variable": {"type": "string",
                     "description": "The text column: each record a document."},
        "terms": {"type": "array", "uniqueItems": True,
                  "items": {"type": "string", "minLength": 1},
                  "description": "Sensitive concepts of the variable's taxonomy: each, and "
                                 "every concept below it, is replaced where a document "
                                 "names it (whole words, case ignored)."},
        "max_ic": {"type": "number", "minimum": 0,
                   "description": "Also sensitive: every concept of the taxonomy whose "
                                  "information content exceeds this (Sanchez, Batet & "
                                  "Viejo 2013; intrinsic IC lies in [0, 1])."},
        "ic": {"enum": ["intrinsic", "corpus"], "default": "intrinsic",
               "description": "Information content: 'intrinsic' from the taxonomy (Seco, "
                              "Veale & Hayes 2004), 'corpus' -log p from the concepts' "
                              "occurrences in the documents (add-one smoothed)."},
        "t": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 2,
              "description": "A replacement subsumes at least t leaf concepts of the "
                             "taxonomy (t-plausibility, Anandan et al. 2012; 1: the lowest "
                             "concept that is not sensitive)."},
        "dates": {"enum": ["day", "month", "year"], "default": "year",
                  "description": "The precision dates are released at ('day' keeps them)."},
        "date_order": {"enum": list(DATE_ORDERS), "default": "dmy",
                       "description": "How numeric dates such as 03/04/2024 read: day "
                                      "first (dmy) or month first (mdy)."},
        "numbers": {"oneOf": [{"enum": ["magnitude", "keep"]},
                              {"type": "integer", "minimum": 1}],
                    "default": "magnitude",
                    "description": "Numbers become their order of magnitude ('magnitude': "
                                   "[10 to under 100]), an interval of this width, or are "
                                   "kept ('keep')."},
        "patterns": {"type": "array", "uniqueItems": True,
                     "items": {"enum": list(IDENTIFIERS)}, "default": list(IDENTIFIERS),
                     "description": "Built-in identifiers replaced by the name of their "
                                    "kind (default: all)."},
        "identifiers": {
            "type": "array",
            "description": "The recipe's own identifiers: a regular expression (Python "
                           "syntax) each, replaced by '[name]' or by its replacement.",
            "items": {
                "type": "object", "additionalProperties": False,
                "required": ["name", "pattern"],
                "properties": {
                    "name": {"type": "string", "minLength": 1, "maxLength": 60,
                             "description": "What the identifier is (e.g. patient number)."},
                    "pattern": {"type": "string", "minLength": 1, "maxLength": MAX_PATTERN,
                                "description": "A regular expression matching it."},
                    "replacement": {"type": "string", "minLength": 1, "maxLength": 60,
                                    "pattern": "^[^\\[\\]]+$",
                                    "description": "What it is released as, in square "
                                                   "brackets (default: its name)."},
                },
            },
        },
        "entities": {
            "type": "object", "additionalProperties": False,
            "required": ["model", "labels"],
            "description": "Named-entity recognition (optional: spaCy and a pipeline "
                           "package installed by the office): entities of these labels "
                           "replaced by '[replacement]'.",
            "properties": {
                "model": {"type": "string", "minLength": 1,
                          "description": "The installed spaCy pipeline package."},
                "labels": {"type": "object", "minProperties": 1,
                           "additionalProperties": {"type": "string", "minLength": 1},
                           "description": "Entity label -> replacement (e.g. PERSON: "
                                          "person)."},
            },
        },
    },
}

# Published: what an analyst needs to read the documents (precisions, t, the IC
# threshold). Internal: the sensitive terms and the recipe's identifier patterns, which may
# name what they hide (persons' names, one file's case numbers), and the NER model.
PUBLIC = ("variable", "max_ic", "ic", "t", "dates", "date_order", "numbers", "patterns")


def kept_words(result: Mapping) -> str | None:
    """"62%" of a result's information_kept, for the report's sentences (None without)."""
    kept = result.get("information_kept")
    return f"{kept:.0%}" if isinstance(kept, float) else None


def kinds(params: Mapping) -> list[str]:
    """The kinds of finding the policy of ``params`` can report."""
    out = ["date", *params.get("patterns", IDENTIFIERS)]
    out += [i["name"] for i in params.get("identifiers", [])]
    out += [f"entity {label}" for label in params.get("entities", {}).get("labels", {})]
    out.append("term")
    if params.get("numbers", "magnitude") != "keep":
        out.append("number")
    return list(dict.fromkeys(out))


def check(params: Mapping, meta) -> Iterable[tuple[tuple, str]]:
    """Findings on the declarations: the variable's type and taxonomy, terms outside it,
    recipe patterns that do not compile, named-entity recognition unavailable."""
    name = params["variable"]
    var = meta.variables.get(name)
    if var is not None and var.type != "categorical":
        yield ("variable",), f"'{name}' is {var.type}: documents are a categorical (text) column"
    needs_tax = bool(params.get("terms")) or "max_ic" in params
    if (var is not None and var.taxonomy is not None and "wordnet" in var.taxonomy
            and not params.get("terms")):
        yield ("variable",), (f"the WordNet taxonomy of '{name}' is built on the terms: list "
                              "them (terms)")
    if var is not None and needs_tax and var.taxonomy is None and not var.hierarchy:
        yield ("variable",), (f"'{name}' has no taxonomy to generalise terms in: declare one "
                              f"(variables.{name}.taxonomy)")
    elif var is not None and var.taxonomy is not None and "parents" in var.taxonomy:
        known = {fold(display(c)) for c in var.taxonomy["parents"]}
        for i, term in enumerate(params.get("terms", [])):
            if fold(term) not in known:
                yield ("terms", i), f"'{term}' is not a concept of the taxonomy of '{name}'"
    seen: set[str] = set()
    for i, ident in enumerate(params.get("identifiers", [])):
        if ident["name"] in seen or ident["name"] in IDENTIFIERS:
            yield ("identifiers", i, "name"), (f"the identifier name '{ident['name']}' is "
                                               "used twice (or by a built-in pattern)")
        seen.add(ident["name"])
        try:
            re.compile(ident["pattern"])
        except re.error as exc:
            yield ("identifiers", i, "pattern"), f"not a regular expression: {exc}"
    if "entities" in params:
        problem = entity_problem(params["entities"]["model"])
        if problem:
            yield ("entities", "model"), problem


def entity_problem(model: str) -> str | None:
    """Why named-entity recognition with ``model`` cannot run here (None: it can)."""
    if importlib.util.find_spec("spacy") is None:
        return NER_MISSING
    if not re.fullmatch(r"[A-Za-z_][\w.]*", model) or importlib.util.find_spec(model) is None:
        return (f"the spaCy pipeline '{model}' is not installed as a package in this "
                f"environment; {NER_MISSING}")
    return None


def environment(params: Mapping) -> dict:
    """The versions of spaCy and of the pipeline package a step with named-entity
    recognition loads (part of its cache fingerprint); empty without."""
    if "entities" not in params:
        return {}
    from importlib import metadata

    out = {}
    for name in ("spacy", params["entities"]["model"]):
        try:
            out[name] = metadata.version(name)
        except (metadata.PackageNotFoundError, ValueError):
            out[name] = None
    return out


@functools.lru_cache(maxsize=4)
def _pipeline(model: str):
    import spacy

    return spacy.load(model)


def entity_finder(model: str):
    """A function giving ``(start, end, label)`` of the named entities of a text."""
    problem = entity_problem(model)
    if problem:
        raise ValueError(problem)
    nlp = _pipeline(model)
    return lambda text: [(e.start_char, e.end_char, e.label_) for e in nlp(text).ents]


def build(params: Mapping, var, documents: Iterable[str] = ()) -> tuple[Policy, np.ndarray | None]:
    """The policy of ``params`` on a variable (its taxonomy: WordNet's built on the
    terms), and the information content of each concept (None without a taxonomy).
    ``documents`` give the occurrences for corpus IC. Raises TaxonomyError for a term
    the taxonomy lacks."""
    terms = params.get("terms", [])
    tax = None
    if var.taxonomy is not None or var.hierarchy:
        tax = variable_taxonomy(var, terms)
    ids = {n: IDENTIFIERS[n] for n in params.get("patterns", IDENTIFIERS)}
    for ident in params.get("identifiers", []):
        ids[ident["name"]] = (ident["pattern"], f"[{ident.get('replacement', ident['name'])}]")
    numbers = params.get("numbers", "magnitude")
    common = {"dates": params.get("dates", "year"),
              "date_order": params.get("date_order", "dmy"),
              "numbers": None if numbers == "keep" else numbers, "identifiers": ids}
    if "entities" in params:
        common.update(entities=entity_finder(params["entities"]["model"]),
                      entity_labels=dict(params["entities"]["labels"]))
    if tax is None:
        return Policy(**common), None
    index = concept_index(tax)
    missing = [t for t in terms if fold(t) not in index]
    if missing:
        raise TaxonomyError(f"not concepts of the taxonomy of '{var.name}': "
                            + ", ".join(f"'{t}'" for t in missing[:5]))
    listed = [index[fold(t)] for t in terms]
    ic = intrinsic_ic(tax)
    if params.get("ic", "intrinsic") == "corpus":
        probe = Policy(tax=tax, sensitive=np.zeros(len(tax.names), bool),
                       replace=np.arange(len(tax.names)), dates=None, numbers=None)
        ic = corpus_ic(tax, occurrences(documents, probe))
    sensitive, replace = generalisations(tax, listed, ic, params.get("max_ic"),
                                         params.get("t", 2))
    return Policy(tax=tax, sensitive=sensitive, replace=replace, **common), ic
