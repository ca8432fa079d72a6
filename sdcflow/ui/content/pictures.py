"""The report's SVG pictures on the workbench's pages.

The pages forbid inline styles (their Content-Security-Policy), and matplotlib's SVG
carries a style sheet; as an image (``<img src="data:image/svg+xml;base64,...">``) the
picture is a document of its own, drawn with its styles and unable to run anything."""

from __future__ import annotations

import base64


def svg_src(svg: str) -> str:
    """The ``src`` of an image showing ``svg`` ('' for no picture)."""
    if not svg:
        return ""
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")
