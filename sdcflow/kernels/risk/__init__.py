"""Disclosure risk kernels."""
