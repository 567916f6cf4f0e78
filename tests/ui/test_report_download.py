"""negviz.ui.overview.report_download: the Overview's report button, in AppTest over a copy of the shipped
runs (app_env); the report itself is built only on a click (tests/report/ builds reports)."""

from streamlit.testing.v1 import AppTest


def _button(models):
    import streamlit as st

    from negviz.ui.overview.report_download import report_button

    report_button(models, key="rep")
    st.text("end")


def test_the_button_offers_each_model_and_downloads_its_report(app_env):
    at = AppTest.from_function(_button, args=(["bm25", "all-MiniLM-L6-v2"],), default_timeout=60).run()
    assert not at.exception
    picker = at.selectbox(key="rep_model")
    assert picker.label == "Report for model" and list(picker.options) == ["bm25", "all-MiniLM-L6-v2"]
    (button,) = at.get("download_button")
    assert button.proto.label == "Download report"


def test_no_models_draw_no_button(app_env):
    at = AppTest.from_function(_button, args=([],), default_timeout=60).run()
    assert list(at.selectbox) == [] and list(at.get("download_button")) == [] and at.text[0].value == "end"
