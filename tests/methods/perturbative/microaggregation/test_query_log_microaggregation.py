"""query_log_microaggregation and the query-log measures (query_log_linkage,
query_log_utility): the plugin conformance checks, the six-user toy log worked by hand
(see tests/kernels/semantic/test_query_logs.py for the distances), recipe errors, and
the release through `sdcflow run`."""

import numpy as np
import pandas as pd
import pytest
from helpers import validate_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow import run
from sdcflow.data.dataset import Dataset, Variable
from sdcflow.data.text import TEXT
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

TREE = {"Topic": {"Sport": ["football", "tennis"], "Food": ["pasta", "soup"]}}
PARENTS = {"Topic": None, "Sport": "Topic", "Food": "Topic", "football": "Sport",
           "tennis": "Sport", "pasta": "Food", "soup": "Food"}
# the six users of the kernel tests, with words the taxonomy does not know around the
# concepts ("cheap", "near me"), and one user ("u3") typing their own name
LOG = [("u1", "football results"), ("u1", "football"), ("u1", "tennis near me"),
       ("u2", "cheap football"), ("u2", "tennis"),
       ("u3", "tennis club Jane Roe"),
       ("u4", "pasta"), ("u4", "soup"),
       ("u5", "pasta recipe"),
       ("u6", "soup"), ("u6", "soup"), ("u6", "football")]
PARAMS = {"user": "user", "query": "query", "k": 3, "distance": "path"}


def toy(rows=LOG) -> Dataset:
    frame = pd.DataFrame({"user": pd.Series([u for u, _ in rows], dtype=TEXT),
                          "query": pd.Series([q for _, q in rows], dtype=TEXT)})
    return Dataset(frame, {"user": Variable("user", "identifier", "categorical"),
                           "query": Variable("query", "key", "categorical",
                                             taxonomy={"parents": PARENTS})})


@pytest.mark.parametrize("name,params", [
    ("query_log_microaggregation", PARAMS),
    ("query_log_microaggregation", {"user": "user", "query": "query"}),
    ("query_log_linkage", {"user": "user", "query": "query"}),
    ("query_log_utility", {"user": "user", "query": "query", "distance": "lin"}),
])
def test_conformance(name, params):
    check_method(registry.get(name), toy(), params)


def test_six_users_by_hand():
    out = registry.get("query_log_microaggregation").apply(
        toy(), {**PARAMS, "group": "group"}, np.random.default_rng(1))
    frame = out.data.frame
    # groups (hand-worked in the kernel tests): G1 = u4, u5, u6 with (pasta, soup); G2 =
    # u1, u2, u3 with (football, tennis); one copy of the group's profile per user,
    # the queries released as concepts, never as typed ("Jane Roe" is gone)
    assert list(zip(frame["user"], frame["group"], frame["query"])) == [
        ("u4", "G1", "pasta"), ("u4", "G1", "soup"), ("u5", "G1", "pasta"),
        ("u5", "G1", "soup"), ("u6", "G1", "pasta"), ("u6", "G1", "soup"),
        ("u1", "G2", "football"), ("u1", "G2", "tennis"), ("u2", "G2", "football"),
        ("u2", "G2", "tennis"), ("u3", "G2", "football"), ("u3", "G2", "tennis")]
    assert out.info == {"k": 3, "distance": "path", "users": 6, "groups_formed": 2,
                        "smallest_group": 3, "queries_before": 12, "queries_after": 12,
                        "concepts_before": 4, "concepts_after": 4}
    params = {"user": "user", "query": "query", "distance": "path", "reference": "original"}
    risk = registry.get("query_log_linkage").evaluate(
        out.data, params, np.random.default_rng(1), original=toy()).summary
    # every user's nearest released profiles are their group's three: 1/3 each
    assert risk == {"reference": "original", "users": 6, "re_identified": 0,
                    "expected": pytest.approx(2.0), "share": pytest.approx(1 / 3),
                    "max_probability": pytest.approx(1 / 3)}
    loss = registry.get("query_log_utility").evaluate(
        out.data, params, np.random.default_rng(1), original=toy()).summary
    # profile distances 0, 0, .25, 0, .25, 1/3 (mean 5/36); concept frequencies
    # (4, 3, 2, 3) / 12 before, (3, 3, 3, 3) / 12 after: total variation 1/12; queries
    # kept 2 + 2 + 1 + 2 + 1 + 1 of 12
    assert loss == {"reference": "original", "users": 6,
                    "mean_profile_distance": pytest.approx(5 / 36),
                    "max_profile_distance": pytest.approx(1 / 3),
                    "frequency_distance": pytest.approx(1 / 12),
                    "queries_kept": pytest.approx(0.75)}


def test_the_unprotected_log_links_every_distinct_profile():
    params = {"user": "user", "query": "query", "distance": "path", "reference": "original"}
    risk = registry.get("query_log_linkage").evaluate(
        toy(), params, np.random.default_rng(1), original=toy()).summary
    # u1 and u2 share their concepts (football, tennis: distance 0): 1/2 each; the others
    # are linked to themselves alone
    assert risk["re_identified"] == 4 and risk["expected"] == pytest.approx(5.0)


RECIPE = """
sdcflow: 1
name: toy-log
seed: 1
data: {{path: log.csv}}
variables:
  user: {{role: {role}}}
  query: {{role: key, taxonomy: {{tree: {{Topic: {{Sport: [football, tennis], Food: [pasta, soup]}}}}}}}}
{extra}steps:
  - {{id: kanon, method: query_log_microaggregation, params: {{user: user, query: query, k: {k}, distance: path}}}}
  - {{id: risk, measure: query_log_linkage, params: {{user: user, query: query, distance: path}}}}
checks:
  - "risk.max_probability <= 0.34"
release: {{path: out.csv, measures: [risk]}}
"""


def _write(tmp_path, role="identifier", k=3, extra=""):
    pd.DataFrame(LOG, columns=["user", "query"]).assign(time="2026-01-01").to_csv(
        tmp_path / "log.csv", index=False)
    path = tmp_path / "r.yaml"
    path.write_text(RECIPE.format(role=role, k=k, extra=extra))
    return path


def test_release_through_run(tmp_path):
    path = _write(tmp_path)
    result = run(path, tmp_path / "o")
    assert result.measures["risk"]["max_probability"] == pytest.approx(1 / 3)
    released = pd.read_csv(tmp_path / "o" / "public" / "out.csv")
    # no user id, no typed text, no time: the group pseudonyms and concepts alone
    assert sorted(released.columns) == ["group", "query"]
    assert set(released["query"]) == {"football", "tennis", "pasta", "soup"}
    # the same bytes on a second run (cached)
    first = (tmp_path / "o" / "public" / "out.csv").read_bytes()
    run(path, tmp_path / "o")
    assert (tmp_path / "o" / "public" / "out.csv").read_bytes() == first


@pytest.mark.parametrize("role,k,extra,message", [
    ("key", 3, "", "declare the user variable with role identifier"),
    ("identifier", 7, "", "k = 7 is larger than the number of users (6)"),
    ("identifier", 3, "  time: {role: key}\n",
     "the data may hold only those two variables"),
])
def test_recipe_errors(tmp_path, capsys, role, k, extra, message):
    code, lines = validate_cli(_write(tmp_path, role, k, extra), capsys)
    assert code == 1 and any(message in line for line in lines), lines


WORDS = ["football", "tennis", "pasta", "soup", "cheap", "Jane Roe", "football tennis"]


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 4), st.lists(st.tuples(st.integers(1, 12), st.sampled_from(WORDS)),
                                   min_size=1, max_size=40))
def test_every_released_profile_is_that_of_k_users(k, rows):
    data = toy([(f"u{u:02d}", q) for u, q in rows])
    users = data.frame["user"].nunique()
    out = registry.get("query_log_microaggregation").apply(
        data, {**PARAMS, "k": k, "group": "group"}, np.random.default_rng(0)).data.frame
    assert set(out["user"]) <= set(data.frame["user"])
    # each user's released queries are their group's, and a group holds k .. 2k-1 users
    # (all of them when fewer than k)
    released = out.groupby("user")["query"].agg(lambda q: tuple(sorted(q)))
    groups = out.groupby("user")["group"].first()
    for _, members in groups.groupby(groups):
        assert released[members.index].nunique() == 1
        assert min(k, users) <= len(members) <= max(2 * k - 1, users if users < k else 0)
    params = {"user": "user", "query": "query", "distance": "path", "reference": "original"}
    risk = registry.get("query_log_linkage").evaluate(
        Dataset(out[["user", "query"]], data.variables), params, np.random.default_rng(0),
        original=data).summary
    assert risk["max_probability"] <= 1 / min(k, users) + 1e-12
