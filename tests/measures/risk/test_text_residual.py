"""text_residual: what a sanitisation policy forbids still in the documents (counted on
the original, none on what sanitise_text wrote), and the information content kept,
worked by hand."""

import numpy as np
import pytest
from helpers import small_dataset

from sdcflow.data import Dataset
from sdcflow.data.taxonomy import resolve_taxonomy
from sdcflow.plugins import registry
from sdcflow.plugins.testing import check_method

MEASURE = registry.get("text_residual")
METHOD = registry.get("sanitise_text")
DISEASES, _ = resolve_taxonomy({"tree": {"Disease": {
    "Infectious disease": ["HIV infection", "Hepatitis", "Tuberculosis"],
    "Chronic disease": ["Diabetes", "Asthma"]}}}, None)
NOTES = ["HIV infection and Diabetes on 12/03/2024.", "Asthma, call 020 7946 0018.",
         "No concept here.", None]
POLICY = {"variable": "note", "terms": ["HIV infection"], "dates": "month"}


def notes(values=NOTES) -> Dataset:
    data = small_dataset(note=("sensitive", "categorical", values))
    return Dataset(data.frame, {"note": data.variables["note"].evolve(taxonomy=DISEASES)})


def measure(data, original, params=POLICY):
    return MEASURE.evaluate(data, registry.with_defaults(MEASURE.params, params),
                            np.random.default_rng(0), original=original)


def test_the_original_documents_hold_what_the_policy_forbids():
    result = measure(notes(), notes())
    s = result.summary
    assert s["residual"] == 3 and s["documents_with_residual"] == 2
    assert s["residual_by_kind"]["term"] == 1 and s["residual_by_kind"]["date"] == 1
    assert s["residual_by_kind"]["phone"] == 1
    assert s["information_kept"] == 1.0
    assert result.per_record["residual"].tolist() == [2, 1, 0, 0]


def test_nothing_left_after_sanitise_text_and_the_information_kept_by_hand():
    params = registry.with_defaults(METHOD.params, POLICY)
    released = METHOD.apply(notes(), params, np.random.default_rng(0)).data
    s = measure(released, notes()).summary
    assert s["residual"] == 0 and s["documents_with_residual"] == 0
    # document 1: HIV infection (IC 1) and Diabetes (1) -> Infectious disease (1/3) and
    # Diabetes: 4/3 of 2; document 2: Asthma kept, 1 of 1; in all (4/3 + 1) / 3 = 7/9
    assert s["information_kept"] == pytest.approx(7 / 9, abs=1e-9)
    assert s["information_kept_min"] == pytest.approx(2 / 3, abs=1e-9)
    per_doc = measure(released, notes()).per_record["information_kept"].tolist()
    assert per_doc[:2] == pytest.approx([2 / 3, 1.0]) and np.isnan(per_doc[2])


def test_a_coarser_audit_finds_what_a_finer_policy_kept():
    params = registry.with_defaults(METHOD.params, POLICY)  # months kept
    released = METHOD.apply(notes(), params, np.random.default_rng(0)).data
    s = measure(released, notes(), {**POLICY, "dates": "year"}).summary
    assert s["residual_by_kind"]["date"] == 1 and s["residual"] == 1


def test_check_method():
    check_method(MEASURE, notes(), POLICY)
