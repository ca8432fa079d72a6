"""The Run page's job: what it says of a run that was cancelled, or ended first."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from sdcflow.ui.running.runner import RunJob


def _job(code: str) -> RunJob:
    process = subprocess.Popen([sys.executable, "-c", code])
    job = RunJob(Path("r.yaml"), [], process)
    return job


def _finish(job: RunJob) -> None:
    job.process.wait(30)
    job.ended = time.monotonic()


def test_a_run_that_ended_before_the_cancel_keeps_its_outcome():
    job = _job("pass")
    _finish(job)
    job.cancelled = True  # asked for after the run had released
    assert job.outcome() == "released"


def test_a_run_that_ignores_sigint_is_terminated_at_once():
    # a server started in the background ignores SIGINT, and so does the run it starts:
    # asking it to stop as Ctrl-C does would wait for nothing
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        job = _job("import time; time.sleep(60)")
    finally:
        signal.signal(signal.SIGINT, previous)
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        started = time.monotonic()
        job.cancel()
    finally:
        signal.signal(signal.SIGINT, previous)
    _finish(job)
    assert time.monotonic() - started < 5
    assert job.process.returncode == -signal.SIGTERM and job.outcome() == "cancelled"


def test_a_run_that_hears_sigint_stops_as_at_ctrl_c():
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        job = _job("import time\ntry:\n    time.sleep(60)\nexcept KeyboardInterrupt:\n"
                   "    raise SystemExit(130)")
        time.sleep(1)  # (the interpreter has its handler)
        job.cancel()
    finally:
        signal.signal(signal.SIGINT, previous)
    _finish(job)
    assert job.process.returncode == 130 and job.outcome() == "cancelled"
