"""negviz.ui.projects.project_view: the Annotation projects page's pieces over a real SQLite store, in
AppTest: the project list (and the message when the database is away), the URL-bound picker and
the one-line summary."""

import pytest
from streamlit.testing.v1 import AppTest

from negviz import projects as P
from negviz.datasets import load
from negviz.store import Store
from negviz.store.shipped import ShippedStore
from negviz.ui.projects.project_view import summary


@pytest.fixture
def sqlite_store(tmp_path):
    with Store(f"sqlite:///{tmp_path / 'r.sqlite'}") as s:
        yield s


def test_summary_names_the_project_its_size_overlap_and_owner(sqlite_store):
    project = P.create(sqlite_store, "first_look", load("nevir"), "ana", overlap=2, sample=10, multi_type=True)
    assert summary(project) == ("**first\\_look** · nevir · 10 pairs · overlap 2 · owner ana · several types per pair")


def _projects(store):
    import streamlit as st

    from negviz.ui.projects.project_view import pick_project, readable_projects

    projects = readable_projects(store)
    st.session_state["names"] = None if projects is None else [p.name for p in projects]
    if projects is not None:
        chosen = pick_project(projects)
        st.session_state["chosen"] = chosen.name if chosen else None


def test_the_stores_projects_are_listed_and_the_picker_takes_the_url(sqlite_store):
    for name in ("alpha", "beta"):
        P.create(sqlite_store, name, load("nevir"), "ana", sample=4)
    at = AppTest.from_function(_projects, args=(sqlite_store,), default_timeout=30)
    at.query_params["project"] = "beta"
    at.run()
    assert sorted(at.session_state["names"]) == ["alpha", "beta"] and at.session_state["chosen"] == "beta"


def test_no_project_yet_leaves_the_picker_empty(sqlite_store):
    at = AppTest.from_function(_projects, args=(sqlite_store,), default_timeout=30).run()
    assert at.session_state["names"] == [] and at.session_state["chosen"] is None
    assert at.sidebar.selectbox(key="project").placeholder == "none yet: create one"


def test_a_database_away_is_said_and_lists_nothing():
    stand_in = ShippedStore("the results database at db.example is not reachable", "db.example")
    at = AppTest.from_function(_projects, args=(stand_in,), default_timeout=30).run()
    assert at.session_state["names"] is None  # neither "no project" nor a create form
    (warning,) = at.warning
    assert warning.value.startswith("Annotation projects cannot be read now: the results database at db\\.example is")
