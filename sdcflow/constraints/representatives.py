"""Which cluster representatives keep which edit constraints, and the choice of one
representative per variable that keeps as many declared constraints as can be kept
together (V. Torra, "Constrained microaggregation: adding constraints for data editing",
Transactions on Data Privacy 1(2), 2008, 86-104; V. Torra, G. Navarro-Arribas & D. Abril,
"Towards knowledge intensive data privacy", DPM 2010, LNCS 6514).

A constraint is split into *parts*: the conjuncts of an ``and`` and each link of a chained
comparison (``0 <= a <= b`` is ``0 <= a`` and ``a <= b``). A representative C (computed
per variable over a group of records, the same groups for every variable related by a
part) keeps a part when every group whose records satisfy it yields representatives that
satisfy it:

=====================================================  =====================================
part                                                   kept by
=====================================================  =====================================
one variable, affine comparisons (``0 <= age``,        any internal C (min <= C <= max): the
``age <= 125``, ``x == 5``): an interval               mean, the geometric mean (Prop. 7, 8),
                                                       the median
one variable, anything else (``age in [..]``,          an existing value only: the (lower)
``x != 0``, ``round(x) == x``), and ``domain``         median, an order statistic (Sande
                                                       2002); the plurality of a category
several variables, affine (``net + tax == gross``,     the arithmetic mean, or any weighted
``a + b <= c``)                                        mean with one set of weights (Prop.
                                                       1-3, 7)
two variables in an increasing relation                also the median: order statistics
(``harvested <= planted``, ``a == 2 * b + 1``)         commute with increasing maps and are
                                                       monotone
products of factors ``x + c`` with positive            the geometric mean of each factor
constants (``price * (1 + vat) == retail``, also       (Prop. 4-6, 8; monotone, so also for
``<=``)                                                inequalities)
comparisons with a column's ``mean``, ``sum`` or       the arithmetic mean only: each group's
``count`` (``income < mean(income)``; EC-GV2)          keeps the column's sum and count, and
                                                       the comparison with them as constants
                                                       (``median``, ``min``, ``max``: none)
``if``/``then``                                        records partitioned on the condition
                                                       first (Shlomo & de Waal 2008); the
                                                       condition (both ways) and the
                                                       ``then`` must be kept as parts
anything else relating several variables               nothing known: not kept
(``a * b == c + d``, ``a != b``, ``or``)
=====================================================  =====================================

"Values exist in the domain" and a linear or product relation on the same variable
cannot both be kept (Torra: overconstrained). :func:`choose` admits the constraints one by
one: first those relating several variables, then those that need an existing value,
then the rest, each group in declaration order; a constraint that cannot be kept together
with those admitted before is reported as not kept, with the reason. Every variable gets
the requested default representative unless an admitted constraint needs another one.
"Kept" means: whenever the input satisfies the constraint, so does the output (up to the
constraint's tolerance for floating-point rounding).
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from .constraint import Constraint
from .expr import dotted_name, is_aggregate

MEAN, MEDIAN, GEOMETRIC, PLURALITY = "mean", "median", "geometric", "plurality"
# statistics of a column that the arithmetic mean of every group keeps
KEPT_AGGREGATES = frozenset({"mean", "sum", "count"})
NUMERIC_KINDS = frozenset({MEAN, MEDIAN, GEOMETRIC})
EXISTING = frozenset({MEDIAN, PLURALITY})  # representatives that are one of the values
_PREFERENCE = (MEAN, MEDIAN, GEOMETRIC, PLURALITY)
_NEGATED = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt,
            ast.LtE: ast.Gt, ast.Gt: ast.LtE, ast.In: ast.NotIn, ast.NotIn: ast.In}
_ORDERED = (ast.Eq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)


@dataclass(frozen=True)
class Part:
    """One part of a constraint: its variables, the representatives that keep it (when
    every variable of the part uses the same one on one partition) and why."""

    text: str
    variables: frozenset[str]
    kinds: frozenset[str]
    shape: str  # range | value | linear | increasing | product | none
    offsets: Mapping[str, float] = field(default_factory=dict)  # geometric: x + offset
    why: str = ""  # when no representative keeps it


def parts(constraint: Constraint, text_vars: Iterable[str] = ()) -> list[Part]:
    """The parts of ``constraint``; ``text_vars`` are its categorical and ordinal
    variables (compared as text: only an existing value keeps a condition on them)."""
    text = set(text_vars)
    if constraint.kind == "domain":
        return [Part(f"{v} exists in the data", frozenset({v}), EXISTING, "value")
                for v in constraint.domain]
    if constraint.kind == "conditional":
        # The records are partitioned on the whole condition, so its truth must not change
        # in either part: the representative keeps the condition and its negation. (With
        # several links, keeping each link both ways is not enough: the mean of ages 20
        # and 60 satisfies 30 <= age <= 50, which neither does.)
        node = constraint.condition.tree.body
        yes, no = _part(node, text), _part(_negate(node), text)
        kinds = yes.kinds & no.kinds
        condition = Part(f"if {yes.text} (both ways)", yes.variables, kinds,
                         yes.shape if kinds else "none", yes.offsets,
                         "" if kinds else f"the truth of '{yes.text}' can change")
        return [condition] + [_part(n, text) for n in _links(constraint.then.tree.body)]
    return [_part(node, text) for node in _links(constraint.expr.tree.body)]


def _links(node: ast.AST) -> list[ast.AST]:
    """The conjuncts of ``node``, chained comparisons cut into their links."""
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
        return [p for v in node.values for p in _links(v)]
    if isinstance(node, ast.Compare) and len(node.ops) > 1:
        operands = [node.left, *node.comparators]
        return [ast.Compare(left=operands[i], ops=[op], comparators=[operands[i + 1]])
                for i, op in enumerate(node.ops)]
    return [node]


def _negate(node: ast.AST) -> ast.AST:
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        return ast.Compare(left=node.left, ops=[_NEGATED[type(node.ops[0])]()],
                           comparators=node.comparators)
    return ast.UnaryOp(op=ast.Not(), operand=node)


def _names(node: ast.AST) -> frozenset[str]:
    functions = {id(x.func) for x in ast.walk(node) if isinstance(x, ast.Call)}
    return frozenset(n for n in (dotted_name(x) for x in ast.walk(node)
                                 if isinstance(x, (ast.Name, ast.Attribute))
                                 and id(x) not in functions) if n)


def _part(node: ast.AST, text: set[str]) -> Part:
    names = _names(node)
    shown = ast.unparse(node)
    aggregates = [n for n in ast.walk(node) if is_aggregate(n)]
    if aggregates:
        return _aggregate_part(node, shown, names, aggregates, text)
    ordered = (isinstance(node, ast.Compare) and len(node.ops) == 1
               and isinstance(node.ops[0], _ORDERED))
    sides = [node.left, node.comparators[0]] if ordered else []
    if len(names) <= 1:
        if names & text:
            return Part(shown, names, EXISTING, "value")
        if ordered and all(affine(s) is not None for s in sides):
            return Part(shown, names, NUMERIC_KINDS, "range")
        return Part(shown, names, frozenset({MEDIAN}), "value")
    if names & text or not ordered:
        return Part(shown, names, frozenset(), "none", why=(
            f"no representative is known to keep '{shown}'"))
    kinds: set[str] = set()
    shape = "none"
    offsets = product_offsets(node)
    if offsets is not None:
        kinds.add(GEOMETRIC)
        shape = "product"
    left, right = affine(sides[0]), affine(sides[1])
    if left is not None and right is not None:
        kinds.add(MEAN)
        shape = "linear"
        coef = {v: left[0].get(v, 0.0) - right[0].get(v, 0.0) for v in names}
        signs = {c > 0 for c in coef.values() if c != 0}
        if len(coef) == 2 and all(c != 0 for c in coef.values()) and signs == {True, False}:
            kinds.add(MEDIAN)
            shape = "increasing"
    return Part(shown, names, frozenset(kinds), shape, offsets or {},
                "" if kinds else f"'{shown}' is neither affine nor a product of factors")


def _aggregate_part(node: ast.AST, shown: str, names: frozenset[str], aggregates: list,
                    text: set[str]) -> Part:
    """A part comparing records with statistics of whole columns (``income <
    mean(income)``, EC-GV2 of Shlomo & de Waal 2008). The arithmetic mean of each group
    keeps every column's sum, hence its mean, and its count (missing values stay
    missing): with the statistics unchanged the part is the comparison with constants,
    kept where the mean keeps that (a range: internality). The median, minimum and
    maximum of a column change, so nothing keeps a comparison with them."""
    lost = [a for a in aggregates if a.func.id not in KEPT_AGGREGATES]
    if lost:
        return Part(shown, names, frozenset(), "none", why=(
            f"'{shown}' compares records with {ast.unparse(lost[0])}, a statistic of the "
            "whole column that microaggregation changes (only mean, sum and count are kept, "
            "by the arithmetic mean)"))

    class _Constants(ast.NodeTransformer):
        def visit_Call(self, call):
            return ast.Constant(1.0) if is_aggregate(call) else self.generic_visit(call)

    inner = _part(_Constants().visit(copy.deepcopy(node)), text)
    if MEAN not in inner.kinds:
        return Part(shown, names, frozenset(), "none", why=(
            f"'{shown}' compares records with column statistics, which only the arithmetic "
            f"mean keeps, and the mean does not keep the comparison itself "
            f"({inner.why or inner.shape})"))
    return Part(shown, names, frozenset({MEAN}), "aggregate")


def affine(node: ast.AST) -> tuple[dict[str, float], float] | None:
    """The coefficients and constant of an affine expression, None if it is not one."""
    if isinstance(node, ast.Constant):
        if isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return {}, float(node.value)
        return None
    name = dotted_name(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
    if name:
        return {name: 1.0}, 0.0
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = affine(node.operand)
        sign = -1.0 if isinstance(node.op, ast.USub) else 1.0
        return None if inner is None else _scaled(inner, sign)
    if not isinstance(node, ast.BinOp):
        return None
    left, right = affine(node.left), affine(node.right)
    if left is None or right is None:
        return None
    if isinstance(node.op, (ast.Add, ast.Sub)):
        sign = 1.0 if isinstance(node.op, ast.Add) else -1.0
        coef = dict(left[0])
        for v, c in right[0].items():
            coef[v] = coef.get(v, 0.0) + sign * c
        return coef, left[1] + sign * right[1]
    if isinstance(node.op, ast.Mult):
        if not left[0]:
            return _scaled(right, left[1])
        if not right[0]:
            return _scaled(left, right[1])
        return None
    if isinstance(node.op, ast.Div) and not right[0] and right[1] != 0:
        return _scaled(left, 1.0 / right[1])
    return None


def _scaled(form: tuple[dict[str, float], float], factor: float):
    return {v: c * factor for v, c in form[0].items()}, form[1] * factor


def product_offsets(node: ast.AST) -> dict[str, float] | None:
    """For a comparison of products of factors ``x + c`` (``price * (1 + vat) == retail``,
    also with ``<``, ``<=``, ``>``, ``>=``, ``/`` and constant powers), each variable's
    offset inside its factor ({price: 0, vat: 1, retail: 0}); None when it is not one, a
    constant factor is not positive, or a variable appears with two offsets."""
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1
            and isinstance(node.ops[0], _ORDERED)):
        return None
    offsets: dict[str, float] = {}

    def record(name: str, offset: float) -> bool:
        return offsets.setdefault(name, offset) == offset

    def factor(n) -> bool:
        if isinstance(n, ast.Constant):
            return isinstance(n.value, (int, float)) and not isinstance(n.value, bool) \
                and n.value > 0
        if isinstance(n, (ast.Name, ast.Attribute)) and dotted_name(n):
            return record(dotted_name(n), 0.0)
        if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Mult, ast.Div)):
            return factor(n.left) and factor(n.right)
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Pow):
            return (isinstance(n.right, ast.Constant) and isinstance(n.right.value, (int, float))
                    and factor(n.left))
        if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Sub)):
            var, const = n.left, n.right
            if isinstance(var, ast.Constant) and isinstance(n.op, ast.Add):
                var, const = const, var
            if (isinstance(var, (ast.Name, ast.Attribute)) and dotted_name(var)
                    and isinstance(const, ast.Constant)
                    and isinstance(const.value, (int, float))):
                value = float(const.value)
                return record(dotted_name(var), value if isinstance(n.op, ast.Add) else -value)
        return False

    return offsets if factor(node.left) and factor(node.comparators[0]) else None


@dataclass
class Choice:
    """The representative of every variable and what it keeps."""

    kinds: dict[str, tuple[str, float]]  # variable -> (representative, offset)
    kept: list[str] = field(default_factory=list)
    not_kept: dict[str, str] = field(default_factory=dict)
    because: dict[str, list[str]] = field(default_factory=dict)  # variable -> reasons
    overridden: dict[str, str] = field(default_factory=dict)  # variable -> constraint id


def choose(constraints: list[Constraint], types: Mapping[str, str],
           default: str = MEAN, one_partition: bool = True,
           exact_means: bool = True) -> Choice:
    """The representative of each variable of ``types`` (aggregated variable -> type:
    integer, continuous, ordinal or categorical) and the constraints it keeps.

    ``default`` (mean or median) is used wherever no admitted constraint needs another
    representative; ``one_partition`` is False when the algorithm groups each variable
    separately (then no part relating several variables can be kept); ``exact_means`` is
    False when the representative "mean" is not each group's arithmetic mean of its
    records (fuzzy memberships: a weighted mean per record), which keeps linear relations
    but not the columns' sums (then no comparison with a column statistic is kept)."""
    text = {v for v, t in types.items() if t in ("categorical", "ordinal")}
    state = _State({v: frozenset({PLURALITY}) if t == "categorical" else
                    frozenset({MEDIAN}) if t == "ordinal" else NUMERIC_KINDS
                    for v, t in types.items()})
    candidates = []
    for index, c in enumerate(constraints):
        if not c.variables & set(types):
            continue  # untouched: none of its variables changes
        ps = [p for p in parts(c, c.variables & text) if p.variables & set(types)]
        rank = min((0 if len(p.variables) > 1 else 1 if p.shape == "value" else 2
                    for p in ps), default=2)
        candidates.append((rank, index, c, ps))
    admitted: list[tuple[Constraint, list[Part]]] = []
    not_kept = {}
    for _, _, c, ps in sorted(candidates, key=lambda t: t[:2]):
        trial = state.copy()
        problem = next((p for p in (trial.admit(c.id, part, types, one_partition,
                                                exact_means)
                                    for part in ps) if p), None)
        if problem:
            not_kept[c.id] = problem
        else:
            state = trial
            admitted.append((c, ps))
    choice = Choice(kinds={}, not_kept=not_kept)
    for v in types:
        allowed = state.allowed[state.find(v)]
        kind = default if default in allowed else next(k for k in _PREFERENCE if k in allowed)
        choice.kinds[v] = (kind, state.offsets.get(v, 0.0) if kind == GEOMETRIC else 0.0)
        if kind != default and types[v] not in ("categorical", "ordinal"):
            choice.overridden[v] = next(cid for cid, kinds in state.ruled_by[state.find(v)]
                                        if default not in kinds)
    for c, ps in admitted:
        choice.kept.append(c.id)
        for p in ps:
            for v in sorted(p.variables & set(types)):
                choice.because.setdefault(v, []).append(
                    f"{choice.kinds[v][0]} keeps '{c.id}' ({p.shape}: {p.text})")
    order = [c.id for c in constraints]
    choice.kept.sort(key=order.index)
    return choice


class _State:
    """Variables that must share a representative (union-find), the representatives
    still allowed for each such set, the constraints that ruled it, geometric offsets."""

    def __init__(self, allowed: dict[str, frozenset[str]]):
        self.parent = {v: v for v in allowed}
        self.allowed = dict(allowed)
        # per set: (constraint id, the representatives its part allows), in admission order
        self.ruled_by: dict[str, list[tuple[str, frozenset[str]]]] = {v: [] for v in allowed}
        self.offsets: dict[str, float] = {}

    def copy(self) -> _State:
        new = _State.__new__(_State)
        new.parent, new.allowed = dict(self.parent), dict(self.allowed)
        new.ruled_by = {k: list(v) for k, v in self.ruled_by.items()}
        new.offsets = dict(self.offsets)
        return new

    def find(self, v: str) -> str:
        while self.parent[v] != v:
            v = self.parent[v]
        return v

    def admit(self, cid: str, part: Part, types: Mapping[str, str],
              one_partition: bool, exact_means: bool = True) -> str | None:
        """Narrow the state so that ``part`` is kept; the reason when it cannot be."""
        if part.shape == "aggregate" and not exact_means:
            return (f"'{part.text}' compares records with column statistics, kept only by "
                    "each group's arithmetic mean: the algorithm's weighted means change "
                    "them (use mdav or projected)")
        inside = sorted(part.variables & set(types))
        outside = sorted(part.variables - set(types))
        if len(part.variables) > 1 and outside:
            return (f"'{part.text}' relates {', '.join(inside)} (aggregated) to "
                    f"{', '.join(outside)} (not aggregated)")
        if not part.kinds:
            return part.why
        if len(inside) > 1 and not one_partition:
            return (f"'{part.text}' relates {', '.join(inside)}, which the algorithm "
                    "groups separately")
        roots = sorted({self.find(v) for v in inside})
        allowed = set(part.kinds)
        for r in roots:
            allowed &= self.allowed[r]
        if GEOMETRIC in allowed and any(self.offsets.get(v, off) != off
                                        for v, off in part.offsets.items()):
            allowed.discard(GEOMETRIC)
        if not allowed:
            ruled = sorted({i for r in roots for i, _ in self.ruled_by[r]})
            shown = set(part.kinds)
            if all(types[v] != "categorical" for v in inside):
                shown.discard(PLURALITY)
            needs = " or ".join(k for k in _PREFERENCE if k in shown)
            current = " or ".join(dict.fromkeys(k for r in roots for k in _PREFERENCE
                                                if k in self.allowed[r]))
            if ruled:
                return (f"'{part.text}' needs the {needs} of {', '.join(inside)}, but "
                        f"{', '.join(repr(i) for i in ruled)} needs the {current} "
                        "(overconstrained: no representative keeps both)")
            return (f"'{part.text}' needs the {needs} of {', '.join(inside)}, which is "
                    f"{current}")
        head = roots[0]
        for r in roots[1:]:
            self.parent[r] = head
            self.ruled_by[head] += self.ruled_by[r]
        self.allowed[head] = frozenset(allowed)
        self.ruled_by[head].append((cid, part.kinds))
        if GEOMETRIC in allowed:
            for v, off in part.offsets.items():
                self.offsets.setdefault(v, off)
        return None
