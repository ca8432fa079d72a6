"""Watching a compiled loop (sdcflow.kernels.watch) and MDAV's progress."""

import threading

import numpy as np

from sdcflow.kernels import watch
from sdcflow.kernels.perturbative.microaggregation.mdav import mdav


def test_watched_reports_the_count_and_returns_the_result(monkeypatch):
    monkeypatch.setattr(watch, "EVERY", 0.001)
    count = watch.counter()
    seen = []
    release = threading.Event()

    def work():
        for i in range(1, 5):
            count[0] = i
            release.wait(0.01)
        return "done"

    assert watch.watched(work, count, 4, seen.append) == "done"
    assert seen[-1] == 1.0 and seen == sorted(seen) and all(0 <= f <= 1 for f in seen)
    assert len(seen) > 2
    assert watch.watched(lambda: 3, watch.counter(), 0, None) == 3


def test_mdav_reports_its_progress_and_groups_the_same(monkeypatch):
    monkeypatch.setattr(watch, "EVERY", 0.001)
    X = np.random.default_rng(5).normal(size=(60_000, 3)).round(1)  # with ties
    seen = []
    labels = mdav(X, 3, progress=seen.append)
    assert np.array_equal(labels, mdav(X, 3))
    assert seen[-1] == 1.0 and seen == sorted(seen)
