"""YAML loading with positions and the YAML 1.1 traps (sdcflow.recipe._yaml)."""

from sdcflow.recipe import load_yaml


def test_positions_of_values_and_keys():
    doc = load_yaml("a: 1\nsteps:\n  - id: x\n    params: {k: 3}\n", "r.yaml")
    assert doc.data == {"a": 1, "steps": [{"id": "x", "params": {"k": 3}}]}
    assert doc.positions[("steps", 0, "params", "k")] == (4, 17)
    assert doc.key_positions[("steps", 0, "params")] == (4, 5)
    assert doc.locate(("steps", 0, "params", "missing")) == (4, 13)


def test_duplicate_keys_are_errors():
    doc = load_yaml("a: 1\nb: 2\na: 3\n", "r.yaml")
    [problem] = doc.problems
    assert str(problem) == "r.yaml:3:1: duplicate key 'a' (first given at line 1)"


def test_yaml_11_booleans_stay_text():
    doc = load_yaml("country: NO\nswitch: on\nyes_: yes\nt: true\nf: False\n", "r.yaml")
    assert doc.data == {"country": "NO", "switch": "on", "yes_": "yes", "t": True, "f": False}


def test_leading_zero_codes_stay_text_with_a_warning():
    doc = load_yaml("codes: [08, 010, '07', 10]\n", "r.yaml")
    assert doc.data == {"codes": ["08", "010", "07", 10]}
    assert [p.severity for p in doc.problems] == ["warning", "warning"]
    assert doc.problems[1].col == 13  # "codes: [08, " is 12 characters


def test_numbers_nulls_and_dates():
    doc = load_yaml("a: 1.5\nb: 1e3\nc: ~\nd: 2026-01-01\ne: 0x10\nf: -3\ng: 0o17\n", "r")
    assert doc.data == {"a": 1.5, "b": 1000.0, "c": None, "d": "2026-01-01", "e": 16, "f": -3,
                        "g": 15}
    assert doc.problems == []


def test_nan_and_infinity_are_refused():
    # NaN passes every minimum/maximum check of a JSON Schema: refuse it outright.
    doc = load_yaml("alpha: .nan\ntop: -.inf\n", "r")
    assert [str(p) for p in doc.problems] == [
        "r:1:8: .nan is not allowed in recipes: give a finite number",
        "r:2:6: -.inf is not allowed in recipes: give a finite number",
    ]


def test_syntax_error_has_position():
    doc = load_yaml("a: [1, 2\nb: 3\n", "r.yaml")
    [problem] = doc.problems
    assert problem.line == 2 and problem.message.startswith("malformed YAML")


def test_python_tags_are_refused():
    doc = load_yaml("a: !!python/object/apply:os.system ['echo hi']\n", "r.yaml")
    assert doc.problems and "unsupported YAML tag" in doc.problems[0].message


def test_alias_bomb_is_stopped():
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        prev = f"*a{i - 1}"
        lines.append(f"a{i}: &a{i} [{', '.join([prev] * 10)}]")
    doc = load_yaml("\n".join(lines) + "\n", "r.yaml")
    assert any("too many values" in p.message for p in doc.problems)


def test_empty_and_multi_document():
    assert load_yaml("", "r").problems[0].message == "the recipe is empty"
    doc = load_yaml("a: 1\n---\nb: 2\n", "r")
    assert "one YAML document" in doc.problems[0].message
