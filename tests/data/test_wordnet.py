"""WordNet taxonomies (sdcflow.data.taxonomy.wordnet_parents) read from Debian's
wordnet-base or NLTK's corpus: run where the optional extra and the data are installed
(CI installs both), skipped elsewhere."""

import pytest

from sdcflow.data.taxonomy import wordnet_parents
from sdcflow.kernels.semantic.distances import semantic_distances
from sdcflow.kernels.semantic.taxonomy import TaxonomyError, from_parents

pytest.importorskip("nltk")


@pytest.fixture(scope="module")
def parents():
    try:
        return wordnet_parents(["dog", "cat", "sparrow"])
    except TaxonomyError as exc:  # (no WordNet data on this machine)
        pytest.skip(str(exc))


def path(parents, word):
    out = []
    while word is not None:
        out.append(word)
        word = parents[word]
    return out[::-1]


def test_first_hypernym_paths_of_wordnet_3_0(parents):
    # WordNet 3.0, read off its database: cat.n.01's first hypernym path runs through
    # feline and carnivore; the value hangs under its synset
    cat = path(parents, "cat")
    assert cat[0] == "entity.n.01" and cat[-3:] == ["feline.n.01", "cat.n.01", "cat"]
    assert "carnivore.n.01" in cat and "mammal.n.01" in cat
    # dog.n.01 has two hypernyms; the first path goes through domestic_animal.n.01
    assert path(parents, "dog")[-3:] == ["domestic_animal.n.01", "dog.n.01", "dog"]


def test_wu_palmer_on_the_wordnet_tree(parents):
    # by hand from the paths (root at depth 1): cat has 15 nodes, sparrow 13, their
    # subsumer vertebrate.n.01 is the 9th: 1 - 2*9 / (15 + 13) = 5/14
    tax = from_parents(parents)
    i = tax.index()
    d = semantic_distances(tax, [i["cat"], i["sparrow"]], "wu_palmer")
    assert len(path(parents, "cat")) == 15 and len(path(parents, "sparrow")) == 13
    assert d[0, 1] == pytest.approx(5 / 14)


def test_a_word_that_is_not_in_wordnet(parents):
    with pytest.raises(TaxonomyError, match="not a noun of WordNet"):
        wordnet_parents(["qwzxv"])
