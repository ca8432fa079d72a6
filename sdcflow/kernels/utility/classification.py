"""Information loss for classification: a classifier is trained on the protected data and
tested on the original, and its accuracy is compared with that of the same classifier
trained on the original (the data-use-specific information loss ``IL_f(X, X') =
divergence(f(X), f(X'))`` with f a classifier: Torra (2017), "Data Privacy: Foundations,
New Developments and the Big Data Challenge", section on information loss for machine
learning; Herranz, Matwin, Nin & Torra (2010), "Classifying data from protected
statistical datasets", Computers & Security 29(8)). The classifier is logistic regression
(one-vs-rest for more than two classes) fitted by Newton-Raphson with step halving (as
:func:`sdcflow.kernels.utility.logistic_regression.logistic_fit`, which returns fitted
probabilities of its own rows only, while a classifier must score other records). NumPy
only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def logistic_classifier(train: np.ndarray, labels: np.ndarray, test: np.ndarray,
                        classes: int) -> np.ndarray:
    """The class predicted for each row of ``test`` by logistic regression fitted to
    ``train`` (design matrices whose first column is the intercept) with ``labels``
    (integers 0..classes-1): with two classes the class of probability above 1/2 (class 0
    on a tie); with more, one model per class against the others and the class of
    largest probability (the lowest on a tie). A class absent from the training data is
    never predicted; a single training class is always predicted."""
    train = np.asarray(train, dtype=float)
    test = np.asarray(test, dtype=float)
    labels = np.asarray(labels, dtype=np.int64)
    present = np.unique(labels)
    if present.size == 0:
        raise ValueError("no training records")
    if present.size == 1:
        return np.full(len(test), present[0], dtype=np.int64)
    if classes == 2:
        return (_probabilities(train, labels == 1, test) > 0.5).astype(np.int64)
    scores = np.full((len(test), classes), -1.0)
    for k in present:
        scores[:, k] = _probabilities(train, labels == k, test)
    return scores.argmax(axis=1)


def _probabilities(train: np.ndarray, ones: np.ndarray, test: np.ndarray,
                   max_iter: int = 100, tol: float = 1e-10) -> np.ndarray:
    """P(T = 1) for the ``test`` rows from the maximum-likelihood logistic regression on
    the ``train`` rows: Newton-Raphson from the intercept-only solution, halving a step
    that does not lower the deviance, until it improves by less than ``tol`` (relative)
    or by no step. A ridge of relative size 1e-10 keeps collinear designs solvable; on
    completely separated data the deviance falls towards 0 and the fit stops below 1e-6,
    where every training probability is within about 1e-6 of its class."""
    t = ones.astype(float)
    share = float(t.mean())
    beta = np.zeros(train.shape[1])
    beta[0] = np.log(share / (1 - share))

    def deviance(b: np.ndarray) -> float:
        eta = train @ b
        return 2.0 * float((np.logaddexp(0.0, eta) - t * eta).sum())

    dev = deviance(beta)
    for _ in range(max_iter):
        eta = train @ beta
        p = np.exp(-np.logaddexp(0.0, -eta))
        grad = train.T @ (t - p)
        hess = (train * (p * (1 - p))[:, None]).T @ train
        hess += np.eye(len(beta)) * 1e-10 * max(float(np.trace(hess)) / len(beta), 1e-300)
        step = np.linalg.lstsq(hess, grad, rcond=None)[0]
        scale, trial_dev = 1.0, np.inf
        while scale >= 1e-8:
            trial = beta + scale * step
            trial_dev = deviance(trial)
            if trial_dev <= dev:
                break
            scale /= 2
        if not trial_dev <= dev:
            break  # no step improves the likelihood: numerically at its maximum
        improvement = dev - trial_dev
        beta, dev = trial, trial_dev
        if dev <= 1e-6 or improvement <= tol * max(dev, 1.0):
            break
    return np.exp(-np.logaddexp(0.0, -(test @ beta)))


@dataclass
class ClassificationLoss:
    """Accuracies on the original data of the classifier trained on the original
    (``accuracy_original``) and on the protected data (``accuracy_protected``), their
    difference ``loss``, and the predictions of both."""

    accuracy_original: float
    accuracy_protected: float
    loss: float
    predicted_original: np.ndarray
    predicted_protected: np.ndarray


def classification_loss(x: np.ndarray, y: np.ndarray, x_protected: np.ndarray,
                        y_protected: np.ndarray, classes: int) -> ClassificationLoss:
    """Train on (``x``, ``y``) and on (``x_protected``, ``y_protected``), test both on
    (``x``, ``y``): ``loss = accuracy_original - accuracy_protected`` (negative when the
    protected data train a better classifier of the original)."""
    y = np.asarray(y, dtype=np.int64)
    own = logistic_classifier(x, y, x, classes)
    other = logistic_classifier(x_protected, y_protected, x, classes)
    a0 = float((own == y).mean()) if len(y) else 0.0
    a1 = float((other == y).mean()) if len(y) else 0.0
    return ClassificationLoss(a0, a1, a0 - a1, own, other)
