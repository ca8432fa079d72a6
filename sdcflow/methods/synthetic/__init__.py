"""Synthetic data methods."""
