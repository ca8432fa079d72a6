"""``sdcflow ui [TARGET]``: which folder is served and what opens first."""

from __future__ import annotations

import pytest

from sdcflow.errors import SdcflowError
from sdcflow.ui.server.app import create_app
from sdcflow.ui.server.project import OutsideProject
from sdcflow.ui.server.serve import target_parts

from ..conftest import session_client


def test_a_recipe_opens_in_its_folder_a_data_file_starts_a_new_one(ui_project):
    assert target_parts(str(ui_project)) == (ui_project, None, None)
    assert target_parts(str(ui_project / "quickstart.yaml")) == \
        (ui_project, "quickstart.yaml", None)
    assert target_parts(str(ui_project / "testdata.csv")) == (ui_project, None, "testdata.csv")
    with pytest.raises(SdcflowError, match="no such file or folder"):
        target_parts(str(ui_project / "missing.csv"))
    (ui_project / "notes.txt").write_text("x")
    with pytest.raises(SdcflowError, match="not a recipe"):
        target_parts(str(ui_project / "notes.txt"))


def test_the_data_file_given_is_the_one_the_new_recipe_form_offers(ui_project):
    (ui_project / "other.csv").write_text("a\n1\n")
    client = session_client(create_app(ui_project, data="testdata.csv"))
    html = client.get("/").text
    assert '<option value="testdata.csv" selected>' in html
    assert '<option value="other.csv">' in html
    client = session_client(create_app(ui_project))
    assert " selected>" not in client.get("/").text
    with pytest.raises(OutsideProject):
        create_app(ui_project, data="../elsewhere.csv")
