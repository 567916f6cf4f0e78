"""negviz.ui.add_dataset.column_mapping: the Add a dataset page's pickers mapping an uploaded file's columns
onto a kind's columns, drawn in AppTest (app_env); pre-filled by name, optional ones left out."""

from streamlit.testing.v1 import AppTest

from negviz.core.schema import COLUMNS
from negviz.ui.add_dataset.column_mapping import NONE

PAIRS_FILE = ["id", "query1", "doc1", "query2", "doc2", "note"]  # tests/data/pairs.csv's header


def _mapping(present, kind):
    import streamlit as st

    from negviz.ui.add_dataset.column_mapping import column_mapping

    st.session_state["result"] = column_mapping(present, kind)


def _app(present, kind="pairs") -> AppTest:
    return AppTest.from_function(_mapping, args=(present, kind), default_timeout=30).run()


def test_one_picker_per_needed_column_then_the_type_label(app_env):
    at = _app(PAIRS_FILE)
    assert not at.exception, [e.message for e in at.exception]
    keys = [s.key for s in at.selectbox]  # in the order AppTest walks them: column by column
    assert sorted(keys) == sorted([f"map-pairs-{c}" for c in COLUMNS["pairs"]] + ["map-pairs-negation_type"])
    first_column = at.columns[0]  # four to a row: the 1st and 5th of pair_id, q1, d1, q2, d2, label
    assert [s.key for s in first_column.selectbox] == ["map-pairs-pair_id", "map-pairs-d2"]
    assert at.selectbox(key="map-pairs-negation_type").label == "type label (optional)"
    assert at.markdown[0].value.startswith("**Columns**: which of your columns holds each needed one")


def test_the_guess_by_name_is_returned_and_the_unmapped_label_left_out(app_env):
    at = _app(PAIRS_FILE)
    result = at.session_state["result"]
    assert {k: result[k] for k in ("q1", "d1", "q2", "d2")} == {
        "q1": "query1",
        "d1": "doc1",
        "q2": "query2",
        "d2": "doc2",
    }
    assert "negation_type" not in result and at.selectbox(key="map-pairs-negation_type").value == NONE
    guessed = at.selectbox(key="map-pairs-q1")
    assert NONE not in guessed.options  # a guessed needed column cannot be left unmapped


def test_a_pick_changes_what_is_returned(app_env):
    at = _app(PAIRS_FILE)
    at = at.selectbox(key="map-pairs-negation_type").select("note").run()
    assert at.session_state["result"]["negation_type"] == "note"


def test_a_column_with_a_default_says_it_and_may_stay_unmapped(app_env):
    at = _app(["pair_id", "sentence1", "sentence2", "label"], "sentence_pairs")  # no source column
    picker = at.selectbox(key="map-sentence_pairs-source")
    assert picker.label == "source (default 'user')"
    assert picker.value == NONE and picker.options == [NONE, "pair_id", "sentence1", "sentence2", "label"]
    assert at.session_state["result"] == {c: c for c in ("pair_id", "sentence1", "sentence2", "label")}


def test_a_needed_column_nothing_was_guessed_for_starts_unmapped(app_env):
    at = _app(["aaa", "bbb"])
    picker = at.selectbox(key="map-pairs-q1")
    assert picker.value == NONE and picker.options == [NONE, "aaa", "bbb"]
    assert at.session_state["result"] == {}  # the page's check then names each missing column
