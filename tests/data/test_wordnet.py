"""WordNet taxonomies (sdcflow.data.taxonomy.wordnet_parents) read from Debian's
wordnet-base or NLTK's corpus: run where the optional extra and the data are installed
(CI installs both), skipped elsewhere."""

import os
import subprocess
import sys

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


def test_longest_hypernym_paths_of_wordnet_3_0(parents):
    # WordNet 3.0, read off its database: cat.n.01's path runs through feline and
    # carnivore; the value hangs under its synset
    cat = path(parents, "cat")
    assert cat[0] == "entity.n.01" and cat[-3:] == ["feline.n.01", "cat.n.01", "cat"]
    assert "carnivore.n.01" in cat and "mammal.n.01" in cat
    # dog.n.01 has two hypernyms (canine.n.02, domestic_animal.n.01): the longer path,
    # through canine, is kept
    assert path(parents, "dog")[-4:] == ["carnivore.n.01", "canine.n.02", "dog.n.01", "dog"]


def test_wu_palmer_on_the_wordnet_tree(parents):
    # by hand from the paths (root at depth 1): dog and cat have 15 nodes each and meet
    # at carnivore.n.01, the 12th: 1 - 2*12 / (15 + 15) = 0.2; cat and sparrow (13
    # nodes) meet at vertebrate.n.01, the 9th: 1 - 2*9 / (15 + 13) = 5/14
    tax = from_parents(parents)
    i = tax.index()
    d = semantic_distances(tax, [i["dog"], i["cat"], i["sparrow"]], "wu_palmer")
    assert [len(path(parents, w)) for w in ("dog", "cat", "sparrow")] == [15, 15, 13]
    assert d[0, 1] == pytest.approx(0.2) and d[1, 2] == pytest.approx(5 / 14)


def test_the_tree_does_not_depend_on_the_hash_seed(parents):
    # NLTK keeps a synset's hypernyms in a set: their order follows PYTHONHASHSEED
    code = ("from sdcflow.data.taxonomy import wordnet_parents; "
            "print(sorted(wordnet_parents(['dog', 'horse', 'oak']).items(), "
            "key=lambda kv: kv[0]))")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env={**os.environ, "PYTHONHASHSEED": seed}, check=True).stdout
            for seed in ("0", "1", "2", "3")}
    assert len(outs) == 1


def test_a_word_that_is_not_in_wordnet(parents):
    with pytest.raises(TaxonomyError, match="not a noun of WordNet"):
        wordnet_parents(["qwzxv"])
