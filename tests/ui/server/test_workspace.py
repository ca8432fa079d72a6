"""The open recipe: drafts, undo, the diff to the saved file and the atomic save."""

from __future__ import annotations

import os

import pytest

from sdcflow.ui.server.workspace import Workspace


def test_drafts_undo_diff_and_save(tmp_path):
    path = tmp_path / "r.yaml"
    path.write_text("a: 1\n# kept\nb: 2\n")
    os.chmod(path, 0o640)
    ws = Workspace.open(path)
    assert not ws.changed and ws.diff() == "" and not ws.undo()
    ws.set_draft("a: 1\n# kept\nb: 3\n")
    ws.set_draft("a: 1\n# kept\nb: 3\n")  # no change, no history entry
    assert ws.changed and len(ws.history) == 1
    assert ws.diff().splitlines()[-2:] == ["-b: 2", "+b: 3"]
    ws.save()
    assert path.read_text() == "a: 1\n# kept\nb: 3\n" and not ws.changed
    assert oct(path.stat().st_mode & 0o777) == oct(0o640)
    assert [p.name for p in tmp_path.iterdir()] == ["r.yaml"]  # no temporary file left
    assert ws.undo() and ws.draft == "a: 1\n# kept\nb: 2\n" and ws.changed


def test_problems_are_the_recipe_checks(tmp_path, ui_project):
    ws = Workspace.open(ui_project / "quickstart.yaml")
    assert ws.problems() == []
    ws.set_draft(ws.draft.replace("measure: k_anonymity", "measure: k_anonymty", 1))
    problems = [str(p) for p in ws.problems()]
    assert any("k_anonymty" in p and "quickstart.yaml:" in p for p in problems), problems


def test_a_new_recipe_never_replaces_a_file_at_its_path(tmp_path):
    # even an empty file, or a link, that appeared after the draft was made stays as it is
    for make in (lambda p: p.write_text(""), lambda p: p.symlink_to(tmp_path / "elsewhere")):
        path = tmp_path / "new.yaml"
        make(path)
        ws = Workspace.new(path, "sdcflow: 1\n")
        with pytest.raises(FileExistsError):
            ws.save()
        assert ws.is_new and ws.changed
        assert sorted(p.name for p in tmp_path.iterdir()) == ["new.yaml"]  # no temporary
        path.unlink()
    ws = Workspace.new(tmp_path / "new.yaml", "sdcflow: 1\n")
    ws.save()
    assert (tmp_path / "new.yaml").read_text() == "sdcflow: 1\n" and not ws.is_new
    ws.set_draft("sdcflow: 1\nname: x\n")
    ws.save()  # saved once, it is the workbench's file: replaced from now on
    assert (tmp_path / "new.yaml").read_text() == "sdcflow: 1\nname: x\n"
