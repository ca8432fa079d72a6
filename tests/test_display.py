"""The progress display of the command line (sdcflow.cli.display, sdcflow.cli): bars on a
terminal, lines when asked elsewhere, silence for programs, never on standard output."""

import io
import json
import re
import shutil

import pytest
from helpers import QUICKSTART
from rich.console import Console

from sdcflow.cli import display, main
from sdcflow.engine.records import StepRecord

ANSI = re.compile(r"\x1b\[")


class Terminal(io.StringIO):
    """Standard error as a terminal would be (rich draws a live display on it)."""

    def isatty(self) -> bool:
        return True


@pytest.fixture
def recipe(tmp_path):
    path = tmp_path / "q.yaml"
    shutil.copy(QUICKSTART, path)
    return path


@pytest.fixture
def terminal(monkeypatch):
    """A terminal that can draw (whatever the test runner's is): ``terminal(argv)`` runs
    ``sdcflow argv`` with it as standard error, and returns the exit code, what it drew
    and what went to standard output. (Standard error and output are replaced in the
    test's body: pytest puts its own capture back between a fixture and the test.)"""
    monkeypatch.setenv("TERM", "xterm-256color")
    for name in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        monkeypatch.delenv(name, raising=False)

    def run(argv: list[str]) -> tuple[int, str, str]:
        err, out = Terminal(), io.StringIO()
        with monkeypatch.context() as m:
            m.setattr("sys.stderr", err)
            m.setattr("sys.stdout", out)
            code = main(argv)
        return code, err.getvalue(), out.getvalue()

    return run


def test_no_progress_when_standard_error_is_not_a_terminal(recipe, capsys):
    assert main(["run", str(recipe), "--out", str(recipe.parent / "out")]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert captured.out.startswith("released into ")


def test_no_progress_with_json_output_even_on_a_terminal(recipe, terminal, monkeypatch):
    monkeypatch.setattr(display, "DELAY", 0.0)
    code, err, out = terminal(["run", str(recipe), "--out", str(recipe.parent / "out"),
                               "--format", "json"])
    assert code == 0 and err == ""
    assert json.loads(out)["released"] is True


def test_no_progress_when_told_so_on_a_terminal(recipe, terminal, monkeypatch):
    monkeypatch.setattr(display, "DELAY", 0.0)
    code, err, out = terminal(["run", str(recipe), "--out", str(recipe.parent / "out"),
                               "--no-progress"])
    assert code == 0 and err == "" and out.startswith("released into ")


@pytest.mark.parametrize("asked", [[], ["--progress"]])
def test_live_progress_on_a_terminal_and_nothing_of_it_on_standard_output(
        recipe, terminal, monkeypatch, asked):
    monkeypatch.setattr(display, "DELAY", 0.0)  # show every step, however short
    code, err, out = terminal(["run", str(recipe), "--out", str(recipe.parent / "out"),
                               "--no-cache", *asked])
    assert code == 0
    assert ANSI.search(err)  # drawn, not printed line by line
    assert "steps" in err and "loading testdata" in err
    assert re.search(r"\[9/9\] \w+ \(\w+\) \d+\.\ds", err)  # the lines steps leave
    assert out.startswith("released into ") and not ANSI.search(out)
    assert "steps" not in out and "[9/9]" not in out


def test_progress_lines_when_asked_and_not_a_terminal(recipe, capsys):
    assert main(["run", str(recipe), "--out", str(recipe.parent / "out"), "--progress",
                 "--no-cache"]) == 0
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 9 and lines[-1].startswith("[9/9] ") and not ANSI.search(captured.err)
    assert "[9/9]" not in captured.out


def _record(node: str, seconds: float, cached: bool = False) -> StepRecord:
    return StepRecord(node, "method", "mdav", "1", {}, {}, "f", "h", seconds, cached)


def test_the_display_shows_long_steps_only_and_their_progress():
    out = io.StringIO()
    shown = display.LiveDisplay(Console(file=out, force_terminal=True, width=100))
    with shown:
        shown.loading("census.csv", 0.5)
        shown.loading("census.csv", 1.0)
        shown.steps_started(3)
        shown.step_started("short", "noise")
        shown.step_started("long", "microaggregation")
        shown.step_started("quick[k=3]", "noise")
        shown.step_finished("short", _record("short", 0.2))
        shown.step_progress("long", 0.5)
        assert display._task(shown.progress, shown.steps_task).completed == 1.5
        shown.step_finished("long", _record("long", 12.34))
        shown.step_finished("quick[k=3]", _record("quick[k=3]", 5.0, cached=True))
        shown.writing()
    text = out.getvalue()
    assert "[2/3] long (mdav) 12.3s" in text
    assert "short (mdav)" not in text and "quick[k=3] (mdav)" not in text


def test_remaining_time_is_the_pace_so_far():
    class Task:
        total, completed, elapsed, finished = 4, 1, 30.0, False

    assert display._RemainingColumn().render(Task()).plain == "ETA 1:30"
    Task.completed = 0
    assert display._RemainingColumn().render(Task()).plain == ""


def test_the_compile_display():
    out = io.StringIO()
    shown = display.CompileDisplay(Console(file=out, force_terminal=True, width=100), 3.0)
    with shown:
        shown.started("mdav")
        shown.finished("mdav", 2.0, 12.34)
        assert display._task(shown.progress, shown.task).completed == 2.0
        shown.started("utility")
        shown.finished("utility", 1.0, 0.5)
    text = out.getvalue()
    assert "compiled mdav in 12.3s" in text and "compiled utility in 0.5s" in text
