"""Aggregated tables read from a file (sdcflow.tabular.cells_file): read and checked when
the recipe is read, so that a file that cannot make a table is an error at its
declaration (exit 1, the position of its `from`), never a failed run or an internal
error (exit 4, as every case below was)."""

import shutil

import pytest
from helpers import ROOT

from sdcflow.cli import main

RECIPE = """\
sdcflow: 1
name: cells
seed: 1
data: {path: data.csv}
variables:
  profession: {role: key}
  town: {role: key}
tables:
  - id: t
    dims: [profession, town]
    from: {path: cells.csv, freq: FREQ}
steps:
  - {id: primary, method: sensitivity_rules, table: t, params: {rules: [{freq: 3}]}}
  - {id: audit, measure: table_audit, table: t}
release: {tables: {t: t.csv}}
"""
CELLS = (ROOT / "recipes" / "data" / "profession_town.csv").read_text().splitlines()
HEADER, P1M1, REST = CELLS[0], CELLS[1], CELLS[2:]  # P1,M1,2,360,200,160


def write(tmp_path, lines, freq="freq"):
    shutil.copy(ROOT / "recipes" / "data" / "profession_town.csv", tmp_path / "data.csv")
    (tmp_path / "cells.csv").write_text("".join(f"{line}\n" for line in lines))
    recipe = tmp_path / "r.yaml"
    recipe.write_text(RECIPE.replace("FREQ", freq))
    return recipe


@pytest.mark.parametrize("lines, freq, message", [
    ([HEADER, P1M1, *REST, P1M1], "freq",
     ("r.yaml:11:18: tables[0].from: the table file cells.csv: cells given twice, the same "
      "codes on lines 2, 17")),
    ([HEADER, P1M1.replace(",2,", ",two,"), *REST], "freq",
     ("r.yaml:11:35: tables[0].from: the table file cells.csv: column 'freq' holds text "
      "where numbers belong (line 2)")),
    ([HEADER, P1M1.replace(",2,", ",2.5,"), *REST], "freq",
     "column 'freq' holds frequencies that are not whole numbers of at least 0 (line 2)"),
    ([HEADER, P1M1.replace(",360,", ",inf,"), *REST], "freq",
     "column 'value' has infinite values (line 2)"),
    ([HEADER, P1M1.replace(",360,", ",,"), *REST], "freq",
     "cells without a value of 'value' (line 2)"),
    ([HEADER, "," + P1M1.split(",", 1)[1], *REST], "freq",
     "cells without a code of 'profession' (line 2)"),
    ([HEADER], "freq", "the table file cells.csv: it has no cells (a header only)"),
    ([], "freq", "the table file cells.csv: it is empty (no header)"),
    ([HEADER, P1M1], "count",
     ("r.yaml:11:35: tables[0].from: the table file cells.csv: it has no column 'count' in "
      "its header")),
    ([HEADER.replace("top2", "top3"), P1M1], "freq",
     "it has no column 'top2' in its header (did you mean 'top3'?)"),
    ([HEADER, "Total,M1,2,360,200,160", "Total,M2,3,30,10,10"], "freq",
     ("it has no cells below the total of 'profession' (every code of 'profession' is "
      "'Total')")),
])
def test_a_table_file_that_makes_no_table_is_refused_at_its_declaration(tmp_path, capsys,
                                                                      lines, freq, message):
    recipe = write(tmp_path, lines, freq)
    for argv in (["validate", str(recipe)], ["run", str(recipe), "--out", str(tmp_path / "o")]):
        assert main(argv) == 1, argv
        err = capsys.readouterr().err
        assert message in err and "internal error" not in err, err
    assert not (tmp_path / "o").exists()


def test_totals_may_be_left_out_or_empty(tmp_path, capsys):
    # the table computes its totals: a file of the inner cells only, or with a total row
    # whose value is empty, makes the table of the shipped recipe
    recipe = write(tmp_path, [HEADER, P1M1, *REST])
    assert main(["run", str(recipe), "--out", str(tmp_path / "a")]) == 0
    recipe = write(tmp_path, [HEADER, P1M1, *REST, "Total,Total,,,,"])
    assert main(["run", str(recipe), "--out", str(tmp_path / "b")]) == 0, \
        capsys.readouterr().err
    assert (tmp_path / "a" / "public" / "t.csv").read_bytes() == \
        (tmp_path / "b" / "public" / "t.csv").read_bytes()
