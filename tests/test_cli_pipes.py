"""The command line in a pipeline: a reader that stops early is not an error."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _closed_early(*command: str) -> subprocess.CompletedProcess:
    """Run ``python -m sdcflow COMMAND`` with a reader that closes the pipe before the
    command writes (as ``sdcflow methods | head -1`` when head has its line before sdcflow
    is done; closing at once makes the broken pipe certain, not a race)."""
    proc = subprocess.Popen([sys.executable, "-m", "sdcflow", *command], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()
    err = proc.stderr.read()
    proc.stderr.close()
    return subprocess.CompletedProcess(proc.args, proc.wait(), b"", err)


def test_methods_piped_into_head_exits_quietly():
    # the write to the closed pipe fails with EPIPE: before the fix this printed
    # "sdcflow: internal error: BrokenPipeError" and exited 4
    result = _closed_early("methods")
    assert result.stderr.decode() == ""
    assert result.returncode == 0


def test_schema_piped_into_head_exits_quietly():
    result = _closed_early("schema")
    assert result.stderr.decode() == ""
    assert result.returncode == 0
