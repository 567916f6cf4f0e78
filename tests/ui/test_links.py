"""URL values are checked when read: a value a view cannot take (not finite, not a number, out of
range, not among the options) is dropped, the page keeps running, and the drop is said.
The pages' side (AppTest): tests/pages/test_url_values_page.py."""

from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from negviz.ui.navigation import links
from negviz.ui.navigation.links import number_problem

APP = str(Path(__file__).resolve().parents[2] / "app.py")


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


def test_maxsim_link_is_a_typed_explorer_view():
    link = links.maxsim_typed("q (x) & y", "doc one", "doc two", "q2")
    url = urlparse(link)
    params = parse_qs(url.query)
    assert url.path == "maxsim" and params["src"] == ["typed"] and params["tq"] == ["q (x) & y"]
    assert params["td1"] == ["doc one"] and params["td2"] == ["doc two"] and params["tq2"] == ["q2"]
