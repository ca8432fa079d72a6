"""The ``cell_key`` table method in recipes: the perturbed table worked out by hand from
given record keys and ptable's example ptable pt_ex_cnts() (D = 2, V = 1.05, js = 1;
its figures are checked in tests/kernels/tabular/test_ptable.py), consistency of the
noise across the tables of a recipe, ptable files, a magnitude table worked out by
hand, and bad input refused."""

import json

import numpy as np
import pandas as pd
import pytest
from helpers import CELL_KEY_RECORDS

from sdcflow import run, validate
from sdcflow.errors import PluginError, RecipeError
from sdcflow.kernels.tabular.ptable import count_ptable
from sdcflow.plugins import registry
from sdcflow.plugins.testing import result_problems

DATA = CELL_KEY_RECORDS
PT_EX = "D: 2, V: 1.05, js: 1, mono: [true, true, false, true]"

#: the cells by hand: (count, cell key = sum of record keys mod 1) -> the ptable row
#: min(count, 4) and the first p_int_ub above the key (row 1: .50833333, .98333333, 1
#: for v = -1, 1, 2; row 2: .16155827, .71720864, .95967482, 1 for v = -2, 0, 1, 2;
#: row 3: .41231301, .70037398, .88731301, 1 for v = -1..2; row 4: .07012498,
#: .31462505, .68537495, .92987502, 1 for v = -2..2)
HAND = {("A", "x"): 2,        # n 1, key .6 -> +1
        ("A", "y"): 2,        # n 2, key .7 -> 0
        ("B", "x"): 4,        # n 4, key 2.45 -> .45 -> 0
        ("B", "y"): 2,        # n 1, key .95 -> +1
        ("A", "Total"): 2,    # n 3, key 1.3 -> .3 -> -1
        ("B", "Total"): 5,    # n 5, key 3.4 -> .4 -> 0
        ("Total", "x"): 3,    # n 5, key 3.05 -> .05 -> -2
        ("Total", "y"): 3,    # n 3, key 1.65 -> .65 -> 0
        ("Total", "Total"): 9}  # n 8, key 4.7 -> .7 -> +1


def write(tmp_path, steps: str, tables: str = "[{id: gh, dims: [g, h]}]",
          release: str = "{tables: {gh: gh.csv}}", data: str = DATA, seed: int = 7):
    (tmp_path / "data.csv").write_text(data, encoding="utf-8")
    path = tmp_path / "recipe.yaml"
    step_lines = [f"  {line.strip()}" for line in steps.strip().splitlines()]
    path.write_text("\n".join([
        "sdcflow: 1", "name: ck", f"seed: {seed}", "data: {path: data.csv}", "variables:",
        "  g: {role: key}", "  h: {role: key}", "  rkey: {role: identifier, type: continuous}",
        f"tables: {tables}", "steps:", *step_lines, f"release: {release}", ""]),
        encoding="utf-8")
    return path


def published(out, name="gh.csv", dims=("g", "h")):
    frame = pd.read_csv(out / "public" / name, dtype={d: str for d in dims})
    return {tuple(r[d] for d in dims): r["freq"] for _, r in frame.iterrows()}


def test_the_perturbed_table_worked_out_by_hand(tmp_path):
    path = write(tmp_path, f"- {{id: ck, method: cell_key, table: gh, "
                           f"params: {{{PT_EX}, record_key: rkey}}}}")
    result = run(path, tmp_path / "out", use_cache=False)
    assert published(tmp_path / "out") == HAND
    info = next(s.info for s in result.steps if s.node == "ck")
    assert info["cells"] == 9 and info["changed"] == 5 and info["max_abs_perturbation"] == 2
    # the office's table keeps the original counts next to the published ones
    internal = pd.read_csv(tmp_path / "out" / "tables" / "gh.csv", dtype={"g": str, "h": str})
    total = internal[(internal.g == "Total") & (internal.h == "Total")].iloc[0]
    assert (total["freq"], total["original_freq"]) == (9, 8)
    # the record keys are an identifier: in no release
    assert "rkey" not in (tmp_path / "out" / "public" / "gh.csv").read_text()


def test_the_same_ptable_from_a_file_in_ptables_layout(tmp_path):
    # pt_export(SDCtool = "SAS") writes i;j;p;v;p_int_lb;p_int_ub, numbers formatted
    pt = count_ptable(2, 1.05, js=1, mono=[True, True, False, True])
    lines = ["i;j;p;v;p_int_lb;p_int_ub"] + [
        f"{i:g};{j:g};{p:.8f};{v: g};{lb:.8f};{ub:.8f}"
        for i, j, p, v, lb, ub in zip(pt.i, pt.j, pt.p, pt.v, pt.p_int_lb, pt.p_int_ub,
                                      strict=True)]
    (tmp_path / "ptab.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    path = write(tmp_path, "- {id: ck, method: cell_key, table: gh, "
                           "params: {ptable_file: ptab.txt, record_key: rkey}}")
    run(path, tmp_path / "out", use_cache=False)
    assert published(tmp_path / "out") == HAND
    # tau-Argus' layout has no p_int_lb: it is the previous upper bound of the row
    argus = ["i j p v p_int_ub".replace(" ", ";")] + [
        line.rsplit(";", 2)[0] + ";" + line.rsplit(";", 1)[1] for line in lines[1:]]
    (tmp_path / "ptab.txt").write_text("\n".join(argus) + "\n", encoding="utf-8")
    run(path, tmp_path / "out2", use_cache=False)
    assert published(tmp_path / "out2") == HAND


def test_write_ptable_writes_the_ptable_used_into_the_internal_output(tmp_path):
    # the ptable of the worked example above (ptable's pt_ex_cnts), in the package's six
    # columns, written where the internal outputs are (never public/), cached or not
    path = write(tmp_path, f"- {{id: ck, method: cell_key, table: gh, "
                           f"params: {{{PT_EX}, record_key: rkey, write_ptable: true}}}}")
    from sdcflow.data.recipe_files import command_line_file
    from sdcflow.methods.tabular.cell_key import read_ptable_file

    run(path, tmp_path / "out", use_cache=False)
    written = tmp_path / "out" / "steps" / "ck.ptable.csv"
    cols = read_ptable_file(command_line_file(written, "ptable file", "ptable"))
    pt = count_ptable(2, 1.05, js=1, mono=[True, True, False, True])
    np.testing.assert_array_equal(cols["p_int_ub"], pt.p_int_ub)
    np.testing.assert_array_equal(cols["j"], pt.j)
    assert published(tmp_path / "out") == HAND  # the release is the same
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert "steps/ck.ptable.csv" in manifest["files"]
    public = (tmp_path / "out" / "public" / "manifest.json").read_text()
    assert "write_ptable" not in public and not list((tmp_path / "out" / "public").rglob(
        "*ptable*"))
    run(path, tmp_path / "cached")  # from the cache: the same bytes
    assert (tmp_path / "cached" / "steps" / "ck.ptable.csv").read_bytes() == \
        written.read_bytes()
    # without write_ptable, no file
    path.write_text(path.read_text().replace(", write_ptable: true", ""))
    run(path, tmp_path / "plain", use_cache=False)
    assert not (tmp_path / "plain" / "steps").exists()


def test_write_ptable_of_a_magnitude_table_writes_its_further_ptables():
    from sdcflow.kernels.tabular.ptable import magnitude_ptable
    from sdcflow.tabular.ptable_files import ptable_csv

    plugin = registry.get("cell_key")
    params = {"D": 3, "V": 2, "write_ptable": True,
              "magnitude": {"p": 0.1, "odd": {"D": 2, "V": 1}}}
    files = plugin.internal_files(params)
    assert sorted(files) == ["ptable-odd.csv", "ptable.csv"]
    # create_num_ptable's defaults: step 2, icat [1, D]
    assert files["ptable-odd.csv"] == ptable_csv(magnitude_ptable(2, 1, step=2, icat=[1, 2]))
    assert files["ptable.csv"] == ptable_csv(magnitude_ptable(3, 2, step=2, icat=[1, 3]))
    assert plugin.internal_files({**params, "write_ptable": False}) == {}


def test_a_cell_gets_the_same_noise_in_every_table(tmp_path):
    # keys drawn by sdcflow from the recipe's stream: the margin g x Total of the g x h
    # table is the cell g of the table of g alone, with the same records and the same key
    data = "g,h,rkey\n" + "".join(f"{'ABC'[k % 3]},{'xyz'[(k * 7) % 3]},0.5\n"
                                  for k in range(300))
    steps = f"""
        - {{id: ck1, method: cell_key, table: gh, params: {{{PT_EX}}}}}
        - {{id: ck2, method: cell_key, table: g, params: {{{PT_EX}}}}}
    """
    tables = "[{id: gh, dims: [g, h]}, {id: g, dims: [g]}]"
    release = "{tables: {gh: gh.csv, g: g.csv}}"
    path = write(tmp_path, steps, tables, release, data)
    run(path, tmp_path / "out", use_cache=False)
    both = published(tmp_path / "out")
    alone = published(tmp_path / "out", "g.csv", ("g",))
    for code in ("A", "B", "C", "Total"):
        assert both[(code, "Total")] == alone[(code,)]
    # the keys depend on the recipe's seed, not on the step: renamed steps, same table
    path = write(tmp_path, steps.replace("ck1", "other").replace("ck2", "again"), tables,
                 release, data)
    run(path, tmp_path / "out2", use_cache=False)
    assert published(tmp_path / "out2") == both
    # and another seed draws other keys (some cell of 12 changes with near certainty)
    path = write(tmp_path, steps, tables, release, data, seed=8)
    run(path, tmp_path / "out3", use_cache=False)
    assert published(tmp_path / "out3") != both


def test_impossible_ptables_and_bad_parameters_are_refused(tmp_path):
    path = write(tmp_path, "- {id: ck, method: cell_key, table: gh, "
                           "params: {D: 2, V: 1.05, js: 2}}")
    with pytest.raises(RecipeError, match=r"recipe.yaml:\d+:\d+: .*impossible ptable: row "
                                          r"i = 1.*at least 2\b"):
        validate(path)
    # D = 3, V = 2, js = 2: row 1's least variance is 2 + 4e-8 (every p >= 1e-8), which
    # the ptable package refuses; it was built before
    path = write(tmp_path, "- {id: ck, method: cell_key, table: gh, "
                           "params: {D: 3, V: 2, js: 2}}")
    with pytest.raises(RecipeError, match=r"recipe.yaml:\d+:\d+: .*impossible ptable: row "
                                          r"i = 1.*at least 2\.00000004 .*V = 2:"):
        validate(path)
    # a V beyond what perturbations of at most D can have: refused at validation, at once
    path = write(tmp_path, "- {id: ck, method: cell_key, table: gh, "
                           "params: {D: 50, V: 1000}}")
    with pytest.raises(RecipeError, match=r"V = 1000 cannot be reached.*at most 850"):
        validate(path)
    path = write(tmp_path, "- {id: ck, method: cell_key, table: gh, params: {js: 1}}")
    with pytest.raises(RecipeError, match="give D and V"):
        validate(path)
    path = write(tmp_path, "- {id: ck, method: cell_key, table: gh, "
                           "params: {D: 2, V: 1, ptable_file: x.txt}}")
    with pytest.raises(RecipeError, match="the ptable file x.txt: no such file"):
        validate(path)
    path = write(tmp_path, "- {id: ck, method: cell_key, table: gh, "
                           "params: {D: 2, V: 1, record_key: nokey}}")
    with pytest.raises(RecipeError, match="'nokey' is not a declared variable"):
        validate(path)


def test_a_huge_V_is_refused_by_the_cli_without_a_warning(tmp_path, capsys):
    # V = 1000 with D = 50 (the schema's largest): refused at validation with the variance
    # that can be reached (850), exit 1, no "please report it" warning
    from helpers import validate_cli

    path = write(tmp_path, "- {id: ck, method: cell_key, table: gh, "
                           "params: {D: 50, V: 1000}}")
    code, lines = validate_cli(path, capsys)
    assert code == 1
    assert any("V = 1000 cannot be reached" in line and "at most 850" in line
               for line in lines)
    assert not any("warning" in line or "please report" in line for line in lines)


def test_bad_record_keys_are_refused(tmp_path):
    path = write(tmp_path, f"- {{id: ck, method: cell_key, table: gh, "
                           f"params: {{{PT_EX}, record_key: rkey}}}}",
                 data=DATA.replace("0.95", "1.95"))
    with pytest.raises(RecipeError, match=r"record keys must lie in \[0, 1\]"):
        validate(path)
    path = write(tmp_path, f"- {{id: ck, method: cell_key, table: gh, "
                           f"params: {{{PT_EX}, record_key: rkey}}}}",
                 data=DATA.replace("0.95", ""))
    with pytest.raises(RecipeError, match="1 missing record keys"):
        validate(path)


def test_a_magnitude_table_without_magnitude_parameters_is_refused(tmp_path):
    data = DATA.replace("rkey", "rkey,y").replace("\n", ",3\n").replace("rkey,y,3", "rkey,y")
    path = write(tmp_path, f"- {{id: ck, method: cell_key, table: gh, params: {{{PT_EX}}}}}",
                 tables="[{id: gh, dims: [g, h], response: y}]", data=data)
    text = path.read_text().replace("  rkey:", "  y: {role: numeric}\n  rkey:")
    path.write_text(text)
    with pytest.raises(PluginError, match="the table sums 'y': give the magnitude"):
        run(path, tmp_path / "out", use_cache=False)


def test_utility_of_the_perturbed_table(tmp_path):
    # the hand table: originals 1, 2, 4, 1, 3, 5, 5, 3, 8 become HAND (the cells in the
    # table's order: A x, A y, A Total, B x, B y, B Total, Total x, Total y, Total Total)
    steps = f"""
        - {{id: ck, method: cell_key, table: gh, params: {{{PT_EX}, record_key: rkey}}}}
        - {{id: utility, measure: cell_key_utility, table: gh}}
    """
    path = write(tmp_path, steps)
    result = run(path, tmp_path / "out", use_cache=False)
    got = result.measures["utility"]
    # the summary has the shape the measure declares
    plugin = registry.get("cell_key_utility")
    assert result_problems(plugin, None, {"exclude_zeros": True}, got) == []
    # perturbations: A x +1, A y 0, A Total -1, B x 0, B y +1, B Total 0, Total x -2,
    # Total y 0, Total Total +1
    assert got["perturbations"] == {"-2": 1, "-1": 1, "0": 4, "1": 3}
    assert got["changed"] == 5 and got["l1"] == 6 and got["false_zero"] == 0
    assert got["d1"]["max"] == 2 and got["d1"]["mean"] == pytest.approx(6 / 9)
    # relative: 1/1, 1/3, 1/1, 2/5, 1/8 over the changed cells, 0 for the others
    assert got["d2"]["mean"] == pytest.approx((1 + 1 / 3 + 1 + 2 / 5 + 1 / 8) / 9)


def test_utility_needs_a_perturbed_table(tmp_path):
    # (nothing released: an unperturbed table would not be released anyway)
    path = write(tmp_path, "- {id: utility, measure: cell_key_utility, table: gh}",
                 release="{}")
    with pytest.raises(PluginError, match="run cell_key on it"):
        run(path, tmp_path / "out", use_cache=False)


#: a magnitude table: (g, h, record key, value); the zero value's key counts for the cell
#: only with use_zero_rkeys
MAG_DATA = "g,h,rkey,y\nA,x,0.8,1000\nA,y,0.3,500\nA,y,0.4,0\nB,x,0.05,200\nB,y,0.95,0\n"
#: a hand-made ptable of a magnitude table: rows i = 0; 1 (v = -1, 0, 1 below .25, .75,
#: 1); 2 (v = -2..2 below .1, .3, .7, .9, 1)
MAG_PTABLE = ("{i: [0, 1, 1, 1, 2, 2, 2, 2, 2], j: [0, 0, 1, 2, 0, 1, 2, 3, 4], "
              "p: [1, .25, .5, .25, .1, .2, .4, .2, .1], v: [0, -1, 0, 1, -2, -1, 0, 1, 2], "
              "p_int_lb: [0, 0, .25, .75, 0, .1, .3, .7, .9], "
              "p_int_ub: [1, .25, .75, 1, .1, .3, .7, .9, 1]}")


def write_magnitude(tmp_path, magnitude: str):
    path = write(tmp_path, f"- {{id: ck, method: cell_key, table: gh, params: {{ptable: "
                           f"{MAG_PTABLE}, record_key: rkey, magnitude: {magnitude}}}}}",
                 tables="[{id: gh, dims: [g, h], response: y}]", data=MAG_DATA)
    path.write_text(path.read_text().replace("  rkey:", "  y: {role: numeric}\n  rkey:"))
    return path


def published_values(out):
    frame = pd.read_csv(out / "public" / "gh.csv", dtype={"g": str, "h": str})
    return {(r["g"], r["h"]): r["value"] for _, r in frame.iterrows()}


def test_a_magnitude_table_worked_out_by_hand(tmp_path):
    # type sum, p = 0.1: x_delta = 0.1 cv, a = |cv / x_delta| = 10, cut to row 2; the
    # cell key of the records with a non-zero value picks v; the value moves by v x_delta
    path = write_magnitude(tmp_path, "{type: sum, p: 0.1}")
    run(path, tmp_path / "out", use_cache=False)
    assert published_values(tmp_path / "out") == pytest.approx({
        ("A", "x"): 1100,        # key .8 -> v +1: 1000 + 100
        ("A", "y"): 500,         # key .3 (not .3 + .4: the 0 does not count) -> v 0
        ("B", "x"): 160,         # key .05 -> v -2: 200 - 40
        ("B", "y"): 0,           # a zero cell stays 0
        ("A", "Total"): 1350,    # key .8 + .3 = 1.1 -> .1 -> v -1: 1500 - 150
        ("B", "Total"): 160,     # key .05 -> -2: 200 - 40
        ("Total", "x"): 1320,    # key .85 -> +1: 1200 + 120
        ("Total", "y"): 500,     # key .3 -> 0
        ("Total", "Total"): 1530})  # key 1.15 -> .15 -> -1: 1700 - 170
    # the numbers of contributors are not perturbed: published exactly they would mark
    # the cells of one contributor (A x, B x, B y); the release has no frequencies
    frame = pd.read_csv(tmp_path / "out" / "public" / "gh.csv")
    assert frame["freq"].isna().all() and frame["value"].notna().all()
    internal = pd.read_csv(tmp_path / "out" / "tables" / "gh.csv")
    assert internal["freq"].notna().all()  # (the office's own table keeps them)
    # with every record's key (use_zero_rkeys) A x y has key .7 -> v +1: 500 + 50
    path = write_magnitude(tmp_path, "{type: sum, p: 0.1, use_zero_rkeys: true}")
    run(path, tmp_path / "out2", use_cache=False)
    assert published_values(tmp_path / "out2")[("A", "y")] == pytest.approx(550)


def test_magnitude_parameters_are_checked(tmp_path):
    path = write_magnitude(tmp_path, "{type: top_contr, top_k: 2, p: 0.1}")
    with pytest.raises(RecipeError, match="epsilon needs 2 values"):
        validate(path)
    path = write_magnitude(tmp_path, "{p: [0.2, 0.03]}")
    with pytest.raises(RecipeError, match="with fp"):
        validate(path)


def test_a_magnitude_table_by_its_two_largest_contributions(tmp_path):
    # type top_contr, top_k 2, p = 0.1, epsilon (1, 0.5): step j has x_delta = 0.1 eps_j
    # x_j; the key of step 2 moves the first decimal of step 1's key to the end
    path = write_magnitude(tmp_path, "{type: top_contr, top_k: 2, p: 0.1, epsilon: [1, 0.5]}")
    result = run(path, tmp_path / "out", use_cache=False)
    got = published_values(tmp_path / "out")
    # A Total: x = 1000, 500; key .1: step 1 x_delta 100, a = 15 -> row 2, v -1 -> 1400;
    # step 2 key "0.1" -> "0.1", x_delta 25, a = 56 -> row 2, v -1 -> 1375
    assert got[("A", "Total")] == pytest.approx(1375)
    # Total Total: key .15: step 1 v -1 -> 1600; step 2 key .51 -> v 0 -> 1600
    assert got[("Total", "Total")] == pytest.approx(1600)
    # A y: x = 500, 0: the second step adds nothing; key .3 -> v 0
    assert got[("A", "y")] == pytest.approx(500)
    info = next(s.info for s in result.steps if s.node == "ck")
    assert info["max_abs_perturbation"] == pytest.approx(125)


def test_a_table_read_as_aggregated_cells_is_refused(tmp_path):
    (tmp_path / "cells.csv").write_text("g,h,freq,value\nA,x,1,1\nA,y,2,2\n")
    path = write(tmp_path, f"- {{id: ck, method: cell_key, table: gh, params: {{{PT_EX}}}}}",
                 tables="[{id: gh, dims: [g, h], from: {path: cells.csv}}]")
    with pytest.raises(RecipeError, match=r"recipe.yaml:\d+:\d+: steps\[0\].table: cell_key "
                                          "needs the records of table 'gh'"):
        validate(path)


def test_a_ptable_file_in_a_grid_is_refused(tmp_path):
    path = write(tmp_path, "- {id: ck, method: cell_key, table: gh, params: {record_key: rkey}, "
                           "grid: {ptable_file: [a.txt, b.txt]}}")
    with pytest.raises(RecipeError, match="read from params, not from a grid"):
        validate(path)


def test_record_keys_that_could_be_released_are_refused(tmp_path):
    # with the record keys the noise of every published cell can be undone: a key column
    # that a release could carry (any role but identifier) is an error, not a warning
    path = write(tmp_path, f"- {{id: ck, method: cell_key, table: gh, "
                           f"params: {{{PT_EX}, record_key: rkey}}}}")
    path.write_text(path.read_text().replace("rkey: {role: identifier, type: continuous}",
                                             "rkey: {role: numeric}"))
    with pytest.raises(RecipeError) as info:
        validate(path)
    assert "record keys must stay secret (with them the noise can be undone): declare " \
        "'rkey' with role identifier, which keeps it out of every release" in str(info.value)


def test_odd_cells_of_a_magnitude_table_use_their_own_ptable(tmp_path):
    from sdcflow.kernels.tabular.cell_key_magnitude import MagnitudeParams, perturb_magnitudes
    from sdcflow.kernels.tabular.ptable import magnitude_ptable

    path = write_magnitude(tmp_path, "{type: sum, p: 0.1, odd: {D: 2, V: 2, step: 1}}")
    run(path, tmp_path / "out", use_cache=False)
    got = published_values(tmp_path / "out")
    # cells with an even number of records keep the hand values of the one-ptable case
    # (A y: 2 records, B Total: 2, Total x: 2)
    assert got[("A", "y")] == pytest.approx(500)
    assert got[("B", "Total")] == pytest.approx(160)
    assert got[("Total", "x")] == pytest.approx(1320)
    # the odd ones (A x: 1 record, key .8; A Total: 3, key .1; Total Total: 5, key .15)
    # look their v up in create_num_ptable(D = 2, V = 2, step = 1), whose row 2 is
    # uniform on -2..2 (variance 2): .8 -> +2, .1 -> -2, .15 -> -2
    odd_pt = magnitude_ptable(2, 2, step=1)
    cv = np.array([1000.0, 1500.0, 1700.0])
    want, _ = perturb_magnitudes(odd_pt, cv, cv, [0.8, 0.1, 0.15], MagnitudeParams(p_small=0.1))
    assert [got[("A", "x")], got[("A", "Total")], got[("Total", "Total")]] == \
        pytest.approx(want.tolist()) == [1200, 1200, 1360]


def test_small_cells_of_a_magnitude_table_use_the_small_cells_ptable(tmp_path):
    # separation with create_num_ptable(D = 2, V = 1, step = 1) for small contributions:
    # its last row has variance 1, so z_s = 1 / 0.001 = 1000 with p = 0.001
    path = write_magnitude(tmp_path, "{type: sum, p: 0.001, small: {D: 2, V: 1, step: 1}}")
    run(path, tmp_path / "out", use_cache=False)
    got = published_values(tmp_path / "out")
    # below z_s, x_delta = 1 and v comes from the small ptable's row 2 (a = value, cut at
    # 2; upper bounds .0638, .3085, .6915, .9362, 1 for v = -2..2): A y 500, key .3 ->
    # -1; B x 200, key .05 -> -2
    assert got[("A", "y")] == pytest.approx(499)
    assert got[("B", "x")] == pytest.approx(198)
    # at or above z_s as before: A x 1000: x_delta 1, row 2 of the main ptable, .8 -> +1;
    # Total x 1200: x_delta 1.2, .85 -> +1
    assert got[("A", "x")] == pytest.approx(1001)
    assert got[("Total", "x")] == pytest.approx(1201.2)
