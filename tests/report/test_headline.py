"""The figures the report's summary compares (sdcflow.report.headline), read from each
measure's result as the measure writes it."""

from sdcflow.report.build import risk_before_after
from sdcflow.report.headline import number_text, risk_figures, utility_figures


def test_risk_figures_of_each_kind():
    assert risk_figures("k_anonymity", {"violations": {"2": 653, "3": 1087}}) == [
        ("records violating 2-anonymity", 653), ("records violating 3-anonymity", 1087)]
    assert risk_figures("global_risk", {"expected_reidentifications": 1.8, "percent": 0.04,
                                        "household": {"percent": 0.19}}) == [
        ("global risk: expected re-identifications", 1.8), ("global risk (% of records)", 0.04),
        ("household risk (% of records)", 0.19)]
    assert risk_figures("beta_likeness", {"above_beta": 12}) == [
        ("records in classes above beta-likeness", 12)]
    assert risk_figures("reidentification_risk", {"average": 0.25, "threshold": 0.2,
                                                  "above_threshold": 4}) == [
        ("average re-identification risk (1/class size)", 0.25),
        ("records with re-identification risk above 0.2", 4)]
    # the transparency attacks by their whole strength (linkage inside the intersection)
    assert risk_figures("rank_swap_attack", {"percent": 40.0, "percent_certain": 32.5}) == [
        ("records re-identified by linkage (%)", 40.0)]
    assert risk_figures("microaggregation_attack", {"percent": 12.5}) == [
        ("records re-identified by linkage (%)", 12.5)]
    # interval disclosure counts values, not records
    assert risk_figures("interval_disclosure", {"percent": 93.98}) == [
        ("values within their interval (%)", 93.98)]
    # delta-presence: the records outside and the classes of the population outside
    assert risk_figures("delta_presence", {"outside": 0, "classes_outside": 1}) == [
        ("records in classes outside the delta-presence bounds", 0),
        ("population classes outside the delta-presence bounds", 1)]
    # a figure the result does not hold is left out; an unknown plugin has none
    assert risk_figures("individual_risk", {"max": None}) == []
    assert risk_figures("no_such_plugin", {"percent": 3}) == []
    assert utility_figures("suppressions", {"total": 211}) == [("values suppressed", 211)]


def test_before_is_the_first_measure_on_the_original_and_after_the_last_on_the_release():
    timeline = [("k_anonymity", "a", {"violations": {"2": 653}}, "before"),
                ("k_anonymity", "b", {"violations": {"2": 113}}, ""),  # in between: left out
                ("k_anonymity", "c", {"violations": {"2": 106}}, "after"),
                ("global_risk", "d", {"expected_reidentifications": 1.8, "percent": 0.04},
                 "after")]
    assert risk_before_after(timeline) == [
        ("records violating 2-anonymity", 653, 106),
        ("global risk: expected re-identifications", None, 1.8),
        ("global risk (% of records)", None, 0.04)]


def test_numbers_for_people():
    assert [number_text(v) for v in (3, 12345, 0.000403162, 32.583, 4.0, None, True,
                                     float("nan"))] == [
        "3", "12\u202f345", "0.0004032", "32.58", "4", "\u2014", "yes", "\u2014"]


def test_large_numbers_are_written_out_not_with_an_exponent():
    # 1.12e10 with a fraction was "1.123e+10" beside "218 500 000" in one column
    assert number_text(11234567890.4) == "11\u202f234\u202f567\u202f890"
    assert number_text(12345.67) == "12\u202f346"
    assert number_text(1e20) == "1e+20" and number_text(float("inf")) == "\u221e"


def test_one_column_one_format():
    from sdcflow.report.headline import number_column

    assert number_column([11234567890.4, 218500000]) == [
        "11\u202f234\u202f567\u202f890", "218\u202f500\u202f000"]
    # decimals shared: the most any figure needs for 4 significant digits
    assert number_column([0.1234, 12.5, 1.0]) == ["0.1234", "12.5000", "1.0000"]
    assert number_column([1.5, 2.5, 2.0]) == ["1.5", "2.5", "2.0"]
    # one figure needs an exponent: every figure of the column has one
    assert number_column([0.00001, 12.5]) == ["1.000e-05", "1.250e+01"]
    # counts stay counts; text and missing as number_text writes them
    assert number_column([3, 0.25, None, ""]) == ["3", "0.25", "\u2014", ""]


def test_a_perturbed_table_has_its_utility_cost():
    # cell_key_utility was missing from the summary's utility cost (testdata_cell_key
    # showed none). By hand: 4 cells, noise +2, -2, 0, -2 (the last cell made zero):
    # 3 of 4 changed, L1 = 6, 6 / 4 = 1.5 per cell
    from sdcflow.kernels.tabular.perturbation_utility import count_table_utility

    summary = count_table_utility([5, 7, 3, 2], [7, 5, 3, 0])
    assert utility_figures("cell_key_utility", summary) == [
        ("table cells changed by the noise (share)", 0.75),
        ("mean absolute change of a cell (L1 / cells)", 1.5),
        ("cells made zero", 1),
        ("zero cells made non-zero", 0)]
