"""The step scheduler (sdcflow.engine.scheduler): independent steps at the same time,
dependencies respected, failures reported as a single thread would, and runs on any
number of threads giving the same bytes."""

import threading
from dataclasses import dataclass, field

import pytest
from helpers import output_files

from sdcflow import run
from sdcflow.engine.scheduler import run_plan


@dataclass
class Step:
    node: str
    deps: list = field(default_factory=list)


@dataclass
class FakePlan:
    steps: list


def test_independent_steps_run_at_the_same_time_and_dependencies_wait():
    # a and b are independent: each waits until the other has started (a barrier of 2),
    # which only two threads at once can pass; c needs both
    barrier = threading.Barrier(2, timeout=10)
    started = []

    def step(ps):
        started.append(ps.node)
        if ps.node in ("a", "b"):
            barrier.wait()
        return ps.node.upper()

    plan = FakePlan([Step("a"), Step("b"), Step("c", ["a", "b"])])
    finished = []
    results = run_plan(plan, step, workers=2, done=lambda ps, r: finished.append(ps.node))
    assert results == {"a": "A", "b": "B", "c": "C"}
    assert started[-1] == "c" and finished[-1] == "c"


def test_one_worker_runs_in_plan_order():
    seen = []
    plan = FakePlan([Step("a"), Step("b"), Step("c", ["a"])])
    run_plan(plan, lambda ps: seen.append(ps.node), workers=1)
    assert seen == ["a", "b", "c"]


def test_the_earliest_failure_in_plan_order_is_raised():
    def step(ps):
        if ps.node == "b":
            raise ValueError("b failed")
        if ps.node == "c":
            raise KeyError("c failed")
        return 1

    plan = FakePlan([Step("a"), Step("b"), Step("c")])
    for workers in (1, 2, 3):
        with pytest.raises(ValueError, match="b failed"):
            run_plan(plan, step, workers=workers)


def test_steps_after_a_failure_do_not_start():
    ran = []

    def step(ps):
        ran.append(ps.node)
        if ps.node == "a":
            raise RuntimeError("a failed")

    plan = FakePlan([Step("a"), Step("b", ["a"])])
    with pytest.raises(RuntimeError):
        run_plan(plan, step, workers=2)
    assert ran == ["a"]


def test_any_number_of_threads_gives_the_same_outputs(recipe, tmp_path, monkeypatch):
    outputs = []
    for threads in ("1", "2", "4"):
        monkeypatch.setenv("SDCFLOW_THREADS", threads)
        result = run(recipe, tmp_path / f"out{threads}", use_cache=False)
        outputs.append(output_files(result.out_dir))
        assert list(result.measures) == ["risk_original", "risk_age", "risk", "edits"]
    assert outputs[0] == outputs[1] == outputs[2]
