"""URL values are checked when read: a value a view cannot take (not finite, not a number, out of
range, not among the options) is dropped, the page keeps running, and the drop is said."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from negviz.links import number_problem

APP = str(Path(__file__).resolve().parent.parent / "app.py")


@pytest.mark.parametrize(
    "raw, lo, hi, integer, problem",
    [
        ("20", 1, 500, True, None),
        ("-0.25", None, None, False, None),
        ("1e309", 1, 500, True, "not a finite number (expected a whole number from 1 to 500)"),
        ("inf", None, None, False, "not a finite number (expected a number)"),
        ("nan", None, None, False, "not a finite number (expected a number)"),
        ("abc", 1, 500, True, "not a whole number from 1 to 500"),
        ("2.5", 1, 500, True, "not a whole number from 1 to 500"),
        ("0", 1, 500, True, "not a whole number from 1 to 500"),
        ("501", 1, None, True, None),
        ("-1", 0, None, True, "not a whole number >= 0"),
    ],
)
def test_number_problem(raw, lo, hi, integer, problem):
    assert number_problem(raw, lo, hi, integer) == problem


def open_with(page: str, **params) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    at.switch_page(page)
    at.query_params.update(params)
    at.run()
    return at


@pytest.mark.slow
def test_numbers_a_widget_cannot_take_are_dropped_before_it_reads_them(app_env):
    # (AppTest runs a switched-to page without the router, so the drops are said in the
    # browser test below; here: no crash, and the widgets hold their defaults)
    at = open_with("pages/heatmap.py", min_n="1e309", top_k="inf", rows="name")
    assert not at.exception, [e.message for e in at.exception]
    assert at.number_input(key="min_n").value == 20 and at.number_input(key="top_k").value == 10
    assert at.selectbox(key="rows").value == "name", "a good value is kept"

    at = open_with("pages/inspector.py", margin_min="nan", margin_max="-0.5")
    assert not at.exception, [e.message for e in at.exception]
    assert at.number_input(key="margin_min").value is None and at.number_input(key="margin_max").value == -0.5

    at = open_with("pages/drift.py", epoch="1e309")
    assert not at.exception, [e.message for e in at.exception]
