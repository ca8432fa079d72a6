"""Step fingerprints (sdcflow.engine.fingerprint): every recipe field a step can see is in
its fingerprint, and fields it cannot see are not (so the cache stays useful)."""

import pytest

from sdcflow import run
from sdcflow.engine import fingerprint as fingerprint_module

DATA = "id,region,sex,age,income,tax,net,extra\n" + "".join(
    f"{i},{'NS'[i % 2]},{'mf'[i % 3 == 0]},{20 + i % 40},{1000 + 37 * i},{100 + 3 * i},"
    f"{900 + 34 * i},{'ab'[i % 2]}\n" for i in range(60))

RECIPE = """
sdcflow: 1
name: fp
seed: 7
data: {path: people.csv}
variables:
  id: {role: identifier}
  region: {role: key, labels: {N: North, S: South}}
  sex: {role: key, missing: ["x"]}
  age: {role: key, type: integer}
  income: {role: numeric}
  tax: {role: numeric}
  net: {role: numeric}
constraints:
  - {id: balance, expr: "net + tax == income", tolerance: 0.5}
  - {id: positive, if: "income > 0", then: "tax >= 0", enforce: error}
steps:
  - id: micro
    method: microaggregation
    params: {variables: [income, tax, net], k: 3}
  - {id: risk, measure: k_anonymity, params: {k: [2, 3]}}
  - {id: loss, measure: information_loss, params: {variables: [income, tax, net]}}
  - {id: score, measure: score, params: {il: "loss.pil", dr: "risk.percent[3]"}}
release: {path: out.csv}
"""

ALL = {"micro", "risk", "loss", "score"}


def fingerprints(tmp_path, text=RECIPE, data=DATA):
    (tmp_path / "people.csv").write_text(data)
    path = tmp_path / "r.yaml"
    path.write_text(text)
    return {s.node: s.fingerprint for s in run(path, write=False, use_cache=False).steps}


# (what changes, recipe text replacement or data change, steps whose fingerprint must
# change). The score combines the results of risk and loss: its fingerprint holds their
# hashes, so it changes exactly when one of their results does.
MUTATIONS = [
    ("a parameter", ("k: 3}", "k: 4}"), {"micro", "loss", "score"}),
    ("a parameter's default made explicit", ("k: 3}", "k: 3, algorithm: mdav}"), set()),
    ("a measure's parameter", ("k: [2, 3]", "k: [2, 3, 5]"), {"risk", "score"}),
    ("the seed", ("seed: 7", "seed: 8"), ALL),
    # (later steps see the same values, so they keep their fingerprints)
    ("a step id", ("id: micro", "id: micro2"), {"micro2"}),
    ("a read variable's role", ("tax: {role: numeric}",
                                "tax: {role: sensitive, type: continuous}"), {"micro", "loss"}),
    ("a read variable's type", ("age: {role: key, type: integer}",
                                "age: {role: key, type: continuous}"), {"risk"}),
    ("a read variable's labels", ("labels: {N: North, S: South}", "labels: {N: Nord, S: Sud}"),
     {"risk"}),
    ("a read variable's missing codes", ('missing: ["x"]', 'missing: ["y"]'), {"risk"}),
    ("a read variable's hierarchy", ("labels: {N: North, S: South}",
                                     "hierarchy: {area: {N: all, S: all}}"), {"risk"}),
    ("a constraint's expression", ("net + tax == income", "net + tax <= income"), ALL),
    ("a constraint's tolerance", ("tolerance: 0.5", "tolerance: 0.6"), ALL),
    ("a constraint's condition", ('if: "income > 0"', 'if: "income > 1"'), ALL),
    ("a constraint's consequence", ('then: "tax >= 0"', 'then: "tax >= -1"'), ALL),
    ("a constraint's enforcement", ("enforce: error", "enforce: warn"), ALL),
    ("a constraint's id", ("id: positive", "id: positives"), ALL),
    ("a data value of a read column", ("1000,100,", "1001,101,"), {"micro", "loss", "score"}),
    ("a data value of a key", (",20,", ",21,"), {"risk"}),
    ("a measure's reference", ("params: {variables: [income, tax, net]}}",
                               "params: {variables: [income, tax, net], reference: micro}}"),
     {"loss", "score"}),
    # fields no step sees: no fingerprint changes (the cache stays valid)
    ("the recipe's name", ("name: fp", "name: fp2"), set()),
    ("the release path", ("path: out.csv", "path: out2.csv"), set()),
    ("a variable no step reads, added", ("  net: {role: numeric}\n",
                                        "  net: {role: numeric}\n  extra: {role: sensitive}\n"),
     set()),
]


@pytest.mark.parametrize("what, change, expected", MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_every_visible_field_is_in_the_fingerprint(tmp_path, what, change, expected):
    base = fingerprints(tmp_path)
    old, new = change
    text, data = RECIPE, DATA
    if old in RECIPE:
        text = RECIPE.replace(old, new, 1)
    else:
        assert old in DATA
        data = DATA.replace(old, new, 1)
    mutated = fingerprints(tmp_path, text, data)
    changed = {n for n in mutated if mutated[n] != base.get(n)}
    assert changed == expected, what


def test_the_code_versions_are_in_the_fingerprint(tmp_path, monkeypatch):
    base = fingerprints(tmp_path)
    monkeypatch.setattr(fingerprint_module, "__version__", "9.9")
    assert set(fingerprints(tmp_path).values()).isdisjoint(base.values())
    monkeypatch.undo()
    monkeypatch.setitem(fingerprint_module.LIBRARIES, "numpy", "0.0")
    assert set(fingerprints(tmp_path).values()).isdisjoint(base.values())
    monkeypatch.undo()
    from sdcflow.plugins import registry

    monkeypatch.setattr(type(registry.get("microaggregation")), "version", "99")
    changed = fingerprints(tmp_path)
    # (its results are the same, so the steps after it keep theirs)
    assert {n for n in changed if changed[n] != base[n]} == {"micro"}


def test_a_plugins_environment_is_in_its_fingerprint(tmp_path, monkeypatch):
    # a step that loads something outside sdcflow (sanitise_text's spaCy pipeline) names
    # its versions (Plugin.environment): a new version is a new fingerprint; steps that
    # name none keep theirs
    from sdcflow.plugins import registry

    plugin = type(registry.get("microaggregation"))
    before = fingerprints(tmp_path)
    monkeypatch.setattr(plugin, "environment", lambda self, params: {"model": "1.0"},
                        raising=False)
    one = fingerprints(tmp_path)
    monkeypatch.setattr(plugin, "environment", lambda self, params: {"model": "1.1"},
                        raising=False)
    two = fingerprints(tmp_path)
    assert one["micro"] != before["micro"] and two["micro"] != one["micro"]
    assert one["risk"] == before["risk"] == two["risk"]
