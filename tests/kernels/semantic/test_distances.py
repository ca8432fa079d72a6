"""Semantic distances on a small taxonomy, each value computed by hand from the
published definitions (Rada et al. 1989; Wu & Palmer 1994; Resnik 1995; Lin 1998;
Jiang & Conrath 1997):

    Animal
      Mammal: Dog, Cat
      Bird: Sparrow, Eagle
      Fish
"""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sdcflow.kernels.semantic.distances import (
    information_content,
    lcs_matrix,
    resnik_similarity,
    semantic_distances,
)
from sdcflow.kernels.semantic.taxonomy import from_tree

TAX = from_tree({"Animal": {"Mammal": ["Dog", "Cat"], "Bird": ["Sparrow", "Eagle"],
                            "Fish": []}})
I = TAX.index()
CODES = np.array([I[n] for n in ("Dog", "Cat", "Sparrow", "Fish", "Mammal")])


def test_lcs_matrix():
    lcs = lcs_matrix(TAX, CODES)
    assert TAX.names[lcs[0, 1]] == "Mammal"
    assert TAX.names[lcs[0, 2]] == "Animal"
    assert TAX.names[lcs[0, 4]] == "Mammal"
    assert TAX.names[lcs[3, 3]] == "Fish"


def test_path_distance():
    d = semantic_distances(TAX, CODES, "path")
    # Dog-Cat: Dog-Mammal-Cat, 2 edges; Dog-Sparrow: 4; Dog-Fish: 3; Dog-Mammal: 1
    assert d[0, 1] == 2 and d[0, 2] == 4 and d[0, 3] == 3 and d[0, 4] == 1
    assert np.all(np.diag(d) == 0)


def test_wu_palmer():
    d = semantic_distances(TAX, CODES, "wu_palmer")
    # node depths Animal 1, Mammal 2, Dog 3: 1 - 2*2/(3+3) = 1/3; Dog-Sparrow 1 - 2/6;
    # Dog-Fish 1 - 2/(3+2); Dog-Mammal 1 - 2*2/(3+2)
    assert d[0, 1] == pytest.approx(1 / 3)
    assert d[0, 2] == pytest.approx(2 / 3)
    assert d[0, 3] == pytest.approx(3 / 5)
    assert d[0, 4] == pytest.approx(1 / 5)
    assert np.allclose(np.diag(d), 0)


def _ic():
    counts = np.zeros(len(TAX.names))
    counts[[I["Dog"], I["Cat"], I["Sparrow"], I["Eagle"], I["Fish"]]] = [4, 2, 1, 1, 0]
    return information_content(TAX, counts)


def test_information_content():
    ic = _ic()
    # N = 8: IC(Dog) = -log 4/8, IC(Cat) = -log 2/8, IC(Mammal) = -log 6/8, root 0,
    # Fish occurs nowhere: infinite
    assert ic[I["Dog"]] == pytest.approx(math.log(2))
    assert ic[I["Cat"]] == pytest.approx(math.log(4))
    assert ic[I["Mammal"]] == pytest.approx(math.log(8 / 6))
    assert ic[I["Animal"]] == 0
    assert ic[I["Fish"]] == math.inf


def test_resnik_lin_jiang_conrath():
    ic = _ic()
    codes = np.array([I[n] for n in ("Dog", "Cat", "Sparrow")])
    res = resnik_similarity(TAX, codes, ic)
    assert res[0, 1] == pytest.approx(math.log(8 / 6))  # IC(Mammal)
    assert res[0, 2] == 0  # IC(Animal)
    lin = semantic_distances(TAX, codes, "lin", ic)
    # 1 - 2 IC(Mammal) / (IC(Dog) + IC(Cat)) = 1 - 2 log(4/3) / log 8
    assert lin[0, 1] == pytest.approx(1 - 2 * math.log(4 / 3) / math.log(8))
    assert lin[0, 2] == pytest.approx(1.0)
    jc = semantic_distances(TAX, codes, "jiang_conrath", ic)
    # log 2 + log 4 - 2 log(4/3) = log 4.5; Dog-Sparrow: log 2 + log 8 - 0 = log 16
    assert jc[0, 1] == pytest.approx(math.log(4.5))
    assert jc[0, 2] == pytest.approx(math.log(16))
    assert np.allclose(np.diag(jc), 0) and np.allclose(np.diag(lin), 0)


def test_information_content_needs_finite_values():
    with pytest.raises(ValueError, match="finite information content"):
        semantic_distances(TAX, np.array([I["Fish"], I["Dog"]]), "lin", _ic())


@given(st.lists(st.sampled_from(sorted(I)), min_size=1, max_size=8),
       st.sampled_from(["path", "wu_palmer"]))
def test_distances_are_symmetric_metrics_on_a_tree(names, measure):
    codes = np.array([I[n] for n in names])
    d = semantic_distances(TAX, codes, measure)
    assert np.allclose(d, d.T)
    assert np.all(d >= 0)
    same = codes[:, None] == codes[None, :]
    assert np.all((d == 0) == same)
