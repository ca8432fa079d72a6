"""Disclosure risk measures."""
