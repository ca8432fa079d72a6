"""Original and protected files paired by position."""

import numpy as np
import pytest

from sdcflow.kernels.linkage.paired import paired_files


def test_paired_files():
    original, protected = paired_files([[1, 2]], np.array([[3.0, 4.0]]))
    assert original.dtype == float and original.tolist() == [[1.0, 2.0]]
    assert protected.tolist() == [[3.0, 4.0]]
    with pytest.raises(ValueError, match="has 1 records and the original 2: records are "
                                         "linked by position"):
        paired_files(np.zeros((2, 1)), np.zeros((1, 1)))
