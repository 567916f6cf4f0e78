"""negviz.ui.add_dataset.added_datasets: the Add a dataset page's list of added datasets and their removal,
drawn in AppTest over a copy of the shipped runs (app_env) with datasets added to that store."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from negviz.datasets import added
from negviz.store import datasets as stored

DATA = Path(__file__).resolve().parents[1] / "data"
FILES = {  # name -> (file, kind, column mapping)
    "mypairs": ("pairs.csv", "pairs", "pair_id=id,q1=query1,d1=doc1,q2=query2,d2=doc2"),
    "mysent": ("sentences.tsv", "sentence_pairs", "pair_id=id,sentence1=first,sentence2=second"),
}


def _section():
    import streamlit as st

    from negviz.ui import resources
    from negviz.ui.add_dataset.added_datasets import added_datasets_section

    added_datasets_section(resources.store())
    st.text("end")


def _app() -> AppTest:
    return AppTest.from_function(_section, default_timeout=60).run()


@pytest.fixture
def two_added(app_env):
    from negviz.ui import resources

    store = resources.store()
    for name, (file, kind, columns) in FILES.items():
        added.add_dataset(store, name, (DATA / file).read_bytes(), file, kind, columns)
    return store


def test_none_added_says_so(app_env):
    at = _app()
    assert not at.exception, [e.message for e in at.exception]
    assert [s.value for s in at.subheader] == ["Added datasets"]
    assert [c.value for c in at.caption] == ["None yet."] and list(at.selectbox) == []
    assert [t.value for t in at.text] == ["end"]


def test_the_added_are_listed_and_nothing_is_removed_before_a_pick(two_added):
    at = _app()
    (table,) = at.dataframe
    assert list(table.value["name"]) == ["mypairs", "mysent"]
    picker = at.selectbox(key="remove_name")
    assert picker.value is None and picker.options == ["mypairs", "mysent"]
    assert list(at.button) == [] and list(at.warning) == []  # the confirmation only after a pick


def test_removing_one_says_how_many_runs_use_it_and_keeps_the_other(two_added):
    at = _app()
    at = at.selectbox(key="remove_name").select("mypairs").run()
    assert [w.value for w in at.warning] == ["0 stored run(s) use mypairs. Removing it keeps them unless ticked below."]
    assert at.checkbox(key="drop_runs").disabled  # nothing to delete along with it
    at = at.button(key="confirm_remove").click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert [s.value for s in at.success] == ["Removed mypairs; 0 run(s) kept."]
    assert list(stored.listing(two_added)["name"]) == ["mysent"]
    assert at.selectbox(key="remove_name").value is None  # the pick cleared with the dataset gone
    assert list(at.dataframe[0].value["name"]) == ["mysent"]
