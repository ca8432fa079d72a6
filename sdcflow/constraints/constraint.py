"""Edit constraints (Torra, "Towards knowledge intensive data privacy", 2011, "A
classification of the constraints").

Five kinds are recognised from the recipe, as in Torra's classification:

* ``linear``      ``net + tax == gross``                 (EC-LC1)
* ``nonlinear``   ``price * (1 + vat) == retail``        (EC-NLC1)
* ``range``       ``0 <= age <= 125``                    (EC-PV)
* ``inequality``  ``harvested <= planted``               (EC-GV3)
* ``conditional`` ``if: sex == 'male'``, ``then: pregnancies == 0``  (EC-GV1)
* ``domain``      the values must exist in the original data.

A record with a missing value in a variable of the constraint is not checked (it is
counted as ``not_checked``): missing values are neither violations nor compliance. A
record where the constraint has no value (a division by zero, an overflow of the
arithmetic: see :mod:`sdcflow.constraints.columns`) cannot satisfy it: it counts as a
violation, and ``undefined`` and ``reason`` say how many and why.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .aggregates import aggregate_values, check_aggregates
from .columns import RecordsRefused, evaluate, require_64_bit
from .expr import Expr, ExprError, degree, parse, record_names

_SHOW = 5


@dataclass
class Constraint:
    """One edit constraint as declared in the recipe."""

    id: str
    kind: str
    expr: Expr | None = None
    condition: Expr | None = None
    then: Expr | None = None
    domain: tuple[str, ...] = ()
    tolerance: float = 0.0
    enforce: str = "error"
    variables: set[str] = field(default_factory=set)

    @classmethod
    def from_recipe(cls, spec: Mapping) -> Constraint:
        """Build from a recipe entry; raises :class:`ExprError` (with the recipe field in
        ``field``) when an expression does not parse."""
        common = {"id": spec["id"], "tolerance": float(spec.get("tolerance", 0.0)),
                  "enforce": spec.get("enforce", "error")}
        if "domain" in spec:
            names = (spec["domain"],) if isinstance(spec["domain"], str) else tuple(spec["domain"])
            return cls(kind="domain", domain=names, variables=set(names), **common)
        if "expr" in spec:
            expr = _parse_field(spec, "expr")
            return cls(kind=classify(expr), expr=expr, variables=set(expr.names), **common)
        cond, then = _parse_field(spec, "if"), _parse_field(spec, "then")
        return cls(kind="conditional", condition=cond, then=then,
                   variables=set(cond.names) | set(then.names), **common)

    def violations(self, frame: pd.DataFrame, original: pd.DataFrame | None = None) -> dict:
        """Check the records of ``frame``: counts and the first violating records (1-based).

        ``original`` is needed for ``domain`` constraints (the values must exist there);
        without it they are checked against ``frame`` itself (always satisfied)."""
        missing = np.zeros(len(frame), dtype=bool)
        for name in sorted(self.record_variables()):
            missing |= frame[name].isna().to_numpy()
        if self.kind == "domain":
            ref = frame if original is None else original
            bad = np.zeros(len(frame), dtype=bool)
            for name in self.domain:
                allowed = ref[name].dropna().unique()
                bad |= ~frame[name].isin(allowed).to_numpy()
        else:
            try:
                bad, undefined, reason = self._evaluate(frame, missing)
            except ExprError as exc:
                # e.g. a range on age after age was recoded into classes (text)
                return {"kind": self.kind, "applicable": False, "reason": str(exc),
                        "violations": 0, "not_checked": len(frame), "first_records": []}
        bad &= ~missing
        rows = np.flatnonzero(bad)
        result = {
            "kind": self.kind,
            "applicable": True,
            "violations": int(bad.sum()),
            "not_checked": int(missing.sum()),
            "first_records": [int(r) + 1 for r in rows[:_SHOW]],
        }
        if self.kind != "domain" and undefined.any():
            result["undefined"] = int((undefined & ~missing).sum())
            result["reason"] = reason
        return result

    def record_variables(self) -> set[str]:
        """The variables read record by record (those only aggregated, as ``income`` in
        ``wage < mean(income)``, are not): a record missing one of them is not checked."""
        if self.kind == "domain":
            return set(self.variables)
        exprs = [self.condition, self.then] if self.kind == "conditional" else [self.expr]
        return set().union(*(record_names(e) for e in exprs))

    def condition_holds(self, frame: pd.DataFrame) -> np.ndarray:
        """Per record, whether the ``if`` of a conditional constraint holds: false where
        a variable of the condition is missing or the condition has no value."""
        holds, _ = condition_outcome(self.condition, frame, self.tolerance)
        return holds

    def _evaluate(self, frame: pd.DataFrame, missing: np.ndarray):
        """The records that violate the constraint, among them those where it has no value
        (a division by zero, an overflow: they cannot satisfy it), and why the first of
        these has none. Each refused operation adds its records to the skipped ones and
        the evaluation is repeated, at most once per node of the expressions."""
        env = {name: column_values(frame[name]) for name in self.variables}
        n = len(frame)
        undefined = np.zeros(n, dtype=bool)
        reason = None
        exprs = [self.condition, self.then] if self.kind == "conditional" else [self.expr]
        # one value per data set, over every record with the column present
        aggregates = {node: value for e in exprs
                      for node, value in aggregate_values(e, frame).items()}
        for _ in range(sum(len(list(ast.walk(e.tree))) for e in exprs) + 1):
            try:
                skip = missing | undefined
                if self.kind == "conditional":
                    applies = np.asarray(evaluate(
                        self.condition, env, self.tolerance, skip=skip, aggregates=aggregates), dtype=bool)
                    # the consequence is only evaluated where the condition applies
                    holds = np.asarray(evaluate(
                        self.then, env, self.tolerance, skip=skip | ~applies, aggregates=aggregates),
                        dtype=bool)
                    bad = applies & ~holds
                else:
                    bad = ~np.asarray(evaluate(self.expr, env, self.tolerance, skip=skip,
                                              aggregates=aggregates), dtype=bool)
                bad = np.broadcast_to(bad, (n,)) | undefined
                return bad, undefined, reason
            except RecordsRefused as exc:
                undefined |= np.broadcast_to(exc.records, (n,))
                reason = reason or str(exc)
        raise ExprError(reason or "the constraint cannot be evaluated")


def condition_outcome(condition: Expr, frame: pd.DataFrame,
                      tolerance: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Per record of ``frame``, whether ``condition`` holds, and whether it is undecided:
    a variable it reads record by record is missing, or it has no value there (a division
    by zero, an overflow: see :mod:`sdcflow.constraints.columns`). An undecided record
    does not hold. Each refused operation adds its records to the undecided ones and the
    evaluation is repeated, at most once per node of the expression."""
    n = len(frame)
    missing = np.zeros(n, dtype=bool)
    for name in sorted(record_names(condition)):
        missing |= frame[name].isna().to_numpy()
    env = {name: column_values(frame[name]) for name in condition.names}
    aggregates = aggregate_values(condition, frame)
    undefined = np.zeros(n, dtype=bool)
    for _ in range(len(list(ast.walk(condition.tree))) + 1):
        try:
            holds = evaluate(condition, env, tolerance, skip=missing | undefined,
                             aggregates=aggregates)
            break
        except RecordsRefused as exc:
            undefined |= np.broadcast_to(exc.records, undefined.shape)
    else:
        return np.zeros(n, dtype=bool), np.ones(n, dtype=bool)
    undecided = missing | undefined
    return np.broadcast_to(np.asarray(holds, dtype=bool), (n,)) & ~undecided, undecided


def _parse_field(spec: Mapping, key: str) -> Expr:
    try:
        expr = parse(spec[key])
        require_64_bit(expr)
        check_aggregates(expr)
        return expr
    except ExprError as exc:
        raise ExprError(str(exc), exc.offset, field=key) from None


def classify(expr: Expr) -> str:
    """The kind of a constraint given as one expression (see the module docstring)."""
    body = expr.tree.body
    if not isinstance(body, ast.Compare):
        return "inequality"
    operands = [body.left, *body.comparators]
    if len(body.ops) == 1 and isinstance(body.ops[0], ast.Eq):
        return "linear" if all(degree(o) <= 1 for o in operands) else "nonlinear"
    if len(expr.names) == 1 and all(
        isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.NotIn)) for op in body.ops
    ):
        return "range"
    return "inequality"


def column_values(series: pd.Series) -> np.ndarray:
    """A column as a NumPy array for expression evaluation: integers as int64 (exact
    integer arithmetic; a missing value becomes 0, so pass the records with missing
    values as ``skip`` to :meth:`Expr.evaluate`), other numbers as float64 with NaN for
    missing, text as an object array with None for missing."""
    if pd.api.types.is_integer_dtype(series) and not pd.api.types.is_bool_dtype(series):
        try:
            return series.astype("Int64").to_numpy(dtype="int64", na_value=0)
        except (TypeError, ValueError, OverflowError):  # uint64 beyond int64
            return series.to_numpy(dtype="float64", na_value=np.nan)
    if pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series):
        return series.to_numpy(dtype="float64", na_value=np.nan)
    return series.astype(object).where(series.notna(), None).to_numpy()
