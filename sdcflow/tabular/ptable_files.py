"""A ptable written as text: for people, as CSV (the ``ptable`` package's columns, read
back by the cell key method's ``ptable_file``), or as the file the ``ptable`` package
exports for tau-Argus.

The tau-Argus file is the one ``ptable::pt_export(ptab, file, SDCtool = "TauArgus")``
writes (T. Enderle, S. Giessing, *ptable: Generation of Perturbation Tables for the
Cell-Key Method*, 2023, ``R/pt_export.R``), byte for byte: the columns ``i, j, p, v,
p_int_ub`` of a ptable of counts, formatted by R's ``format(pTable, digits = 8)`` (each
column on its own: the fewest significant digits, at most 8, that show every value of
the column to 8 significant digits, one number of decimals for the whole column, fixed
rather than scientific notation unless that is narrower, right-aligned to the column's
width), then ``write.table(sep = ";", dec = ".", row.names = FALSE, col.names = TRUE,
quote = FALSE)``: a header line, ``;`` between fields, lines ending in ``\\n``. (The
package appends ``.csv`` to the name it is given; sdcflow writes the name it is given.)
"""

from __future__ import annotations

from collections.abc import Sequence

from ..kernels.tabular.ptable import PTable

COLUMNS = ("i", "j", "p", "v", "p_int_lb", "p_int_ub")
TAU_ARGUS_COLUMNS = ("i", "j", "p", "v", "p_int_ub")


def _significant(x: float, digits: int) -> tuple[int, int]:
    """``(exponent, significant digits)`` of ``x`` rounded to ``digits`` significant
    digits, without trailing zeros (R's ``scientific()`` in ``format.c``)."""
    if x == 0:
        return 0, 1
    mantissa, exponent = f"{abs(x):.{digits - 1}e}".split("e")
    sig = len(mantissa.replace(".", "").rstrip("0")) or 1
    return int(exponent), sig


def r_format(values: Sequence[float], digits: int = 8) -> list[str]:
    """``format(values, digits = digits)`` of R for a numeric vector without missing
    values (R's ``formatReal`` with ``scipen = 0``): one layout for the whole vector,
    each value right-aligned to the widest."""
    values = [float(x) for x in values]
    if not values:
        return []
    neg = any(x < 0 for x in values)
    facts = [_significant(x, digits) for x in values]
    # fixed notation: digits left of the point, and the decimals every value needs
    left = max(max(e + 1, 1) for e, _ in facts)
    rgt = max(max(sig - e - 1, 0) for e, sig in facts)
    fixed_width = neg + left + (rgt + 1 if rgt else 0)
    # scientific notation: the most significant digits of any value, and the exponent
    mxsig = max(sig for _, sig in facts)
    big_exponent = any(abs(e) >= 100 for e, _ in facts)
    sci_width = neg + (mxsig + 1 if mxsig > 1 else mxsig) + (5 if big_exponent else 4)
    if fixed_width <= sci_width:
        texts = [f"{x:.{rgt}f}" for x in values]
    else:
        texts = [_r_scientific(x, mxsig - 1, big_exponent) for x in values]
    width = max(len(t) for t in texts)
    return [t.rjust(width) for t in texts]


def _r_scientific(x: float, decimals: int, three_digit_exponent: bool) -> str:
    """R's scientific layout: ``1.5e-08`` (an exponent of at least two digits)."""
    mantissa, exponent = f"{x:.{decimals}e}".split("e")
    e = int(exponent)
    return f"{mantissa}e{'-' if e < 0 else '+'}{abs(e):0{3 if three_digit_exponent else 2}d}"


def _columns(table: PTable) -> dict[str, list[float]]:
    return {"i": list(table.i), "j": list(table.j), "p": list(table.p), "v": list(table.v),
            "p_int_lb": list(table.p_int_lb), "p_int_ub": list(table.p_int_ub)}


def ptable_tau_argus(table: PTable) -> str:
    """The tau-Argus file of ``ptable::pt_export(SDCtool = "TauArgus")`` (counts only:
    a magnitude ptable needs the package's ``type`` column of even and odd cells)."""
    if table.table != "cnts":
        raise ValueError("the tau-Argus export is for ptables of counts")
    cols = _columns(table)
    formatted = [r_format(cols[c]) for c in TAU_ARGUS_COLUMNS]
    lines = [";".join(TAU_ARGUS_COLUMNS)]
    lines += [";".join(row) for row in zip(*formatted, strict=True)]
    return "\n".join(lines) + "\n"


def _number(x: float) -> str:
    """A number as the shortest text that reads back as the same float (whole numbers
    without a decimal point)."""
    return str(int(x)) if float(x).is_integer() and abs(x) < 2**53 else repr(float(x))


def ptable_csv(table: PTable) -> str:
    """The six columns of the ``ptable`` package as CSV (``,``, a header line), every
    number exact: the cell key method reads it back as ``ptable_file``."""
    cols = _columns(table)
    lines = [",".join(COLUMNS)]
    lines += [",".join(_number(x) for x in row)
              for row in zip(*(cols[c] for c in COLUMNS), strict=True)]
    return "\n".join(lines) + "\n"


def ptable_text(table: PTable) -> str:
    """The ptable for people: the six columns aligned, numbers as R prints them (8
    significant digits)."""
    cols = _columns(table)
    formatted = {c: r_format(cols[c]) for c in COLUMNS}
    widths = {c: max(len(c), len(formatted[c][0])) for c in COLUMNS}
    lines = ["  ".join(c.rjust(widths[c]) for c in COLUMNS)]
    lines += ["  ".join(formatted[c][n].rjust(widths[c]) for c in COLUMNS)
              for n in range(len(cols["i"]))]
    return "\n".join(lines) + "\n"


def ptable_json(table: PTable) -> dict:
    """The columns as lists of numbers (the cell key method's ``ptable`` parameter)."""
    return {c: [float(x) for x in v] for c, v in _columns(table).items()}

