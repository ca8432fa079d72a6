"""classification_loss measure."""

import numpy as np
import pytest
from helpers import small_dataset

from sdcflow.data import Metadata, Variable
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("classification_loss")


def evaluate(data, original, **params):
    params = registry.with_defaults(PLUGIN.params, params)
    return PLUGIN.evaluate(data, params, np.random.default_rng(0), original=original)


def dataset(x, y):
    return small_dataset(x=("numeric", "continuous", x), y=("sensitive", "categorical", y))


def test_symmetric_example_by_hand():
    # as tests/kernels/utility/test_classification.py: x = 0..5, classes a a b a b b:
    # boundary 2.5, accuracy 4/6 on the original. The protected x reversed (5..0) with the
    # same classes: trained there the boundary is 2.5 the other way round: predictions
    # b b b a a a on the original, 2 of 6 right
    original = dataset([0.0, 1, 2, 3, 4, 5], ["a", "a", "b", "a", "b", "b"])
    protected = dataset([5.0, 4, 3, 2, 1, 0], ["a", "a", "b", "a", "b", "b"])
    result = evaluate(protected, original, target="y")
    s = result.summary
    assert s["variables"] == ["x"] and s["classes"] == 2
    assert (s["accuracy_original"], s["accuracy_protected"]) == (4 / 6, 2 / 6)
    assert s["loss"] == pytest.approx(1 / 3) and s["loss_percent"] == pytest.approx(50.0)
    assert s["agreement"] == 0.0
    assert result.per_record["predicted_original"].tolist() == ["a", "a", "a", "b", "b", "b"]
    assert result.per_record["predicted_protected"].tolist() == ["b", "b", "b", "a", "a", "a"]
    same = evaluate(original, original, target="y").summary
    assert (same["loss"], same["agreement"]) == (0.0, 1.0)


def test_missing_values_are_left_out():
    original = dataset([0.0, 1, 2, 3, 4, None], ["a", "a", "b", "a", "b", "b"])
    protected = dataset([0.0, 1, 2, 3, 4, 5], ["a", None, "b", "a", "b", "b"])
    s = evaluate(protected, original, target="y").summary
    assert (s["test_records"], s["training_records"]) == (5, 5)


def test_checks():
    meta = Metadata({"x": Variable("x", "numeric", "continuous"),
                     "y": Variable("y", "key", "categorical"),
                     "z": Variable("z", "numeric", "continuous")})
    assert list(PLUGIN.check({"target": "yy"}, meta)) == [
        (("target",), "'yy' is not a declared variable (did you mean 'y'?)")]
    assert list(PLUGIN.check({"target": "z", "variables": ["x"]}, meta)) == [
        (("target",), ("'z' is continuous: the target of a classifier must hold classes "
                       "(categorical, ordinal or integer)"))]
    assert list(PLUGIN.check({"target": "y", "variables": ["x", "y"]}, meta)) == [
        (("variables",), "the target 'y' cannot also be a predictor")]
    assert PLUGIN.variables({"target": "y"}, meta) == ["x", "z"]
    alone = Metadata({"y": Variable("y", "key", "categorical")})
    assert list(PLUGIN.check({"target": "y"}, alone)) == [
        (("variables",), "no predictors: name them or declare key or numeric variables")]


def test_no_usable_record_is_reported():
    data = dataset([None, None], ["a", "b"])
    params = registry.with_defaults(PLUGIN.params, {"target": "y"})
    assert list(PLUGIN.check_data(params, data)) == [
        (("target",), ("no record has the target and every numeric predictor: nothing to "
                       "train or test the classifier on"))]


def test_conformance(testdata):
    check_method(PLUGIN, testdata, {"target": "sex", "variables": ["urbrur", "income"]})


def test_asymmetric_divergence_of_a_positive_class_by_hand():
    # the symmetric example above: predictions on the original a a a b b b (trained on the
    # original) and b b b a a a (trained on the protected data). For the positive class
    # 'b': records 1-3 are false positives (b only from the protected data), 4-6 false
    # negatives; with costs 1 and 4: (3 + 4 * 3) / 6 = 2.5
    original = dataset([0.0, 1, 2, 3, 4, 5], ["a", "a", "b", "a", "b", "b"])
    protected = dataset([5.0, 4, 3, 2, 1, 0], ["a", "a", "b", "a", "b", "b"])
    s = evaluate(protected, original, target="y", positive="b", false_negative=4).summary
    a = s["asymmetric"]
    assert (a["false_positives"], a["false_negatives"], a["true_positives"]) == (3, 3, 0)
    assert a["loss"] == 2.5 and a["symmetric_loss"] == 1.0
    assert (a["false_positive_cost"], a["false_negative_cost"]) == (1.0, 4.0)
    assert "asymmetric" not in evaluate(protected, original, target="y").summary
    # a class the data never hold: no decision is positive, no loss
    assert evaluate(protected, original, target="y", positive="z").summary[
        "asymmetric"]["loss"] == 0.0


def test_costs_need_a_positive_class():
    meta = Metadata({"x": Variable("x", "numeric", "continuous"),
                     "y": Variable("y", "key", "categorical")})
    assert list(PLUGIN.check({"target": "y", "false_negative": 3}, meta)) == [
        (("positive",), ("costs of false positives and negatives need the positive class "
                         "they are counted for: name it with 'positive'"))]
