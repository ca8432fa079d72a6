"""Information loss for classification (logistic regression trained on the protected
data, tested on the original)."""

import numpy as np
import pytest

from sdcflow.kernels.utility.classification import classification_loss, logistic_classifier


def design(x):
    x = np.asarray(x, dtype=float).reshape(len(x), -1)
    return np.column_stack([np.ones(len(x)), x])


def test_symmetric_example_by_hand():
    # x = 0..5 with classes 0, 0, 1, 0, 1, 1: the map x -> 5 - x swaps the classes, so
    # the maximum-likelihood boundary is x = 2.5: predictions 0, 0, 0, 1, 1, 1, of which
    # 4 of 6 are right (x = 2 and x = 3 are wrong)
    x = design(np.arange(6))
    y = np.array([0, 0, 1, 0, 1, 1])
    assert logistic_classifier(x, y, x, 2).tolist() == [0, 0, 0, 1, 1, 1]
    # trained on the original: 4/6; trained on "protected" labels that flip the
    # relation (1, 1, 0, 1, 0, 0): predictions 1, 1, 1, 0, 0, 0 -> 2/6 right
    result = classification_loss(x, y, x, 1 - y, 2)
    assert result.accuracy_original == 4 / 6
    assert result.accuracy_protected == 2 / 6
    assert result.loss == pytest.approx(1 / 3)


def test_three_classes_one_versus_rest():
    # three separated groups around (0, 0), (6, 0), (0, 6): every record is classified
    # right by one-vs-rest; identical protected data lose nothing
    rng = np.random.default_rng(0)
    centres = np.array([[0, 0], [6, 0], [0, 6]])
    y = np.repeat([0, 1, 2], 20)
    x = design(centres[y] + rng.normal(0, 0.5, (60, 2)))
    result = classification_loss(x, y, x, y, 3)
    assert result.accuracy_original == 1.0 and result.loss == 0.0
    # a protected file without class 2: it is never predicted: 20 of 60 wrong at least
    keep = y != 2
    other = classification_loss(x, y, x[keep], y[keep], 3)
    assert 2 not in other.predicted_protected
    assert other.accuracy_protected <= 40 / 60


def test_single_training_class():
    x = design([0.0, 1.0, 2.0])
    assert logistic_classifier(x, np.array([1, 1, 1]), x, 2).tolist() == [1, 1, 1]
