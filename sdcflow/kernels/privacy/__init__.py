"""Kernels of privacy models and of the search for the least-loss generalisation."""
