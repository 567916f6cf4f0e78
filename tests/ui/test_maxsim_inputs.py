"""negviz.ui.maxsim.maxsim_inputs: the MaxSim explorer's texts, drawn in AppTest over a copy of the
shipped runs (app_env): a NevIR pair or an ExcluIR query picked by id, or four typed texts."""

from streamlit.testing.v1 import AppTest

from negviz.analyses import playground as pg
from negviz.datasets import load
from negviz.ui.maxsim.maxsim_inputs import LIMIT


def _pick(dataset, src):
    from dataclasses import asdict

    import streamlit as st

    from negviz.ui.maxsim.maxsim_inputs import pick_texts

    texts = pick_texts(dataset, src)
    st.session_state["result"] = None if texts is None else asdict(texts)


def _app(dataset="nevir", src="dataset") -> AppTest:
    return AppTest.from_function(_pick, args=(dataset, src), default_timeout=60).run()


def test_a_nevir_pair_opens_on_the_sample_and_returns_its_texts_and_cue(app_env):
    at = _app()
    assert not at.exception, [e.message for e in at.exception]
    picker = at.selectbox(key="pair")
    assert picker.label == "Pair" and picker.value == pg.SAMPLE_PAIR[1]
    at = picker.select("1230-2").run()
    row = load("nevir").frame.set_index("pair_id").loc["1230-2"]
    assert at.session_state["result"] == {
        "queries": [row["q1"], row["q2"]],
        "docs": [row["d1"], row["d2"]],
        "doc_names": ["d1", "d2"],
        "gold": row["cue"],
    }
    (caption,) = at.caption
    assert caption.value.startswith("q1: ") and "Gold cue **not**" in caption.value
    assert "(inspector?" in caption.value  # the link to the same pair in the inspector
    assert list(at.text_area) == []  # no typed texts beside a dataset's pair


def test_an_excluir_query_has_a_positive_and_an_excluded_document(app_env):
    at = _app("excluir")
    picker = at.selectbox(key="pair")
    assert picker.label == "Query"
    row = load("excluir").frame.set_index("query_id").loc[picker.value]
    assert at.session_state["result"] == {
        "queries": [row["query"]],
        "docs": [row["pos_doc"], row["neg_doc"]],
        "doc_names": ["positive", "excluded"],
        "gold": None,
    }
    assert list(at.caption) == []  # no pair inspector for an exclusion query


def test_typed_texts_start_from_the_sample_and_the_negated_query_is_optional(app_env):
    at = _app(src="typed")
    # two columns, walked one after the other: the queries above the documents
    assert [(t.key, t.label) for t in at.text_area] == [
        ("tq", "Query"),
        ("td1", "Document 1"),
        ("tq2", "Negated query (optional)"),
        ("td2", "Document 2"),
    ]
    result = at.session_state["result"]
    assert result["queries"] == [pg.SAMPLE["q1"], pg.SAMPLE["q2"]]
    assert result["docs"] == [pg.SAMPLE["d1"], pg.SAMPLE["d2"]] and result["gold"] is None
    at = at.text_area(key="tq2").input("  ").run()
    assert at.session_state["result"]["queries"] == [pg.SAMPLE["q1"]]  # q2 left out, not empty
    assert list(at.selectbox) == []


def test_a_long_typed_text_is_cut_and_an_empty_document_returns_none(app_env):
    at = _app(src="typed")
    at = at.text_area(key="td2").input("x" * (LIMIT + 10)).run()
    assert at.session_state["result"]["docs"][1] == "x" * LIMIT
    assert [w.value for w in at.warning] == [f"Texts longer than {LIMIT:,} characters were cut to that length."]
    at = at.text_area(key="td1").input(" ").run()
    assert at.session_state["result"] is None
    assert [i.value for i in at.info] == ["Type a query and two documents."]


def test_a_dataset_of_another_kind_says_why_and_offers_typed_texts(app_env):
    at = _app("cannot")
    (info, *_) = at.info
    assert info.value.startswith("MaxSim explorer draws NevIR-style contrast pairs, ExcluIR-style exclusion queries;")
    assert info.value.endswith("Pick one of those in the sidebar, or type below.")
    assert sorted(t.key for t in at.text_area) == ["td1", "td2", "tq", "tq2"]
    assert at.session_state["result"]["queries"] == [pg.SAMPLE["q1"], pg.SAMPLE["q2"]]
