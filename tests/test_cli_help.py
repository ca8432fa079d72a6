"""``sdcflow --help`` and ``sdcflow COMMAND --help``: examples and the exit codes."""

import shlex

import pytest

from sdcflow.cli import build_parser, main
from sdcflow.cli.help import COMMAND_EXAMPLES, EXAMPLES


def _help(capsys, *argv: str) -> str:
    with pytest.raises(SystemExit) as exit_:
        main([*argv, "--help"])
    assert exit_.value.code == 0
    return capsys.readouterr().out


def test_main_help_has_examples_and_every_exit_code(capsys):
    out = _help(capsys)
    assert "examples:\n  sdcflow init data/survey.csv -o survey.yaml" in out
    # the exit codes of the contract (DESIGN.md, docs/cli.md)
    for code in ("0  success", "1  a mistake in the recipe", "2  wrong command-line usage",
                 "3  a release check failed: nothing is released", "4  an internal error"):
        assert f"\n  {code}" in out


def _commands() -> list[str]:
    parser = build_parser()
    [sub] = [a for a in parser._actions if a.dest == "command"]
    return sorted(sub.choices)


@pytest.mark.parametrize("command", _commands())
def test_each_command_help_ends_with_its_examples_and_the_exit_codes(command, capsys):
    out = _help(capsys, command)
    assert f"\n  {COMMAND_EXAMPLES[command][0]}\n" in out
    assert "exit codes:\n  0  success" in out


def _example_lines() -> list[str]:
    lines = [e for examples in COMMAND_EXAMPLES.values() for e in examples]
    lines += [line.split("   ")[0].strip() for line in EXAMPLES.splitlines()[1:]]
    return lines


@pytest.mark.parametrize("line", _example_lines())
def test_every_example_is_a_valid_command_line(line):
    # an example that the parser refuses would exit 2: the help would teach a mistake
    argv = shlex.split(line.split(">")[0])
    assert argv[0] == "sdcflow"
    args = build_parser().parse_args(argv[1:])
    assert args.command == argv[1]


def test_every_command_has_examples():
    assert set(_commands()) <= set(COMMAND_EXAMPLES)
