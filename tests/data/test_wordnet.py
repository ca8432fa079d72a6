"""WordNet taxonomies (sdcflow.data.taxonomy.wordnet_parents) read from Debian's
wordnet-base or NLTK's corpus. nltk is a test dependency; CI installs wordnet-base. On a
machine without WordNet data the tests check the message that says how to install it."""

import os
import subprocess
import sys

import nltk.corpus
import pytest

from sdcflow.data import taxonomy
from sdcflow.data.taxonomy import WORDNET_DATA_MISSING, wordnet_parents
from sdcflow.kernels.semantic.distances import semantic_distances
from sdcflow.kernels.semantic.taxonomy import TaxonomyError, from_parents


@pytest.fixture(scope="module")
def parents():
    """The tree of dog, cat and sparrow; None where there are no WordNet data, after
    checking that the error says how to install them."""
    try:
        return wordnet_parents(["dog", "cat", "sparrow"])
    except TaxonomyError as exc:
        assert str(exc) == WORDNET_DATA_MISSING
        return None


class _NoCorpus:
    def synsets(self, *args, **kwargs):
        raise LookupError("Resource 'wordnet' not found.")


def test_without_wordnet_data_the_message_says_how_to_install_them(tmp_path, monkeypatch):
    monkeypatch.setattr(taxonomy, "WORDNET_DIR", tmp_path / "no-wordnet")
    monkeypatch.setattr(nltk.corpus, "wordnet", _NoCorpus())
    with pytest.raises(TaxonomyError) as exc:
        wordnet_parents(["dog"])
    assert str(exc.value) == WORDNET_DATA_MISSING


def path(parents, word):
    out = []
    while word is not None:
        out.append(word)
        word = parents[word]
    return out[::-1]


def test_longest_hypernym_paths_of_wordnet_3_0(parents):
    if parents is None:  # (no data here: the fixture checked the message)
        return
    # WordNet 3.0, read off its database: cat.n.01's path runs through feline and
    # carnivore; the value hangs under its synset
    cat = path(parents, "cat")
    assert cat[0] == "entity.n.01" and cat[-3:] == ["feline.n.01", "cat.n.01", "cat"]
    assert "carnivore.n.01" in cat and "mammal.n.01" in cat
    # dog.n.01 has two hypernyms (canine.n.02, domestic_animal.n.01): the longer path,
    # through canine, is kept
    assert path(parents, "dog")[-4:] == ["carnivore.n.01", "canine.n.02", "dog.n.01", "dog"]


def test_wu_palmer_on_the_wordnet_tree(parents):
    if parents is None:  # (no data here: the fixture checked the message)
        return
    # by hand from the paths (root at depth 1): dog and cat have 15 nodes each and meet
    # at carnivore.n.01, the 12th: 1 - 2*12 / (15 + 15) = 0.2; cat and sparrow (13
    # nodes) meet at vertebrate.n.01, the 9th: 1 - 2*9 / (15 + 13) = 5/14
    tax = from_parents(parents)
    i = tax.index()
    d = semantic_distances(tax, [i["dog"], i["cat"], i["sparrow"]], "wu_palmer")
    assert [len(path(parents, w)) for w in ("dog", "cat", "sparrow")] == [15, 15, 13]
    assert d[0, 1] == pytest.approx(0.2) and d[1, 2] == pytest.approx(5 / 14)


def test_the_tree_does_not_depend_on_the_hash_seed(parents):
    if parents is None:  # (no data here: the fixture checked the message)
        return
    # NLTK keeps a synset's hypernyms in a set: their order follows PYTHONHASHSEED
    code = ("from sdcflow.data.taxonomy import wordnet_parents; "
            "print(sorted(wordnet_parents(['dog', 'horse', 'oak']).items(), "
            "key=lambda kv: kv[0]))")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env={**os.environ, "PYTHONHASHSEED": seed}, check=True).stdout
            for seed in ("0", "1", "2", "3")}
    assert len(outs) == 1


def test_a_word_that_is_not_in_wordnet(parents):
    if parents is None:  # (no data here: the fixture checked the message)
        return
    with pytest.raises(TaxonomyError, match="not a noun of WordNet"):
        wordnet_parents(["qwzxv"])
