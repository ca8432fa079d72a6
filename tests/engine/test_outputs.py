"""The output directory (sdcflow.engine.outputs): a run replaces only what an earlier run
of the same recipe wrote there; anything else is refused, untouched; interrupted runs
leave nothing a later run trips over."""

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from sdcflow import run
from sdcflow.cli import main
from sdcflow.engine.outputs import PARTIAL, remove_leftovers
from sdcflow.errors import OutputError


def snapshot(root):
    """Every file and folder under ``root`` with its bytes (folders as None)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames:
            out[os.path.relpath(os.path.join(dirpath, name), root)] = None
        for name in filenames:
            path = os.path.join(dirpath, name)
            with open(path, "rb") as fh:
                out[os.path.relpath(path, root)] = fh.read()
    return out


def refused(args, capsys, match):
    """Run the CLI; it must exit 1 with ``match`` in its message and no traceback."""
    code = main(args)
    err = capsys.readouterr().err
    assert code == 1, err
    assert match in err, err
    assert "Traceback" not in err and "internal error" not in err
    return err


def test_unrelated_files_in_out_are_refused_untouched(recipe, tmp_path, capsys):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("my notes")
    (out / "sub").mkdir()
    (out / "sub" / "thesis.tex").write_text("years of work")
    before = snapshot(out)
    refused(["run", str(recipe), "--out", str(out)], capsys,
            "holds files that sdcflow did not write for recipe 'quickstart' (notes.txt, "
            "sub/thesis.tex); nothing was touched")
    assert snapshot(out) == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".mine")] == []


def test_the_data_folder_is_refused(tmp_path, capsys):
    data = tmp_path / "data"
    data.mkdir()
    (data / "people.csv").write_text("age,sex\n30,f\n40,m\n50,m\n")
    recipe = tmp_path / "r.yaml"
    recipe.write_text(textwrap.dedent("""
        sdcflow: 1
        name: people
        seed: 1
        data: {path: data/people.csv}
        variables: {age: {role: key, type: integer}, sex: {role: key}}
        steps: [{id: age20, method: global_recode, params: {variable: age, breaks: [0, 39, 99]}}]
        release: {path: people.csv}
    """))
    before = snapshot(data)
    refused(["run", str(recipe), "--out", str(data)], capsys, "people.csv")
    assert snapshot(data) == before


def test_the_recipe_folder_as_working_directory_is_refused(recipe, tmp_path, capsys,
                                                           monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = snapshot(tmp_path)
    refused(["run", "quickstart.yaml", "--out", "."], capsys,
            "is the working directory or contains it")
    refused(["run", "quickstart.yaml", "--out", ".."], capsys,
            "is the working directory or contains it")
    assert snapshot(tmp_path) == before


def test_the_recipe_folder_is_refused(recipe, tmp_path, capsys):
    before = snapshot(tmp_path)
    refused(["run", str(recipe), "--out", str(tmp_path)], capsys, "quickstart.yaml")
    assert snapshot(tmp_path) == before


def test_a_symlinked_out_is_judged_by_its_target(recipe, tmp_path, capsys):
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "keep.txt").write_text("keep")
    link = tmp_path / "link"
    link.symlink_to(precious)
    refused(["run", str(recipe), "--out", str(link)], capsys, "keep.txt")
    assert (precious / "keep.txt").read_text() == "keep" and link.is_symlink()
    # an empty target is used, through the link, and the link stays a link
    empty = tmp_path / "empty"
    empty.mkdir()
    link2 = tmp_path / "link2"
    link2.symlink_to(empty)
    assert main(["run", str(recipe), "--out", str(link2)]) == 0
    assert link2.is_symlink() and (empty / "public" / "testdata-protected.csv").is_file()
    # and replaced again on the next run
    assert main(["run", str(recipe), "--out", str(link2)]) == 0
    assert (empty / "manifest.json").is_file()
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "nowhere")
    refused(["run", str(recipe), "--out", str(dangling)], capsys, "broken symbolic link")


def test_a_plain_file_named_out_is_refused(recipe, tmp_path, capsys):
    target = tmp_path / "out"
    target.write_text("not a directory")
    refused(["run", str(recipe), "--out", str(target)], capsys, "exists and is not a directory")
    assert target.read_text() == "not a directory"


def test_an_earlier_release_of_the_same_recipe_is_replaced(recipe, tmp_path):
    out = tmp_path / "out"
    run(recipe, out)
    recipe.write_text(recipe.read_text().replace("quantile: 0.99", "quantile: 0.95"))
    second = run(recipe, out)
    assert second.manifest["files"]["public/testdata-protected.csv"] == \
        __import__("hashlib").sha256(
            (out / "public" / "testdata-protected.csv").read_bytes()).hexdigest()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out")] == []


def test_an_empty_directory_is_used(recipe, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    run(recipe, out)
    assert (out / "public" / "manifest.json").is_file()


def test_another_recipes_release_is_refused(recipe, tmp_path, capsys):
    out = tmp_path / "out"
    run(recipe, out)
    other = tmp_path / "other.yaml"
    other.write_text(recipe.read_text().replace("name: quickstart", "name: other"))
    before = snapshot(out)
    refused(["run", str(other), "--out", str(out)], capsys,
            "holds the release of recipe 'quickstart', not of 'other'")
    assert snapshot(out) == before


def test_a_release_changed_by_hand_or_with_added_files_is_refused(recipe, tmp_path, capsys):
    out = tmp_path / "out"
    run(recipe, out)
    released = out / "public" / "testdata-protected.csv"
    released.write_text(released.read_text().replace("2,3,1", "9,9,9", 1))
    before = snapshot(out)
    refused(["run", str(recipe), "--out", str(out)], capsys,
            "public/testdata-protected.csv changed since sdcflow wrote it")
    assert snapshot(out) == before
    shutil.rmtree(out)
    run(recipe, out)
    (out / "public" / "README.txt").write_text("how to use the release")
    refused(["run", str(recipe), "--out", str(out)], capsys,
            "public/README.txt (not in its manifest)")
    assert (out / "public" / "README.txt").is_file()


def test_an_output_location_that_cannot_be_written_is_a_clear_error(recipe, capsys):
    refused(["run", str(recipe), "--out", "/proc/sdcflow-test/out"], capsys,
            "cannot create the output directory /proc/sdcflow-test/out")


def test_a_failed_write_leaves_nothing_behind(recipe, tmp_path, monkeypatch):
    from sdcflow.engine import runner as run_module

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(run_module, "run_log", full_disk)
    with pytest.raises(OutputError, match="No space left on device; nothing was released"):
        run(recipe, tmp_path / "out")
    assert sorted(p.name for p in tmp_path.iterdir()) == [".sdcflow-cache", "quickstart.yaml"]


@pytest.mark.parametrize("path, message", [
    ("manifest.json", "'manifest.json' is the name of sdcflow's own public/manifest.json"),
    ("Report.HTML", "'Report.HTML' is the name of sdcflow's own public/report.html"),
    ("report.pdf", "'report.pdf' is the name of sdcflow's own public/report.pdf"),
    (".", "'.' is not a file name"),
    ("a/", "'a/' is not a file name"),
    ("x" * 300 + ".csv", "bytes long; file systems allow at most 255"),
    (".hidden.csv", "'.hidden.csv' is a hidden name"),
    ("a\tb.csv", "may not hold control characters"),
])
def test_release_paths_that_cannot_be_written_are_validation_errors(recipe, capsys, path,
                                                                    message):
    recipe.write_text(recipe.read_text().replace("release: {path: testdata-protected.csv, "
                                                 "measures: [risk, edits]}",
                                                 f"release: {{path: {path!r}, format: csv}}"))
    err = refused(["validate", str(recipe)], capsys, message)
    assert f"{recipe.name}:" in err  # at the recipe position


def test_release_paths_may_not_collide(tmp_path, capsys):
    recipe = tmp_path / "t.yaml"
    recipe.write_text(textwrap.dedent("""
        sdcflow: 1
        name: t
        seed: 1
        data: {builtin: testdata}
        variables: {urbrur: {role: key}, water: {role: key}}
        tables:
          - {id: a, dims: [urbrur]}
          - {id: b, dims: [water]}
        steps: [{id: risk, measure: k_anonymity, params: {k: 1}}]
        release: {path: t.csv, tables: {a: T.csv, b: t.csv/b.csv}}
    """))
    err = refused(["validate", str(recipe)], capsys, "release.tables.a: 'T.csv' is the same "
                  "file as release.path")
    assert "release.tables.b: 't.csv/b.csv' is the same file as release.path" in err


def test_leftovers_of_killed_runs_are_removed(recipe, tmp_path):
    out = tmp_path / "out"
    run(recipe, out)
    # a run killed while building (still marked partial) ...
    partial = tmp_path / ".out.tmp-abcd1234"
    partial.mkdir()
    (partial / PARTIAL).write_bytes(b"")
    (partial / "measures.json").write_text("{")
    # ... one killed between its two renames (the earlier release moved aside) ...
    shutil.copytree(out, tmp_path / ".out.old-efgh5678")
    # ... and a folder of the user that only looks similar, kept
    mine = tmp_path / ".out.tmp-mine"
    mine.mkdir()
    (mine / "data.csv").write_text("1,2\n")
    run(recipe, out)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [".out.tmp-mine", ".sdcflow-cache", "out", "quickstart.yaml"]
    assert (mine / "data.csv").read_text() == "1,2\n"


def test_an_old_release_with_foreign_files_keeps_them(tmp_path):
    old = tmp_path / ".out.old-1"
    old.mkdir()
    (old / "manifest.json").write_text(
        '{"sdcflow": "0.1.0", "recipe": {"name": "q"}, "files": {"a.csv": "x"}}')
    (old / "a.csv").write_text("a")
    (old / "mine.txt").write_text("mine")
    remove_leftovers(tmp_path, "out")
    assert sorted(p.name for p in old.iterdir()) == ["mine.txt"]


KILL = """
import os, sys
import sdcflow.engine.outputs as outputs
from sdcflow.cli import main
where = sys.argv[1]
if where == "build":
    import sdcflow.engine.runner as run
    def die(*args, **kwargs):
        os._exit(137)  # as kill -9: no cleanup runs
    run.run_log = die
else:
    real = outputs.os.replace
    calls = []
    def replace(src, dst):
        real(src, dst)
        calls.append(dst)
        if len(calls) == 1:
            os._exit(137)
    outputs.os.replace = replace
sys.exit(main(["run", sys.argv[2], "--out", sys.argv[3]]))
"""


@pytest.mark.parametrize("where", ["build", "swap"])
def test_a_run_killed_at_any_point_is_recovered_by_the_next(recipe, tmp_path, where):
    out = tmp_path / "out"
    run(recipe, out)
    good = snapshot(out)
    killed = subprocess.run([sys.executable, "-c", KILL, where, str(recipe), str(out)],
                            capture_output=True, text=True, check=False)
    assert killed.returncode == 137, killed.stderr
    debris = [p.name for p in tmp_path.iterdir() if p.name.startswith(".out.")]
    assert debris  # the killed run left something behind ...
    run(recipe, out)  # ... which the next run removes
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out.")] == []
    assert {k: v for k, v in snapshot(out).items() if k != "run.json"} == \
        {k: v for k, v in good.items() if k != "run.json"}
