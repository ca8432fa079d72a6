"""Taxonomy model: building trees from nested mappings, parent maps and levels, and the
errors for what is not a tree."""

import numpy as np
import pytest

from sdcflow.kernels.semantic.taxonomy import (
    ROOT,
    TaxonomyError,
    from_levels,
    from_parents,
    from_tree,
)

ANIMALS = {"Animal": {"Mammal": ["Dog", "Cat"], "Bird": {"Sparrow": None, "Eagle": {}},
                      "Fish": []}}


def test_depths_parents_and_subsumers():
    tax = from_tree(ANIMALS)
    i = tax.index()
    # depth in edges from the root Animal, read off the tree
    assert {n: int(tax.depth[i[n]]) for n in ("Animal", "Mammal", "Dog", "Fish", "Eagle")} == \
        {"Animal": 0, "Mammal": 1, "Dog": 2, "Fish": 1, "Eagle": 2}
    assert tax.root == i["Animal"]
    assert tax.lcs(i["Dog"], i["Cat"]) == i["Mammal"]
    assert tax.lcs(i["Dog"], i["Eagle"]) == i["Animal"]
    assert tax.lcs(i["Dog"], i["Mammal"]) == i["Mammal"]  # a concept subsumes itself
    assert tax.lcs_of([i["Sparrow"], i["Eagle"], i["Sparrow"]]) == i["Bird"]
    assert [tax.names[a] for a in tax.ancestors(i["Cat"])] == ["Cat", "Mammal", "Animal"]
    at1 = tax.ancestor_at(np.array([i["Dog"], i["Fish"], i["Animal"], i["Eagle"]]), 1)
    assert [tax.names[a] for a in at1] == ["Mammal", "Fish", "Animal", "Bird"]


def test_subsumed_counts():
    tax = from_tree(ANIMALS)
    i = tax.index()
    counts = np.zeros(len(tax.names))
    counts[[i["Dog"], i["Cat"], i["Sparrow"]]] = [4, 2, 1]
    freq = tax.subsumed_counts(counts)
    # Mammal = 4 + 2, Bird = 1, Fish = 0, Animal = 7
    assert [freq[i[n]] for n in ("Mammal", "Bird", "Fish", "Animal")] == [6, 1, 0, 7]


def test_several_top_concepts_get_a_root():
    tax = from_parents({"Dog": "Mammal", "Sparrow": "Bird"})
    i = tax.index()
    assert tax.names[tax.root] == ROOT
    assert tax.lcs(i["Dog"], i["Sparrow"]) == i[ROOT]
    assert int(tax.depth[i["Dog"]]) == 2


def test_parents_equal_tree():
    a = from_tree(ANIMALS)
    b = from_parents({"Dog": "Mammal", "Cat": "Mammal", "Mammal": "Animal", "Bird": "Animal",
                      "Sparrow": "Bird", "Eagle": "Bird", "Fish": "Animal"})
    pa = {n: (a.names[p] if p >= 0 else None) for n, p in zip(a.names, a.parent, strict=True)}
    pb = {n: (b.names[p] if p >= 0 else None) for n, p in zip(b.names, b.parent, strict=True)}
    assert pa == pb


def test_levels_make_a_taxonomy():
    # a variable's hierarchy: region -> country -> (several tops: root '*')
    tax = from_levels({"country": {"Lyon": "FR", "Paris": "FR", "Rome": "IT"},
                       "continent": {"FR": "Europe", "IT": "Europe"}})
    i = tax.index()
    assert tax.names[tax.root] == "Europe"
    assert tax.lcs(i["Lyon"], i["Rome"]) == i["Europe"]


def test_cycles_are_reported():
    with pytest.raises(TaxonomyError, match="cycle and no top concept"):
        from_parents({"a": "b", "b": "c", "c": "a"})
    with pytest.raises(TaxonomyError, match=r"cycle: (a -> b -> a|b -> a -> b)"):
        from_parents({"a": "b", "b": "a", "x": None})
    with pytest.raises(TaxonomyError, match="its own parent"):
        from_parents({"a": "a"})


def test_two_parents_are_reported():
    with pytest.raises(TaxonomyError, match="'Cat' appears twice"):
        from_tree({"Mammal": ["Cat"], "Pet": ["Cat"]})
    with pytest.raises(TaxonomyError, match="two parents"):
        from_levels({"l1": {"a": "x"}, "l2": {"a": "y"}})
    with pytest.raises(TaxonomyError, match="mapping or a list"):
        from_tree({"Mammal": "Cat"})
