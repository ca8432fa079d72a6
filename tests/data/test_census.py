"""The synthetic census generator (sdcflow.data.census) and the shipped file made by it."""

import pandas as pd
import pytest
from helpers import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.data.census import census

HOUSEHOLD = ["nuts2", "county", "municipality", "hsize", "htype", "tenure", "hincome"]


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 3000), st.integers(0, 2**32 - 1))
def test_whole_households_nested_geography_exact_size(persons, seed):
    frame = census(persons, seed)
    assert len(frame) == persons
    # households numbered 1..H in order, each with hsize members and one value of every
    # household-level variable
    sizes = frame.groupby("hid").size()
    assert sizes.index.tolist() == list(range(1, len(sizes) + 1))
    assert (frame.groupby("hid")[HOUSEHOLD].nunique() == 1).all().all()
    assert sizes.equals(frame.groupby("hid")["hsize"].first().rename(None))
    assert frame["hsize"].between(1, 6).all()
    # codes nested: county = nuts2 + 2 digits, municipality = county + 3 digits
    assert (frame["county"].str[:1] == frame["nuts2"]).all()
    assert (frame["municipality"].str[:3] == frame["county"]).all()
    assert frame["municipality"].str.len().eq(6).all()
    # the first member is an adult; age groups follow the ages
    first = frame.drop_duplicates("hid")
    assert (first["age"] >= 18).all()
    bins = pd.cut(frame["age"], [-1, 14, 24, 34, 49, 64, 79, 200], labels=list("1234567"))
    assert (bins.astype(str) == frame["age_group"]).all()
    # one-person households are of type 1 (and only they)
    assert ((frame["hsize"] == 1) == (frame["htype"] == "1")).all()


def test_deterministic_for_a_seed():
    assert census(5000, 3).equals(census(5000, 3))
    assert not census(5000, 3).equals(census(5000, 4))


def test_refuses_no_persons():
    with pytest.raises(ValueError, match="at least one person"):
        census(0)


def test_shipped_file_is_the_generator_with_seed_2021():
    # sdcflow/data/datasets/ORIGIN.md: make_census.py 20000 synthetic_census.csv --seed 2021
    shipped = pd.read_csv(ROOT / "sdcflow" / "data" / "datasets" / "synthetic_census.csv",
                          dtype=str)
    made = census(20000, 2021).astype(str)
    assert shipped.equals(made)
    assert made["hid"].nunique() == 8324
