"""negviz.report.html's row builders and cell text, called on small hand-made inputs (no report is
built here; the whole report: tests/report/test_report.py)."""

from negviz.report.html import (
    fix_rows,
    fmt_value,
    is_number,
    preference_rows,
    provenance_rows,
    recipe_text,
    score_columns,
    sensitivity_grid,
)


def test_fmt_value_writes_each_kind_of_cell():
    assert [fmt_value(v) for v in (None, True, False, 0.12345, 1234567, "x")] == [
        "—",
        "yes",
        "no",
        "0.123",
        "1,234,567",
        "x",
    ]
    assert fmt_value(0.12345, percent=True) == "12.3%"
    assert is_number(3) and is_number(0.5) and not is_number(True) and not is_number("3")


def test_preference_rows_put_each_models_shares_in_one_row():
    long = [
        {"model": "a", "n": 4, "category": "reversed", "share": 0.25},
        {"model": "a", "n": 4, "category": "tie", "share": 0.75},
        {"model": "b", "n": 2, "category": "tie", "share": 1.0},
    ]
    assert preference_rows(long) == [
        {"model": "a", "n": 4, "reversed": 0.25, "tie": 0.75},
        {"model": "b", "n": 2, "tie": 1.0},
    ]


def test_fix_rows_write_the_difference_and_ci_in_points():
    fix = {"dataset": "nevir", "base": "b", "n": 10, "difference": 0.125, "difference_ci_low": -0.05}
    fix |= {"difference_ci_high": 0.3, "p_value": 0.01234, "repaired": 3, "broken": 1}
    (row,) = fix_rows([fix])
    assert row["difference"] == "+12.5 pp [-5.0 to +30.0 pp]" and row["p"] == "0.012"
    assert (row["repaired"], row["broken"]) == (3, 1)


def test_sensitivity_grid_has_a_row_per_perturbation_and_a_column_per_model():
    sv = {
        "perturbations": ["neg", "ant", "none"],
        "cells": [
            {"model": "m", "published": False, "perturbation": "neg", "severity": "critical", "sensitivity_ratio": 0.5},
            {"model": "P", "published": True, "perturbation": "neg", "severity": "critical", "sensitivity_ratio": 0.7},
            {"model": "m", "published": False, "perturbation": "ant", "severity": "major", "sensitivity_ratio": 0.2},
        ],
    }
    grid = sensitivity_grid(sv)
    assert grid["columns"] == [
        ("severity", "severity"),
        ("perturbation", "perturbation"),
        ("m|False", "m"),
        ("P|True", "P (published)"),
    ]
    assert grid["rows"] == [
        {"perturbation": "neg", "severity": "critical", "m|False": 0.5, "P|True": 0.7},
        {"perturbation": "ant", "severity": "major", "m|False": 0.2},
    ]  # a perturbation nobody has: no row


def test_score_columns_and_recipe_text():
    assert score_columns([{"text": "q", "d1": 0.1, "d2": 0.2}]) == [("text", ""), ("d1", "d1"), ("d2", "d2")]
    assert score_columns([]) == []
    assert recipe_text({"lr": 2e-5, "epochs": 1, "seed": None}) == "lr=2e-05, epochs=1" and recipe_text(None) == ""


def test_provenance_rows_name_an_imported_file_and_its_share_of_items():
    run = {"run_id": "r1", "model": "m", "model_id": "org/m", "model_spec": "m", "revision": "v", "dataset": "nevir"}
    run |= {"split": "test", "options": {"tie_rule": "strict", "nested": {"a": 1}}, "n": 10, "code_version": "c"}
    run |= {"device": "cpu", "date": "2026-01-01"}
    imported = {
        **run,
        "run_id": "r2",
        "imported": {"file": "s.csv", "sha256": "0123456789abcdef", "items": 10, "of": 1383},
    }
    own, other = provenance_rows({"r1": run, "r2": imported})
    assert own["cells"][2] == "org/m" and own["cells"][7] == "tie_rule=strict" and own["cells"][8] == 10
    assert other["cells"][2] == "scores from s.csv (sha256 0123456789ab)" and other["cells"][8] == "10 of 1,383"
