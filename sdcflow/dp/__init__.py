"""Differential privacy in sdcflow: the recipe's privacy budget (:mod:`.budget`) and the
OpenDP measurements of the DP steps (:mod:`.accounting`). The noise is drawn by
:mod:`sdcflow.kernels.privacy.dp_noise`."""
