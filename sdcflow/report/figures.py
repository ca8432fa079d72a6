"""The report's pictures, drawn with matplotlib as inline SVG that is the same bytes on
every run (fixed hash salt, no date, text kept as text so that it stays searchable and
the page self-contained).

Each function takes plain arrays or mappings (no pandas, no recipe) and returns SVG text,
or ``""`` when there is nothing to draw."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from contextlib import contextmanager
from itertools import pairwise

import numpy as np

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


def _svg(fig) -> str:
    fig.tight_layout()
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    text = buf.getvalue()
    return text[text.index("<svg"):]  # the XML prolog is not allowed inline


def histogram(name: str, before: np.ndarray | None, after: np.ndarray | None,
              bins: int = 30) -> str:
    """Histograms of a numeric variable in the original data (``before``, grey) and the
    release (``after``, blue) on common bins; missing values are left out and counted in
    the legend."""
    series = [(label, np.asarray(x, dtype=float), colour) for label, x, colour in
              (("original", before, BEFORE), ("released", after, AFTER)) if x is not None]
    finite = [x[np.isfinite(x)] for _, x, _ in series]
    values = np.concatenate(finite) if finite else np.empty(0)
    if values.size == 0:
        return ""
    lo, hi = float(values.min()), float(values.max())
    edges = np.linspace(lo, hi if hi > lo else lo + 1.0, bins + 1)
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
        # plain numbers on the axis: no "1e8" offset text beside it
        ax.ticklabel_format(axis="x", style="plain", useOffset=False)
        ax.set_xlabel(name)
        ax.set_ylabel("records")
        ax.set_title(f"{name}: distribution" + (" before and after" if len(series) == 2
                                                 else f" ({series[0][0]})"))
        ax.legend(frameon=False, fontsize=8)
        return _svg(fig)


def frequency_bars(name: str, categories: Sequence[str], before: Sequence[int] | None,
                   after: Sequence[int] | None) -> str:
    """Side-by-side bars of the records in each category (already labelled, e.g. ``1
    urban``) in the original data and in the release; past :data:`MAX_BARS` categories
    the smallest are summed into one bar ``other (N categories)``."""
    cats = list(categories)
    if not cats:
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


def heat_map(name: str, categories: Sequence[str], matrix: np.ndarray) -> str:
    """A transition matrix (row: the original category, column: the released one) as a
    heat map with each probability written in its cell (up to 12 categories)."""
    P = np.asarray(matrix, dtype=float)
    if P.size == 0:
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
        ax.set_title(f"PRAM transition probabilities: {name}")
        if n <= 12:
            for i in range(n):
                for j in range(n):
                    ax.text(j, i, f"{P[i, j]:.2f}", ha="center", va="center", fontsize=7,
                            color="white" if P[i, j] > 0.6 else "#222")
        fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
        return _svg(fig)


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


def suppressions(counts: Mapping[str, int]) -> str:
    """Horizontal bars of the values suppressed in each variable."""
    if not counts:
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


def ru_map(points: Sequence[tuple[str, float, float]], *, released: str | None = None,
           dr_name: str = "disclosure risk (DR)", il_name: str = "information loss (IL)"
           ) -> str:
    """The R-U confidentiality map (Duncan, Keller-McNulty & Stokes 2001): one point per
    variant (label, DR, IL), the axes named by the measures used, the released variant
    circled; labels of points that lie close together are offset so that they do not
    overlap."""
    if not points:
        return ""
    xs = np.array([p[1] for p in points], dtype=float)
    ys = np.array([p[2] for p in points], dtype=float)
    with _figure(6.0, 4.2) as (fig, ax):
        ax.plot(xs, ys, "-", color="#b8c4d0", linewidth=1, zorder=1)
        ax.scatter(xs, ys, color=AFTER, s=22, zorder=2)
        # label offsets in points, raised until no earlier label is close (in axes units)
        span_x, span_y = float(np.ptp(xs)) or 1.0, float(np.ptp(ys)) or 1.0
        placed: list[tuple[float, float]] = []
        for label, x, y in points:
            u, v = (x - xs.min()) / span_x, (y - ys.min()) / span_y
            rise = 0
            while any(abs(u - pu) < 0.12 and abs(v + rise * 0.011 - pv) < 0.05
                      for pu, pv in placed) and rise < 80:
                rise += 10
            placed.append((u, v + rise * 0.011))
            ax.annotate(label, (x, y), xytext=(6, 3 + rise), textcoords="offset points",
                        fontsize=8, arrowprops={"arrowstyle": "-", "color": "#999",
                                                "linewidth": 0.5} if rise else None)
            if label == released:
                ax.scatter([x], [y], s=170, facecolors="none", edgecolors=PRIMARY,
                           linewidths=1.8, zorder=3, label=f"released: {label}")
        ax.set_xlabel(dr_name)
        ax.set_ylabel(il_name)
        ax.set_title("R-U map: each variant's risk and loss")
        ax.grid(True, linewidth=0.3)
        if released is not None and any(p[0] == released for p in points):
            ax.legend(frameon=False, fontsize=8, loc="best")
        return _svg(fig)


def _short(value: float) -> str:
    return f"{value:g}"
