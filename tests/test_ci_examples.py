"""The pre-commit hook (.pre-commit-hooks.yaml) and the GitHub Actions example
(examples/ci/sdcflow-validate.yml): they parse, and the commands they run exist and
behave as a hook needs (exit 0 on valid recipes, 1 on invalid ones)."""

import re
import shlex
import tomllib

import yaml
from helpers import QUICKSTART, ROOT

from sdcflow.cli import build_parser, main

INVALID = ROOT / "tests" / "recipes" / "invalid" / "143-param-beside-measure.yaml"


def _hook() -> dict:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    [hook] = [h for h in hooks if h["id"] == "sdcflow-validate"]
    return hook


def _scripts() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]


def test_the_hook_names_the_installed_command_and_valid_options():
    hook = _hook()
    # the keys pre-commit requires of a hook
    assert {"id", "name", "entry", "language"} <= set(hook)
    assert hook["language"] == "python"  # installed from this repository's pyproject
    argv = shlex.split(hook["entry"])
    assert argv[0] in _scripts()  # the console script `sdcflow`
    assert argv[1:] == ["validate", "--format", "json"]
    # pre-commit appends the file names (after the user's args, e.g. --no-data)
    args = build_parser().parse_args([*argv[1:], "--no-data", "a.yaml", "b.yaml"])
    assert args.recipes == ["a.yaml", "b.yaml"] and args.no_data


def test_the_hook_selects_recipe_files():
    pattern = re.compile(_hook()["files"])
    assert pattern.search("recipes/quickstart.yaml")
    assert pattern.search("office/recipes/census.yml")
    assert not pattern.search(".github/workflows/ci.yml")


def test_the_hook_entry_passes_valid_and_fails_invalid_recipes(capsys):
    argv = shlex.split(_hook()["entry"])[1:]
    assert main([*argv, str(QUICKSTART)]) == 0
    assert main([*argv, str(QUICKSTART), str(INVALID)]) == 1
    assert "'k' is a parameter of k_anonymity" in capsys.readouterr().out


def test_the_github_actions_example_parses_and_runs_sdcflow_validate():
    workflow = yaml.safe_load((ROOT / "examples" / "ci" / "sdcflow-validate.yml").read_text())
    assert set(workflow[True]) == {"push", "pull_request"}  # `on:` (YAML 1.1 reads True)
    steps = workflow["jobs"]["validate"]["steps"]
    commands = [line.strip() for s in steps for line in s.get("run", "").splitlines()
                if line.strip().startswith("sdcflow ")]
    assert commands, "no sdcflow command in the workflow"
    for command in commands:
        argv = shlex.split(command.split(">")[0])
        args = build_parser().parse_args(argv[1:])
        assert args.command == "validate"


def _quick_start_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.+?)\n```", section)


def test_ci_runs_the_readme_test_command_to_the_letter():
    # the README promises two commands that work on a fresh machine; CI (.ci/run) must run
    # exactly the test command, so that a green CI means the README's command is green
    install_and_run, install_and_test = _quick_start_commands()
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert f"({install_and_test})" in ci
    # both make their virtual environment first: a system Python managed by Debian or
    # Ubuntu refuses `pip install` outside one ("externally-managed-environment")
    for command in (install_and_run, install_and_test):
        assert command.startswith("python3 -m venv .venv && . .venv/bin/activate && pip install")
    assert install_and_run.endswith("sdcflow run recipes/quickstart.yaml")
