"""The release report: an offline, byte-stable HTML page (and its PDF) that a
methodologist reads and signs: a summary first (released or not, each check with its
figures, the risk before and after, the utility cost), then each step in plain words with
its key figures and pictures, the R-U map, the protected tables and the key variables."""

from .build import ReportData, StepView
from .files import write_report
from .from_run import report_data
from .html import render_report
from .pdf import pdf_bytes
from .rumap import ru_map_svg, ru_points, ru_ranking

__all__ = ["ReportData", "StepView", "pdf_bytes", "render_report", "report_data",
           "ru_map_svg", "ru_points", "ru_ranking", "write_report"]
