"""The one entry point of a run: validate a recipe and run it on the engine it asks for,
in memory (:mod:`sdcflow.engine.runner`) or on a Dask cluster
(:mod:`sdcflow.engine.dask`). Both runners sit below this module, so neither has to know
the other."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from ..errors import SdcflowError
from ..recipe import Recipe, as_recipe
from .blas import one_blas_thread
from .dask import run_dask
from .execution import execution_options
from .partial import Selection
from .progress import RunObserver, as_observer
from .runner import RunResult, run_in_memory


def run(recipe: Recipe | str | Path, out_dir: str | Path | None = None, *, write: bool = True,
        use_cache: bool = True,
        progress: RunObserver | Callable[[str], None] | None = None,
        engine: str | None = None, scheduler: str | None = None,
        workers: int | None = None, allow_paths: Iterable[str | Path] = (),
        selection: Selection | None = None) -> RunResult:
    """Validate and run a recipe; write the outputs (the release when every check passes).

    Raises :class:`RecipeError` (invalid recipe or data, or a check that cannot be
    evaluated), :class:`PluginError` (a step failed), :class:`OutputError` (the output
    directory may not be written; nothing was touched) or :class:`CheckFailed` (a check
    failed: nothing is released; the output directory holds the internal outputs of the
    failed run and no ``public/``, an earlier release there withdrawn, see
    :func:`~sdcflow.engine.runner.not_released`). An error stops the run before its verdict and leaves the
    output directory as it was. ``use_cache=False`` recomputes every step (and refreshes
    the cache). With ``write=False`` nothing is written and the result is only returned.
    ``progress`` hears how the run goes: a :class:`~sdcflow.engine.progress.RunObserver`, or a
    function that gets one line of text per finished step.

    ``engine`` (default: the recipe's ``execution.engine``, else ``"memory"``): ``"dask"``
    runs on a Dask cluster (:mod:`sdcflow.engine.dask`; ``scheduler`` an existing
    cluster's address, else a local cluster of ``workers`` processes); in memory,
    ``workers`` is the number of threads running independent steps.

    The files the recipe names are read from its folder and from the folders (or files)
    of ``allow_paths`` (:mod:`sdcflow.data.recipe_files`); a loaded recipe keeps those it
    was loaded with.

    ``selection`` (``--select``/``--until``, :mod:`sdcflow.engine.partial`) runs part of
    the plan: such a run never releases; it returns (and writes, by default into
    ``output/NAME.partial``) the measures of the steps it ran and the checks it could
    evaluate (:func:`run_partial`)."""
    with one_blas_thread():  # (figures independent of the machine's cores)
        return _run(recipe, out_dir, write=write, use_cache=use_cache, progress=progress,
                    engine=engine, scheduler=scheduler, workers=workers,
                    allow_paths=allow_paths, selection=selection)


def _run(recipe: Recipe | str | Path, out_dir: str | Path | None, *, write: bool,
         use_cache: bool, progress: RunObserver | Callable[[str], None] | None,
         engine: str | None, scheduler: str | None, workers: int | None,
         allow_paths: Iterable[str | Path], selection: Selection | None) -> RunResult:
    observer = as_observer(progress)
    recipe = as_recipe(recipe, allow_paths)
    options = execution_options(recipe, engine=engine, scheduler=scheduler, workers=workers)
    if options.get("engine", "dask" if scheduler else "memory") == "dask":
        if selection:
            raise SdcflowError("a partial run (--select, --until) runs in memory: leave out "
                               "--engine dask and --scheduler")
        return run_dask(recipe, out_dir, write=write, scheduler=scheduler, workers=workers,
                        progress=observer)
    return run_in_memory(recipe, out_dir, write=write, use_cache=use_cache, observer=observer,
                         workers=options.get("workers"), selection=selection)
