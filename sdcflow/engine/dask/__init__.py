"""The Dask engine: a recipe run on partitioned data by a Dask cluster (see
:mod:`sdcflow.engine.dask.runner` and :mod:`sdcflow.plugins.distribution`)."""

from .runner import run_dask

__all__ = ["run_dask"]
