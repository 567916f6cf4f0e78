"""Cached corpora and corpus indexes for the Search page (st.cache_resource lives in ui/ only).

An index is keyed by (model spec, corpus name): built once per process, shared by sessions.
A bi-encoder with a shipped code file (data/corpus/vectors) searches in two stages and encodes
only the queries and their candidates; other dense indexes read their vectors from the
ScoreCache, so a rebuild after a restart encodes nothing that was encoded before.
"""

from __future__ import annotations

import streamlit as st

from negviz.ui import resources
from negviz.ui.widgets import ProgressBar, safe_md


@st.cache_resource(show_spinner=False, max_entries=4)  # a corpus (files on disk): a resource, not a read of results
def corpus(name: str):
    from negviz.evaluation.retrieval.corpus import load_corpus

    return load_corpus(name)


@st.cache_resource(show_spinner=False, max_entries=4)  # a built index over a loaded model: a resource
def _index(model: str, corpus_name: str):
    from negviz.evaluation.retrieval.index import search_retriever

    return search_retriever(resources.scorer(model), corpus(corpus_name))


def index(model: str, corpus_name: str, label: str | None = None):
    """The built retriever. A build with work to do shows ``label``'s bar (count, time left) and
    a Cancel button: its click makes Streamlit rerun the page, which stops the build at its next
    progress report (a dense index keeps the vectors encoded so far in the ScoreCache)."""
    with st.spinner(f"Loading {safe_md(model)} and its index of the corpus…", show_time=True):
        retriever = _index(model, corpus_name)
    if retriever.built or label is None:
        return retriever.build()
    cancel_key = f"search-cancel-{model}-{corpus_name}"
    if st.session_state.get(cancel_key):  # this run follows a click on Cancel: no button, no build
        kept = (
            " The vectors encoded so far are kept: building again resumes there." if _keeps_vectors(retriever) else ""
        )
        st.info(
            f"Stopped building the index for {safe_md(model)}.{kept} Pick another model (BM25 builds in seconds), or:",
            icon=":material/stop:",
        )
        st.button("Build the index", key=f"{cancel_key}-again", icon=":material/play_arrow:")
        st.stop()
    button = st.empty()
    button.button("Cancel", key=cancel_key, icon=":material/stop:", help="Stop building this index")
    bar = ProgressBar(label)
    retriever.build(bar)
    bar.done()
    button.empty()
    return retriever


def _keeps_vectors(retriever) -> bool:
    """Whether a stopped build keeps its work: dense indexes write each batch to the ScoreCache."""
    from negviz.evaluation.retrieval.index import DenseRetriever

    return isinstance(retriever, DenseRetriever)
