"""negviz.ui.outage: the guard that turns the store's errors into a message above the page, in
AppTest: a full disk or read-only store as an error box, a database that went away as the
"not reachable" banner (remembered by negviz.ui.resources, not raised)."""

import pytest
from streamlit.testing.v1 import AppTest

from negviz.ui import resources

URL = "postgresql://db.example/negviz-outage-test"  # never connected to: the probe is noted by hand


@pytest.fixture
def away_url(monkeypatch):
    monkeypatch.setenv("NEGVIZ_DB_URL", URL)
    yield URL
    resources._probes.pop(URL, None)  # no other test sees this outage


def _guarded(error, banner):
    import streamlit as st

    from negviz.ui import outage

    box = st.container()
    with outage.guard(box, banner=banner):
        st.text("page drawn")
        if error is not None:
            raise error
    st.text("after the guard")


def test_a_store_error_becomes_an_error_box_with_its_message_escaped(away_url):
    from negviz.store import StoreError

    at = AppTest.from_function(
        _guarded, args=(StoreError("disk full at <b>/data</b>"), False), default_timeout=30
    ).run()
    assert not at.exception and [t.value for t in at.text] == ["page drawn", "after the guard"]
    (error,) = at.error
    assert "disk full" in error.value and "<b>" not in error.value
    assert list(at.warning) == []  # a full disk is not an outage


def test_a_database_gone_away_shows_the_banner_and_no_error_box(away_url):
    from negviz.store import StoreUnavailableError

    at = AppTest.from_function(
        _guarded, args=(StoreUnavailableError("gone", "db.example"), True), default_timeout=30
    ).run()
    assert not at.exception and list(at.error) == []
    (warning,) = at.warning
    # the banner comes from the outage the guard noted (resources.note), not from a new probe
    assert warning.value.startswith("The results database at db.example is not reachable; retrying.")
    assert isinstance(resources._probes[URL][1], StoreUnavailableError)


def test_without_banner_a_known_outage_is_not_said_again(away_url):
    from negviz.store import StoreUnavailableError

    resources.note(StoreUnavailableError("gone", "db.example"))
    at = AppTest.from_function(_guarded, args=(None, False), default_timeout=30).run()
    assert list(at.warning) == [] and [t.value for t in at.text] == ["page drawn", "after the guard"]


def _page_reading_the_store():
    import streamlit as st

    from negviz.ui import outage, resources

    box = st.container()
    with outage.guard(box, banner=True):  # as app.py guards a page
        resources.store().runs()
        st.text("page drawn")


@pytest.mark.parametrize("kind", ["folder", "csv", "device", "fifo"])
def test_a_store_that_cannot_be_opened_is_its_message_alone(kind, tmp_path, monkeypatch):
    """Issue 47: a folder or a CSV showed the message and an exception box under it (the guard's
    banner check opened the store again); /dev/null or a FIFO showed the exception alone."""
    import os

    path = {"folder": tmp_path, "csv": tmp_path / "runs.csv", "device": "/dev/null", "fifo": tmp_path / "fifo"}[kind]
    if kind == "csv":
        path.write_text("a,b\n1,2\n")
    if kind == "fifo":
        os.mkfifo(path)
    url = f"sqlite:///{path}"
    monkeypatch.setenv("NEGVIZ_DB_URL", url)
    try:
        at = AppTest.from_function(_page_reading_the_store, default_timeout=60).run()
    finally:
        resources._probes.pop(url, None)
    assert not at.exception, [e.message for e in at.exception]
    (error,) = at.error
    shown = error.value.replace("\\", "")  # markdown escapes
    assert f"the results store {path} " in shown and "NEGVIZ_DB_URL" in shown
    assert list(at.warning) == [] and list(at.text) == []
