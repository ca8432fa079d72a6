"""The release report: an offline, byte-stable HTML page with the recipe, the steps, the
measures, the checks, before/after frequency tables of the key variables and the R-U map."""

from .files import write_report
from .html import render_report
from .rumap import ru_map_svg, ru_points, ru_ranking

__all__ = ["render_report", "ru_map_svg", "ru_points", "ru_ranking", "write_report"]
