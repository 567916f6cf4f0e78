"""negviz.ui.drift.finetune_jobs: the drift page's job pieces in AppTest over an empty SQLite store: the
last failure this session saw, a notice left by Resume or Discard, no running job listed, and the
start form's fields and defaults."""

import pytest
from streamlit.testing.v1 import AppTest

from negviz.store import Store


@pytest.fixture
def sqlite_store(tmp_path):
    with Store(f"sqlite:///{tmp_path / 'r.sqlite'}") as s:
        yield s


def _failure(failed):
    import streamlit as st

    from negviz.ui.drift.finetune_jobs import last_failure

    if failed:
        st.session_state["_finetune_failed"] = failed
    last_failure()


def test_last_failure_names_the_run_and_shows_its_error():
    at = AppTest.from_function(_failure, args=(("0123456789abcdef", "CUDA out of memory"),), default_timeout=30).run()
    assert [e.value for e in at.error] == ["Run 01234567 failed; its finished epochs are kept."]
    assert [c.value for c in at.code] == ["CUDA out of memory"]
    assert list(AppTest.from_function(_failure, args=(None,), default_timeout=30).run().error) == []


def _jobs(store, notice):
    import streamlit as st

    from negviz.ui.drift.finetune_jobs import live_jobs

    if notice:
        st.session_state["job_notice"] = notice
    st.session_state["listed"] = live_jobs(store)


def test_no_running_job_lists_nothing_and_a_notice_is_shown_once(sqlite_store):
    at = AppTest.from_function(_jobs, args=(sqlite_store, "Run 01234567 is running again."), default_timeout=30).run()
    assert at.session_state["listed"] == {} and list(at.get("progress")) == []
    assert [w.value for w in at.warning] == ["Run 01234567 is running again."]
    assert "job_notice" not in at.session_state  # said once


def _form(store):
    from negviz.ui.drift.finetune_jobs import start_form

    start_form(store)


def test_the_start_form_offers_the_families_and_training_data_with_defaults(sqlite_store):
    from negviz import finetune as ft

    at = AppTest.from_function(_form, args=(sqlite_store,), default_timeout=30).run()
    assert at.text_input[0].value == "all-MiniLM-L6-v2"
    assert list(at.radio[0].options) == list(ft.FAMILIES)
    assert at.selectbox[0].value == "auto" and "cannot" in at.selectbox[0].options
    assert [n.value for n in at.number_input][:3] == [3, 2e-5, 16]  # epochs, learning rate, batch
