"""Measures of disclosure risk and information loss: one module per measure."""
