"""Numerical kernels: functions of NumPy arrays (and a Generator where random), free of
pandas, YAML and recipes, shared by the plugins in :mod:`sdcflow.methods` and
:mod:`sdcflow.measures`."""
