"""negviz.ui.corpus_results: the corpus-retrieval section over the shipped ExcluIR corpus runs
(app_env, in AppTest): one row per run, the offline corpus named as not the paper's, nothing for
a dataset without corpus runs."""

from streamlit.testing.v1 import AppTest


def _section(dataset):
    import streamlit as st

    from negviz.ui.corpus_results import corpus_section

    corpus_section(dataset, "ov")
    st.text("end")


def test_the_corpus_runs_are_listed_and_the_offline_corpus_is_named(app_env):
    at = AppTest.from_function(_section, args=("excluir",), default_timeout=60).run()
    assert not at.exception
    assert [s.value for s in at.subheader] == ["Retrieval over a corpus"]
    (board,) = at.dataframe  # no published table: the runs did not search the paper's corpus
    assert len(board.value) == 6 and not board.value["paper_corpus"].any()
    assert {"bm25", "all-MiniLM-L6-v2"} <= set(board.value["model"])
    (caption,) = at.caption
    assert caption.value.startswith("Runs over corpus ") and "not ExcluIR's 90,406-paragraph corpus" in caption.value


def test_a_dataset_without_corpus_runs_draws_nothing(app_env):
    at = AppTest.from_function(_section, args=("nevir",), default_timeout=60).run()
    assert list(at.subheader) == [] and list(at.dataframe) == [] and [t.value for t in at.text] == ["end"]
