"""The synthetic search log generator (sdcflow.data.search_log) and the shipped file made
by it."""

import json

import pandas as pd
import pytest
from helpers import ROOT

from sdcflow.data.search_log import search_log
from sdcflow.kernels.semantic.query_logs import classify_queries
from sdcflow.kernels.semantic.taxonomy import from_tree


def test_deterministic_for_a_seed_and_topical():
    a, b = search_log(30, 7), search_log(30, 7)
    assert a.equals(b) and not a.equals(search_log(30, 8))
    assert a["user"].nunique() == 30
    sizes = a.groupby("user").size()
    assert sizes.between(4, 20).all()
    # each user's queries keep to a topic: the most frequent topic of a user's queries
    # (those placed below the root) holds 0.8 of them in expectation
    spec = json.loads((ROOT / "sdcflow" / "data" / "taxonomies" / "search_topics.json")
                      .read_text())
    tax = from_tree(spec["tree"])
    topic = tax.ancestor_at(classify_queries(tax, a["query"].tolist()), 1)
    placed = a.assign(topic=topic)[topic != tax.root]
    share = placed.groupby("user")["topic"].agg(lambda t: t.value_counts().iloc[0] / len(t))
    assert share.mean() > 0.7
    # times increase within each user
    assert a.groupby("user")["time"].apply(lambda t: t.is_monotonic_increasing).all()


def test_refuses_no_users():
    with pytest.raises(ValueError, match="at least one user"):
        search_log(0)


def test_shipped_file_is_the_generator_with_seed_2024():
    # sdcflow/data/datasets/ORIGIN.md: python -m sdcflow.data.search_log search_log.csv
    # --users 60 --seed 2024
    shipped = pd.read_csv(ROOT / "sdcflow" / "data" / "datasets" / "search_log.csv", dtype=str)
    assert shipped.equals(search_log(60, 2024).astype(str))
    assert len(shipped) == 596
