"""sdcflow.ui.running.table_run: the table steps run as a partial run of the recipe, the planes of
a table, and the scratch folder the workbench alone writes (replaced whole at each run,
a folder it did not write left alone)."""

from __future__ import annotations

import shutil

import pytest

from sdcflow.ui.running.table_run import MARK, run_tables, scratch_dir

from ..conftest import ROOT


@pytest.fixture
def cell_key_project(tmp_path):
    shutil.copyfile(ROOT / "recipes" / "testdata_cell_key.yaml", tmp_path / "ck.yaml")
    return tmp_path


def test_primary_only_runs_no_other_table_step(cell_key_project):
    path = cell_key_project / "ck.yaml"
    result = run_tables(path.read_text(), path, cell_key_project, complete=False,
                        write=False)
    # no sensitivity_rules step in the recipe: nothing ran, every cell safe as built
    assert result.ran == [] and not result.complete and result.out_dir is None
    cube = result.views["cube"]
    # testdata: urbrur 1, 2; water 1-7, 9; roof 2, 4, 5, 6, 9; each with its total
    assert cube.counts()["safe"] == len(cube.cells) == 3 * 9 * 6
    assert not (cell_key_project / ".sdcflow-ui").exists()


def test_planes_of_a_three_dimensional_table(cell_key_project):
    path = cell_key_project / "ck.yaml"
    cube = run_tables(path.read_text(), path, cell_key_project, write=False).views["cube"]
    assert cube.dims == ["urbrur", "water", "roof"]
    plane = cube.grid("water", "roof", {"urbrur": "2"})
    assert len(plane) == 9 and all(len(line) == 6 for line in plane)
    assert plane[0][0].codes == ("2", "1", "2") and plane[-1][-1].codes == ("2", "Total",
                                                                              "Total")
    # an unknown code falls back to the total, as does no code
    assert cube.grid("water", "roof", {"urbrur": "7"})[0][0].codes == ("Total", "1", "2")
    column = cube.grid("roof", None, {})
    assert [line[0].codes for line in column][-1] == ("Total", "Total", "Total")
    total = column[-1][0]
    assert total.freq == 4580  # testdata's records (the original count)
    # the cell key method's noise is at most D = 5 (the recipe's ptable)
    assert total.value == 4580 and abs(total.published - 4580) <= 5
    assert (total.status == "perturbed") == (total.published != 4580)


def test_the_scratch_folder_is_replaced_whole(cell_key_project):
    path = cell_key_project / "ck.yaml"
    first = run_tables(path.read_text(), path, cell_key_project)
    folder = scratch_dir(cell_key_project, "testdata-cell-key")
    assert first.out_dir == folder and (folder / MARK).is_file()
    assert sorted(p.name for p in (folder / "tables").iterdir()) == [
        "cube.csv", "urbrur_roof.csv", "urbrur_water.csv"]
    (folder / "tables" / "stale.csv").write_text("from an earlier run")
    run_tables(path.read_text(), path, cell_key_project)
    assert not (folder / "tables" / "stale.csv").exists()
    assert sorted(p.name for p in folder.parent.iterdir()) == ["testdata-cell-key"]


def test_scratch_names_stay_inside_the_folder(tmp_path):
    assert scratch_dir(tmp_path, "../../etc").parent == tmp_path / ".sdcflow-ui" / "tables"
    assert scratch_dir(tmp_path, "..").name == "recipe"


def test_a_scratch_folder_leading_outside_the_project_is_refused(cell_key_project, tmp_path):
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    (cell_key_project / ".sdcflow-ui").symlink_to(outside)
    path = cell_key_project / "ck.yaml"
    with pytest.raises(OSError, match="outside the project"):
        run_tables(path.read_text(), path, cell_key_project)
    assert list(outside.iterdir()) == []
