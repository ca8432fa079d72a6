"""Synthetic data kernels."""
