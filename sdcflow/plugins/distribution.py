"""How a plugin runs on data split into partitions (the Dask engine, ``--engine dask``).

A plugin declares one of these as its ``distribution`` (or decides per step with
``Plugin.distributes(params, meta)``); a plugin that declares none cannot run on the Dask
engine, and validation says so. The partitioned execution follows the usual pattern of
distributed statistics (as Dask's own collections do): partition-wise work with explicit
reductions, in rounds.

* :class:`Rows` (methods): each record is masked from its own values and parameters
  fitted on the whole data first: ``rounds`` map-reduce rounds of ``partial`` on every
  partition and ``combine`` of the partials (global moments for noise, global category
  frequencies for PRAM, the global table of key combinations for local suppression);
  then ``apply_fitted`` on every partition. A recode with fixed breaks needs no round.
* :class:`Groups` (methods): records act together within groups (strata: the records of
  one stratum are brought together, wherever they are, and the method runs on each
  stratum as on a whole data set; without strata the whole data are one group and are
  collected, which the engine allows only up to its memory limit).
* :class:`MapReduce` (measures): ``partial`` on every partition (with the reference
  data's matching partition) and ``combine``, in ``rounds`` rounds, then ``finish``
  gives the summary (frequencies of key combinations, k-anonymity, individual risk).
* :class:`Whole` (measures and methods): the columns the step reads are collected from
  every partition and the step runs as in memory; allowed up to the engine's memory
  limit (e.g. information loss statistics, distance-based record linkage).

Randomness is keyed by the step and the partition (or the stratum), never by the worker
that happens to run it, so the release is the same bytes for any number of workers.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Distribution:
    """How a step runs on partitioned data (see the module documentation)."""

    def describe(self) -> str:  # pragma: no cover - every kind overrides it
        raise NotImplementedError


@dataclass(frozen=True)
class Rows(Distribution):
    rounds: int = 0

    def describe(self) -> str:
        if not self.rounds:
            return "row-local: each partition on its own"
        return ("row-local with parameters fitted on the whole data first "
                f"({self.rounds} map-reduce round{'s' if self.rounds > 1 else ''})")


@dataclass(frozen=True)
class Groups(Distribution):
    def describe(self) -> str:
        return ("group-local: within each stratum, its records brought together "
                "(without strata the whole data, collected)")


@dataclass(frozen=True)
class MapReduce(Distribution):
    rounds: int = 1

    def describe(self) -> str:
        return f"map-reduce: partials on each partition, combined ({self.rounds} round" \
               f"{'s' if self.rounds > 1 else ''})"


@dataclass(frozen=True)
class Whole(Distribution):
    def describe(self) -> str:
        return "collected: the columns it reads are brought together (memory limit)"


def sum_info(infos: list) -> object:
    """Per-partition ``info`` dicts of a method combined: counts added up, key by key;
    percentages are left out (they do not add up; the counts they come from stay)."""
    first = infos[0]
    if isinstance(first, bool) or not isinstance(first, (dict, int, float)):
        return first if all(i == first for i in infos) else None
    if isinstance(first, dict):
        keys = [k for k in first if all(isinstance(i, dict) and k in i for i in infos)]
        return {k: sum_info([i[k] for i in infos]) for k in keys if "percent" not in k}
    if all(isinstance(i, (int, float)) and not isinstance(i, bool) for i in infos):
        return sum(infos)
    return None


class Distributable:
    """The hooks of a plugin for partitioned data; :class:`sdcflow.plugins.registry.Plugin`
    inherits them. A plugin sets ``distribution`` (or overrides :meth:`distributes`) and
    implements the hooks its kind uses."""

    # by default the columns a step reads are collected (within the engine's limit) and
    # it runs as in memory; None: the plugin cannot run on partitioned data at all
    distribution: Distribution | None = Whole()

    def distributes(self, params: dict, meta) -> Distribution | str:
        """How the step runs on partitioned data, or a sentence saying why it cannot."""
        if self.distribution is None:
            return "it has no partitioned implementation (run it with the in-memory engine)"
        return self.distribution

    def partial(self, rnd: int, data, params: dict, state, *, original=None):
        """Round ``rnd`` of a fit (Rows) or of a measure (MapReduce) on one partition
        (``original``: the reference data's matching partition, for measures); returns a
        small picklable partial result."""
        raise NotImplementedError(f"{type(self).__name__}.partial")

    def combine(self, rnd: int, partials: list, params: dict, state):
        """The partials of round ``rnd`` (in partition order) combined into the state
        the next round, ``apply_fitted`` or ``finish`` gets."""
        raise NotImplementedError(f"{type(self).__name__}.combine")

    def apply_fitted(self, data, params: dict, rng, state):
        """Rows: mask one partition with the fitted ``state`` (default: ``apply``, for
        methods with nothing to fit)."""
        return self.apply(data, params, rng)

    def combine_info(self, infos: list, params: dict) -> dict:
        """The ``info`` of a method run partition by partition (default: :func:`sum_info`)."""
        return sum_info(infos) or {}

    def finish(self, state, params: dict):
        """MapReduce: the measure's result from the last combined state."""
        raise NotImplementedError(f"{type(self).__name__}.finish")
