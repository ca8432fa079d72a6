"""The recipe as sdcflow uses it once the YAML has passed the schema."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..constraints import Constraint, Expr
from ..data import Metadata, Variable
from ..data.recipe_files import RecipeFiles
from ..plugins.registry import Plugin
from ._yaml import YamlDocument

ORIGINAL = "original"  # the id under which steps refer to the data as loaded


@dataclass
class StepSpec:
    """One entry of ``steps``: which plugin, with which parameters, after what."""

    id: str
    index: int
    kind: str  # "method" or "measure"
    plugin_name: str
    params: dict
    input: str | None = None
    after: list[str] = field(default_factory=list)
    grid: dict = field(default_factory=dict)
    plugin: Plugin | None = None
    table: str | None = None  # the table a table step works on
    ok: bool = True  # False when the step has problems of its own (not run, not checked)
    # the parameters with their defaults, one set per grid value (set by validation)
    variants: list[dict] = field(default_factory=list)
    # the step sees the records and the columns it reads as loaded, in every variant (set
    # by validation): only then can its data checks run on the data as loaded
    sees_loaded_data: bool = True

    @property
    def path(self) -> tuple:
        return ("steps", self.index)


@dataclass
class TableSpec:
    """A table of the recipe: built from the data, or read already aggregated."""

    id: str
    index: int
    dims: list[str]
    response: str | None = None
    weight: str | None = None
    total: str = "Total"
    source: dict | None = None  # `from`: an aggregated table file
    cells: object = None  # its cells (a DataFrame), read when the recipe is read
    # `linked`: the ids of the tables protected together; the table itself is their cover
    # table (dims: all their variables), ``faces`` their dimensions
    linked: list[str] | None = None
    faces: list[list[str]] | None = None

    @property
    def path(self) -> tuple:
        return ("tables", self.index)

    @property
    def columns(self) -> list[str]:
        """The variables the table is built from."""
        return [*self.dims] + [c for c in (self.response, self.weight) if c]


@dataclass
class CheckSpec:
    """One release check: an expression over the measures."""

    text: str
    expr: Expr | None
    index: int
    message: str | None = None
    path: tuple = ()  # where its expression is in the recipe


@dataclass
class Recipe:
    """A loaded recipe: its file, the parsed document, and the typed sections."""

    path: Path
    doc: YamlDocument
    sha256: str
    text: str = ""
    name: str = ""
    version: str | None = None  # the recipe's own version (``version:``), for the report
    seed: int = 0
    data: dict = field(default_factory=dict)
    variables: dict[str, Variable] = field(default_factory=dict)
    constraints: list[Constraint] = field(default_factory=list)
    tables: dict[str, TableSpec] = field(default_factory=dict)
    steps: list[StepSpec] = field(default_factory=list)
    checks: list[CheckSpec] = field(default_factory=list)
    release: dict = field(default_factory=dict)
    warnings: list = field(default_factory=list)
    unusable: set = field(default_factory=set)  # variables declared with schema errors
    unusable_constraints: set = field(default_factory=set)  # constraint ids with errors
    constraint_index: dict = field(default_factory=dict)  # constraint id -> position in recipe
    # what protects each released artefact and the attacks the recipe acknowledges (set
    # by validation: sdcflow.recipe._policy.ReleasePolicy; None: nothing is released)
    policy: object = None
    # folders (or files) the user allows the recipe to read besides its own folder
    # (--allow-path); they change what may be read, never what a run computes
    allowed: tuple[Path, ...] = ()
    released: list = field(default_factory=list)  # the variables a data release holds
    # the --set PATH=VALUE overrides applied to the file's values (._overrides.Override)
    overrides: list = field(default_factory=list)
    # the privacy budget, what each DP step spends and the total, as OpenDP composes them
    # (set by validation: sdcflow.recipe._privacy; None without DP steps and budget)
    privacy: dict | None = None
    # the steps written with ``enabled: false``: id -> position in ``steps``; they are
    # not planned or run, and nothing may use them (set by validation)
    disabled: dict = field(default_factory=dict)

    def disabled_steps(self) -> list[dict]:
        """The steps written with ``enabled: false``, in the recipe's order: their id,
        kind (method or measure) and plugin name, as ``sdcflow plan`` lists them."""
        written = self.doc.data.get("steps") if isinstance(self.doc.data, dict) else None
        out = []
        for sid, i in sorted(self.disabled.items(), key=lambda item: item[1]):
            spec = written[i]
            kind = "method" if "method" in spec else "measure"
            out.append({"id": sid, "kind": kind, "plugin": str(spec.get(kind))})
        return out

    def skipped_lines(self) -> list[str]:
        """One line per disabled step, for the lists of steps ``sdcflow plan`` and
        ``sdcflow run --dry-run`` print."""
        return [f"  -  {s['id']:<24} {s['kind'] + ' ' + s['plugin']:<34} skipped "
                "(enabled: false)" for s in self.disabled_steps()]

    @property
    def base_dir(self) -> Path:
        return self.path.parent

    def table_source(self, tid: str) -> str:
        """The table whose steps give the released table ``tid``: the table of linked
        tables it belongs to, when steps protect them, else ``tid`` itself."""
        for spec in self.tables.values():
            if spec.linked and tid in spec.linked and any(s.table == spec.id
                                                           for s in self.steps):
                return spec.id
        return tid

    @property
    def files(self) -> RecipeFiles:
        """Where the files the recipe names may be (:mod:`sdcflow.data.recipe_files`)."""
        return RecipeFiles(self.base_dir, self.allowed)

    def meta(self) -> Metadata:
        """The declarations the plugins see (without the names left out for errors)."""
        return Metadata(self.variables, tuple(self.constraints),
                        frozenset(self.unusable) | frozenset(self.unusable_constraints))
