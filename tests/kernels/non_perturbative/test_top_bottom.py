"""Top and bottom coding kernel (sdcflow.kernels.non_perturbative.top_bottom)."""

import numpy as np

from sdcflow.kernels.non_perturbative.top_bottom import code_tail

# sdcMicro tests/testthat/test_topBotCoding.R: Var1 from set.seed(3); runif(30, 1, 100)
VAR1 = np.array([17.63611, 80.94412, 39.10929, 33.44570, 60.60797, 60.83501, 13.33871, 30.16549,
                 58.18338, 63.46695])


def test_sdcmicro_top_coding_example():
    out, count, value = code_tail(VAR1, 35, upper=True, replacement=0)
    np.testing.assert_allclose(out, [17.63611, 0, 0, 33.44570, 0, 0, 13.33871, 30.16549, 0, 0])
    assert count == 6 and value == 0


def test_sdcmicro_bottom_coding_example_with_missing():
    x = VAR1.copy()
    x[[0, 1, 6]] = np.nan
    out, count, _ = code_tail(x, 35, upper=False, replacement=0)
    np.testing.assert_allclose(out, [np.nan, np.nan, 39.10929, 0, 60.60797, 60.83501, np.nan, 0,
                                     58.18338, 63.46695])
    assert count == 2


def test_tail_mean_and_threshold():
    x = np.array([1.0, 2, 3, 10, 20])
    assert code_tail(x, 5, True, "mean")[0].tolist() == [1, 2, 3, 15, 15]
    assert code_tail(x, 5, True, "threshold")[0].tolist() == [1, 2, 3, 5, 5]
    assert code_tail(x, 2, False, "mean")[0].tolist() == [1, 2, 3, 10, 20]
    assert code_tail(x, 100, True, "mean")[1] == 0
