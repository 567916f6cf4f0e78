"""URL values a widget cannot take (AppTest) are dropped before it reads them, and the drop is said."""

from streamlit.testing.v1 import AppTest

from tests.ui.test_links import APP


def open_with(page: str, **params) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    at.switch_page(page)
    at.query_params.update(params)
    at.run()
    return at


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
