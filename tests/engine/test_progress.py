"""What a run tells as it goes (sdcflow.engine.progress): the events an observer hears."""

import threading

import pytest

from sdcflow import run
from sdcflow.engine.progress import (
    LineObserver,
    RunObserver,
    as_observer,
    reporting_step,
)
from sdcflow.engine.records import StepRecord
from sdcflow.plugins.progress import step_progress


class Recorder(RunObserver):
    def __init__(self):
        self.events = []
        self.lock = threading.Lock()

    def loading(self, what, fraction):
        self.events.append(("loading", what, fraction))

    def steps_started(self, total):
        self.events.append(("steps", total))

    def step_started(self, node, plugin):
        with self.lock:  # (called on the threads that run the steps)
            self.events.append(("started", node, plugin))

    def step_progress(self, node, fraction):
        with self.lock:
            self.events.append(("progress", node, fraction))

    def step_finished(self, node, record):
        self.events.append(("finished", node, record.plugin))

    def writing(self):
        self.events.append(("writing",))


def test_a_run_reports_loading_every_step_and_writing(quickstart):
    seen = Recorder()
    result = run(quickstart, quickstart.parent / "out", progress=seen)
    kinds = [e[0] for e in seen.events]
    loading = [e for e in seen.events if e[0] == "loading"]
    assert {e[1] for e in loading} == {"testdata"}
    fractions = [e[2] for e in loading]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and len(fractions) > 2
    # loading, then the steps, then writing
    assert kinds.index("steps") > max(i for i, k in enumerate(kinds) if k == "loading")
    assert kinds[-1] == "writing" and kinds.count("writing") == 1
    assert ("steps", len(result.steps)) in seen.events
    nodes = [s.node for s in result.steps]
    started = [e[1] for e in seen.events if e[0] == "started"]
    finished = [e[1] for e in seen.events if e[0] == "finished"]
    assert sorted(started) == sorted(finished) == sorted(nodes)
    for node in nodes:  # each step starts before it finishes
        assert seen.events.index(("started", node, _plugin(result, node))) < \
            seen.events.index(("finished", node, _plugin(result, node)))


def _plugin(result, node):
    return next(s.plugin for s in result.steps if s.node == node)


def test_nothing_written_means_no_writing_event(quickstart):
    seen = Recorder()
    run(quickstart, write=False, progress=seen)
    assert ("writing",) not in seen.events


def test_a_function_of_a_line_gets_one_line_per_finished_step(quickstart):
    lines = []
    result = run(quickstart, quickstart.parent / "out", use_cache=False, progress=lines.append)
    total = len(result.steps)
    assert len(lines) == total and lines[-1].startswith(f"[{total}/{total}] ")
    assert any(line.startswith("[") and " (k_anonymity) " in line and line.endswith("s")
               for line in lines)
    again = []
    run(quickstart, quickstart.parent / "out", progress=again.append)
    assert all(line.endswith(" cached") for line in again)


def test_line_observer_format():
    record = StepRecord("risk", "measure", "k_anonymity", "1", {}, {}, "f", "h", 0.0123, False)
    lines = []
    observer = LineObserver(lines.append)
    observer.steps_started(8)
    for _ in range(7):
        observer.step_finished("x", StepRecord("x", "method", "p", "1", {}, {}, "f", "h", 1.0,
                                               True))
    observer.step_finished("risk", record)
    assert lines[0] == "[1/8] x (p) cached"
    assert lines[-1] == "[8/8] risk (k_anonymity) 0.01s"


def test_as_observer():
    assert type(as_observer(None)) is RunObserver
    seen = Recorder()
    assert as_observer(seen) is seen
    assert isinstance(as_observer(print), LineObserver)
    with pytest.raises(TypeError):
        as_observer(3)


def test_a_step_reports_its_progress_only_forwards_and_only_inside():
    seen = Recorder()
    assert step_progress() is None
    with reporting_step(seen, "micro"):
        report = step_progress()
        for fraction in (0.1, 0.5, 0.4, 0.5, 2.0):
            report(fraction)
    assert step_progress() is None
    assert seen.events == [("progress", "micro", 0.1), ("progress", "micro", 0.5),
                           ("progress", "micro", 1.0)]


def test_no_reporting_function_when_nobody_listens():
    with reporting_step(RunObserver(), "micro"):
        assert step_progress() is None
    with reporting_step(LineObserver(print), "micro"):
        assert step_progress() is None


def test_each_thread_reports_for_its_own_step():
    seen = Recorder()
    got = {}

    def step(node):
        with reporting_step(seen, node):
            got[node] = step_progress()
            got[node](0.5)

    threads = [threading.Thread(target=step, args=(n,)) for n in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(e for e in seen.events) == [("progress", "a", 0.5), ("progress", "b", 0.5)]
    assert step_progress() is None


def test_microaggregation_reports_its_progress_within_the_step(write_recipe, tmp_path,
                                                               monkeypatch):
    from sdcflow.kernels import watch

    monkeypatch.setattr(watch, "EVERY", 0.001)
    path = write_recipe("""
        sdcflow: 1
        name: micro
        seed: 4
        data: {builtin: testdata}
        variables:
          sex: {role: key, type: categorical}
          income: {role: numeric, type: continuous}
          expend: {role: numeric, type: continuous}
        steps:
          - {id: micro, method: microaggregation, params: {k: 3, variables: [income, expend]}}
          - {id: strata, method: microaggregation,
             params: {k: 3, variables: [income], strata: [sex]}}
    """)
    seen = Recorder()
    plain = run(path, tmp_path / "a", use_cache=False)
    watched = run(path, tmp_path / "b", use_cache=False, progress=seen)
    assert watched.manifest == plain.manifest  # reporting changes nothing
    for node in ("micro", "strata"):
        fractions = [e[2] for e in seen.events if e[:2] == ("progress", node)]
        assert fractions and fractions == sorted(fractions) and fractions[-1] == 1.0
