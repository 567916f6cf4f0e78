"""negviz.ui.label_form: the inspector's labelling form over a real SQLite store, drawn in AppTest:
prefilled with the annotator's latest label, saved as a new version, refused on a store that cannot
be written; and ``cannot_save``'s reasons."""

import pytest
from streamlit.testing.v1 import AppTest

from negviz.core.schema import DatasetSpec
from negviz.datasets import load
from negviz.results import annotations as ann
from negviz.store import Store
from negviz.store.shipped import ShippedStore
from negviz.ui.label_form import cannot_save

NEVIR = load("nevir")


@pytest.fixture
def sqlite_store(tmp_path):
    with Store(f"sqlite:///{tmp_path / 'r.sqlite'}") as s:
        yield s


def test_cannot_save_gives_no_reason_for_a_writable_store(sqlite_store):
    assert cannot_save(sqlite_store) is None


def test_cannot_save_says_why_for_a_read_only_store_and_the_shipped_stand_in(sqlite_store, tmp_path):
    path = tmp_path / "r.sqlite"
    with Store(f"sqlite:///file:{path}?mode=ro&uri=true") as read_only:
        assert cannot_save(read_only) == f"the results store {read_only.url} is read-only here"
    stand_in = ShippedStore("the results database at db.example is not reachable", "db.example")
    assert cannot_save(stand_in) == (
        "the results database at db.example is not reachable; nothing can be saved until it is back"
    )


def _form(store, ds, annotator, next_id):
    import streamlit as st

    from negviz.ui.label_form import label_form

    st.session_state["annotator"] = annotator  # the sidebar's box, which save() reads
    label_form(store, ds, "nevir", "1230-2", annotator, next_id, "pair")


def _app(store, annotator="ana", next_id="1231-1") -> AppTest:
    return AppTest.from_function(_form, args=(store, NEVIR, annotator, next_id), default_timeout=30).run()


def test_save_stores_the_chosen_label_as_version_one_and_says_so(sqlite_store):
    at = _app(sqlite_store)
    at.selectbox[0].set_value("affixal")
    at.radio[0].set_value("unsure")
    at.text_area[0].input("cue is un-")
    at.button[0].click().run()  # Save
    assert ann.current_label(sqlite_store, "nevir", "1230-2", "ana") == (
        ann.Label("affixal", "unsure", False, "cue is un-"),
        1,
    )
    assert [s.value for s in at.success] == ["Saved 1230\\-2 as version 1 by ana."]
    assert at.session_state["pair"] == "1230-2"  # Save keeps the pair


def test_the_form_starts_with_no_validity_and_refuses_a_label_without_one(sqlite_store):
    """A pair the annotator has not labelled: no validity is pre-selected, and a save with the type
    alone is refused in words and stores nothing (a pre-selected "valid" was stored unchosen)."""
    at = _app(sqlite_store)
    assert at.radio[0].value is None
    at.selectbox[0].set_value("affixal")
    at.button[0].click().run()  # Save
    assert [e.value.replace("\\", "") for e in at.error] == [
        "Choose the pair's validity (valid, invalid, unsure); nothing was saved."
    ]
    assert ann.current_label(sqlite_store, "nevir", "1230-2", "ana") == (None, 0)


def test_the_form_is_prefilled_with_the_latest_label_and_save_and_next_moves_on(sqlite_store):
    ann.save(sqlite_store, NEVIR, "1230-2", "ana", ann.Label("sentential", "invalid", True, "two cues"))
    at = _app(sqlite_store)
    assert at.selectbox[0].value == "sentential" and at.radio[0].value == "invalid"
    assert at.checkbox[0].value is True and at.text_area[0].value == "two cues"
    at.button[1].click().run()  # Save and next, nothing changed
    assert [s.value for s in at.success] == ["No change: 1230\\-2 already has this label (version 1)."]
    assert at.session_state["pair"] == "1231-1"


def test_save_and_next_is_off_on_the_last_pair(sqlite_store):
    at = _app(sqlite_store, next_id=None)
    assert [b.disabled for b in at.button] == [False, True]


def test_a_read_only_store_turns_both_buttons_off_and_says_why(sqlite_store, tmp_path):
    with Store(f"sqlite:///file:{tmp_path / 'r.sqlite'}?mode=ro&uri=true") as read_only:
        at = _app(read_only)
        assert [b.disabled for b in at.button] == [True, True]
        (warning,) = at.warning
        assert (
            warning.value.startswith("Labels cannot be saved now: the results store") and "read\\-only" in warning.value
        )


def _form_on(store, ds, item):
    import streamlit as st

    from negviz.ui.label_form import label_form

    st.session_state["annotator"] = "ana"
    label_form(store, ds, ds.spec.name, item, "ana", None, "pair")


def test_the_form_asks_about_the_query_only_where_items_have_one(sqlite_store):
    """The kind's label fields: NevIR's pairs have queries to call ambiguous, CANNOT's sentence
    pairs do not, so their form has no such box and saves the label without it."""
    assert [c.label for c in _app(sqlite_store).checkbox] == ["Query ambiguous"]
    cannot = load(DatasetSpec.make("cannot", limit=2))
    item = str(cannot.frame["pair_id"].iloc[0])
    at = AppTest.from_function(_form_on, args=(sqlite_store, cannot, item), default_timeout=30).run()
    assert not at.exception and len(at.checkbox) == 0
    at.selectbox[0].set_value("affixal")
    at.radio[0].set_value("valid")
    at.button[0].click().run()  # Save
    assert ann.current_label(sqlite_store, cannot.spec.name, item, "ana") == (
        ann.Label("affixal", "valid", False, ""),
        1,
    )
