"""The partition files of the Dask engine (sdcflow.engine.dask.partitions) are files a
recipe names like any other (sdcflow.data.recipe_files): a folder or pattern outside the
recipe's folder is refused before it is listed, a file of the folder that links outside
is refused, hidden files and folders are left out. No cluster is started."""

import os

import pytest

from sdcflow import load_recipe
from sdcflow.engine.dask.partitions import partition_files
from sdcflow.errors import RecipeError

RECIPE = """\
sdcflow: 1
name: parts
seed: 1
data: {path: DATA}
variables:
  a: {role: key}
steps:
  - {id: risk, measure: k_anonymity, params: {k: 1}}
execution: {engine: dask}
"""


def recipe(tmp_path, data: str):
    path = tmp_path / "project" / "r.yaml"
    path.write_text(RECIPE.replace("DATA", data))
    return load_recipe(path)


@pytest.fixture
def project(tmp_path):
    parts = tmp_path / "project" / "parts"
    (parts / ".cache").mkdir(parents=True)
    (parts / "sub").mkdir()
    for name in ("a.csv", "sub/b.csv", ".cache/c.csv", "_tmp.csv", ".d.csv"):
        (parts / name).write_text("a\nx\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.csv").write_text("a\nhunter2\n")
    return tmp_path


def test_the_files_of_a_folder_or_a_pattern(project):
    for data in ("parts", "parts/**/*.csv"):
        files = partition_files(recipe(project, data))
        assert [f.name for f in files] == ["parts/a.csv", "parts/sub/b.csv"], data


@pytest.mark.parametrize("data", ["../outside", "../outside/*.csv", "/etc/*",
                                  str(os.sep) + "**/*.csv"])
def test_a_folder_or_pattern_outside_is_refused_before_it_is_listed(project, data):
    with pytest.raises(RecipeError, match="r.yaml:4:14: the data .* is outside the recipe's"):
        partition_files(recipe(project, data))


def test_a_partition_that_links_outside_is_refused(project):
    (project / "project" / "parts" / "z.csv").symlink_to(project / "outside" / "secret.csv")
    with pytest.raises(RecipeError, match="the data file parts/z.csv: it is outside"):
        partition_files(recipe(project, "parts"))


def test_a_pipe_named_as_the_data_is_refused(project):
    os.mkfifo(project / "project" / "pipe.csv")
    with pytest.raises(RecipeError, match="the data file pipe.csv: it is not a regular file"):
        partition_files(recipe(project, "pipe.csv"))
