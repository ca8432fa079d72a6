"""Generic information loss measures (V. Torra, "Masking methods", lecture notes, 2013,
section 4 "Information loss measures"): for continuous data the divergences
between the original values X and the protected X', their covariance matrices V and V',
correlation matrices R and R', variable-component correlations RF, communalities C and
component score coefficients F (each as mean square error, mean absolute error and mean
variation), the probabilistic information loss PIL (Mateo-Sanz, Domingo-Ferrer & Sebe
2005), the IL1s of Yancey, Winkler & Creecy (2002) and sdcMicro's ``dUtility`` figures
under their sdcMicro names; for categorical data
the direct distance, the contingency-table based CTBIL, the entropy-based EBIL and the
per-record PRIL.

Each has its module, re-exported here so that ``from
sdcflow.kernels.utility.information_loss import ...`` keeps working:
:mod:`.continuous_information_loss` (with the conventions fixed where Torra (2013) is silent:
mean variation and zeros, PCA, covariances), :mod:`.probabilistic_information_loss` and
:mod:`.categorical_information_loss`. sdcMicro's figures are in :mod:`.sdcmicro_utility`.
"""

from __future__ import annotations

from .categorical_information_loss import (
    contingency_difference,
    ctbil,
    direct_distance,
    entropy_losses,
    posterior_from_data,
    posterior_from_matrix,
)
from .continuous_information_loss import (
    continuous_information_loss,
    divergence,
    il1s,
    pca,
    pca_divergences,
    value_divergence,
)
from .probabilistic_information_loss import (
    PIL_QUANTILES,
    moments,
    pil_probabilities,
    probabilistic_information_loss,
    quantile_variance,
)

__all__ = [
    "PIL_QUANTILES",
    "contingency_difference",
    "continuous_information_loss",
    "ctbil",
    "direct_distance",
    "divergence",
    "entropy_losses",
    "il1s",
    "moments",
    "pca",
    "pca_divergences",
    "pil_probabilities",
    "posterior_from_data",
    "posterior_from_matrix",
    "probabilistic_information_loss",
    "quantile_variance",
    "value_divergence",
]
