"""Microaggregation kernels."""
