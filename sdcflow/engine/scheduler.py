"""Running the steps of a plan on several threads: a step starts as soon as every step
it depends on has finished, so independent steps (different variables, different
measures) run at the same time.

Results never depend on it: every step has its own random generator, reads what its
dependencies left and writes under its own node, and the engine lists steps, measures
and notes in plan order afterwards. When steps fail, the failure reported is the one of
the earliest failing step in plan order, as a run on one thread would report it.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

from ..recipe.plan import Plan, PlannedStep


def run_plan(plan: Plan, run_step: Callable[[PlannedStep], object], workers: int,
             done: Callable[[PlannedStep, object], None] | None = None) -> dict[str, object]:
    """``run_step(ps)`` for every step of ``plan``, at most ``workers`` at a time, each
    after its dependencies; ``done(ps, result)`` is called (on this thread) as each
    finishes. Returns node -> result; raises the first failure in plan order."""
    steps = plan.steps
    if workers <= 1 or len(steps) < 2:
        results = {}
        for ps in steps:
            results[ps.node] = run_step(ps)
            if done:
                done(ps, results[ps.node])
        return results
    order = {ps.node: i for i, ps in enumerate(steps)}
    waiting = {ps.node: {d for d in ps.deps if d in order} for ps in steps}
    dependants: dict[str, list[str]] = {ps.node: [] for ps in steps}
    for node, deps in waiting.items():
        for d in deps:
            dependants[d].append(node)
    by_node = {ps.node: ps for ps in steps}
    results: dict[str, object] = {}
    failures: dict[str, BaseException] = {}
    running: dict[Future, str] = {}
    ready = sorted((n for n, deps in waiting.items() if not deps), key=order.get)
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="sdcflow-step") as pool:
        while ready or running:
            while ready and len(running) < workers and not failures:
                node = ready.pop(0)
                running[pool.submit(run_step, by_node[node])] = node
            if not running:
                break
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in sorted(finished, key=lambda f: order[running[f]]):
                node = running.pop(future)
                error = future.exception()
                if error is not None:
                    failures[node] = error
                    continue
                results[node] = future.result()
                if done:
                    done(by_node[node], results[node])
                for other in dependants[node]:
                    waiting[other].discard(node)
                    if not waiting[other]:
                        ready.append(other)
                ready.sort(key=order.get)
    if failures:
        raise failures[min(failures, key=order.get)]
    return results
