"""negviz.ui.search.corpus_index: the Search page's corpus and index, built once per process and shared,
over a five-document corpus file with BM25 (no model weights); the build drawn in AppTest."""

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from negviz.ui.search import corpus_index

DOCS = {
    "a": "The violin was never his favourite instrument.",
    "b": "He played the piano every evening.",
    "c": "Bridges open to traffic after years of work.",
    "d": "The orchestra tuned before the concert.",
    "e": "Rain fell on the city all week.",
}


@pytest.fixture
def corpus_file(tmp_path):
    path = tmp_path / "five.csv"  # a new path per test: its own cache entries
    pd.DataFrame({"doc_id": list(DOCS), "text": list(DOCS.values())}).to_csv(path, index=False)
    return str(path)


def test_the_corpus_is_read_once_and_shared(corpus_file):
    first = corpus_index.corpus(corpus_file)
    assert corpus_index.corpus(corpus_file) is first  # one object for every session
    assert list(first.frame["doc_id"]) == list(DOCS)


def test_the_index_is_built_once_and_finds_the_document_sharing_the_words(corpus_file):
    retriever = corpus_index.index("bm25", corpus_file)
    assert retriever.built and corpus_index.index("bm25", corpus_file) is retriever
    rows, _scores = retriever.search(["violin instrument"], 2)
    assert list(DOCS)[rows[0][0]] == "a"
    assert not corpus_index._keeps_vectors(retriever)  # BM25 keeps no encoded vectors


def _build(corpus_file):
    import streamlit as st

    from negviz.ui.search.corpus_index import index

    retriever = index("bm25", corpus_file, label="Indexing")
    st.session_state["built"] = retriever.built


def test_a_build_with_a_label_ends_built_with_its_bar_and_cancel_button_gone(corpus_file):
    at = AppTest.from_function(_build, args=(corpus_file,), default_timeout=60).run()
    assert not at.exception and at.session_state["built"] is True
    assert list(at.get("progress")) == [] and list(at.button) == []


def _cancelled(corpus_file):
    import streamlit as st

    from negviz.ui.search.corpus_index import index

    st.session_state[f"search-cancel-bm25-{corpus_file}"] = True  # as after a click on Cancel
    index("bm25", corpus_file, label="Indexing")
    st.text("not reached")


def test_a_cancelled_build_stops_the_page_and_offers_to_build_again(corpus_file):
    at = AppTest.from_function(_cancelled, args=(corpus_file,), default_timeout=60).run()
    assert list(at.text) == [] and [b.label for b in at.button] == ["Build the index"]
    (info,) = at.info
    assert info.value.startswith("Stopped building the index for bm25.") and "vectors" not in info.value
