"""R-U confidentiality maps (seed 002_62bc99a65528e1b7.txt, "R-U maps"; Duncan, Keller-
McNulty & Stokes 2001): the (disclosure risk, information loss) pair of every variant of a
recipe, here taken from its ``score`` steps, drawn with matplotlib as an SVG that is the
same bytes on every run (fixed hash salt, no date, text kept as text)."""

from __future__ import annotations

import io


def ru_points(measures: dict) -> list[tuple[str, float, float]]:
    """(label, DR, IL) of every ``score`` result in ``measures`` (keyed by node id, in
    execution order: the order of the grid's values)."""
    points = []
    for node, summary in measures.items():
        if isinstance(summary, dict) and {"il", "dr", "score", "il_expr"} <= set(summary):
            label = node[node.index("[") + 1:-1] if "[" in node else node
            points.append((label, float(summary["dr"]), float(summary["il"])))
    return points


def ru_map_svg(points: list[tuple[str, float, float]]) -> str:
    """The R-U map of ``points`` as SVG text (empty string without points)."""
    if not points:
        return ""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with matplotlib.rc_context({"svg.hashsalt": "sdcflow", "svg.fonttype": "none",
                                "font.family": "DejaVu Sans", "font.size": 9}):
        fig, ax = plt.subplots(figsize=(5.5, 4.0))
        xs = [p[1] for p in points]
        ys = [p[2] for p in points]
        ax.plot(xs, ys, "o-", color="#1f5f99", markersize=5, linewidth=1)
        for label, x, y in points:
            ax.annotate(label, (x, y), textcoords="offset points", xytext=(5, 4), fontsize=8)
        ax.set_xlabel("disclosure risk (DR)")
        ax.set_ylabel("information loss (IL)")
        ax.set_title("R-U map")
        ax.grid(True, linewidth=0.3)
        fig.tight_layout()
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
        plt.close(fig)
    text = buf.getvalue()
    return text[text.index("<svg"):]  # drop the XML prolog: the SVG goes inline
