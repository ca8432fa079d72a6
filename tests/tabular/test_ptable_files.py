"""A ptable as text (sdcflow.tabular.ptable_files) and ``sdcflow ptable``: the CSV the
cell key method reads back, and the tau-Argus file of ``ptable::pt_export``."""

import numpy as np
import pytest

from sdcflow.cli import main
from sdcflow.data.recipe_files import command_line_file
from sdcflow.kernels.tabular.ptable import count_ptable, ptable_from_columns
from sdcflow.methods.tabular.cell_key import read_ptable_file
from sdcflow.tabular.ptable_files import ptable_csv, ptable_tau_argus, r_format


def test_r_format_follows_r():
    # R's print layout (formatReal, scipen = 0): format(0.0001) is "1e-04" (the fixed
    # "0.0001" is wider than "1e-04"), format(0.001) is "0.001" (as wide: fixed wins),
    # format(1e-10) is "1e-10", format(c(1, 0.25, 0.5)) is "1.00" "0.25" "0.50",
    # format(c(-1, 0, 10)) is "-1" " 0" "10", format(123456789) is "123456789"
    assert r_format([0.0001]) == ["1e-04"]
    assert r_format([0.001]) == ["0.001"]
    assert r_format([1e-10]) == ["1e-10"]
    assert r_format([1, 0.25, 0.5]) == ["1.00", "0.25", "0.50"]
    assert r_format([-1, 0, 10]) == ["-1", " 0", "10"]
    assert r_format([123456789]) == ["123456789"]
    # digits = 8: 1/3 shows 8 significant digits, 0.1 + 0.2 its 8-digit rounding
    assert r_format([1 / 3], 8) == ["0.33333333"]
    assert r_format([0.1 + 0.2], 8) == ["0.3"]


def test_tau_argus_file_of_a_hand_solved_ptable():
    # D = 1, V = 0.5: row 1 has v = -1, 0, 1 with p(-1) = p(1) = a (mean 0) and variance
    # 2a <= 0.5; the entropy rises with a up to 1/3, so a = 0.25 and p(0) = 0.5.
    # pt_export writes i, j, p, v, p_int_ub through format(digits = 8) and write.table
    # (sep ";", no quotes): each column in one layout, right-aligned.
    assert ptable_tau_argus(count_ptable(1, 0.5)) == (
        "i;j;p;v;p_int_ub\n"
        "0;0;1.00; 0;1.00\n"
        "1;0;0.25;-1;0.25\n"
        "1;1;0.50; 0;0.75\n"
        "1;2;0.25; 1;1.00\n")


def test_tau_argus_file_of_the_packages_example():
    # ptable 1.0.0, tests/testthat/test-examples.R: pt_ex_cnts() is create_cnt_ptable(D = 2,
    # V = 1.05, mono = c(TRUE, TRUE, FALSE, TRUE), js = 1), whose p the test lists
    # (1.00000000, 0.50833333, 0.47500000, 0.01666667, ...): every p needs 8 decimals,
    # v has a sign, i and j one digit
    text = ptable_tau_argus(count_ptable(2, 1.05, js=1, mono=[True, True, False, True]))
    lines = text.splitlines()
    assert lines[:5] == ["i;j;p;v;p_int_ub",
                         "0;0;1.00000000; 0;1.00000000",
                         "1;0;0.50833333;-1;0.50833333",
                         "1;2;0.47500000; 1;0.98333333",
                         "1;3;0.01666667; 2;1.00000000"]
    assert len(lines) == 1 + 17 and text.endswith("\n")


@pytest.mark.parametrize("kind", ["csv", "tau-argus"])
def test_the_cell_key_method_reads_both_files_back(kind, tmp_path):
    pt = count_ptable(5, 3, js=2)
    path = tmp_path / "pt.txt"
    path.write_text(ptable_csv(pt) if kind == "csv" else ptable_tau_argus(pt))
    cols = read_ptable_file(command_line_file(path, "ptable file", "ptable"))
    back = ptable_from_columns(*(cols[c] for c in ("i", "j", "p", "v", "p_int_lb",
                                                   "p_int_ub")))
    for name in ("i", "j", "v", "p_int_ub", "p_int_lb", "p"):
        if kind == "csv":  # every number exact
            np.testing.assert_array_equal(getattr(back, name), getattr(pt, name))
        else:  # 8 decimals, as the package writes them
            np.testing.assert_allclose(getattr(back, name), getattr(pt, name), atol=1e-8)


def test_ptable_command(tmp_path, capsys):
    argv = ["ptable", "2", "1.05", "1", "--mono", "true,true,false,true"]
    assert main([*argv, "--format", "tau-argus"]) == 0
    assert capsys.readouterr().out.startswith("i;j;p;v;p_int_ub\n0;0;1.00000000; 0;")
    target = tmp_path / "pt.txt"
    assert main([*argv, "--format", "csv", "-o", str(target)]) == 0
    assert target.read_text().startswith("i,j,p,v,p_int_lb,p_int_ub\n0,0,1,0,0,1\n")
    capsys.readouterr()
    # never replaced
    assert main([*argv, "-o", str(target)]) == 1
    assert "exists: not replaced" in capsys.readouterr().err
    assert target.read_text().startswith("i,j,p,v")
    assert [p.name for p in tmp_path.iterdir()] == ["pt.txt"]  # no temporary file left
    # the package's own refusal (ptable's "The variance parameter you set is too small!")
    assert main(["ptable", "3", "2", "2"]) == 1
    err = capsys.readouterr().err
    assert "impossible ptable" in err and "Traceback" not in err
    assert main(["ptable", "4", "1.5", "--pstay", "0.5,0.5,0.5,0.5", "--format", "json"]) == 0
    assert '"p_int_ub"' in capsys.readouterr().out
