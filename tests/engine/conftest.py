import shutil

import pytest
from helpers import QUICKSTART


@pytest.fixture
def recipe(tmp_path):
    """A copy of the quickstart recipe in a temporary directory (its own cache)."""
    path = tmp_path / "quickstart.yaml"
    shutil.copy(QUICKSTART, path)
    return path


@pytest.fixture
def quickstart(recipe):
    return recipe
