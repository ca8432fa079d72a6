"""A generator keyed by the data it draws for as well as by the step's generator.

Every draw of a run comes from the recipe's seed. A draw whose outcome is published and
whose other inputs are public is a test for the seed: trying seeds 0, 1, 2, ... until
the draw reproduces what was published finds it (a small seed in milliseconds), and the
seed regenerates every other draw of the run. A random relabelling of a graph's nodes
is such a draw: its only other input is the number of nodes, and an intruder who knows
a few of the original edges recognises the right seed. Keyed also by the data it
relabels, the draw can only be reproduced by someone who holds those data already.
"""

from __future__ import annotations

import hashlib

import numpy as np


def keyed_generator(rng: np.random.Generator, *parts: bytes) -> np.random.Generator:
    """A new generator from four words of ``rng`` and the sha256 of ``parts`` (the data
    the draw is for, as bytes): the same for the same seed and data, and not
    reproducible from the seed alone."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "little"))
        digest.update(part)
    words = [int(w) for w in rng.integers(0, 2**32, size=4, dtype=np.uint64)]
    words += [int.from_bytes(digest.digest()[i:i + 4], "little") for i in range(0, 32, 4)]
    return np.random.default_rng(np.random.SeedSequence(words))
