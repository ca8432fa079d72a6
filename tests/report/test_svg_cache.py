"""The report's pictures are drawn once per process for the same content: the cache is
keyed by content (never by identity), and a picture from the cache is the picture drawn."""

import numpy as np

from sdcflow.report import figures, svg_cache
from sdcflow.report.svg_cache import content_key, memoised


def test_keys_follow_content_not_identity():
    a = np.array([1.0, 2, 3])
    assert content_key(a) == content_key(a.copy())
    assert content_key(a) != content_key(np.array([1.0, 2, 4]))
    assert content_key(a) != content_key(a.astype(np.float32))  # dtype counts
    assert content_key(a) != content_key(a.reshape(3, 1))       # so does the shape
    # text arrays by value: their bytes are pointers, equal text in other objects
    t1 = np.array(["urban", "rural"], dtype=object)
    t2 = np.array([str(np.str_("urb")) + "an", "rural"], dtype=object)
    assert content_key(t1) == content_key(t2)
    assert content_key(t1) != content_key(np.array(["rural", "urban"], dtype=object))
    assert content_key([("a", 1.0)]) != content_key([("a", 1)])  # 1.0 and 1 differ in type
    assert content_key({"x": 1, "y": 2}) != content_key({"y": 2, "x": 1})  # drawing order


def test_memoised_draws_once_and_returns_the_same_text():
    calls = []

    @memoised
    def picture(name, values):
        calls.append(name)
        return f"<svg>{name}:{values.sum()}</svg>"

    svg_cache.clear()
    x = np.arange(5.0)
    assert picture("a", x) == picture("a", x.copy()) == "<svg>a:10.0</svg>"
    assert calls == ["a"]
    assert picture("a", x + 1) == "<svg>a:15.0</svg>" and calls == ["a", "a"]

    class Opaque:  # no content key: drawn every time
        def sum(self):
            return 0
    picture("b", Opaque())
    picture("b", Opaque())
    assert calls == ["a", "a", "b", "b"]


def test_a_cached_picture_is_the_picture_drawn():
    rng = np.random.default_rng(1)
    before, after = rng.normal(size=300), rng.normal(size=300)
    svg_cache.clear()
    drawn = figures.histogram("income", before, after)
    assert figures.histogram("income", before.copy(), after.copy()) is drawn
    svg_cache.clear()
    assert figures.histogram("income", before, after) == drawn  # drawn again: same bytes
    assert figures.histogram("income", before, after[::-1].copy()) == drawn  # same values
    assert figures.histogram("income", before, after + 1) != drawn


def test_the_cache_is_bounded():
    svg_cache.clear()

    @memoised
    def picture(i):
        return f"<svg>{i}</svg>"

    for i in range(svg_cache.ENTRIES + 10):
        picture(i)
    assert len(svg_cache._cache) == svg_cache.ENTRIES
