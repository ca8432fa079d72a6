"""Linked tables (sdcflow.tabular.linked): faces of the cover table are the linked
tables, a worked example where protecting them one by one discloses a sensitive cell
and protecting them together does not, and shared cells with one status everywhere."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sdcflow.data.text import text_column
from sdcflow.tabular import (
    FrequencyRule,
    apply_rules,
    audit,
    build_table,
    face,
    link,
    suppress_hypercube,
    suppress_optimal,
)
from sdcflow.tabular.linked import face_cells

# 15 people: region x sex is (4, 3 | 7), (1, 1 | 2), (4, 2 | 6), totals (9, 6 | 15);
# region x age (m, o, y) is (1, 1, 5 | 7), (0, 0, 2 | 2), (1, 3, 2 | 6), (2, 4, 9 | 15)
PEOPLE = pd.DataFrame(
    [("r1", "f", "m"), ("r1", "f", "y"), ("r1", "f", "y"), ("r1", "f", "y"),
     ("r1", "m", "o"), ("r1", "m", "y"), ("r1", "m", "y"), ("r2", "f", "y"),
     ("r2", "m", "y"), ("r3", "f", "o"), ("r3", "f", "o"), ("r3", "f", "y"),
     ("r3", "f", "y"), ("r3", "m", "m"), ("r3", "m", "o")],
    columns=["region", "sex", "age"])
FACES = [["region", "sex"], ["region", "age"]]


def statuses(table) -> dict:
    return {tuple(row[table.dims]): row["status"] for _, row in table.cells.iterrows()}


def test_faces_are_the_linked_tables():
    cover = link(build_table(PEOPLE, ["region", "sex", "age"]), FACES)
    # 4 x 3 x 4 cells; the faces 4 x 3 and 4 x 4 share the 4 region totals
    assert cover.n_cells == 48
    assert (cover.status == "unpublished").sum() == 48 - (12 + 16 - 4)
    for dims in (["region", "sex"], ["age", "region"]):
        direct = build_table(PEOPLE, dims)
        got = face(cover, dims)
        assert got.dims == dims
        assert got.cells[dims + ["freq", "value"]].equals(direct.cells[dims + ["freq", "value"]])
        assert (got.relations != direct.relations).nnz == 0
    with pytest.raises(ValueError, match="not in the table"):
        face_cells(cover, ["region", "income"])


def test_rules_leave_unpublished_cells_alone():
    # inner cover cells of 1 person (e.g. r2 x f x y) are never published: not primary
    cover = apply_rules(link(build_table(PEOPLE, ["region", "sex", "age"]), FACES),
                        [FrequencyRule(3)])
    assert cover.status[cover.index("r2", "f", "y")] == "unpublished"
    # the primary cells are those of the two tables: freq 1 or 2 (0 < f < 3)
    expected = sum(int(((t.cells["freq"] > 0) & (t.cells["freq"] < 3)).sum()) for t in (
        build_table(PEOPLE, ["region", "sex"]), build_table(PEOPLE, ["region", "age"])))
    shared_primary = 1  # r2's total (2) is in both tables
    assert (cover.status == "primary").sum() == expected - shared_primary


def test_protected_one_by_one_the_tables_disclose_a_cell_together():
    # found by a random search, checked by hand: alone, region x sex publishes r1's
    # total (7) and suppresses r3's (6); region x age suppresses r1's and publishes r3's.
    # Each passes its own audit, but together, r2's total is 15 - 7 - 6 = 2 exactly
    # (a primary cell: 2 people)
    rule = [FrequencyRule(3)]
    by_sex = suppress_optimal(apply_rules(build_table(PEOPLE, ["region", "sex"]), rule))
    by_age = suppress_optimal(apply_rules(build_table(PEOPLE, ["region", "age"]), rule))
    assert by_sex.audit.passed and by_age.audit.passed
    s, a = statuses(by_sex.table), statuses(by_age.table)
    assert s[("r1", "Total")] == "safe" and a[("r1", "Total")] != "safe"
    assert s[("r3", "Total")] != "safe" and a[("r3", "Total")] == "safe"
    # the intruder's view of both: a cell is known if either table publishes it
    cover = apply_rules(link(build_table(PEOPLE, ["region", "sex", "age"]), FACES), rule)
    # (the primary cells are primary in both; a secondary cell of one table stays
    # suppressed unless the other publishes it)
    status = cover.status.copy()
    for dims, known in ((FACES[0], s), (FACES[1], a)):
        for j in face_cells(cover, dims):
            if known[tuple(cover.cells.iloc[j][dims])] == "secondary" and status[j] == "safe":
                status[j] = "secondary"
    for dims, known in ((FACES[0], s), (FACES[1], a)):
        for j in face_cells(cover, dims):
            if known[tuple(cover.cells.iloc[j][dims])] == "safe":
                status[j] = "safe"
    cells = cover.cells.copy()
    cells["status"] = text_column(status, index=cells.index)
    joint = audit(cover.with_cells(cells))
    assert not joint.passed
    report = joint.report.set_index(["region", "sex", "age"])
    r2 = report.loc[("r2", "Total", "Total")]
    assert (r2["lower"], r2["upper"], r2["protected"]) == (2, 2, False)


@pytest.mark.parametrize("protect", [suppress_optimal, suppress_hypercube])
def test_protected_together_every_shared_cell_has_one_status(protect):
    cover = apply_rules(link(build_table(PEOPLE, ["region", "sex", "age"]), FACES),
                        [FrequencyRule(3)])
    res = protect(cover)
    assert res.audit.passed  # the joint audit: every relation of both tables at once
    by_sex, by_age = (face(res.table, dims) for dims in FACES)
    assert audit(by_sex).passed and audit(by_age).passed
    s, a = statuses(by_sex), statuses(by_age)
    for region in ("r1", "r2", "r3", "Total"):
        assert s[(region, "Total")] == a[(region, "Total")]
    assert "unpublished" not in set(s.values()) | set(a.values())
    # the counts are those of published cells
    assert res.info["suppressed"] == int(by_sex.suppressed.sum() + by_age.suppressed.sum()
                                         - sum(s[(r, "Total")] != "safe"
                                               for r in ("r1", "r2", "r3", "Total")))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.integers(12, 60))
def test_random_linked_tables_pass_the_joint_audit(seed, n):
    rng = np.random.default_rng(seed)
    people = pd.DataFrame({"region": rng.choice(["r1", "r2", "r3"], n),
                           "sex": rng.choice(["f", "m"], n, p=[0.7, 0.3]),
                           "age": rng.choice(["y", "m", "o"], n, p=[0.5, 0.35, 0.15])})
    cover = apply_rules(link(build_table(people, ["region", "sex", "age"]), FACES),
                        [FrequencyRule(3)])
    res = suppress_optimal(cover)
    assert res.audit.passed and res.info["audit_passed"]
    for dims in FACES:
        assert audit(face(res.table, dims)).passed
