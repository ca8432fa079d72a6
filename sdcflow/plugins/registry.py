"""The plugin registry: built-in methods and measures, and third-party plugins.

Built-ins register themselves with the :func:`register` class decorator when their module
is imported; every module of :mod:`sdcflow.methods` and :mod:`sdcflow.measures` is
imported on first use, so a new built-in is one new module and nothing else.
Third-party packages expose plugin classes through the entry-point group
``sdcflow.methods`` (see docs/plugins.md, "Writing a plugin").
"""

from __future__ import annotations

import importlib
import pkgutil
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, ClassVar

import jsonschema

from ._plugin_results import (  # noqa: F401 (re-exported: plugins import them from here)
    DataOrder,
    MeasureResult,
    MethodResult,
    Output,
    numeric_output,
    unchanged,
)
from .distribution import Distributable, MapReduce, Rows

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from ..data.dataset import Dataset, Metadata
    from .results import Shape

ENTRY_POINT_GROUP = "sdcflow.methods"
ROLES = ("identifier", "key", "numeric", "sensitive", "weight", "household", "strata", "pram")
TYPES = ("categorical", "ordinal", "integer", "continuous")

# A finding of a plugin's semantic check: (path inside ``params``, message).
Finding = tuple[tuple, str]


def variables_param(description: str, *, unique: bool = True) -> dict:
    """The JSON Schema of a plugin's ``variables`` parameter: a non-empty list of names
    (``unique``: each at most once); ``description`` says what the step does with them
    and its default."""
    schema: dict = {"type": "array", "minItems": 1, "items": {"type": "string"}}
    if unique:
        schema["uniqueItems"] = True
    return {**schema, "description": description}


def strata_param(purpose: str) -> dict:
    """The JSON Schema of a stratified plugin's ``strata`` parameter; ``purpose`` says
    what the step does within each stratum (a sentence without its full stop)."""
    return {"type": "array", "items": {"type": "string"},
            "description": f"{purpose} (default: the variables with role strata)."}


class Plugin(Distributable, ABC):
    """Base class of every method and measure.

    Subclasses declare, once, as class attributes: ``name``, ``summary`` (one line),
    ``version`` (bump when results change: it is part of the cache fingerprint),
    ``params`` (a JSON Schema for the step's ``params`` object, with ``default``s),
    and the ``roles``/``types`` of the variables they accept (``None``: any).
    """

    name: ClassVar[str] = ""
    kind: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    version: ClassVar[str] = "1"
    params: ClassVar[dict] = {"type": "object", "additionalProperties": False, "properties": {}}
    # entries of the result that say how a solver worked (cuts, rounds, iterations), not
    # what the step did: the report's step figures leave them out (the appendix and the
    # manifest keep them)
    solver_keys: ClassVar[tuple[str, ...]] = ()
    roles: ClassVar[tuple[str, ...] | None] = None
    types: ClassVar[tuple[str, ...] | None] = None
    on_table: ClassVar[bool] = False  # works on a table (step with `table:`), not on records
    # The parameters that may be published (public/manifest.json, the external report,
    # the recipe's public form): publication is opt-in, so a plugin that declares nothing
    # publishes none. A plugin lists the parameters an analyst needs to use the release
    # (a noise variance, a PRAM matrix, k) and leaves out those that would help an
    # intruder more (the exact sensitivity rules of a table, a swap rate, the column of
    # secret record keys), data (a population's counts) and every key of randomness.
    public_params: ClassVar[tuple[str, ...]] = ()
    # A method that makes values missing on purpose (local suppression, values outside a
    # recode's breaks); for any other method a value turned missing is an error of the
    # run (see sdcflow.engine.execution).
    makes_missing: ClassVar[bool] = False
    # How a method treats household-level variables (level: household):
    # "per_household": the engine runs it on one record per household and copies the
    # result to every member (sdcMicro's selectHouseholdData / mergeHouseholdData);
    # "spread": the method handles them itself, acting on records and spreading to the
    # whole household what it does to one member (local suppression);
    # "own": the method handles households itself (sampling draws whole households).
    households: ClassVar[str] = "per_household"

    def named_variables(self, params: Mapping) -> list[tuple[tuple, str]]:
        """The variables named in ``params`` as ``(params path, name)`` pairs.

        By default the parameters ``variable`` (a name) and ``variables`` (a list)."""
        out: list[tuple[tuple, str]] = []
        if isinstance(params.get("variable"), str):
            out.append((("variable",), params["variable"]))
        if isinstance(params.get("variables"), list):
            out.extend(
                (("variables", i), v) for i, v in enumerate(params["variables"]) if isinstance(v, str)
            )
        return out

    # variables acted on when the step names none: those with these roles (and numeric)
    default_roles: ClassVar[tuple[str, ...]] = ()
    default_numeric: ClassVar[bool] = False

    def variables(self, params: Mapping, meta: Metadata) -> list[str]:
        """The variables the step acts on: those named in ``params``, else every declared
        variable with one of ``default_roles``."""
        named = [name for _, name in self.named_variables(params)]
        if named or not self.default_roles:
            return named
        return meta.names(*self.default_roles, numeric=self.default_numeric)

    # a plugin that works within strata declares ``stratified`` and a ``strata``
    # parameter (:func:`strata_param`); ``strata_conflict``, a message with ``{name}``,
    # forbids the step's own variables among the strata
    stratified: ClassVar[bool] = False
    strata_conflict: ClassVar[str | None] = None

    def strata(self, params: Mapping, meta: Metadata) -> list[str]:
        """The variables whose combinations define the strata the step works within: the
        ``strata`` parameter, else every variable with role strata (none for a plugin
        that is not ``stratified``)."""
        if not self.stratified:
            return []
        if "strata" in params:
            return list(params["strata"])
        return meta.names("strata")

    def check_strata(self, params: Mapping, meta: Metadata) -> Iterable[Finding]:
        """The findings on the ``strata`` parameter: a variable that is not declared, or
        (with ``strata_conflict``) one of the step's own variables."""
        own = set(self.variables(params, meta)) if self.strata_conflict else set()
        for i, name in enumerate(params.get("strata", [])):
            if name not in meta.variables:
                yield ("strata", i), f"'{name}' is not a declared variable"
            elif name in own:
                yield ("strata", i), self.strata_conflict.format(name=name)

    def reads(self, params: Mapping, meta: Metadata) -> set[str] | None:
        """Columns whose values the step uses (they define its data dependencies);
        ``None`` means every column."""
        return set(self.variables(params, meta)) | set(self.strata(params, meta))

    def writes(self, params: Mapping, meta: Metadata) -> set[str] | None:
        """Columns the step changes; ``None`` means it changes the records themselves."""
        return set()

    def removes(self, params: Mapping, meta: Metadata) -> set[str]:
        """Columns the step drops from the data (they reach no later step, nor the release)."""
        return set()

    def check(self, params: Mapping, meta: Metadata) -> Iterable[Finding]:
        """Semantic checks that need the declarations (variables, constraints), not data."""
        return ()

    def warnings(self, params: Mapping, meta: Metadata) -> Iterable[Finding]:
        """Like :meth:`check`, findings that do not stop the recipe (shown as warnings)."""
        return ()

    def check_data(self, params: Mapping, data: Dataset) -> Iterable[Finding]:
        """Semantic checks that need the data (e.g. ``k`` larger than the records)."""
        return ()

    def environment(self, params: Mapping) -> dict:
        """Versions of what the step uses beyond sdcflow and its numerical libraries (a
        language model it loads), name -> version: part of the step's cache fingerprint,
        so that a result is not reused after they change. None by default."""
        return {}

    def internal_files(self, params: Mapping) -> dict[str, str]:
        """Files the step asks to be written into the run's internal output (never into
        ``public/``), name -> text: e.g. the ptable a cell key step used
        (``write_ptable``). They must follow from ``params`` alone, so that a run gives
        the same bytes cached or not. None by default."""
        return {}

    def public(self, params: Mapping) -> dict:
        """The part of a step's ``params`` that may be published: those named in
        ``public_params``. A plugin whose public parameters nest others (a step inside a
        step, a file name inside a target) overrides this to publish only their public
        part."""
        return {k: v for k, v in params.items() if k in self.public_params}

    def explain(self, params: Mapping, result: Mapping | None) -> str:
        """What the step did, in plain words for the report, from its parameters and its
        result (a method's info, a measure's summary; ``None`` in the external report,
        where a method's result is not published). By default the plugin's one-line
        ``summary``; plugins say more, e.g. "Records at risk were found: 115 records
        violate 5-anonymity". In the external report ``params`` holds only the public
        parameters (:meth:`public`): say nothing of the others there."""
        return self.summary


class Method(Plugin):
    """A masking method: returns a protected copy of the dataset."""

    kind = "method"

    # Whether the method protects: it changes the records or table cells it writes so
    # that they disclose less (recoding, suppression, perturbation, swapping, synthesis,
    # sampling, ...). A release needs a protection step acting on it, or a passing check
    # on a risk measure of it (recipe guide, "Release policy"). Dropping variables or replacing
    # labels (remove_variables, relabel_nodes) is not protection. A plugin that does not
    # say is taken not to protect: a recipe does not become safe by an unknown method.
    protects: ClassVar[bool] = False
    # The method only replaces identifying labels by arbitrary ones (relabel_nodes): what
    # a risk measure finds before it holds after it, so a risk check measured before it
    # can vouch for what it leaves.
    keeps_risk: ClassVar[bool] = False
    # The method moves values between records (swapping, shuffling, rank swapping): each
    # variable keeps its distribution, so the report draws original against released
    # values instead of two identical histograms.
    permutes: ClassVar[bool] = False
    # The report draws the distribution of the values the method writes (False: they are
    # documents, each its own category, which bars of records per value cannot show).
    draws_values: ClassVar[bool] = True

    def writes(self, params, meta):
        return set(self.variables(params, meta))

    def outputs(self, params: Mapping, meta: Metadata) -> dict[str, Output] | None:
        """The metadata of every variable the step writes, as the step leaves it (see
        :class:`Output`; with ``writes() is None``, of every variable). ``None``: not
        declared; validation then assumes the variables keep their metadata."""
        return None

    def changes_records(self, params: Mapping, meta: Metadata) -> bool:
        """Whether the step changes the records themselves (which and how many), so that
        they can no longer be paired by position with those of earlier data."""
        return self.writes(params, meta) is None

    @abstractmethod
    def apply(self, data: Dataset, params: dict, rng: np.random.Generator) -> MethodResult:
        """Return the protected dataset; use only ``rng`` for randomness."""


class Measure(Plugin):
    """A measure of risk or utility: returns a :class:`MeasureResult`.

    ``original`` is the dataset as loaded, for measures that compare with it."""

    kind = "measure"

    # compares record i of its data with record i of its reference (``reference``
    # parameter, default the original data): both must hold the same records
    pairs_records: ClassVar[bool] = False
    # A risk measure: its result says how much the records it reads disclose (k-anonymity,
    # individual risk, record linkage, ...). A passing check on it, measuring the
    # released records, states that they are safe as they are: a release no protection
    # step acts on is written only then (recipe guide, "Release policy").
    risk_measure: ClassVar[bool] = False
    # Its result is computed from the frequencies of the combinations of its variables'
    # values (a tabulation of the records by them: k-anonymity's violations are the
    # records in combinations of fewer than k), so published beside a protected table of
    # those variables it gives sums of the table's original cells.
    counts_combinations: ClassVar[bool] = False

    def result_shape(self, params: Mapping, meta: Metadata) -> Shape | None:
        """The shape of the summary (:mod:`sdcflow.plugins.results`) for these resolved
        ``params`` and the variables as the step sees them; ``None``: not declared, and
        checks on the result are then not validated before the run."""
        return None

    def expressions(self, params: Mapping) -> dict[str, str]:
        """Parameters that are expressions over the results of other measure steps (the
        language of checks), by parameter name; each must give a number. Validation
        checks them against those steps' declared results."""
        return {}

    def results_from(self, params: Mapping) -> list[str]:
        """Ids of measure steps whose results this measure combines (e.g. a score); they
        are passed to :meth:`evaluate` as ``results={step id: summary}``."""
        return []

    @abstractmethod
    def evaluate(
        self, data: Dataset, params: dict, rng: np.random.Generator, *, original: Dataset
    ) -> MeasureResult:
        """Return the measure's summary (and per-record values if any)."""

    def reference_reads(self, params: Mapping) -> set[str]:
        """Columns the measure reads from its reference data only, beyond those it reads
        from the data it measures (:meth:`reads`): e.g. the exact values of variables an
        earlier step replaced (``camouflage_widths``). Default: none."""
        return set()

    def public_summary(self, summary: dict, params: Mapping) -> dict:
        """The part of ``summary`` that may be published when the recipe marks the
        measure publishable (``release.measures``): by default all of it but the entries
        that repeat a parameter that is not public (a summary often echoes its
        parameters). A measure whose summary can hold original values (cells, records,
        frequencies of single records), or a figure computed from an internal parameter,
        returns only what may be published."""
        internal = set(self.params.get("properties", {})) - set(self.public_params)
        return {k: v for k, v in summary.items() if k not in internal}


class TableMethod(Method):
    """A method on a table (a step with ``table:``): ``apply`` gets and returns the table
    (:class:`sdcflow.tabular.Table`) in ``MethodResult.data``."""

    on_table = True
    # The protected value of a cell depends only on the cell's records and the step's
    # parameters (the cell key method: its noise comes from the records' keys), so a cell
    # published in several tables protected one by one by such steps, with the same
    # parameters, is the same in each: they need not be protected as linked tables.
    consistent_across_tables: ClassVar[bool] = False

    def variables(self, params, meta):
        return []

    def check_cells(self, params: Mapping, cells: int) -> Iterable[Finding]:
        """Semantic checks that need the size of the table (``cells``, as built from the
        data as loaded), e.g. the work of an optimal search."""
        return ()

    def outputs(self, params, meta):
        return {}  # the microdata are left as they are


class TableMeasure(Measure):
    """A measure on a table: ``evaluate`` gets the table as ``data``."""

    on_table = True

    def variables(self, params, meta):
        return []


class RegistryError(Exception):
    pass


_plugins: dict[str, Plugin] = {}
_load_problems: list[str] = []
_loaded = False
_BUILTIN_PACKAGES = ("sdcflow.methods", "sdcflow.measures")


def register(cls: type[Plugin]) -> type[Plugin]:
    """Class decorator: register a plugin class under its ``name``."""
    add(cls())
    return cls


def add(plugin: Plugin) -> None:
    """Register a plugin instance, after checking its declaration."""
    for problem in declaration_problems(plugin):
        raise RegistryError(f"plugin {type(plugin).__name__}: {problem}")
    if plugin.name in _plugins and type(_plugins[plugin.name]) is not type(plugin):
        raise RegistryError(f"plugin name '{plugin.name}' is registered twice")
    _plugins[plugin.name] = plugin


def declaration_problems(plugin: Plugin) -> list[str]:
    """What is wrong with a plugin's declared attributes (empty when it is well formed)."""
    out = []
    if not plugin.name or not isinstance(plugin.name, str):
        out.append("has no name")
    if plugin.kind not in ("method", "measure"):
        out.append(f"kind must be 'method' or 'measure', not {plugin.kind!r}")
    if not plugin.summary or "\n" in plugin.summary:
        out.append("needs a one-line summary")
    try:
        jsonschema.Draft202012Validator.check_schema(plugin.params)
    except jsonschema.SchemaError as exc:
        out.append(f"invalid params schema: {exc.message}")
    if plugin.params.get("type") != "object":
        out.append("params schema must describe an object")
    for attr, allowed in (("roles", ROLES), ("types", TYPES)):
        declared = getattr(plugin, attr)
        if declared is not None and not set(declared) <= set(allowed):
            out.append(f"unknown {attr}: {sorted(set(declared) - set(allowed))}")
    out += _public_params_problems(plugin)
    out += [f"declares {plugin.distribution.describe()} but does not implement {hook}"
            for hook in _distribution_hooks(plugin.distribution)
            if getattr(type(plugin), hook) is getattr(Distributable, hook)]
    return out


def _public_params_problems(plugin: Plugin) -> list[str]:
    """What is wrong with ``public_params``: not a list of names (``None`` no longer
    means "all": publication is opt-in), or a name that is not a parameter (a stale name
    would publish a parameter added later under it)."""
    declared = plugin.public_params
    if not isinstance(declared, (tuple, list)) or not all(isinstance(n, str)
                                                          for n in declared):
        return [("public_params must list the names of the parameters that may be published "
                 f"(a tuple of names; () publishes none), not {declared!r}")]
    unknown = sorted(set(declared) - set(plugin.params.get("properties", {})))
    return [f"public_params names {unknown}, which are not parameters"] if unknown else []


def _distribution_hooks(how) -> tuple[str, ...]:
    """The Distributable methods a plugin declaring ``how`` must implement: the fit of
    Rows with rounds (partial, combine), a MapReduce measure's rounds and result."""
    if isinstance(how, MapReduce):
        return ("partial", "combine", "finish")
    if isinstance(how, Rows) and how.rounds:
        return ("partial", "combine")
    return ()


def _ensure_loaded() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for package_name in _BUILTIN_PACKAGES:
        package = importlib.import_module(package_name)
        # plugins live in family packages (methods/perturbative/noise.py, ...)
        found = pkgutil.walk_packages(package.__path__, prefix=f"{package_name}.")
        for info in sorted(found, key=lambda m: m.name):
            if not info.ispkg and not info.name.rsplit(".", 1)[-1].startswith("_"):
                importlib.import_module(info.name)
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        try:
            obj = ep.load()
            plugin = obj() if isinstance(obj, type) else obj
            if not isinstance(plugin, Plugin):
                raise RegistryError("is not an sdcflow Plugin class")
            add(plugin)
        except Exception as exc:  # noqa: BLE001 - a broken third-party plugin must not break sdcflow
            _load_problems.append(f"entry point '{ep.name}' ({ep.value}): {exc}")


def get(name: str) -> Plugin | None:
    """The plugin registered under ``name``, or ``None``."""
    _ensure_loaded()
    return _plugins.get(name)


def plugins(kind: str | None = None) -> list[Plugin]:
    """All registered plugins (of ``kind`` if given), sorted by name."""
    _ensure_loaded()
    return [p for _, p in sorted(_plugins.items()) if kind is None or p.kind == kind]


def load_problems() -> list[str]:
    """Entry points that could not be loaded (reported by ``sdcflow methods``)."""
    _ensure_loaded()
    return list(_load_problems)


def with_defaults(schema: Mapping, params: Mapping) -> dict:
    """``params`` with the ``default`` of every absent top-level property filled in."""
    out = dict(params)
    for key, sub in schema.get("properties", {}).items():
        if key not in out and isinstance(sub, Mapping) and "default" in sub:
            out[key] = sub["default"]
    return out
