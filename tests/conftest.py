import shutil
import textwrap
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from helpers import ROOT, TESTDATA_KEYS
from hypothesis import settings

from sdcflow.data import Dataset, Variable, read_data


@pytest.fixture
def write_recipe(tmp_path):
    """Write a recipe (dedented) into tmp_path and return its path."""

    def _write(text: str, name: str = "recipe.yaml") -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
        return path

    return _write


@pytest.fixture(scope="session")
def testdata() -> Dataset:
    """sdcMicro's testdata with the five key variables of seed 004 and the numerics."""
    variables = {name: Variable(name, "key", typ) for name, typ in TESTDATA_KEYS.items()}
    for name in ("expend", "income", "savings"):
        variables[name] = Variable(name, "numeric", "continuous")
    variables["sampling_weight"] = Variable("sampling_weight", "weight", "continuous")
    data, _, findings = read_data({"builtin": "testdata"}, ROOT, variables)
    assert not findings
    return data


# Property tests explore the same examples on every run: CI is never red by chance, and a
# failure found once is found again.
settings.register_profile("sdcflow", derandomize=True, deadline=None)
settings.load_profile("sdcflow")


@dataclass(frozen=True)
class ShippedRun:
    """One run of a shipped recipe (written, without the cache): the recipe as loaded
    YAML, the run's result (of a failed check too), its internal report and its external
    one (None when nothing was released)."""

    recipe: dict
    result: object
    internal: str
    external: str | None


@pytest.fixture(scope="session")
def shipped_run(tmp_path_factory):
    """``shipped_run(name)``: the run of ``recipes/NAME.yaml``, each recipe run once per
    test session (on first use) and shared by the tests that read a shipped recipe's
    outputs, with every NumPy/SciPy/pandas warning an error (a warning would reach a
    command-line user's terminal). The recipes run from a copy of recipes/ (their
    data beside them), so no cache lands in the repository."""
    from sdcflow import run
    from sdcflow.errors import CheckFailed

    base = tmp_path_factory.mktemp("shipped")
    shutil.copytree(ROOT / "recipes" / "data", base / "data")
    runs: dict = {}

    def get(name: str) -> ShippedRun:
        if name not in runs:
            recipe = base / f"{name}.yaml"
            shutil.copy(ROOT / "recipes" / f"{name}.yaml", recipe)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("error")
                    try:
                        result = run(recipe, base / "out" / name, use_cache=False)
                    except CheckFailed as exc:  # a failed run has an internal report too
                        result = exc.result
            except Exception as exc:  # noqa: BLE001 (every test of this recipe fails with it)
                runs[name] = exc
            else:
                public = base / "out" / name / "public" / "report.html"
                runs[name] = ShippedRun(
                    yaml.safe_load(recipe.read_text()), result,
                    (base / "out" / name / "report.html").read_text(),
                    public.read_text() if public.exists() else None)
        found = runs[name]
        if isinstance(found, Exception):
            raise found
        return found

    return get
