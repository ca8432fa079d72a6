"""The layout shows the architecture, and the import graph keeps it (docs/architecture.md).

Every module under ``sdcflow/`` is parsed with :mod:`ast` (never imported) and every
import statement counts: at module level, inside functions (lazy imports), under
``if TYPE_CHECKING:``, relative or absolute. From them:

* the import graph of sdcflow's modules has no cycle;
* the package root holds only what a user imports (an explicit list);
* the layers: the plugins (``methods/``, ``measures/``) and their kernels (``kernels/``)
  never import the engine, the recipe, the report or a front end; ``kernels/`` takes
  NumPy arrays, so it imports neither pandas nor the plugin API; the engine, the recipe
  and the report never import a front end (``cli/``, ``ui/``); nothing but a front end
  imports one.

Each checker is also run on a small synthetic graph that breaks its rule, so a checker
that cannot fail would be caught here too.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "sdcflow"

#: the package root: what a user imports (run, load_recipe, validate, plan and the
#: exceptions from ``sdcflow``; ``python -m sdcflow``; the version the engine stamps on
#: every manifest) and the folders. Anything else belongs in a folder.
ROOT_MODULES = {"__init__.py", "__main__.py", "_version.py", "errors.py"}

FRONT_ENDS = ("sdcflow.cli", "sdcflow.ui")
PLUGIN_API = ("sdcflow.plugins",)
PLUGINS = ("sdcflow.methods", "sdcflow.measures", "sdcflow.kernels")
CORE = ("sdcflow.engine", "sdcflow.recipe", "sdcflow.report")


@dataclass(frozen=True)
class Edge:
    """``source`` imports ``target`` (a dotted name: an sdcflow module or package, or the
    top-level name of a third-party package) at ``line``."""

    source: str
    target: str
    line: int


def module_name(path: Path, root: Path) -> tuple[str, bool]:
    """The dotted name of the module at ``path`` under the package directory ``root``,
    and whether it is a package (``__init__.py``)."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        return ".".join(parts[:-1]), True
    return ".".join(parts), False


def imports_of(source: str, name: str, is_package: bool) -> list[tuple[str, int]]:
    """Every name ``source`` (the text of module ``name``) imports, anywhere in it, as
    absolute dotted names with their lines: ``import X`` gives ``X``, ``from X import
    y`` gives ``X.y`` (a submodule, or an attribute of ``X``: :func:`resolve` tells)."""
    package = name if is_package else name.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            out += [(f"{module}.{alias.name}", node.lineno) for alias in node.names]
    return out


def resolve(target: str, modules: set[str]) -> str | None:
    """The sdcflow module ``target`` refers to (its longest prefix that is a module:
    ``sdcflow.errors.Problem`` is ``sdcflow.errors``, ``sdcflow.plugins.registry`` the
    module itself), the top-level name of any other package (``pandas``), or None for
    an ``sdcflow`` name that is no module (it would fail to import)."""
    if target.split(".")[0] != "sdcflow":
        return target.split(".")[0]
    while target:
        if target in modules:
            return target
        target = target.rpartition(".")[0]
    return None


def import_graph(root: Path = ROOT) -> tuple[set[str], list[Edge]]:
    """The modules under ``root`` and every import out of them (one edge per pair, at
    the first line that makes it)."""
    sources = {}
    for path in sorted(root.rglob("*.py")):
        name, is_package = module_name(path, root)
        sources[name] = (path.read_text(encoding="utf-8"), is_package)
    modules = set(sources)
    edges = []
    for name, (source, is_package) in sources.items():
        seen = {name}
        for target, line in imports_of(source, name, is_package):
            resolved = resolve(target, modules)
            if resolved is not None and resolved not in seen:
                seen.add(resolved)
                edges.append(Edge(name, resolved, line))
    return modules, edges


def find_cycle(modules: set[str], edges: list[Edge]) -> list[str] | None:
    """One cycle of the import graph between ``modules``, as the list of its modules
    (first repeated at the end), or None."""
    graph: dict[str, list[str]] = {m: [] for m in modules}
    for e in edges:
        if e.target in graph:
            graph[e.source].append(e.target)
    white, grey, black = 0, 1, 2
    colour = dict.fromkeys(graph, white)
    for start in sorted(graph):
        if colour[start] != white:
            continue
        stack = [(start, iter(sorted(graph[start])))]
        path = [start]
        colour[start] = grey
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                colour[node] = black
                stack.pop()
                path.pop()
            elif colour[child] == grey:
                return path[path.index(child):] + [child]
            elif colour[child] == white:
                colour[child] = grey
                stack.append((child, iter(sorted(graph[child]))))
                path.append(child)
    return None


def loose_root_modules(root: Path = ROOT) -> set[str]:
    """The modules in the package root that are not in :data:`ROOT_MODULES`."""
    return {p.name for p in root.glob("*.py")} - ROOT_MODULES


def _within(name: str, packages: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


def layer_violations(edges: list[Edge]) -> list[str]:
    """Every import that breaks a layer rule, as ``source:line imports target (rule)``."""
    rules = [
        (PLUGINS, CORE + FRONT_ENDS,
         "plugins and kernels never import the engine, recipe, report or a front end"),
        (("sdcflow.kernels",), ("pandas",) + PLUGIN_API,
         "kernels take arrays: no pandas, no plugin API"),
        (CORE, FRONT_ENDS, "the engine, recipe and report never import a front end"),
    ]
    out = []
    for e in edges:
        for sources, targets, rule in rules:
            if _within(e.source, sources) and _within(e.target, targets):
                out.append(f"{e.source}:{e.line} imports {e.target} ({rule})")
        if _within(e.target, FRONT_ENDS) and not _within(e.source, FRONT_ENDS) \
                and e.source != "sdcflow.__main__":
            out.append(f"{e.source}:{e.line} imports {e.target} (only a front end imports "
                       "a front end)")
    return out


@pytest.fixture(scope="module")
def graph():
    return import_graph()


# -- the package as it is ------------------------------------------------------------


def test_the_import_graph_has_no_cycle(graph):
    modules, edges = graph
    cycle = find_cycle(modules, edges)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_package_root_holds_only_what_a_user_imports():
    loose = loose_root_modules()
    assert not loose, (f"modules in sdcflow/ that belong in a folder: {sorted(loose)} "
                       "(see docs/architecture.md)")
    # and what a user imports is there
    import sdcflow

    assert {"run", "load_recipe", "validate", "plan", "RecipeError",
            "__version__"} <= set(dir(sdcflow))


def test_the_layers_hold(graph):
    _, edges = graph
    assert layer_violations(edges) == []


def test_the_graph_sees_lazy_and_relative_imports(graph):
    # the engine writes the report through imports inside functions (relative): the
    # graph must hold them, or a circle through a lazy import would go unseen
    _, edges = graph
    lazy = {(e.source, e.target) for e in edges}
    assert ("sdcflow.engine.runner", "sdcflow.report.signoff") in lazy
    assert ("sdcflow.cli.recipe_commands", "sdcflow.cli.plan_graph") in lazy


# -- the checkers themselves, on synthetic packages that break each rule ---------------


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "sdcflow"
    for rel, text in {"__init__.py": "", **files}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        for parent in path.relative_to(root).parents:
            (root / parent / "__init__.py").touch()
        path.write_text(text)
    return root


def test_a_cycle_through_a_lazy_relative_import_is_found(tmp_path):
    root = _package(tmp_path, {
        "engine/runner.py": "from ..recipe import validate\n",
        "recipe/__init__.py": "from ._validate import validate\n",
        "recipe/_validate.py": ("def validate():\n"
                                "    from ..engine.runner import run\n"),
    })
    cycle = find_cycle(*import_graph(root))
    assert cycle is not None and cycle[0] == cycle[-1]
    assert {"sdcflow.engine.runner", "sdcflow.recipe._validate"} <= set(cycle)


def test_a_graph_without_cycle_passes(tmp_path):
    root = _package(tmp_path, {
        "engine/runner.py": "from ..recipe import validate\n",
        "recipe/__init__.py": "from ._validate import validate\n",
        "recipe/_validate.py": "import numpy\n",
    })
    assert find_cycle(*import_graph(root)) is None


def test_a_loose_module_in_the_root_is_found(tmp_path):
    root = _package(tmp_path, {"errors.py": "", "display.py": ""})
    assert loose_root_modules(root) == {"display.py"}


@pytest.mark.parametrize("files, expected", [
    ({"methods/noise.py": "from ..engine.runner import run\n", "engine/runner.py": ""},
     "plugins and kernels never import the engine"),
    ({"kernels/noise.py": "def f():\n    import pandas as pd\n"},
     "kernels take arrays"),
    ({"kernels/noise.py": "from ..plugins.registry import Method\n",
      "plugins/registry.py": ""}, "kernels take arrays"),
    ({"report/html.py": "from sdcflow.cli.display import console\n", "cli/display.py": ""},
     "never import a front end"),
    ({"data/io.py": "from ..ui import app\n", "ui/__init__.py": "app = 1\n"},
     "only a front end imports a front end"),
])
def test_each_layer_rule_catches_its_breach(tmp_path, files, expected):
    _, edges = import_graph(_package(tmp_path, files))
    found = layer_violations(edges)
    assert found and all(f.startswith(found[0].split(" (")[0]) for f in found), found
    assert any(expected in f for f in found), found


def test_the_front_ends_may_import_each_other_and_everything_below(tmp_path):
    root = _package(tmp_path, {
        "ui/app.py": "from ..cli.describe import methods_command\nfrom ..engine import run\n",
        "cli/describe.py": "from ..plugins import registry\n",
        "plugins/registry.py": "", "engine/__init__.py": "",
    })
    assert layer_violations(import_graph(root)[1]) == []


def missing_modules(root: Path = ROOT) -> list[str]:
    """``module:line: name`` for every import of an sdcflow module that does not exist
    (``from .privacy.lattice import search`` written in a module that moved: the graph
    resolves it to the nearest package and would not see it; importing it fails only
    when the function runs)."""
    sources = {}
    for path in sorted(root.rglob("*.py")):
        name, is_package = module_name(path, root)
        sources[name] = (path.read_text(encoding="utf-8"), is_package)
    out = []
    for name, (source, is_package) in sources.items():
        package = name if is_package else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[:len(package.split(".")) - node.level + 1]
                    module = ".".join(base + ([node.module] if node.module else []))
                else:
                    module = node.module or ""
                wanted = [module]
            elif isinstance(node, ast.Import):
                wanted = [alias.name for alias in node.names]
            else:
                continue
            out += [f"{name}:{node.lineno}: {m}" for m in wanted
                    if m.split(".")[0] == "sdcflow" and m not in sources]
    return out


def test_every_import_names_a_module_that_exists():
    assert missing_modules() == []


def test_a_lazy_import_of_a_module_that_moved_away_is_found(tmp_path):
    root = _package(tmp_path, {"cli/__init__.py": "", "kernels/__init__.py": "",
                               "kernels/lattice.py": "",
                               "cli/warmup.py": "def f():\n    from .lattice import search\n"})
    assert missing_modules(root) == ["sdcflow.cli.warmup:2: sdcflow.cli.lattice"]
