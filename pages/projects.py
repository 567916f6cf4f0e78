"""Annotation projects: a team labels a dataset's pairs with guidelines, an overlap, per-annotator
queues, review of disagreements and adjudicated labels (negviz.projects)."""

import streamlit as st
from negviz.ui import resources
from negviz.ui.dataset_cache import dataset_view
from negviz.ui.label_form import annotator_name
from negviz.ui.projects import project_view as V

store = resources.store()
st.title("Annotation projects")
projects = V.readable_projects(store)
if projects is None:  # the database is not reachable (said): nothing to show, nothing to create
    st.stop()
annotator = annotator_name()
project = V.pick_project(projects)
V.message()
datasets = list(dataset_view().datasets()["name"])
if project is None:
    st.info("No annotation project in this store yet: create one below.")
    V.create_form(store, annotator, datasets)
    st.stop()
st.caption(V.summary(project))
# Bound to the URL and run lazily: only the open tab's content is computed.
label, review, progress, setup = st.tabs(
    ["Label", "Review", "Progress & agreement", "Set up"], key="tab", bind="query-params"
)
if label.open:
    with label:
        V.label_tab(store, project, annotator)
if review.open:
    with review:
        V.review_tab(store, project, annotator)
if progress.open:
    with progress:
        V.progress_tab(store, project)
if setup.open:
    with setup:
        V.setup_tab(store, project, annotator, datasets)
