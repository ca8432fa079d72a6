"""Perturbative kernels."""
