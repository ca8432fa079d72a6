"""The Dask engine: a recipe run on partitioned data by a Dask cluster (see
:mod:`sdcflow.engine.dask.runner` and :mod:`sdcflow.distribution`)."""

from .runner import distribution_problems, execution_options, run_dask

__all__ = ["distribution_problems", "execution_options", "run_dask"]
