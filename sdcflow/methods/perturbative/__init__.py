"""Perturbative methods."""
