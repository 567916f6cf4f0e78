"""Cached corpora and corpus indexes for the Search page (st.cache_resource lives in ui/ only).

An index is keyed by (model spec, corpus name): built once per process, shared by sessions.
Dense indexes read their vectors from the ScoreCache, so a rebuild after a restart encodes
nothing that was encoded before.
"""

from __future__ import annotations

import streamlit as st

from negviz.ui import resources


@st.cache_resource(show_spinner=False, max_entries=4)
def corpus(name: str):
    from negviz.retrieval.corpus import load_corpus

    return load_corpus(name)


@st.cache_resource(show_spinner=False, max_entries=4)
def _index(model: str, corpus_name: str):
    from negviz.retrieval.index import retriever_for

    return retriever_for(resources.scorer(model), corpus(corpus_name))


def index(model: str, corpus_name: str, progress=None):
    """The built retriever (the first call builds it, reporting progress)."""
    retriever = _index(model, corpus_name)
    return retriever.build(progress) if progress is not None else retriever.build()
