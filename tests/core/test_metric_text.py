"""negviz.core.metric_text: every metric's numbers in the unit its declaration gives, on
hand-computed cases, and the rule that no "None", "nan" or "-0.0" reaches a person."""

import math

import numpy as np
import pandas as pd
import pytest

from negviz.core import metric_text as mt
from negviz.core.metrics import METRICS, NUMBER, POINTS, RATE


def test_each_metric_is_declared_with_a_unit_a_meaning_and_a_direction():
    for m in METRICS.values():
        assert m.unit in (RATE, POINTS, NUMBER) and m.measures and m.label
        assert m.is_rate == (m.unit == RATE) and m.scale == (100.0 if m.unit in (RATE, POINTS) else 1.0)
    assert [METRICS[n].unit for n in ("paired_accuracy", "delta_r1", "delta_mrr10", "sensitivity_ratio")] == [
        RATE, POINTS, NUMBER, NUMBER,
    ]  # fmt: skip
    assert METRICS["paired_accuracy"].chance == 0.25 and METRICS["delta_r1"].chance == 0.0


@pytest.mark.parametrize(
    ("metric", "value", "shown"),
    [
        ("paired_accuracy", 0.0709, "7.1%"),  # 98 of 1,383 pairs: 7.086 -> 7.1
        ("paired_accuracy", 1.0, "100.0%"),
        ("right_rank", 0.62749, "62.7%"),
        ("delta_r1", 0.026, "+2.6 pp"),  # a difference of rates: points, signed
        ("delta_r1", -0.0104, "-1.0 pp"),
        ("delta_r1", -0.0004, "0.0 pp"),  # rounds to zero: no "-0.0", no sign
        ("delta_mrr10", 0.0164, "+0.016"),  # a difference of scores: a signed number
        ("sensitivity_ratio", 0.6081, "0.608"),
        ("mean_similarity", -0.0001, "0.000"),
        ("general_recall10", 0.87, "87.0%"),
        ("an_imported_metric", 1.23456, "1.235"),  # undeclared: a plain number
    ],
)
def test_value_in_the_metric_unit(metric, value, shown):
    assert mt.value(metric, value) == shown


def test_ci_difference_header_and_printf():
    assert mt.ci("paired_accuracy", 0.058, 0.085) == "5.8 to 8.5%"
    assert mt.ci("delta_r1", -0.047, 0.076) == "-4.7 to +7.6 pp"
    assert mt.ci("sensitivity_ratio", 0.069, None) == mt.MISSING
    assert mt.difference("paired_accuracy", 0.012) == "+1.2 pp"  # two rates differ by points
    assert mt.difference("paired_accuracy", -0.0004) == "0.0 pp"
    assert mt.difference("sensitivity_ratio", -0.25) == "-0.250"
    assert mt.difference_ci("right_rank", -0.05, 0.3) == "-5.0 to +30.0 pp"
    assert mt.difference_unit("right_rank") == "pp" and mt.difference_unit("sensitivity_ratio") == ""
    assert mt.header("delta_r1") == "ΔR@1 (pp)" and mt.header("sensitivity_ratio") == "sensitivity ratio"
    assert mt.header("paired_accuracy", "NevIR paired accuracy") == "NevIR paired accuracy (%)"
    assert [mt.printf(m) for m in ("paired_accuracy", "delta_r1", "delta_mrr10", "mean_similarity")] == [
        "%.1f%%", "%+.1f pp", "%+.3f", "%.3f",
    ]  # fmt: skip


def test_n_of_says_a_partial_run_covers_part_of_its_dataset():
    assert mt.n_of(50, 1383) == "50 of 1,383"
    assert mt.n_of(1383) == mt.n_of(1383, 1383) == mt.n_of(1383.0, float("nan")) == "1,383"
    assert mt.n_of(None, 1383) == mt.MISSING


@pytest.mark.parametrize("missing", [None, float("nan"), math.inf, np.nan, pd.NA, pd.NaT, np.float64("nan")])
def test_no_none_nan_or_minus_zero_reaches_a_person(missing):
    assert mt.value("paired_accuracy", missing) == mt.MISSING
    assert mt.cell(missing) == mt.MISSING
    assert mt.number(missing) == mt.MISSING


def test_cells_of_a_table():
    frame = pd.DataFrame({"a": [None, 1.0, -0.0001, np.int64(1383)], "b": ["x", None, True, float("nan")]})
    assert mt.cells(frame).to_numpy().tolist() == [["—", "x"], ["1.000", "—"], ["0.000", "yes"], ["1,383.000", "—"]]
    assert mt.cell(-0.0) == "0.000" and mt.cell(12345) == "12,345" and mt.cell([1, 2]) == "[1, 2]"


def test_heading_reads_a_column_key_as_words():
    assert mt.heading("paired_accuracy") == METRICS["paired_accuracy"].label  # a metric: its own label
    assert mt.heading("tie_rule") == "tie rule" and mt.heading("model") == "model"
