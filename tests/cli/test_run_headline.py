"""What ``sdcflow run`` prints: its headline in a few lines, nothing with -q, the steps
and files too with -v, the same figures as fields with --format json."""

import json

import pytest

from sdcflow.cli import main
from sdcflow.plugins.plain_words import figure


def _measures(out):
    return json.loads((out / "measures.json").read_text())["measures"]


def test_headline_says_verdict_checks_risk_before_after_and_utility_cost(small, tmp_path,
                                                                           capsys):
    out = tmp_path / "out"
    assert main(["run", str(small), "--out", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    m = _measures(out)
    # the figures are the run's own measures (k-anonymity before/after, PIL of the
    # information loss), as the report's risk_before_after/utility_cost pair them
    before, after = m["before"]["violations"], m["after"]["violations"]
    assert lines == [
        f"released into {out}",
        (f"  check passed: after.violations[3] <= before.violations[3] "
        f"(after.violations[3] = {after['3']}; before.violations[3] = {before['3']})"),
        f"  check passed: loss.pil < 50 (loss.pil = {figure(m['loss']['pil'])})",
        (f"  risk (before -> after): records violating 2-anonymity: {before['2']} -> "
        f"{after['2']}"),
        (f"  risk (before -> after): records violating 3-anonymity: {before['3']} -> "
        f"{after['3']}"),
        # every method's cost: testdata's 4,580 ages all lie within the breaks, and 40
        # incomes lie above their 0.99 quantile (99,100,000), counted in the file
        "  cost of age10 (global_recode): values recoded into classes: 4580 values",
        "  cost of top (top_bottom_code): top-coded: 40 values",
        f"  utility cost: probabilistic information loss PIL (%): {figure(m['loss']['pil'])}",
        ("  utility cost: IL1s of Yancey, Winkler & Creecy (mean standardised distance): "
        f"{figure(m['loss']['il1s'])}"),
        f"publish {out / 'public'} (and nothing else: the other files are internal)"]
    # recoding age into four classes makes every record 3-anonymous on these keys
    assert before["3"] > 0 and after["3"] == 0


def test_quiet_prints_nothing_and_the_exit_code_says_it(small, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", str(small), "--out", str(out), "-q"]) == 0
    assert capsys.readouterr() == ("", "")
    assert (out / "public" / "small.csv").is_file()


def test_quiet_still_says_a_failed_check(small, tmp_path, capsys):
    small.write_text(small.read_text().replace("loss.pil < 50", "loss.pil < 0"))
    assert main(["run", str(small), "--out", str(tmp_path / "out"), "-q"]) == 3
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "check failed: loss.pil < 0" in captured.err
    assert "nothing was released" in captured.err


def test_verbose_adds_each_step_with_time_or_cache_and_the_files(small, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", str(small), "--out", str(out), "-v"]) == 0
    first = capsys.readouterr().out.splitlines()
    steps = first[first.index("steps:") + 1:first.index("files:")]
    assert [line.split()[0] for line in steps] == ["before", "age10", "top", "after", "loss"]
    assert all(line.endswith(" s") for line in steps)  # computed: its time
    files = json.loads((out / "manifest.json").read_text())["files"]
    listed = first[first.index("files:") + 1:-1]
    assert [line.split()[0] for line in listed] == list(files)
    assert all(f"sha256 {files[line.split()[0]][:16]}..." in line for line in listed)
    assert main(["run", str(small), "--out", str(out), "-v"]) == 0
    again = capsys.readouterr().out.splitlines()
    steps = again[again.index("steps:") + 1:again.index("files:")]
    assert all(line.endswith(" cached") for line in steps)
    # the default says neither
    assert main(["run", str(small), "--out", str(out)]) == 0
    plain = capsys.readouterr().out
    assert "steps:" not in plain and "sha256" not in plain


def test_json_carries_the_headline_figures(small, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", str(small), "--out", str(out), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    m = _measures(out)
    assert data["released"] is True and data["overrides"] == []
    assert data["risk"] == [
        {"figure": f"records violating {k}-anonymity", "before": m["before"]["violations"][k],
         "after": m["after"]["violations"][k]} for k in ("2", "3")]
    assert data["utility"][0] == {"figure": "probabilistic information loss PIL (%)",
                                  "value": m["loss"]["pil"]}
    assert [s["id"] for s in data["steps"]] == ["before", "age10", "top", "after", "loss"]
    assert all(s["cached"] is False for s in data["steps"])


def test_quiet_and_verbose_exclude_each_other(small, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["run", str(small), "-q", "-v"])
    assert exc.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err
