"""Background computations of the workbench (sdcflow.ui.running.jobs)."""

from __future__ import annotations

import threading

from sdcflow.errors import SdcflowError
from sdcflow.ui.running.jobs import Jobs


def test_a_key_runs_once_and_keeps_its_result():
    jobs, calls, gate = Jobs(), [], threading.Event()

    def work(job):
        calls.append(job.key)
        job.note("half way")
        gate.wait(5)
        return 42

    first = jobs.start("a", work)
    assert jobs.start("a", work) is first  # running: the same job
    gate.set()
    assert first.done.wait(5)
    assert (first.result, first.error, first.lines) == (42, None, ["half way"])
    assert jobs.start("a", work) is first and calls == ["a"]


def test_errors_become_messages_and_old_results_go():
    jobs = Jobs(keep=2)

    def fail(job):
        raise SdcflowError("the data file is missing")

    job = jobs.start("bad", fail)
    assert job.done.wait(5) and job.error == "the data file is missing" and job.result is None
    bug = jobs.start("bug", lambda job: 1 / 0)
    assert bug.done.wait(5) and bug.error.startswith("internal error: ZeroDivisionError")
    for key in ("c", "d"):
        assert jobs.start(key, lambda job, key=key: key).done.wait(5)
    jobs.start("e", lambda job: None).done.wait(5)
    assert jobs.get("bad") is None  # only the last finished ones are kept
    assert jobs.get("d") is not None
