"""The report's pictures, drawn with matplotlib as inline SVG that is the same bytes on
every run (fixed hash salt, no date, text kept as text so that it stays searchable and
the page self-contained).

Each function takes plain arrays or mappings (no pandas, no recipe) and returns SVG text,
or ``""`` when there is nothing to draw; each is pure, so its pictures are drawn once per
process (:mod:`sdcflow.report.svg_cache`)."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from contextlib import contextmanager
from itertools import pairwise

import numpy as np

from .svg_cache import memoised

BEFORE = "#9aa7b4"  # the original data: grey-blue
AFTER = "#1f5f99"   # the release: blue
PRIMARY = "#c0392b"
MARKED = "#e67e22"
MAX_BARS = 30  # categories drawn; the rest are summed into one "other" bar


@contextmanager
def _figure(width: float, height: float):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with matplotlib.rc_context({"svg.hashsalt": "sdcflow", "svg.fonttype": "none",
                                "font.family": "DejaVu Sans", "font.size": 9,
                                "axes.spines.top": False, "axes.spines.right": False}):
        fig, ax = plt.subplots(figsize=(width, height))
        try:
            yield fig, ax
        finally:
            plt.close(fig)


def _svg(fig, layout: bool = True) -> str:
    if layout:  # (not when artists were placed in display units after the layout)
        fig.tight_layout()
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    text = buf.getvalue()
    return text[text.index("<svg"):]  # the XML prolog is not allowed inline


def histogram_edges(values: np.ndarray, bins: int = 30) -> np.ndarray:
    """The bin edges of a histogram of the finite ``values``: ``bins`` equal bins over
    their range; for whole numbers, bins of a whole width centred on the integers (edges
    at half-integers), so that no bin holds more integers than its neighbours and no bin
    falls between two integers (a comb of empty bars)."""
    lo, hi = float(values.min()), float(values.max())
    if np.all(values == np.round(values)):
        width = max(1.0, float(np.ceil((hi - lo + 1) / bins)))
        count = int(np.ceil((hi - lo + 1) / width))
        return lo - 0.5 + width * np.arange(count + 1)
    return np.linspace(lo, hi if hi > lo else lo + 1.0, bins + 1)


@memoised
def histogram(name: str, before: np.ndarray | None, after: np.ndarray | None,
              bins: int = 30, cuts: Sequence[tuple[float, str]] = ()) -> str:
    """Histograms of a numeric variable in the original data (``before``, grey) and the
    release (``after``, blue) on common bins (see :func:`histogram_edges`); missing
    values are left out and counted in the legend. Each of ``cuts`` (value, text), e.g.
    the threshold of top coding, is marked by a dashed red line with its text."""
    series = [(label, np.asarray(x, dtype=float), colour) for label, x, colour in
              (("original", before, BEFORE), ("released", after, AFTER)) if x is not None]
    finite = [x[np.isfinite(x)] for _, x, _ in series]
    values = np.concatenate(finite) if finite else np.empty(0)
    if values.size == 0:
        return ""
    edges = histogram_edges(values, bins)
    with _figure(6.0, 2.8) as (fig, ax):
        for (label, x, colour), kept in zip(series, finite):
            missing = len(x) - len(kept)
            text = f"{label} ({len(kept)} values" + (f", {missing} missing)" if missing
                                                        else ")")
            # the first series filled, the second (released over original) as an outline
            first = label == series[0][0]
            ax.hist(kept, bins=edges, histtype="stepfilled" if first else "step",
                    color=colour, alpha=0.55 if first and len(series) > 1 else 1.0,
                    linewidth=1.4, label=text)
        for value, text in cuts:
            ax.axvline(value, color=PRIMARY, linestyle="--", linewidth=1.2, label=text)
        # plain numbers on the axis: no "1e8" offset text beside it
        ax.ticklabel_format(axis="x", style="plain", useOffset=False)
        if np.all(values == np.round(values)):
            from matplotlib.ticker import MaxNLocator

            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel(name)
        ax.set_ylabel("records")
        ax.set_title(f"{name}: distribution" + (" before and after" if len(series) == 2
                                                 else f" ({series[0][0]})"))
        ax.legend(frameon=False, fontsize=8)
        return _svg(fig)


@memoised
def scatter(name: str, before: np.ndarray, after: np.ndarray, limit: int = 2000) -> str:
    """Each record's released value of ``name`` against its original one, with the
    diagonal of unchanged values: the picture of a method that moves values between
    records (swapping, shuffling), whose histograms before and after are the same. Past
    ``limit`` records an evenly spaced sample of them is drawn (the title says so)."""
    x0, x1 = np.asarray(before, dtype=float), np.asarray(after, dtype=float)
    both = np.isfinite(x0) & np.isfinite(x1)
    x0, x1 = x0[both], x1[both]
    if x0.size == 0:
        return ""
    changed = int(np.count_nonzero(x0 != x1))
    shown = np.unique(np.linspace(0, x0.size - 1, limit).astype(np.int64)) \
        if x0.size > limit else np.arange(x0.size)
    lo, hi = float(min(x0.min(), x1.min())), float(max(x0.max(), x1.max()))
    with _figure(4.6, 4.2) as (fig, ax):
        ax.plot([lo, hi], [lo, hi], "-", color="#b8c4d0", linewidth=1, zorder=1,
                label="unchanged")
        ax.scatter(x0[shown], x1[shown], s=6, color=AFTER, alpha=0.6, linewidths=0,
                   zorder=2, label="records")
        ax.ticklabel_format(style="plain", useOffset=False)
        ax.set_xlabel(f"original {name}")
        ax.set_ylabel(f"released {name}")
        sample = f", {shown.size} of them drawn" if shown.size < x0.size else ""
        ax.set_title(f"{name}: {changed} of {x0.size} records changed{sample}", fontsize=9)
        ax.legend(frameon=False, fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        return _svg(fig)


@memoised
def frequency_bars(name: str, categories: Sequence[str], before: Sequence[int] | None,
                   after: Sequence[int] | None) -> str:
    """Side-by-side bars of the records in each category (already labelled, e.g. ``1
    urban``) in the original data and in the release; past :data:`MAX_BARS` categories
    the smallest are summed into one bar ``other (N categories)``."""
    cats = list(categories)
    if not cats or not any(np.any(np.asarray(c, dtype=float) != 0)
                           for c in (before, after) if c is not None):
        return ""
    cols = [(label, np.asarray(c, dtype=float), colour) for label, c, colour in
            (("original", before, BEFORE), ("released", after, AFTER)) if c is not None]
    if len(cats) > MAX_BARS:
        total = sum(c for _, c, _ in cols)
        order = np.argsort(-total, kind="stable")
        keep, rest = np.sort(order[:MAX_BARS - 1]), order[MAX_BARS - 1:]
        cats = [cats[i] for i in keep] + [f"other ({len(rest)} categories)"]
        cols = [(label, np.append(c[keep], c[rest].sum()), colour) for label, c, colour
                in cols]
    width = 0.8 / len(cols)
    x = np.arange(len(cats))
    with _figure(max(4.0, min(9.0, 1.2 + 0.45 * len(cats))), 3.0) as (fig, ax):
        for i, (label, counts, colour) in enumerate(cols):
            ax.bar(x + (i - (len(cols) - 1) / 2) * width, counts, width, color=colour,
                   label=label)
        ax.set_xticks(x)
        ax.set_xticklabels(cats, rotation=45 if len(cats) > 6 else 0,
                           ha="right" if len(cats) > 6 else "center", fontsize=8)
        ax.set_ylabel("records")
        ax.set_title(f"{name}: records per category")
        ax.legend(frameon=False, fontsize=8)
        return _svg(fig)


@memoised
def heat_map(name: str, categories: Sequence[str], matrix: np.ndarray,
             title: str | None = None) -> str:
    """A transition matrix (row: the original category, column: the released one) as a
    heat map with each probability written in its cell (up to 12 categories), under
    ``title`` (default: the PRAM transition probabilities of ``name``)."""
    P = np.asarray(matrix, dtype=float)
    if P.size == 0 or not np.any(P):
        return ""
    n = len(categories)
    with _figure(min(7.5, 1.8 + 0.5 * n), min(6.5, 1.4 + 0.45 * n)) as (fig, ax):
        image = ax.imshow(P, cmap="Blues", vmin=0.0, vmax=1.0, aspect="auto")
        ax.set_xticks(range(n))
        ax.set_yticks(range(n))
        ax.set_xticklabels(categories, rotation=45 if n > 5 else 0,
                           ha="right" if n > 5 else "center", fontsize=8)
        ax.set_yticklabels(categories, fontsize=8)
        ax.set_xlabel(f"released {name}")
        ax.set_ylabel(f"original {name}")
        ax.set_title(title or f"PRAM transition probabilities: {name}")
        if n <= 12:
            for i in range(n):
                for j in range(n):
                    ax.text(j, i, f"{P[i, j]:.2f}", ha="center", va="center", fontsize=7,
                            color="white" if P[i, j] > 0.6 else "#222")
        fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
        return _svg(fig)


@memoised
def risk_distribution(edges: Sequence[float], records: Sequence[int],
                      threshold: float | None = None, title: str = "individual risk") -> str:
    """Records per band of individual re-identification risk (bands given by their
    ``edges``), with the recipe's threshold marked."""
    counts = np.asarray(records, dtype=float)
    if counts.size == 0 or counts.sum() == 0:
        return ""
    labels = [f"{_short(a)}-{_short(b)}" for a, b in pairwise(edges)]
    colours = [PRIMARY if threshold is not None and a >= threshold else AFTER
               for a in edges[:-1]]
    with _figure(6.0, 2.8) as (fig, ax):
        ax.bar(range(len(counts)), counts, color=colours)
        ax.set_xticks(range(len(counts)))
        ax.set_xticklabels(labels, rotation=45, ha="right", fontsize=8)
        ax.set_xlabel("risk of re-identification")
        ax.set_ylabel("records")
        if threshold is not None:
            ax.set_title(f"{title} (red: at or above the threshold {_short(threshold)})")
        else:
            ax.set_title(title)
        return _svg(fig)


@memoised
def suppressions(counts: Mapping[str, int]) -> str:
    """Horizontal bars of the values suppressed in each variable."""
    if not any(counts.values()):
        return ""
    names = list(counts)
    values = [counts[n] for n in names]
    with _figure(6.0, max(1.6, 0.9 + 0.32 * len(names))) as (fig, ax):
        bars = ax.barh(range(len(names)), values, color=AFTER)
        ax.set_yticks(range(len(names)))
        ax.set_yticklabels(names, fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel("values suppressed")
        ax.set_title("suppressions per variable")
        ax.bar_label(bars, labels=[str(int(v)) for v in values], fontsize=8, padding=2)
        ax.set_xlim(0, max(max(values), 1) * 1.15)
        return _svg(fig)


POINT_SIZE = 22     # marker area of a variant (points squared)
CIRCLE_SIZE = 170   # marker area of the circle round the released variant
# where a label may go, in offset points from its point: right, left, above, below and the
# diagonals, then the same farther out
_OFFSETS = [(dx * r, dy * r) for r in (1, 2, 3, 4.5, 6, 8, 10, 13) for dx, dy in
            ((6, 3), (-6, 3), (0, 8), (0, -12), (6, -10), (-6, -10), (6, 10), (-6, 10),
             (10, 0), (-10, 0), (3, 12), (-3, -14))]

_ALIGN = {1: "left", -1: "right", 0: "center"}
_LEADER = {"arrowstyle": "-", "color": "#999", "linewidth": 0.5, "shrinkA": 0, "shrinkB": 4}


@contextmanager
def ru_map_drawn(points: Sequence[tuple[str, float, float]], *, released: str | None = None,
                 dr_name: str = "disclosure risk (DR)",
                 il_name: str = "information loss (IL)",
                 title: str = "R-U map: each variant's risk and loss", connect: bool = True):
    """The R-U map of :func:`ru_map` as a laid-out matplotlib figure: yields ``(fig, ax,
    labels, legend)`` (the label Text artists; the legend, or None). Each label is put at
    the first of a list of offsets round its point where its box (as the renderer draws
    it) meets no marker, no label placed before it and stays inside the axes; the legend
    sits outside the axes, beside them. A label that finds no such place is drawn at its
    last offset with a leader line. ``connect``: the points joined in their order (the
    variants of a grid); ``title``: the map's title."""
    from matplotlib.transforms import Bbox

    xs = np.array([p[1] for p in points], dtype=float)
    ys = np.array([p[2] for p in points], dtype=float)
    with _figure(6.0, 4.2) as (fig, ax):
        if connect:
            ax.plot(xs, ys, "-", color="#b8c4d0", linewidth=1, zorder=1)
        ax.scatter(xs, ys, color=AFTER, s=POINT_SIZE, zorder=2)
        legend = None
        if released is not None and any(p[0] == released for p in points):
            i = next(i for i, p in enumerate(points) if p[0] == released)
            ax.scatter([xs[i]], [ys[i]], s=CIRCLE_SIZE, facecolors="none",
                       edgecolors=PRIMARY, linewidths=1.8, zorder=3,
                       label=f"released: {released}")
            # above the axes, right-aligned: never on a point
            legend = ax.legend(frameon=False, fontsize=8, loc="lower right",
                               bbox_to_anchor=(1.0, 1.0), borderaxespad=0.2)
        ax.set_xlabel(dr_name)
        ax.set_ylabel(il_name)
        ax.set_title(title, loc="left")
        ax.grid(True, linewidth=0.3)
        ax.margins(0.18)  # room round the outer points for their labels
        # the labels are placed in the final layout (display units depend on it)
        fig.tight_layout()
        renderer = fig.canvas.get_renderer()
        frame = ax.get_window_extent(renderer)
        markers = marker_boxes(ax, points, released)
        taken: list = []
        labels = []
        pixels = fig.dpi / 72.0
        for label, x, y in points:
            # the label's size once; each place's box follows from its offset and alignment
            probe = ax.annotate(label, (x, y), xytext=(0, 0), textcoords="offset points",
                                fontsize=8, ha="left", va="bottom")
            size = text_box(probe, renderer)
            probe.remove()
            place = _OFFSETS[-1]
            for dx, dy in _OFFSETS:
                left = size.x0 + dx * pixels - (0.0 if dx > 0 else size.width if dx < 0
                                                 else size.width / 2)
                bottom = size.y0 + dy * pixels - (0.0 if dy > 0 else size.height)
                box = Bbox.from_bounds(left, bottom, size.width, size.height)
                if (frame.contains(box.x0, box.y0) and frame.contains(box.x1, box.y1)
                        and not any(box.overlaps(m) for m in markers)
                        and not any(box.overlaps(t) for t in taken)):
                    place = (dx, dy)
                    break
            # a label moved past the first ring is tied to its point by a leader line
            far = _OFFSETS.index(place) >= 12
            text = ax.annotate(label, (x, y), xytext=place, textcoords="offset points",
                               fontsize=8, ha=_ALIGN[np.sign(place[0])],
                               va="bottom" if place[1] > 0 else "top",
                               arrowprops=_LEADER if far else None)
            taken.append(text_box(text, renderer).padded(2))
            labels.append(text)
        yield fig, ax, labels, legend


def text_box(text, renderer):
    """The display-space box of a label's text alone (an annotation's own box takes in its
    leader line)."""
    from matplotlib.text import Text

    text.update_positions(renderer)  # where the offset puts it, as drawing would
    return Text.get_window_extent(text, renderer)


def marker_boxes(ax, points: Sequence[tuple[str, float, float]], released: str | None):
    """The display-space boxes of the R-U map's markers (the circle of the released
    variant larger), with a margin of one point."""
    from matplotlib.transforms import Bbox

    pixels = ax.figure.dpi / 72.0
    out = []
    for label, x, y in points:
        size = CIRCLE_SIZE if label == released else POINT_SIZE
        radius = (np.sqrt(size) / 2 + 1.5) * pixels  # marker area is its diameter squared
        cx, cy = ax.transData.transform((x, y))
        out.append(Bbox([[cx - radius, cy - radius], [cx + radius, cy + radius]]))
    return out


@memoised
def ru_map(points: Sequence[tuple[str, float, float]], *, released: str | None = None,
           dr_name: str = "disclosure risk (DR)", il_name: str = "information loss (IL)",
           **how) -> str:
    """The R-U confidentiality map (Duncan, Keller-McNulty & Stokes 2001): one point per
    variant (label, DR, IL), the axes named by the measures used, the released variant
    circled; labels and legend are placed where they cover no point (see
    :func:`ru_map_drawn`; ``how``: its ``title`` and ``connect``)."""
    if not points:
        return ""
    with ru_map_drawn(points, released=released, dr_name=dr_name, il_name=il_name,
                      **how) as (fig, _, _, _):
        return _svg(fig, layout=False)


def _short(value: float) -> str:
    return f"{value:g}"
