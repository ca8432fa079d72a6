"""The one gate of the files a recipe names (sdcflow.data.recipe_files): where they may
be, what the user may allow (--allow-path, allow_paths=), that a file swapped after its
check is refused without blocking, and that every reader in sdcflow goes through it."""

from __future__ import annotations

import ast
import os
import shutil
from pathlib import Path

import pytest
from helpers import ROOT, output_files

from sdcflow import load_recipe, run, validate
from sdcflow.cli import main
from sdcflow.data.io import builtin_path
from sdcflow.data.recipe_files import RecipeFileError, RecipeFiles, quotable
from sdcflow.errors import RecipeError

RECIPE = """\
sdcflow: 1
name: kept
seed: 1
data: {path: DATA}
variables:
  urbrur: {role: key}
  sex: {role: key}
steps:
  - {id: risk, measure: k_anonymity, params: {k: [2]}}
checks: ["risk.violations[2] == 0"]  # (urbrur x sex: every record 2-anonymous as loaded)
release: {path: kept.csv}
"""


def layout(tmp_path: Path) -> tuple[Path, Path]:
    """recipes/r.yaml naming ../data/testdata.csv (a folder beside the recipe's)."""
    (tmp_path / "recipes").mkdir()
    (tmp_path / "data").mkdir()
    shutil.copy(builtin_path("testdata"), tmp_path / "data" / "testdata.csv")
    recipe = tmp_path / "recipes" / "r.yaml"
    recipe.write_text(RECIPE.replace("DATA", "../data/testdata.csv"))
    return recipe, tmp_path / "data"


def test_names_that_stay_inside_the_recipe_folder_are_read(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "d.csv").write_text("a\n1\n")
    (tmp_path / "sub" / "link.csv").symlink_to(tmp_path / "d.csv")
    files = RecipeFiles(tmp_path)
    for name in ("d.csv", "sub/../d.csv", str(tmp_path / "d.csv"), "sub/link.csv", "./d.csv"):
        assert files.check(name, ("data", "path"), "data file").path == tmp_path / "d.csv"
    # the recipe's folder itself reached through a link: judged by its real path too
    (tmp_path / "alias").symlink_to(tmp_path, target_is_directory=True)
    assert RecipeFiles(tmp_path / "alias").check("d.csv", (), "data file").size == 4


def test_a_refusal_says_nothing_of_what_lies_outside(tmp_path):
    (tmp_path / "project").mkdir()
    (tmp_path / "there.csv").write_text("a\n1\n")
    files = RecipeFiles(tmp_path / "project")
    messages = []
    for name in ("../there.csv", "../not-there.csv"):
        with pytest.raises(RecipeFileError) as info:
            files.check(name, ("population",), "population file")
        assert info.value.where == ("population",)
        messages.append(info.value.message.replace(name, "NAME"))
    # a file that exists and one that does not are refused alike: no probing the machine
    assert messages[0] == messages[1]
    assert "outside the recipe's folder" in messages[0] and "--allow-path" in messages[0]


def test_allowed_folders_and_files(tmp_path):
    recipe, data = layout(tmp_path)
    with pytest.raises(RecipeError, match="is outside the recipe's folder"):
        validate(recipe)
    assert validate(recipe, allow_paths=[data]).data is not None
    # one file allowed: that file, not its neighbours
    assert validate(recipe, allow_paths=[data / "testdata.csv"]).data is not None
    (data / "other.csv").write_text("urbrur,sex\n1,1\n")
    other = recipe.with_name("o.yaml")
    other.write_text(RECIPE.replace("DATA", "../data/other.csv"))
    with pytest.raises(RecipeError, match="is outside the recipe's folder"):
        validate(other, allow_paths=[data / "testdata.csv"])
    # a hidden file is read when it is allowed itself
    shutil.copy(data / "testdata.csv", data / ".hidden.csv")
    hidden = recipe.with_name("h.yaml")
    hidden.write_text(RECIPE.replace("DATA", "../data/.hidden.csv"))
    with pytest.raises(RecipeError, match="is hidden"):
        validate(hidden, allow_paths=[data])
    assert validate(hidden, allow_paths=[data / ".hidden.csv"]).data is not None
    with pytest.raises(ValueError, match="no such file or folder"):
        validate(recipe, allow_paths=[tmp_path / "nowhere"])
    # a loaded recipe read its files when it was loaded: other allowances are refused
    loaded = load_recipe(recipe, allow_paths=[data])
    assert run(loaded, write=False).measures["risk"]["violations"] == {"2": 0}
    with pytest.raises(ValueError, match="give allow_paths to load_recipe"):
        run(loaded, write=False, allow_paths=[tmp_path])


def test_allow_path_on_every_command(tmp_path, capsys):
    recipe, data = layout(tmp_path)
    out = tmp_path / "out"
    for argv in (["validate", str(recipe)], ["plan", str(recipe)],
                 ["run", str(recipe), "--out", str(out)],
                 ["run", "--dry-run", str(recipe), "--out", str(out)],
                 ["report", str(recipe), "-o", str(tmp_path / "r.html")]):
        assert main(argv) == 1, argv
        assert "r.yaml:4:14: the data file ../data/testdata.csv: it is outside the recipe's" \
            in capsys.readouterr().err
        assert main([*argv, "--allow-path", str(data)]) == 0, capsys.readouterr().err
        capsys.readouterr()
    assert (out / "public" / "kept.csv").is_file() and (tmp_path / "r.html").is_file()
    with pytest.raises(SystemExit) as info:
        main(["validate", str(recipe), "--allow-path", str(tmp_path / "nowhere")])
    assert info.value.code == 2
    assert "no such folder or file" in capsys.readouterr().err


def test_allowed_paths_do_not_change_the_outputs(tmp_path):
    recipe, data = layout(tmp_path)
    a = run(recipe, tmp_path / "a", use_cache=False, allow_paths=[data])
    b = run(recipe, tmp_path / "b", use_cache=False, allow_paths=[tmp_path, data, ROOT])
    assert output_files(a.out_dir) == output_files(b.out_dir)
    assert str(tmp_path) not in (a.out_dir / "manifest.json").read_text()


def test_a_file_swapped_after_its_check_is_refused_without_blocking(tmp_path):
    (tmp_path / "p.csv").write_text("a\n1\n")
    checked = RecipeFiles(tmp_path).check("p.csv", ("population",), "population file")
    (tmp_path / "p.csv").unlink()
    os.mkfifo(tmp_path / "p.csv")  # opened as it is, it would block for ever
    with pytest.raises(RecipeFileError, match="changed while being read"), checked.opened():
        pass
    (tmp_path / "p.csv").unlink()
    (tmp_path / "p.csv").symlink_to("/etc/hostname")
    with pytest.raises(RecipeFileError, match="cannot be opened"), checked.opened():
        pass


def test_quotable_names():
    assert all(quotable(n) for n in ("urbrur", "sampling_weight", "Age group", "top1"))
    assert not any(quotable(n) for n in ("root:$6$salt$hash:19000:0:99999:7:::",
                                          "AWS_SECRET=hunter2", "https://x.org/a", "x" * 65,
                                          "", 3))


def test_init_says_how_to_read_data_outside_the_recipe_folder(tmp_path, capsys):
    _, data = layout(tmp_path)
    starter = tmp_path / "recipes" / "starter.yaml"
    assert main(["init", str(data / "testdata.csv"), "-o", str(starter)]) == 0
    assert f"--allow-path \"{data}\"" in starter.read_text()
    assert main(["validate", str(starter)]) == 1
    assert main(["validate", str(starter), "--allow-path", str(data)]) == 0


def test_files_named_on_the_command_line_are_regular_files(tmp_path, capsys):
    # `init DATAFILE` and `public-recipe --check MANIFEST` name a file the user chose:
    # read wherever it is, but a pipe would block for ever
    recipe, data = layout(tmp_path)
    os.mkfifo(tmp_path / "pipe.csv")
    assert main(["init", str(tmp_path / "pipe.csv"), "-o", str(tmp_path / "x.yaml")]) == 1
    assert "pipe.csv: it is not a regular file" in capsys.readouterr().err
    os.mkfifo(tmp_path / "manifest.json")
    assert main(["public-recipe", str(recipe), "--check", str(tmp_path / "manifest.json"),
                 "--allow-path", str(data)]) == 1
    assert "manifest.json: it is not a regular file" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------
# every reader goes through the gate

# what opens, reads or lists files by their name: any use of these attributes...
READ_ATTRIBUTES = {"read_text", "read_bytes", "read_csv", "read_parquet", "ParquetFile",
                   "read_table", "iterparse", "read_sav", "read_dta", "read_sas7bdat",
                   "read_xport", "loadtxt", "fromfile", "glob", "rglob", "iterdir", "scandir",
                   "listdir", "fdopen"}
# ... these called on a module...
MODULE_READS = {("json", "load"), ("np", "load"), ("numpy", "load"), ("pickle", "load"),
                ("ElementTree", "parse"), ("ET", "parse"), ("os", "walk")}
# ... and open(...): the builtin, os.open, io.open, Path.open (a checked file is opened()).
# The modules that may use them, each for files that are no recipe's to name:
ALLOWED = {
    "sdcflow/data/recipe_files.py": {"open", "fdopen"},  # the gate itself
    # the readers of the data, given a file the gate checked (CheckedFile.opened()), and
    # csv_frame, the CSV files a recipe names other than the data, read from the bytes
    # the gate checked (CheckedFile.content())
    "sdcflow/data/csv_input.py": {"read_csv"},
    "sdcflow/data/parquet_input.py": {"ParquetFile"},
    "sdcflow/data/stat_files.py": {"read_sav", "read_dta", "read_sas7bdat", "read_xport",
                                   "read_bytes"},  # (and the release ReadStat just wrote)
    "sdcflow/recipe/_load.py": {"read_bytes"},  # the recipe file
    "sdcflow/recipe/_schema.py": {"read_text"},  # the schema inside the package
    # the shipped taxonomies; WordNet's database of the system and sdcflow's copy of it
    "sdcflow/data/taxonomy.py": {"glob", "iterdir", "read_text"},
    "sdcflow/data/io.py": {"open"},  # the sha256 of the files a run released
    "sdcflow/engine/dask/partitions.py": {"glob", "rglob"},  # lists, then checks each
    "sdcflow/engine/cache.py": {"read_text", "read_parquet", "iterdir"},  # its own cache
    "sdcflow/engine/outputs.py": {"open", "read_text", "walk", "iterdir", "listdir"},
    "sdcflow/engine/runner.py": {"rglob"},  # the files a run wrote
    "sdcflow/engine/locks.py": {"open"},  # lock files
    "sdcflow/cli/starter.py": {"open"},  # writes the starter recipe
    "sdcflow/report/files.py": {"open", "fdopen"},  # writes a report
    "sdcflow/cli/pipes.py": {"open"},  # os.devnull
    "sdcflow/cli/ptable_command.py": {"fdopen"},  # writes the ptable asked for
    # lists and sizes its own cache's entries (the run manifests it reads go through
    # recipe_files.command_line_file); its lock file
    "sdcflow/engine/cache_admin.py": {"iterdir", "walk", "open"},
    "sdcflow/kernels/linkage/learned_linkage.py": {"open"},  # os.devnull
    # the workbench: files of its project folder, each path confined to it
    # (ui.server.project.Project.path) and none a file a recipe names (it reads the data
    # through the recipe's own reader, data.io.resolve_source)
    "sdcflow/ui/server/serve.py": {"open"},  # webbrowser.open of the workbench's link
    "sdcflow/ui/server/app.py": {"open"},  # Workspace.open of the recipe asked for
    "sdcflow/ui/server/workspace.py": {"read_text", "fdopen"},  # the recipe being edited
    "sdcflow/ui/server/project.py": {"walk"},  # lists the project's recipes and data
    "sdcflow/ui/pages/home.py": {"open"},  # Workspace.open of a recipe of the project
    "sdcflow/ui/pages/run.py": {"read_bytes"},  # serves a report of the run's output
    "sdcflow/ui/running/runner.py": {"read_text"},  # the manifest the run wrote
}


def reads_in(source: str) -> set[str]:
    """The names of what ``source`` (Python) uses to open, read or list files."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute):
            owner = node.value.id if isinstance(node.value, ast.Name) else None
            if node.attr in READ_ATTRIBUTES or (owner, node.attr) in MODULE_READS:
                found.add(node.attr)
        elif isinstance(node, ast.Call):
            func = node.func
            if (isinstance(func, ast.Name) and func.id == "open") or (
                    isinstance(func, ast.Attribute) and func.attr == "open"):
                found.add("open")
    return found


def reader_calls() -> dict[str, set[str]]:
    """module of sdcflow -> what it uses to open, read or list files."""
    found = {}
    for path in sorted((ROOT / "sdcflow").rglob("*.py")):
        names = reads_in(path.read_text(encoding="utf-8"))
        if names:
            found[path.relative_to(ROOT).as_posix()] = names
    return found


def test_the_readers_sought():
    # the ways the readers of the issue bypassed the recipe's folder, each found
    assert reads_in("pd.read_csv(base_dir / params['population'], dtype=object)\n"
                    "open(path, encoding='utf-8')\n"
                    "ElementTree.parse(path).getroot()\n"
                    "json.load(fh)\n"
                    "path.read_text(encoding='utf-8')\n"
                    "pq.ParquetFile(path)\n"
                    "os.open(path, os.O_RDONLY)\n"
                    "read = {'sav': reader.read_sav}\n") == {
        "read_csv", "open", "parse", "load", "read_text", "ParquetFile", "read_sav"}
    # what is no file: parsing expressions, walking trees, loading JSON text, a checked
    # file opened through the gate
    assert reads_in("ast.parse(text)\nast.walk(tree)\njson.loads(text)\n"
                    "with checked.opened() as fh: pass\n") == set()


def test_every_file_a_recipe_names_is_read_through_the_gate():
    calls = reader_calls()
    bypass = {m: sorted(names - ALLOWED.get(m, set())) for m, names in calls.items()
              if names - ALLOWED.get(m, set())}
    assert not bypass, (f"modules reading files by name, around sdcflow.data.recipe_files: "
                        f"{bypass}; read what a recipe names through RecipeFiles.check (or "
                        "add the module to ALLOWED, saying why it reads no recipe's file)")
    # and the allowances are still needed (a stale one would hide a new reader)
    stale = {m: sorted(names - calls.get(m, set())) for m, names in ALLOWED.items()
             if names - calls.get(m, set())}
    assert not stale, stale
