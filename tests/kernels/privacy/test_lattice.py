"""The lattice search is optimal: brute force over every node of small lattices gives
the same least loss (the loss and the targets computed here again, independently, from
their published definitions), and hand-worked cases."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sdcflow.kernels.privacy.lattice import (
    average_risk,
    k_anonymity,
    l_diversity_target,
    search,
    t_closeness_target,
)


def brute_force(codes, maps, loss, limit, *, k=None, l_spec=None, t_spec=None, risk=None,
                weights=None, suppression="full", only=None):
    """Every node (``only``: that node alone): classes by dict, targets and loss from their
    definitions (suppressed records charged as ``suppression`` says: full, or as ARX's
    monotonic or non-monotonic metrics)."""
    n, m = codes.shape
    w = np.ones(m) if weights is None else np.asarray(weights, float)
    heights = [len(mp) - 1 for mp in maps]
    best = None
    nodes = [only] if only is not None else itertools.product(*(range(len(mp)) for mp in maps))
    for node in nodes:
        keys = [tuple(int(maps[j][node[j]][codes[i, j]]) for j in range(m)) for i in range(n)]
        members = {}
        for i, key in enumerate(keys):
            members.setdefault(key, []).append(i)
        bad = set()
        for key, rows in members.items():
            fails = k is not None and len(rows) < k
            if l_spec is not None:
                sens, l_value, kind = l_spec
                vals = [sens[i] for i in rows]
                if kind == "distinct":
                    fails |= len(set(vals)) < l_value
                else:
                    c = np.unique(vals, return_counts=True)[1] / len(vals)
                    fails |= math.exp(-(c * np.log(c)).sum()) < l_value - 1e-9
            if t_spec is not None:
                sens, t = t_spec
                p = np.bincount([sens[i] for i in rows], minlength=sens.max() + 1) / len(rows)
                q = np.bincount(sens, minlength=sens.max() + 1) / n
                fails |= 0.5 * np.abs(p - q).sum() > t + 1e-9
            if fails:
                bad.add(key)
        supp = [i for i in range(n) if keys[i] in bad]
        if len(supp) > math.floor(limit * n + 1e-9):
            continue
        kept = [key for key in members if key not in bad]
        if risk is not None and n - len(supp) and len(kept) / (n - len(supp)) > risk + 1e-12:
            continue
        s = len(supp)
        charged = [] if suppression == "arx_monotonic" else supp  # ARX's DM*: no charge
        c = len(charged)
        if loss == "precision":
            g = sum(w[j] * (node[j] / heights[j] if heights[j] else 0) for j in range(m))
            value = ((n - c) * g / w.sum() + c) / n
        elif loss == "discernibility":
            value = sum(len(r) ** 2 for key, r in members.items()
                        if key in kept or not charged) + c * n
        elif loss in ("average_class_size", "normalized_average_class_size"):
            value = n / (len(kept) + (s > 0))
            value /= (k or 1) if loss.startswith("normalized") else 1
        else:  # non-uniform entropy, in bits
            value = 0.0
            for i in range(n):
                for j in range(m):
                    orig = codes[:, j] == codes[i, j]
                    gen = maps[j][node[j]][codes[:, j]] == maps[j][node[j]][codes[i, j]]
                    if i in charged and suppression == "full":
                        share = orig.sum() / n
                    else:
                        share = orig.sum() / gen.sum()
                    value -= w[j] * math.log2(share)
                    if i in charged and suppression == "arx_non_monotonic":
                        # and its generalised value among the suppressed records
                        same = sum(gen[r] for r in charged)
                        value -= w[j] * math.log2(same / c)
        if best is None or value < best[0] - 1e-9:
            best = (value, node)
    return best


def interval_maps(d, levels):
    """A code 0..d-1 merged in pairs, then fours...: level l maps c to c >> l, the top
    level to 0."""
    out = [np.arange(d) >> lv for lv in range(levels - 1)]
    out.append(np.zeros(d, dtype=np.int64))
    return np.array(out)


def test_hand_worked_k_anonymity_without_suppression():
    # two variables, codes 0..3 each with levels: original, pairs, all. Records (a, b):
    # (0,0) (1,0) (2,1) (3,1) (0,2) (1,3). 2-anonymity: at (1,0) the pairs of a give
    # (0,0)x2, (1,1)x2, (0,2),(0,3): fails; at (0,1): b pairs give (0,0),(1,0),(2,0),(3,0),
    # (0,1),(1,1): fails; (1,1): (0,0)x2, (1,0)x2, (0,1)x2: 2-anonymous, precision loss
    # (1/2 + 1/2) / 2 = 0.5, the least among the nodes of sum 2 ((2,0) and (0,2) also meet
    # it? (2,0): a all -> b classes 0:2, 1:2, 2:1, 3:1 fails; (0,2): a all distinct fails).
    codes = np.array([[0, 0], [1, 0], [2, 1], [3, 1], [0, 2], [1, 3]])
    maps = [interval_maps(4, 3), interval_maps(4, 3)]
    result = search(codes, maps, [k_anonymity(2)], "precision")
    assert result.node == (1, 1)
    assert result.loss == pytest.approx(0.5)
    assert not result.suppressed.any()
    assert result.lattice_size == 9


def test_suppression_limit_lets_a_lower_node_win():
    # same data: at (1,0) the classes (0,2) and (0,3) hold one record each; suppressing
    # those 2 of 6 records (limit 1/3) makes (1,0) 2-anonymous, precision
    # ((6 - 2) * 0.25 + 2) / 6 = 0.5 -- a tie with (1,1), (1,0) comes first in the order;
    # discernibility: (1,0) costs 2*2 + 2*2 + 2 * 6 = 20 < (1,1)'s 3 * 4 = 12? no: 12 wins.
    codes = np.array([[0, 0], [1, 0], [2, 1], [3, 1], [0, 2], [1, 3]])
    maps = [interval_maps(4, 3), interval_maps(4, 3)]
    r = search(codes, maps, [k_anonymity(2)], "precision", suppression_limit=1 / 3)
    assert r.node == (1, 0) and r.loss == pytest.approx(0.5)
    assert r.suppressed.tolist() == [False, False, False, False, True, True]
    r = search(codes, maps, [k_anonymity(2)], "discernibility", suppression_limit=1 / 3)
    assert r.node == (1, 1) and r.loss == 12


def test_no_node_meets_the_targets():
    codes = np.array([[0], [1]])
    r = search(codes, [interval_maps(2, 2)], [k_anonymity(3)], "precision")
    assert r.node is None and r.checked == 2


def test_monotone_targets_prune_the_lattice():
    # 3 variables with 4 levels: 64 nodes; 2-anonymity is met low, so most nodes above
    # the first that meets it are skipped by the loss bound
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 8, size=(400, 3))
    maps = [interval_maps(8, 4)] * 3
    r = search(codes, maps, [k_anonymity(2)], "precision")
    assert r.lattice_size == 64 and r.checked < 64
    assert r.loss == pytest.approx(brute_force(codes, maps, "precision", 0, k=2)[0])


small = st.integers(2, 4).flatmap(lambda d: st.tuples(
    st.just(d), st.lists(st.tuples(*[st.integers(0, d - 1)] * 3), min_size=4, max_size=14)))


@given(data=small, m=st.integers(2, 3), levels=st.lists(st.integers(2, 4), min_size=3,
                                                         max_size=3),
       loss=st.sampled_from(["precision", "discernibility", "average_class_size",
                             "normalized_average_class_size", "non_uniform_entropy"]),
       k=st.integers(2, 3), limit=st.sampled_from([0.0, 0.1, 0.3]),
       weights=st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=3, max_size=3),
       suppression=st.sampled_from(["full", "arx_monotonic", "arx_non_monotonic"]))
def test_k_anonymity_search_is_optimal(data, m, levels, loss, k, limit, weights,
                                       suppression):
    d, rows = data
    codes = np.array(rows)[:, :m]
    maps = [interval_maps(d, levels[j]) for j in range(m)]
    w = weights[:m] if loss in ("precision", "non_uniform_entropy") else None
    r = search(codes, maps, [k_anonymity(k)], loss, suppression_limit=limit, weights=w, k=k,
               suppression_loss=suppression)
    expected = brute_force(codes, maps, loss, limit, k=k, weights=w, suppression=suppression)
    if expected is None:
        assert r.node is None
    else:
        assert r.loss == pytest.approx(expected[0])


@given(data=small, sens=st.lists(st.integers(0, 2), min_size=14, max_size=14),
       kind=st.sampled_from(["distinct", "entropy"]), limit=st.sampled_from([0.0, 0.25]),
       loss=st.sampled_from(["precision", "discernibility"]))
def test_l_diversity_search_is_optimal(data, sens, kind, limit, loss):
    d, rows = data
    codes = np.array(rows)[:, :2]
    s = np.array(sens[:len(codes)])
    maps = [interval_maps(d, 3), interval_maps(d, 3)]
    targets = [k_anonymity(2), l_diversity_target(s, 2, kind)]
    r = search(codes, maps, targets, loss, suppression_limit=limit)
    expected = brute_force(codes, maps, loss, limit, k=2, l_spec=(s, 2, kind))
    assert (r.node is None) == (expected is None)
    if expected is not None:
        assert r.loss == pytest.approx(expected[0])


@given(data=small, sens=st.lists(st.integers(0, 2), min_size=14, max_size=14),
       t=st.sampled_from([0.2, 0.4]), risk=st.sampled_from([None, 0.3, 0.5]),
       limit=st.sampled_from([0.0, 0.25]))
def test_t_closeness_and_average_risk_search_is_optimal(data, sens, t, risk, limit):
    d, rows = data
    codes = np.array(rows)[:, :2]
    s = np.array(sens[:len(codes)])
    maps = [interval_maps(d, 3), interval_maps(d, 3)]
    targets = [t_closeness_target(s, t, "equal")]
    if risk is not None:
        targets.append(average_risk(risk))
    r = search(codes, maps, targets, "discernibility", suppression_limit=limit)
    expected = brute_force(codes, maps, "discernibility", limit, t_spec=(s, t), risk=risk)
    assert (r.node is None) == (expected is None)
    if expected is not None:
        assert r.loss == pytest.approx(expected[0])


@given(data=small, k=st.integers(2, 4))
def test_flash_classification_agrees_with_every_node(data, k):
    # _classify checks some nodes and infers the rest by monotonicity: every node's
    # inferred status equals 2-anonymity computed on it directly
    from sdcflow.kernels.privacy.flash import _classify, _Lattice

    d, rows = data
    codes = np.array(rows)
    maps = [interval_maps(d, 3)] * 3
    shape = (3, 3, 3)

    def meets(node):
        keys = [tuple(int(maps[j][node[j]][c]) for j, c in enumerate(row)) for row in codes]
        return min(keys.count(key) for key in keys) >= k

    status = np.zeros(27, dtype=np.int8)
    checked = _classify(_Lattice(shape), status, meets)
    truth = [1 if meets(v) else -1 for v in itertools.product(range(3), repeat=3)]
    assert status.tolist() == truth
    assert checked < 27


def test_average_risk_alone_suppresses_nothing_and_is_searched_as_monotone():
    # the average risk is a release target: no class fails it, so a suppression limit
    # changes nothing -- the same node, loss and (Flash's pruning kept) nodes checked as
    # without a limit, where it is monotone (ARX's RiskBased 0 checked every node)
    rng = np.random.default_rng(5)
    codes = rng.integers(0, 8, size=(300, 3))
    maps = [interval_maps(8, 4)] * 3
    free = search(codes, maps, [average_risk(0.2)], "non_uniform_entropy")
    limited = search(codes, maps, [average_risk(0.2)], "non_uniform_entropy",
                     suppression_limit=0.1, suppression_loss="arx_non_monotonic")
    assert limited.node == free.node and limited.loss == free.loss
    assert not limited.suppressed.any()
    assert limited.checked == free.checked < 64
    expected = brute_force(codes[:40], maps, "non_uniform_entropy", 0.1, risk=0.2)
    small = search(codes[:40], maps, [average_risk(0.2)], "non_uniform_entropy",
                   suppression_limit=0.1)
    assert small.loss == pytest.approx(expected[0])


@given(st.lists(st.integers(1, 4), min_size=1, max_size=4), st.data())
def test_marks_reach_every_node_above_or_below_and_no_other(shape, data):
    # a node meeting monotone targets marks every node above it (each level >= its
    # own), one failing them every node below: the compiled walk against the
    # definition, over marks made in turn (a walk stops at nodes marked before)
    from sdcflow.kernels.privacy.flash import _Marks
    shape = tuple(shape)
    marks = _Marks(shape)
    expected = np.zeros(len(marks.grid), dtype=np.int8)
    for _ in range(3):
        start = data.draw(st.integers(0, len(marks.grid) - 1))
        value = data.draw(st.sampled_from([1, -1]))
        if marks.status[start] != 0:
            continue  # (the search marks only nodes not known yet)
        side = marks.grid >= marks.grid[start] if value > 0 else marks.grid <= marks.grid[start]
        expected[side.all(axis=1) & (expected == 0)] = value
        marks.mark(start, value)
        assert marks.status.tolist() == expected.tolist()


@given(data=small, sens=st.lists(st.integers(0, 2), min_size=14, max_size=14),
       t=st.sampled_from([None, 0.2, 0.4]), limit=st.sampled_from([0.0, 0.25, 0.4]),
       loss=st.sampled_from(["precision", "discernibility", "average_class_size"]))
def test_practical_monotonicity_returns_a_node_meeting_the_targets(data, sens, t, limit,
                                                                    loss):
    # ARX's option: the targets assumed monotone (entropy l-diversity and t-closeness
    # with suppression are not): the node returned meets them (checked here from their
    # definitions) and costs at least the optimum; with monotone targets, the optimum
    d, rows = data
    codes = np.array(rows)[:, :2]
    s = np.array(sens[:len(codes)])
    maps = [interval_maps(d, 3), interval_maps(d, 3)]
    if t is None:
        targets, spec = [k_anonymity(2), l_diversity_target(s, 2, "entropy")], {
            "k": 2, "l_spec": (s, 2, "entropy")}
    else:
        targets, spec = [t_closeness_target(s, t, "equal")], {"t_spec": (s, t)}
    exact = search(codes, maps, targets, loss, suppression_limit=limit)
    assumed = search(codes, maps, targets, loss, suppression_limit=limit,
                     practical_monotonicity=True)
    assert (assumed.node is None) == (exact.node is None)
    if assumed.node is not None:
        met = brute_force(codes, maps, loss, limit, only=assumed.node, **spec)
        assert met is not None and assumed.loss == pytest.approx(met[0])
        assert assumed.loss >= exact.loss - 1e-9
        if limit == 0:  # (monotone without suppression: nothing assumed)
            assert (assumed.node, assumed.loss) == (exact.node, exact.loss)


def test_practical_monotonicity_none_found_is_proved_by_the_top_node():
    # entropy 5-diversity of a variable with 3 values: no class can meet it (it needs at
    # least 5 distinct values, the monotone part), so no node does. With the option, the
    # search finds none; the top node fails the monotone part (distinct 5-diversity), so
    # "none" is proved without the exact search (which would add its own checks to the
    # assumed search's): the top node checked after the assumed search, the same answer
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 8, (60, 2))
    maps = [interval_maps(8, 3), interval_maps(8, 3)]
    sens = rng.integers(0, 3, 60)
    targets = [l_diversity_target(sens, 5, "entropy")]
    exact = search(codes, maps, targets, "precision", suppression_limit=0.1)
    assumed = search(codes, maps, targets, "precision", suppression_limit=0.1,
                     practical_monotonicity=True)
    assert exact.node is None and assumed.node is None
    assert assumed.checked <= exact.checked + 1
    # the same with a target some node meets: the exact search decides as before
    targets = [l_diversity_target(sens, 2, "entropy")]
    exact = search(codes, maps, targets, "precision", suppression_limit=0.1)
    assumed = search(codes, maps, targets, "precision", suppression_limit=0.1,
                     practical_monotonicity=True)
    assert exact.node is not None and assumed.node is not None


@given(data=small, sens=st.lists(st.integers(0, 2), min_size=14, max_size=14),
       kind=st.sampled_from(["l", "t"]), limit=st.sampled_from([0.0, 0.25]),
       loss=st.sampled_from(["precision", "discernibility", "non_uniform_entropy"]),
       practical=st.booleans())
def test_the_table_class_sizes_come_from_changes_nothing(data, sens, kind, limit, loss,
                                                         practical):
    # targets on class sizes and on records: class sizes from the keys' table first, or
    # from the table with the values at once (lattice._TableChoice) -- the same node,
    # loss, suppressed records and nodes checked
    from sdcflow.kernels.privacy import lattice
    d, rows = data
    codes = np.array(rows)
    s = np.array(sens[:len(codes)])
    maps = [interval_maps(d, 3)] * 3
    second = (l_diversity_target(s, 2, "entropy") if kind == "l"
              else t_closeness_target(s, 0.3, "equal"))
    results = []
    with pytest.MonkeyPatch.context() as patch:
        for trial in (0, 10**9):  # (values first from the start; keys first always)
            patch.setattr(lattice, "CHOICE_TRIAL", trial)
            r = search(codes, maps, [k_anonymity(2), second], loss,
                       suppression_limit=limit, practical_monotonicity=practical)
            results.append((r.node, r.loss, r.checked,
                            None if r.suppressed is None else r.suppressed.tolist()))
    assert results[0] == results[1]
