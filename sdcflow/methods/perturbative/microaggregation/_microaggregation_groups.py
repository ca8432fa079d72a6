"""Which variables the ``microaggregation`` method aggregates together, and with which
representative: the groups asked for, merged and extended along the edit constraints
(V. Torra, "Constrained microaggregation: adding constraints for data editing",
Transactions on Data Privacy 1(2), 2008), the representative of each variable chosen by
:mod:`sdcflow.constraints.representatives`, and the if/then constraints whose condition
partitions the records first.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ....constraints.representatives import PLURALITY, Choice, choose, parts

PER_VARIABLE = ("optimal_univariate", "individual_ranking")  # a partition per variable
# "mean" is a weighted mean per record (fuzzy memberships): columns' sums change
WEIGHTED = ("fuzzy", "fuzzy_c_means")
# robust means (sdcMicro's measure = "trim" / "onestep"): only where no constraint rules
ROBUST = ("trim", "onestep")


@dataclass
class Group:
    """Variables microaggregated together and how each is aggregated."""

    variables: list[str]
    aggregation: dict[str, tuple] = field(default_factory=dict)  # var -> (kind, offset)
    reasons: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"variables": self.variables,
                "aggregation": {v: a[0] if not a[1] else f"trim {a[1]:g}" if a[0] == "trim"
                                else f"{a[0]} of {v} + {a[1]:g}"
                                for v, a in self.aggregation.items()},
                "because": self.reasons}


@dataclass
class Plan:
    """The groups, the if/then constraints that partition the records, notes, and the
    constraints kept and not kept (None without ``constraints``)."""

    groups: list[Group]
    conditions: list
    notes: list[str]
    choice: Choice | None


def base_variables(params, meta) -> list[list[str]]:
    """The sets of variables asked for: ``groups``, ``variables`` or every numeric
    variable."""
    if params.get("groups"):
        return [list(g) for g in params["groups"]]
    if params.get("variables"):
        return [list(params["variables"])]
    return [meta.names("numeric")]


def plan_groups(params, meta) -> Plan:
    """The groups (with the representative of each variable), the partitioning
    constraints, notes and what the constraints get (the docstring of
    :mod:`sdcflow.methods.perturbative.microaggregation.microaggregation`)."""
    sets = [list(dict.fromkeys(g)) for g in base_variables(params, meta)]
    notes: list[str] = []
    chosen = {v for s in sets for v in s}
    default = params.get("aggregation", "mean")
    robust = (default, params.get("trim", 0.1) if default == "trim" else 0.0) \
        if default in ROBUST else None
    use = params.get("constraints", True)
    touching: list = []
    # a variable added for one constraint may bring in others: repeat until none does
    while use and len(touching) < len(meta.constraints):
        new = [c for c in meta.constraints if c.variables & chosen and c not in touching]
        if not new:
            break
        touching += new
        for c in new:
            sets, added = _relate(c, sets, chosen, meta, notes)
            chosen |= added
    touching.sort(key=list(meta.constraints).index)
    position = {v: i for i, v in enumerate(meta.variables)}
    sets = [sorted(s, key=lambda v: position.get(v, len(position))) for s in sets]
    types = {v: meta.variables[v].type if v in meta.variables else "continuous"
             for s in sets for v in s}
    choice = None
    if use:
        choice = choose(touching, types, "mean" if robust else default,
                        one_partition=params.get("algorithm") not in PER_VARIABLE,
                        exact_means=params.get("algorithm") not in WEIGHTED)
        kinds = choice.kinds
        for v, cid in choice.overridden.items():
            notes.append(f"'{v}' uses the {kinds[v][0]}, not aggregation: {default}: "
                         f"constraint '{cid}' needs it")
        if robust:
            for v, kind in list(kinds.items()):
                if kind[0] != "mean" or types[v] in ("categorical", "ordinal"):
                    continue
                if choice.because.get(v):
                    notes.append(f"'{v}' uses the mean, not aggregation: {default}: "
                                 "a constraint on it is kept by the mean")
                else:
                    kinds[v] = robust
    else:
        kinds = {v: (PLURALITY if t == "categorical" else "median" if t == "ordinal"
                     else robust or (default, 0.0)) for v, t in types.items()}
    groups = [Group(variables=s, aggregation={v: kinds[v] for v in s},
                    reasons=[f"{v}: {r}" for v in s
                             for r in (choice.because.get(v, []) if choice else [])])
              for s in sets]
    kept = set(choice.kept) if choice else set()
    conditions = [c for c in touching if c.kind == "conditional" and c.id in kept]
    return Plan(groups, conditions, notes, choice)


def _relate(c, sets, chosen, meta, notes) -> tuple[list[list[str]], set[str]]:
    """Put the variables each part of ``c`` relates into one set, adding the numeric
    ones not chosen (with a note); returns the sets and the added variables."""
    added: set[str] = set()
    for part in parts(c, _text(c.variables, meta)):
        related = set(part.variables)
        if len(related) < 2 or not related & (chosen | added):
            continue
        missing = sorted(related - chosen - added)
        numeric = [v for v in missing if v in meta.variables
                   and meta.variables[v].is_numeric]
        if numeric:
            sets[0].extend(numeric)
            added |= set(numeric)
            notes.append(f"added {', '.join(numeric)}: constraint '{c.id}' needs "
                         "them aggregated with "
                         + ", ".join(sorted(related & (chosen | added) - set(numeric))))
        touched = [s for s in sets if set(s) & related]
        merged = [v for s in touched for v in s]
        sets = [s for s in sets if s not in touched] + [list(dict.fromkeys(merged))]
    return sets, added


def _text(names, meta) -> set[str]:
    return {v for v in names if v in meta.variables and not meta.variables[v].is_numeric}
