"""R-U confidentiality maps (Duncan, Keller-McNulty &
Stokes 2001): the (disclosure risk, information loss) pair of every variant of a
recipe, here taken from its ``score`` steps, drawn with matplotlib as an SVG that is the
same bytes on every run (fixed hash salt, no date, text kept as text)."""

from __future__ import annotations


def ru_points(measures: dict) -> list[tuple[str, float, float]]:
    """(label, DR, IL) of every ``score`` result in ``measures`` (keyed by node id, in
    execution order: the order of the grid's values)."""
    points = []
    for node, summary in measures.items():
        if isinstance(summary, dict) and {"il", "dr", "score", "il_expr"} <= set(summary):
            label = node[node.index("[") + 1:-1] if "[" in node else node
            points.append((label, float(summary["dr"]), float(summary["il"])))
    return points


def ru_ranking(measures: dict) -> list[list[str]]:
    """The rows of the report's table under the R-U map: every ``score`` result (each
    variant of a grid, each score step) with its DR, IL, score, rank by score (lowest
    first, ties sharing a rank) and whether it is on the Pareto front (no other has both
    less IL and less DR): the ranking of methods and parameterisations of Domingo-Ferrer
    & Torra (2001)."""
    import numpy as np

    from ..kernels.utility.ranking import competition_ranks, pareto_front
    from .headline import number_column

    rows = []
    for node, summary in measures.items():
        if isinstance(summary, dict) and {"il", "dr", "score", "il_expr"} <= set(summary):
            label = node[node.index("[") + 1:-1] if "[" in node else node
            rows.append((label, float(summary["dr"]), float(summary["il"]),
                         float(summary["score"])))
    if not rows:
        return []
    dr, il, score = (np.array(v) for v in list(zip(*rows))[1:])
    ranks = competition_ranks(score)
    front = pareto_front(il, dr)
    # each column of figures in its one format (no 1.12e+10 beside 218 500 000)
    texts = [number_column([r[k] for r in rows]) for k in (1, 2, 3)]
    return [[label, d, i, s, str(int(r)), "yes" if f else ""]
            for label, d, i, s, r, f in zip((r[0] for r in rows), *texts, ranks, front)]


def ru_map_svg(points: list[tuple[str, float, float]], released: str | None = None) -> str:
    """The R-U map of ``points`` as SVG text (empty string without points), the
    ``released`` variant circled (see :func:`sdcflow.report.figures.ru_map`)."""
    from .figures import ru_map

    return ru_map(points, released=released)
