"""Kernels of table protection that work on NumPy arrays (perturbation tables and the cell
key method)."""
