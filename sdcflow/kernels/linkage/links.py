"""The links found by record linkage between a protected file and the original it was made
from (Torra, "Data privacy: supervised approaches for disclosure risk assessment", 2016,
"Disclosure risk assessment": re-identification by record linkage).

Records are aligned by position: protected record ``i`` was made from original record ``i``,
so a link of protected record ``i`` is *correct* when it goes to original record ``i``.

Ties are kept, not broken: a link reports how many originals share the best distance (or
weight) and whether the record's own original is one of them; its *credit* is
``1 / ties`` when it is (the expected number of correct links when ties are broken at
random) and 0 otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Links:
    """The links of the protected records: ``ties[i]`` originals share the best distance
    (weight) for protected record ``i`` (0: not linked, because of a missing value);
    ``correct[i]``: original ``i`` is one of them; ``linked[i]``: the lowest-numbered of them
    (-1 when not linked, or unknown: probabilistic linkage counts the tied originals
    without listing them)."""

    linked: np.ndarray
    ties: np.ndarray
    correct: np.ndarray
    info: dict = field(default_factory=dict)

    @property
    def credit(self) -> np.ndarray:
        """1 / ties for a correct link, else 0 (expected correctness under random
        tie-breaking)."""
        out = np.zeros(len(self.ties))
        ok = self.correct & (self.ties > 0)
        out[ok] = 1.0 / self.ties[ok]
        return out
