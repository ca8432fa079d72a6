"""Differentially private statistics of the microdata that an office can publish
(histograms, means), spending the recipe's privacy budget (:mod:`sdcflow.dp`)."""
