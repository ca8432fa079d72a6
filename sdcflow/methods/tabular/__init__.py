"""Tabular protection methods."""
