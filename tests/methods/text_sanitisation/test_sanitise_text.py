"""sanitise_text: a column of documents sanitised by the variable's taxonomy and the
patterns; the recipe's mistakes found at validation; the shipped recipe's release."""

import importlib.util
import math

import numpy as np
import pytest
from helpers import ROOT, small_dataset

from sdcflow import run, validate
from sdcflow.data import Dataset
from sdcflow.data.taxonomy import resolve_taxonomy
from sdcflow.errors import RecipeError
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

PLUGIN = registry.get("sanitise_text")
TREE = {"Disease": {"Infectious disease": ["HIV infection", "Hepatitis", "Tuberculosis"],
                    "Chronic disease": ["Diabetes", "Asthma"]}}
DISEASES, _ = resolve_taxonomy({"tree": TREE}, None)
NOTES = ["HIV infection since 2019-04-02; mail a@example.org.", None,
         "Diabetes, 47 years.", "Nothing to say."]


def notes(values=NOTES, taxonomy=DISEASES) -> Dataset:
    data = small_dataset(note=("sensitive", "categorical", values))
    return Dataset(data.frame, {"note": data.variables["note"].evolve(taxonomy=taxonomy)})


def sanitised(data, **params):
    params = registry.with_defaults(PLUGIN.params, {"variable": "note", **params})
    return PLUGIN.apply(data, params, np.random.default_rng(0))


def test_documents_sanitised_and_missing_kept():
    result = sanitised(notes(), terms=["HIV infection"], dates="month")
    assert result.data.frame["note"].tolist()[0] == \
        "[Infectious disease] since [April 2019]; mail [e-mail address]."
    assert result.data.frame["note"].isna().tolist() == [False, True, False, False]
    assert result.data.frame["note"].tolist()[2:] == \
        ["Diabetes, [10 to under 100] years.", "Nothing to say."]
    info = result.info
    assert info["documents"] == 3 and info["changed"] == 2 and info["replaced"] == 4
    assert info["by_kind"]["term"] == 1 and info["by_kind"]["email"] == 1
    # intrinsic IC (Seco et al.), N = 8 concepts: HIV infection and Diabetes are leaves
    # (IC 1); Infectious disease has 3 concepts below it, 1 - log 4 / log 8 = 1/3:
    # (1/3 + 1) / (1 + 1) = 2/3
    assert info["information_kept"] == pytest.approx(2 / 3, abs=1e-9)


def test_check_method():
    check_method(PLUGIN, notes(), {"variable": "note", "terms": ["HIV infection"]})


def test_patterns_only_without_a_taxonomy():
    result = sanitised(notes(taxonomy=None), numbers="keep", patterns=["email"])
    assert result.data.frame["note"].tolist()[0] == \
        "HIV infection since [2019]; mail [e-mail address]."
    assert "information_kept" not in result.info


def test_combined_info_of_partitions():
    infos = [sanitised(notes(NOTES[:2]), terms=["HIV infection"]).info,
             sanitised(notes(NOTES[2:]), terms=["HIV infection"]).info]
    whole = sanitised(notes(), terms=["HIV infection"]).info
    assert PLUGIN.combine_info(infos, {}) == whole


RECIPE = """sdcflow: 1
name: notes
seed: 1
data: {path: notes.csv}
variables:
  note: {role: sensitive, type: categorical%s}
steps:
  - id: s
    method: sanitise_text
    params: {variable: note, %s}
"""


@pytest.mark.parametrize("taxonomy, params, message", [
    (", taxonomy: {tree: {Disease: [HIV infection, Asthma]}}", "terms: [Diabetes]",
     "'Diabetes' is not a concept of the taxonomy of 'note'"),
    ("", "terms: [Diabetes]", "'note' has no taxonomy to generalise terms in"),
    ("", "identifiers: [{name: case, pattern: 'C-(\\\\d+'}]", "not a regular expression"),
    ("", "identifiers: [{name: email, pattern: 'x'}]", "used twice (or by a built-in"),
    ("", "entities: {model: en_core_web_sm, labels: {PERSON: person}}",
     "named-entity recognition needs spaCy"),
    ("", "numbers: 0", "numbers"),
])
def test_recipe_mistakes(tmp_path, monkeypatch, taxonomy, params, message):
    if "entities" in params:  # the message for spaCy's absence, whether it is here or not
        find_spec = importlib.util.find_spec
        monkeypatch.setattr(importlib.util, "find_spec", lambda name, *args: None
                            if name == "spacy" else find_spec(name, *args))
    (tmp_path / "notes.csv").write_text("note\nHIV infection on 12/03/2024\n")
    (tmp_path / "r.yaml").write_text(RECIPE % (taxonomy, params))
    with pytest.raises(RecipeError) as info:
        validate(tmp_path / "r.yaml")
    assert message in str(info.value)


def test_shipped_recipe_releases_the_sanitised_notes(tmp_path):
    result = run(ROOT / "recipes" / "text_sanitisation.yaml", tmp_path / "out",
                 use_cache=False)
    released = (tmp_path / "out" / "public" / "clinic-notes-sanitised.csv").read_text()
    assert released.splitlines()[:2] == [
        "note",
        ("[person] saw the patient on [2024] for [Viral infection]; [Medication] started. "
         "Contact: [e-mail address].")]
    # depression lies below the listed Mental disorder: the ancestor above it
    assert "[Health condition] improving" in released
    for original in ("HIV", "Hallorann", "@", "P-0", "GB82", "12/03/2024", "depression",
                     "lithium", "Lithium", "7946"):
        assert original not in released
    assert result.measures["audit"]["residual"] == 0
    assert result.measures["audit"]["documents"] == 12
    # the figures the table of recipes (docs/recipes.md) quotes
    info = {s.node: s.info for s in result.steps}["sanitise"]
    assert info["replaced"] == 42 and info["changed"] == 12
    assert round(100 * result.measures["audit"]["information_kept"]) == 62
    assert info["information_kept"] == result.measures["audit"]["information_kept"]
    # documents are no categories: the report draws no bars of them (each note its own
    # category, labelled with the original text, made matplotlib warn of its layout),
    # and counts their cost as generalised values
    report = result.report()
    assert "note: records per category" not in report and "Hallorann" not in report
    assert "values generalised (to broader values, ranges or sets): 12 values" in report


PIPELINE = '''import spacy


def load(**overrides):
    """A rule-based English pipeline: spaCy's entity ruler, no statistical model."""
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("entity_ruler")
    ruler.add_patterns([{"label": "PERSON", "pattern": [{"TEXT": "Hallorann"}]},
                        {"label": "GPE", "pattern": [{"LOWER": "northby"}]}])
    return nlp
'''


@pytest.fixture
def ruler_pipeline(tmp_path, monkeypatch):
    """An installed spaCy pipeline package (rule-based: no model is on PyPI to install
    here), named sdcflow_test_ner, version 0.1."""
    pytest.importorskip("spacy")
    (tmp_path / "sdcflow_test_ner").mkdir()
    (tmp_path / "sdcflow_test_ner" / "__init__.py").write_text(PIPELINE)
    dist = tmp_path / "sdcflow_test_ner-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: sdcflow_test_ner\n"
                                   "Version: 0.1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    return "sdcflow_test_ner"


def test_named_entities_with_a_spacy_pipeline(ruler_pipeline, tmp_path):
    params = {"terms": ["HIV infection"],
              "entities": {"model": ruler_pipeline, "labels": {"PERSON": "person",
                                                               "GPE": "place"}}}
    data = notes(["Dr Hallorann of Northby: HIV infection.", None])
    assert list(PLUGIN.check({"variable": "note", **params}, data.meta)) == []
    result = sanitised(data, **params)
    assert result.data.frame["note"].tolist()[0] == \
        "Dr [person] of [place]: [Infectious disease]."
    assert result.info["by_kind"]["entity PERSON"] == 1
    assert PLUGIN.environment({"variable": "note", **params})["sdcflow_test_ner"] == "0.1"
    # the audit finds the entities in the original, none in the release
    audit = registry.get("text_residual")
    full = registry.with_defaults(audit.params, {"variable": "note", **params})
    assert audit.evaluate(data, full, None, original=data).summary["residual"] == 3
    assert audit.evaluate(result.data, full, None, original=data).summary["residual"] == 0


def test_an_absent_pipeline_is_named():
    problems = list(PLUGIN.check({"variable": "note", "entities": {
        "model": "no_such_pipeline_xyz", "labels": {"PERSON": "person"}}}, notes().meta))
    assert len(problems) == 1 and problems[0][0] == ("entities", "model")
    message = problems[0][1]
    assert "spaCy" in message and ("no_such_pipeline_xyz" in message
                                   or "needs spaCy" in message)


def test_wordnet_taxonomy_built_on_the_terms():
    from sdcflow.data.taxonomy import WORDNET_DATA_MISSING, WORDNET_MISSING, wordnet_parents
    from sdcflow.kernels.semantic.taxonomy import TaxonomyError

    try:
        wordnet_parents(["measles"])
    except TaxonomyError as exc:  # no WordNet here: the message says how to install it
        # (.ci/run installs Debian's wordnet-base, where the sanitisation below runs)
        assert str(exc) in (WORDNET_MISSING, WORDNET_DATA_MISSING)
        return
    data = notes(["She has hepatitis and tuberculosis, also asthma and measles."],
                 taxonomy={"wordnet": "noun"})
    result = sanitised(data, terms=["hepatitis", "tuberculosis", "asthma", "measles"])
    # WordNet 3.0: the lowest hypernym that covers 2 of the listed terms (t = 2), the
    # synsets written as their first lemma
    assert result.data.frame["note"].tolist() == [
        ("She has [infectious disease] and [infectious disease], also [disease] and "
         "[communicable disease].")]


def test_corpus_information_content_by_hand():
    # occurrences in the documents: HIV infection 1, Diabetes 1; add-one over the 8
    # concepts: 10 in all; IC(HIV infection) = IC(Diabetes) = -log(2/10) = log 5,
    # IC(Infectious disease) = -log((1 + 3 + 1)/10) = log 2: kept (log 2 + log 5) /
    # (2 log 5) = log 10 / log 25
    info = sanitised(notes(), terms=["HIV infection"], ic="corpus").info
    assert info["information_kept"] == pytest.approx(math.log(10) / math.log(25), abs=1e-9)


def test_how_it_distributes():
    from sdcflow.plugins.distribution import Rows, Whole

    meta = notes().meta
    assert isinstance(PLUGIN.distributes({"variable": "note"}, meta), Rows)
    # corpus IC counts every document's concepts: all at once
    assert isinstance(PLUGIN.distributes({"variable": "note", "ic": "corpus"}, meta), Whole)
