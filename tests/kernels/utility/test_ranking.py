"""Ranking by score and the Pareto front (sdcflow.kernels.utility.ranking)."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from sdcflow.kernels.utility.ranking import competition_ranks, pareto_front


def test_competition_ranks_by_hand():
    # smallest first; ties share the best rank of their group, the next rank is skipped
    assert competition_ranks(np.array([3.0, 1.0, 3.0, 2.0])).tolist() == [3, 1, 3, 2]
    assert competition_ranks(np.array([2.0, 2.0, 5.0])).tolist() == [1, 1, 3]
    assert competition_ranks(np.array([33.0, 41.44])).tolist() == [1, 2]


def test_pareto_front_by_hand():
    # (IL, DR): (1, 5) and (5, 1) are each best on one axis; (4, 4) is beaten by neither
    # on both; (5, 5) is beaten by (4, 4); (1, 5) twice: equal points are both kept
    il = np.array([1.0, 5.0, 4.0, 5.0, 1.0])
    dr = np.array([5.0, 1.0, 4.0, 5.0, 5.0])
    assert pareto_front(il, dr).tolist() == [True, True, True, False, True]


@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=1, max_size=12))
def test_the_front_is_never_empty_and_holds_the_best_score(points):
    il, dr = (np.array(v, dtype=float) for v in zip(*points))
    front = pareto_front(il, dr)
    assert front.any()
    # a point of least IL + DR is never dominated
    assert front[np.argmin(il + dr)]
    ranks = competition_ranks(il + dr)
    assert ranks.min() == 1 and (ranks <= len(points)).all()
