"""The engine: executes a validated plan and writes what a run produces.

* :mod:`.execution` runs the steps (one generator per step, cached results verified);
* :mod:`.fingerprint` says what a step's result depends on;
* :mod:`.cache` stores and verifies results by fingerprint;
* :mod:`.checks` evaluates the release checks;
* :mod:`.manifest` builds the full and the public manifest;
* :mod:`.outputs` decides what a run may replace and replaces it atomically;
* :mod:`.runner` ties them together in memory, :mod:`.dask` on a Dask cluster;
* :mod:`.dispatch` validates a recipe and runs it on one of the two (:func:`run`).
"""

from .canonical import canonical_json
from .checks import evaluate_checks, expression_value
from .dispatch import run
from .execution import execute, step_rng
from .fingerprint import column_hash
from .records import StepRecord
from .runner import CACHE_DIR, PUBLIC, RunResult, default_out_dir, report_html

__all__ = [
    "CACHE_DIR",
    "PUBLIC",
    "RunResult",
    "StepRecord",
    "canonical_json",
    "column_hash",
    "default_out_dir",
    "evaluate_checks",
    "execute",
    "expression_value",
    "report_html",
    "run",
    "step_rng",
]
