"""The ranking behind MDAV's farthest-record queries: the live records sorted by their
distance to a reference point, within cones of directions, and the exact farthest
record from any point found by scanning it with a bound (see
:mod:`sdcflow.kernels.perturbative.microaggregation.mdav` for how MDAV uses it)."""

from __future__ import annotations

import numpy as np

from ...jit import njit

CONES_PER_FACE = 16  # cells each face of the cube of directions is cut into (about)
MAX_CONES = 256


def cone_geometry(d: int, per_face: int = CONES_PER_FACE) -> tuple[int, np.ndarray, np.ndarray]:
    """The cones of directions the rankings are split into, for ``d`` columns: each of
    the 2 d faces of the cube around the reference point (the axis of the largest
    coordinate and its sign) cut into m^(d-1) cells by the ratios of the other
    coordinates to the largest, m = per_face^(1/(d-1)) rounded down (at least 1).
    Returns m, the unit direction through the middle of each cone (cones x d) and the
    cosine and sine of each cone's angular radius about it (cones x 2): the largest
    angle to a corner of the cell (the angle to a direction is quasi-convex on the
    face's plane, so its largest value over a cell is at a corner), widened by 1e-7
    radians against rounding at the cells' edges."""
    m = 1 if d < 2 else max(1, int(np.floor(per_face ** (1.0 / (d - 1)) + 1e-9)))
    while m > 1 and 2 * d * m ** (d - 1) > MAX_CONES:
        m -= 1
    cells = m ** (d - 1) if d > 1 else 1
    cones = 2 * d * cells
    centre = np.empty((cones, d))
    radius = np.empty((cones, 2))
    edges = np.linspace(-1.0, 1.0, m + 1)
    corners = np.array(np.meshgrid(*[[0, 1]] * (d - 1), indexing="ij")).reshape(d - 1, -1).T \
        if d > 1 else np.zeros((1, 0), np.int64)
    for b in range(cones):
        face, cell = divmod(b, cells)
        j, sign = face // 2, (-1.0 if face % 2 else 1.0)
        others = [i for i in range(d) if i != j]
        bins = []
        for _ in others:
            cell, r = divmod(cell, m)
            bins.append(r)
        lo = np.array([edges[r] for r in bins])
        hi = np.array([edges[r + 1] for r in bins])
        w = np.zeros(d)
        w[j] = sign
        w[others] = (lo + hi) / 2
        c = w / np.linalg.norm(w)
        widest = 0.0
        for corner in corners:
            w[others] = np.where(corner == 1, hi, lo)
            cos = float(np.clip(c @ (w / np.linalg.norm(w)), -1.0, 1.0))
            widest = max(widest, float(np.arccos(cos)))
        widest = min(widest + 1e-7, np.pi / 2)
        centre[b] = c
        radius[b] = np.cos(widest), np.sin(widest)
    return m, centre, radius


@njit(cache=True)
def _cone_of(u, m):
    """The cone (see :func:`cone_geometry`) of direction ``u`` (need not be unit)."""
    d = u.shape[0]
    j = 0
    big = -1.0
    for i in range(d):
        if abs(u[i]) > big:
            big = abs(u[i])
            j = i
    face = 2 * j + (1 if u[j] < 0.0 else 0)
    cell = 0
    scale = 1
    for i in range(d):
        if i == j:
            continue
        r = u[i] / big if big > 0.0 else 0.0
        t = int((r + 1.0) * 0.5 * m)
        cell += scale * min(max(t, 0), m - 1)
        scale *= m
    return face * scale + cell


@njit(cache=True)
def rank_by_distance(X, alive, c_ref, top, ranked, radius, Xr, alive_r, pos, starts, m):
    """Rank the live records by decreasing distance to ``c_ref``: the ``top`` farthest
    (all if fewer) into ``ranked`` (ids), ``radius`` (distances), ``Xr`` (their rows,
    contiguous, so that scans read memory in order) and ``alive_r``, grouped by their
    cone of directions from ``c_ref`` (:func:`cone_geometry`; cone b holds places
    starts[b] .. starts[b+1]) and sorted by decreasing distance within each; ``pos``
    maps an id to its place (-1: not ranked). Returns the largest distance among the
    live records left out (-1 if none)."""
    d = X.shape[1]
    cones = starts.shape[0] - 1
    rows = np.flatnonzero(alive)
    m_rows = rows.shape[0]
    keys = np.empty(m_rows)
    for t in range(m_rows):
        p = rows[t]
        s = 0.0
        for j in range(d):
            v = X[p, j] - c_ref[j]
            s += v * v
        keys[t] = s
    for t in range(X.shape[0]):
        pos[t] = -1
    kept = min(top, m_rows)
    rest = -1.0
    if kept < m_rows:
        # the kept largest: all above the cut, then records at the cut until there are
        # exactly ``kept`` (the others at the cut bound what is left out)
        cut = np.partition(keys, m_rows - kept)[m_rows - kept]
        chosen = np.empty(kept, np.int64)
        c = 0
        for t in range(m_rows):
            if keys[t] > cut:
                chosen[c] = t
                c += 1
        for t in range(m_rows):
            if c == kept:
                break
            if keys[t] == cut:
                chosen[c] = t
                c += 1
                keys[t] = np.inf  # (marked as taken)
        for t in range(m_rows):
            if keys[t] == np.inf:
                keys[t] = cut
            elif keys[t] <= cut:
                rest = max(rest, keys[t])
    else:
        chosen = np.arange(m_rows)
    cone = np.empty(kept, np.int64)
    u = np.empty(d)
    for t in range(kept):
        p = rows[chosen[t]]
        for j in range(d):
            u[j] = X[p, j] - c_ref[j]
        cone[t] = _cone_of(u, m)
    # by cone, then by decreasing distance: sorted by distance, then placed by cone
    order = np.argsort(-keys[chosen], kind="mergesort")
    for b in range(cones + 1):
        starts[b] = 0
    for t in range(kept):
        starts[cone[t] + 1] += 1
    for b in range(cones):
        starts[b + 1] += starts[b]
    fill = starts[:-1].copy()
    for t in range(kept):
        i = chosen[order[t]]
        place = fill[cone[order[t]]]
        fill[cone[order[t]]] += 1
        p = rows[i]
        ranked[place] = p
        radius[place] = np.sqrt(keys[i])
        for j in range(d):
            Xr[place, j] = X[p, j]
        alive_r[place] = True
        pos[p] = place
    return np.sqrt(rest) if rest >= 0.0 else -1.0


@njit(cache=True)
def farthest_ranked(q, c_ref, heads, starts, rest, ranked, radius, Xr, alive_r, rank, cosines,
              centre, spread, budget):
    """The live record farthest from ``q`` (ties: the smallest ``rank``), its squared
    distance, how many records were looked at, and whether the answer is certain. With
    delta = |q - c_ref| and v the unit direction from q to c_ref, a record x at distance
    rho from c_ref in cone b is at most sqrt(rho^2 + delta^2 + 2 rho delta cos_b) from
    q, cos_b an upper bound of the cosine between v and a direction of the cone (1 when v
    is within the cone's radius of its centre, else the cosine of the angle to the
    centre less the radius): each cone is scanned by decreasing rho, the one facing v
    first, until that bound falls below the farthest found. Not certain when the
    records outside the ranking (at most ``rest`` from c_ref) might be farther, or when
    ``budget`` records were looked at first (then the best so far)."""
    d = Xr.shape[1]
    delta = 0.0
    v = np.empty(d)
    for j in range(d):
        v[j] = c_ref[j] - q[j]
        delta += v[j] * v[j]
    delta = np.sqrt(delta)
    cones = starts.shape[0] - 1
    first = 0
    for b in range(cones):
        if delta > 0.0:
            cos_t = 0.0
            for j in range(d):
                cos_t += v[j] * centre[b, j]
            cos_t = min(1.0, max(-1.0, cos_t / delta))
            if cos_t >= spread[b, 0]:
                cosines[b] = 1.0
            else:  # cos(theta - radius)
                cosines[b] = min(1.0, cos_t * spread[b, 0]
                                 + np.sqrt(max(0.0, 1.0 - cos_t * cos_t)) * spread[b, 1])
        else:
            cosines[b] = 1.0
        if cosines[b] > cosines[first]:
            first = b
    best = -1
    best_d = -1.0
    scanned = 0
    for i in range(cones):
        b = first if i == 0 else (i - 1 if i - 1 < first else i)
        c = cosines[b]
        t = heads[b]
        while t < starts[b + 1] and not alive_r[t]:
            t += 1
        heads[b] = t
        while t < starts[b + 1]:
            if alive_r[t]:
                rho = radius[t]
                bound = rho * rho + delta * delta + 2.0 * rho * delta * c
                # (the margin covers rounding in the distances and their square roots)
                if bound * (1.0 + 1e-9) + 1e-300 < best_d:
                    break
                if scanned == budget:
                    return best, best_d, scanned, False
                scanned += 1
                dd = 0.0
                for j in range(d):
                    w = Xr[t, j] - q[j]
                    dd += w * w
                p = ranked[t]
                if dd > best_d or (dd == best_d and rank[p] < rank[best]):
                    best_d = dd
                    best = p
            t += 1
    if rest >= 0.0 and ((rest + delta) ** 2 * (1.0 + 1e-9) + 1e-300 >= best_d):
        return best, best_d, scanned, False
    return best, best_d, scanned, True
