"""Query (search) logs as sdcflow holds them: a dataset whose records are queries, one
declared variable naming each query's user (role ``identifier``: it never reaches a
release) and one holding the query's text, with a taxonomy the queries are classified in
(``variables.NAME.taxonomy``: inline, a file, a shipped one or WordNet). The query-log
method and measures name these two variables in their parameters (``user``, ``query``);
this module declares those parameters and checks, and reads a log into the arrays of
:mod:`sdcflow.kernels.semantic.query_logs`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..kernels.semantic.distances import (
    DISTANCES,
    NEEDS_IC,
    information_content,
    semantic_distances,
)
from ..kernels.semantic.query_logs import TERM, classify_queries, profiles
from ..kernels.semantic.taxonomy import Taxonomy, TaxonomyError
from .dataset import Dataset, Metadata
from .taxonomy import SYNSET_NAME, variable_taxonomy, wordnet_parents

QUERY_LOG_PARAMS = {
    "user": {"type": "string", "minLength": 1,
             "description": "The variable naming each query's user (declare it with role "
                            "identifier: it never reaches the release)."},
    "query": {"type": "string", "minLength": 1,
              "description": "The variable holding each query's text; its taxonomy "
                             "(variables.NAME.taxonomy) classifies the queries."},
    "distance": {"enum": list(DISTANCES), "default": "wu_palmer",
                 "description": "Semantic distance between the queries' concepts: path "
                                "(edges), wu_palmer, lin or jiang_conrath (information "
                                "content counted in the original log); scaled to [0, 1]."},
}


def log_variables(params: Mapping) -> list[tuple[tuple, str]]:
    """The ``(params path, name)`` pairs of the user and query variables."""
    return [((key,), params[key]) for key in ("user", "query")
            if isinstance(params.get(key), str)]


def log_problems(params: Mapping, meta: Metadata, *, alone: bool) -> Iterable[tuple[tuple, str]]:
    """Findings on the declarations: the user variable declared with role identifier,
    the query variable categorical with a taxonomy, two different variables; with
    ``alone`` (the method, which rebuilds the records), no other declared variable."""
    user, query = params.get("user"), params.get("query")
    for key, name in (("user", user), ("query", query)):
        if meta.variables.get(name) is None and name not in meta.broken:
            yield (key,), f"'{name}' is not a declared variable"
    if user == query:
        yield ("query",), f"user and query are both '{user}'"
        return
    uvar, qvar = meta.variables.get(user), meta.variables.get(query)
    if uvar is not None and uvar.role != "identifier":
        yield ("user",), (f"'{user}' has role {uvar.role}: declare the user variable with role "
                          "identifier, so that no release carries it")
    if qvar is not None:
        if qvar.type != "categorical":
            yield ("query",), f"'{query}' is {qvar.type}: queries are text (categorical)"
        elif qvar.taxonomy is None:
            yield ("query",), (f"'{query}' has no taxonomy: declare one "
                               f"(variables.{query}.taxonomy) to classify the queries in")
    if alone:
        others = [n for n in meta.variables if n not in (user, query)]
        if others:
            yield (), ("a query-log method rebuilds the log from the users and their "
                       "queries, so the data may hold only those two variables; declare no "
                       f"others (found {', '.join(others)}; a timestamp or clicked address "
                       "left undeclared is not read, nor released)")


def log_data_problems(params: Mapping, data: Dataset) -> Iterable[tuple[tuple, str]]:
    """Missing users or queries, and queries a WordNet taxonomy cannot build on."""
    for key in ("user", "query"):
        name = params.get(key)
        if name not in data.frame:
            continue
        missing = int(data.frame[name].isna().sum())
        if missing:
            yield (key,), (f"'{name}' is missing in {missing} records: every query needs "
                           "its user and its text")
            return
    try:
        read_log(data, params)
    except TaxonomyError as exc:
        yield ("query",), str(exc)


@dataclass(frozen=True)
class QueryLog:
    """A log read for the kernels: ``users`` the distinct users (sorted), ``user_codes``
    and ``concepts`` the user (position in ``users``) and concept (code in ``taxonomy``)
    of each query."""

    taxonomy: Taxonomy
    users: np.ndarray
    user_codes: np.ndarray
    concepts: np.ndarray


def read_log(data: Dataset, params: Mapping, tax: Taxonomy | None = None) -> QueryLog:
    """The log of ``data``: users coded in sorted order, queries classified in ``tax``,
    by default the query variable's taxonomy (:func:`log_taxonomy`; see
    :func:`~sdcflow.kernels.semantic.query_logs.classify_queries`)."""
    user, query = params["user"], params["query"]
    frame = data.frame
    user_codes, users = pd.factorize(frame[user], sort=True)
    texts = _texts(frame[query])
    if tax is None:
        tax = log_taxonomy(data.variables[query], texts)
    return QueryLog(tax, np.asarray(users), np.asarray(user_codes, dtype=np.int64),
                    classify_queries(tax, texts))


def log_taxonomy(var, texts: Iterable[str]) -> Taxonomy:
    """The taxonomy of the query variable ``var``; WordNet's is built on the words of
    ``texts`` that WordNet knows (and on the synsets a protected log released)."""
    words = sorted({w for t in set(texts) for w in _words(t)})
    if var.taxonomy is not None and "wordnet" in var.taxonomy:
        words = [w for w in words if _in_wordnet(w, var.taxonomy["wordnet"])]
    tax = variable_taxonomy(var, words)
    if tax is None:
        raise TaxonomyError(f"'{var.name}' has no taxonomy")
    return tax


def compare_logs(data: Dataset, reference: Dataset, params: Mapping
                 ) -> tuple[QueryLog, QueryLog, np.ndarray, np.ndarray]:
    """Two logs classified in one taxonomy (the query variable's, as the reference
    declares it): the reference's and ``data``'s logs, the concepts of either (codes),
    and the scaled distances between those concepts (information content counted in
    the reference, and for a concept the reference never has, in ``data``, so that
    every concept's is finite)."""
    query = params["query"]
    texts = [*_texts(reference.frame[query]), *_texts(data.frame[query])]
    tax = log_taxonomy(reference.variables[query], texts)
    ref, log = read_log(reference, params, tax), read_log(data, params, tax)
    candidates = np.union1d(ref.concepts, log.concepts)
    counts = np.bincount(ref.concepts, minlength=len(tax.names))
    counts = np.where(counts > 0, counts, np.bincount(log.concepts, minlength=len(tax.names)))
    D = concept_distances(tax, candidates, params.get("distance", "wu_palmer"), counts)
    return ref, log, candidates, D


def _texts(column: pd.Series) -> list[str]:
    """The queries as Python strings (none is missing: :func:`log_data_problems`)."""
    return [str(v) for v in column.tolist()]


def _words(text: str) -> list[str]:
    """A query's words, and the query itself when it names a WordNet synset (a concept
    a protected log released)."""
    if SYNSET_NAME.fullmatch(text):
        return [text]
    return TERM.findall(text.lower())


def _in_wordnet(word: str, pos: str) -> bool:
    try:
        wordnet_parents([word], pos)
    except TaxonomyError as exc:
        if "is not a" in str(exc):
            return False
        raise
    return True


def concept_distances(tax: Taxonomy, candidates: np.ndarray, distance: str,
                      counts: np.ndarray | None = None) -> np.ndarray:
    """The matrix of ``distance`` between the ``candidates`` (concept codes), scaled to
    [0, 1] by its largest entry; ``counts`` (occurrences of every concept) give the
    information content of ``lin`` and ``jiang_conrath``."""
    ic = information_content(tax, counts) if distance in NEEDS_IC else None
    D = semantic_distances(tax, candidates, distance, ic)
    top = D.max(initial=0.0)
    return D / top if top > 0 else D


def log_profiles(log: QueryLog, candidates: np.ndarray) -> np.ndarray:
    """The users x candidates matrix of query counts of ``log`` (every concept of the
    log among the ``candidates``)."""
    position = np.full(len(log.taxonomy.names), -1, dtype=np.int64)
    position[candidates] = np.arange(len(candidates))
    return profiles(log.user_codes, position[log.concepts], len(log.users), len(candidates))
