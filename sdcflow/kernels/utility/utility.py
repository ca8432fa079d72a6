"""Specific information loss and utility measures: agreement between the k-means partitions
of the original and the protected data (Torra, "Masking methods", 2013, "Specific
Information Loss Measure": Rand, Jaccard, adjusted Rand, Wallace, Mantaras), and the
propensity score utility of Woo, Reiter, Oganian & Karr (2009).

k-means is Lloyd's algorithm with Hamerly's bounds, compiled with numba (a per-record skip
test that NumPy cannot express without gathering the records); the logistic regression is
Newton-Raphson on blocks of rows with NumPy/BLAS.

Each has its module, re-exported here so that ``from sdcflow.kernels.utility.utility
import ...`` keeps working: :mod:`.kmeans`, :mod:`.partition_agreement`,
:mod:`.propensity` and :mod:`.logistic_regression`.
"""

from __future__ import annotations

from .kmeans import SAMPLE, kmeans, kmeans_plus_plus, lloyd
from .logistic_regression import logistic_fit
from .partition_agreement import contingency, partition_agreement
from .propensity import main_effects, product_terms, propensity_utility

__all__ = [
    "SAMPLE",
    "contingency",
    "kmeans",
    "kmeans_plus_plus",
    "lloyd",
    "logistic_fit",
    "main_effects",
    "partition_agreement",
    "product_terms",
    "propensity_utility",
]
