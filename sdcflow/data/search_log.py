"""A synthetic search log (no real user, no real query log): users with topical interests
issuing short queries made of the words of the shipped taxonomy ``search_topics``
(Topic > 6 topics > 15 subjects > 50 words), for the query-log methods and their example.

* ``users`` users named ``u01``, ``u02``, ...; each has one topic of interest (uniform
  over the 6 topics) and issues 4 + Poisson(6) queries (at most 20);
* each query is on a subject of the user's topic (uniform among its subjects) with
  probability 0.8, else on any subject (uniform over the 15);
* a query is a word of its subject, with probability 0.3 followed by another word of
  the same subject, with probability 0.4 preceded or followed by a modifier the taxonomy
  does not know ("cheap", "best", "near me", ...); with probability 0.05 it is instead
  a query on no topic ("weather Northby", "bus times Eastham": made-up town names);
* ``time``: the query's time, each user's queries a few minutes to hours apart from a
  start in January 2026 (ISO 8601 text; the example recipe does not declare it, so it is
  neither read nor released).

Everything comes from the seed (NumPy's ``default_rng``): the same arguments give the
same log. Run ``python -m sdcflow.data.search_log OUT.csv --users 60 --seed 2024`` for
the shipped file."""

from __future__ import annotations

import argparse
from datetime import datetime, timedelta

import numpy as np
import pandas as pd

from ..kernels.semantic.taxonomy import from_parents
from .taxonomy import resolve_taxonomy

MODIFIERS = ("cheap", "best", "near me", "how to", "reviews", "2026", "open now", "free")
TOWNS = ("Northby", "Southwick", "Eastham", "Westmere")
NO_TOPIC = ("weather", "bus times", "news", "traffic")
START = datetime(2026, 1, 5, 8, 0, 0)


def _subjects() -> list[tuple[str, list[str]]]:
    """(topic, words) of every subject of the shipped taxonomy, in its order (read as a
    recipe's ``taxonomy: {builtin: search_topics}`` is)."""
    spec, problem = resolve_taxonomy({"builtin": "search_topics"}, None)
    if spec is None:  # pragma: no cover (a shipped file)
        raise ValueError(problem)
    tax = from_parents(spec["parents"])
    names, parent = tax.names, tax.parent.tolist()
    return [(names[parent[s]], [names[w] for w in range(len(names)) if parent[w] == s])
            for s in range(len(names)) if tax.depth[s] == 2]


def search_log(users: int = 60, seed: int = 2024) -> pd.DataFrame:
    """A synthetic search log of ``users`` users (see the module's description): the
    columns ``user``, ``time`` and ``query``, ordered by user then time."""
    if users < 1:
        raise ValueError("a search log needs at least one user")
    rng = np.random.default_rng(seed)
    subjects = _subjects()
    topics = sorted({t for t, _ in subjects}, key=[t for t, _ in subjects].index)
    rows = []
    for u in range(users):
        name = f"u{u + 1:0{max(2, len(str(users)))}d}"
        topic = topics[rng.integers(len(topics))]
        own = [i for i, (t, _) in enumerate(subjects) if t == topic]
        when = START + timedelta(minutes=int(rng.integers(0, 60 * 24 * 20)))
        for _ in range(min(20, 4 + int(rng.poisson(6)))):
            when += timedelta(minutes=int(rng.integers(2, 600)))
            rows.append((name, when.isoformat(), _query(rng, subjects, own)))
    return pd.DataFrame(rows, columns=["user", "time", "query"])


def _query(rng: np.random.Generator, subjects, own: list[int]) -> str:
    if rng.random() < 0.05:
        return f"{NO_TOPIC[rng.integers(len(NO_TOPIC))]} {TOWNS[rng.integers(len(TOWNS))]}"
    s = own[rng.integers(len(own))] if rng.random() < 0.8 else int(rng.integers(len(subjects)))
    words = subjects[s][1]
    picked = rng.permutation(len(words))[:2 if rng.random() < 0.3 else 1]
    parts = [words[i] for i in picked]
    if rng.random() < 0.4:
        modifier = MODIFIERS[rng.integers(len(MODIFIERS))]
        parts = [modifier, *parts] if rng.random() < 0.5 else [*parts, modifier]
    return " ".join(parts)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Write a synthetic search log (CSV).")
    parser.add_argument("out", help="the CSV file to write")
    parser.add_argument("--users", type=int, default=60)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)
    search_log(args.users, args.seed).to_csv(args.out, index=False)


if __name__ == "__main__":  # pragma: no cover
    main()
