"""Semantic MDAV and group representatives (least common subsumer, centroid)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcflow.kernels.semantic.distances import semantic_distances
from sdcflow.kernels.semantic.microaggregation import group_representatives, semantic_mdav
from sdcflow.kernels.semantic.taxonomy import from_tree

TAX = from_tree({"Animal": {"Mammal": ["Dog", "Cat"], "Bird": ["Sparrow", "Eagle"],
                            "Fish": []}})
I = TAX.index()
ALL = np.arange(len(TAX.names))


def _inputs(names, measure="path"):
    codes = np.array([I[n] for n in names])
    return codes, [codes], [semantic_distances(TAX, ALL, measure)]


def test_mammals_and_birds_are_grouped_apart():
    # Hand-run of MDAV with path distances, k = 3: the centroid of all six is Animal
    # (sum of distances 12, tied with Mammal and Bird, which come later), every record
    # is 2 edges from it, so r is the first Dog; its 2 nearest are the other Dog and Cat;
    # the three birds remain and form the second group.
    names = ["Dog", "Sparrow", "Dog", "Eagle", "Cat", "Sparrow"]
    codes, x, D = _inputs(names)
    labels = semantic_mdav(x, D, 3)
    assert list(labels) == [0, 1, 0, 1, 0, 1]
    lcs = group_representatives(TAX, codes, labels, "lcs")
    assert [TAX.names[c] for c in lcs] == ["Mammal", "Bird"] * 3
    # centroid among {Mammal, Dog, Cat}: sums of path distances to Dog, Dog, Cat are
    # 3, 2, 4 -> Dog; among {Bird, Sparrow, Eagle} to Sparrow, Eagle, Sparrow: 3, 2, 4
    cen = group_representatives(TAX, codes, labels, "centroid", D[0], ALL)
    assert [TAX.names[c] for c in cen] == ["Dog", "Sparrow"] * 3


def test_centroid_prefers_the_more_general_concept_on_a_tie():
    # {Dog, Cat}: Mammal 1 + 1, Dog 0 + 2, Cat 2 + 0: all 2 -> Mammal (most general)
    codes, _, D = _inputs(["Dog", "Cat"])
    cen = group_representatives(TAX, codes, np.zeros(2, dtype=np.int64), "centroid", D[0], ALL)
    assert [TAX.names[c] for c in cen] == ["Mammal", "Mammal"]


def test_two_variables_sum_their_distances():
    # path distances scaled by their maximum 4: within records 0-2 and within 3-5 the
    # records differ by at most Dog-Cat (2/4) in the first variable; between them by
    # Fish-Eagle (3/4) at least in the second, so the groups are 0-2 and 3-5, though the
    # first variable alone would group the Dogs (0, 2, 4) together
    first = np.array([I[n] for n in ["Dog", "Cat", "Dog", "Cat", "Dog", "Cat"]])
    second = np.array([I[n] for n in ["Fish", "Fish", "Fish", "Eagle", "Eagle", "Eagle"]])
    D = semantic_distances(TAX, ALL, "path")
    D = D / D.max()
    labels = semantic_mdav([first, second], [D, D], 3)
    assert len(set(labels[:3])) == 1 and len(set(labels[3:])) == 1
    assert labels[0] != labels[3]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["Dog", "Cat", "Sparrow", "Eagle", "Fish", "Mammal"]),
                min_size=1, max_size=40),
       st.integers(1, 5), st.sampled_from(["path", "wu_palmer"]),
       st.sampled_from(["lcs", "centroid"]))
def test_groups_of_k_to_2k_minus_1_each_value_subsumed(names, k, measure, how):
    codes, x, D = _inputs(names, measure)
    labels = semantic_mdav(x, D, k)
    sizes = np.bincount(labels)
    assert labels.min() == 0 and np.all(sizes > 0)
    if len(names) >= k:
        assert sizes.min() >= k and sizes.max() <= max(2 * k - 1, k)
    out = group_representatives(TAX, codes, labels, how, D[0], ALL)
    for g in range(len(sizes)):
        members = labels == g
        assert len(set(out[members])) == 1  # one value per group: k-anonymous
        rep = int(out[members][0])
        top = TAX.lcs_of(codes[members])
        if how == "lcs":
            assert rep == top
            assert all(rep in TAX.ancestors(int(c)) for c in codes[members])
        else:  # between the values and their subsumer (Martinez et al.'s minimal subtree)
            assert top in TAX.ancestors(rep)
            assert any(rep in TAX.ancestors(int(c)) for c in codes[members])
