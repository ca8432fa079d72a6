"""The rank window of ``rank_swap`` against sdcMicro's ``rankSwap(P = ...)``, whose C++ code
(sdcMicro 5.8.1, src/RankSwapping.h) takes the partner of rank j among the ranks k with
``j < k < min(N, int(j + N * P))``: P is a fraction there (not the percentage its help page
describes), and the window stops one rank short. docs/sdcmicro.md maps its P = 0.05 to
p: 5 on that."""

import pytest

from sdcflow.kernels.perturbative.swapping.rank_swap.partners import rank_window


def sdcmicro_largest_distance(n: int, P: float, j: int = 0) -> int:
    """The largest rank distance sdcMicro's loop allows from rank j (far from the end)."""
    r = min(n + j, int(j + n * P))
    return r - 1 - j


@pytest.mark.parametrize("n", [100, 1000, 4580, 12345])
def test_sdcmicro_fraction_p_is_sdcflow_percent_p_one_rank_narrower(n):
    assert sdcmicro_largest_distance(n, 0.05) == rank_window(n, 5) - 1
    # sdcMicro's P = 5, read as percent by its help page, reaches every record
    assert sdcmicro_largest_distance(n, 5) >= n - 1
