"""negviz.ui.inspector.inspector_filters: the pair inspector's sidebar filters (each widget bound to its URL
key) and the ids they list, BM25's lean and the annotator's queue included, in AppTest over a
copy of the shipped runs (app_env)."""

from streamlit.testing.v1 import AppTest

from negviz.analyses import inspector as F
from negviz.analyses import lexical as X
from negviz.datasets import load
from negviz.results import annotations as ann
from negviz.ui.dataset_cache import dataset_view
from negviz.ui.inspector.inspector_filters import Queue

FILTER_KEYS = ["type", "cue", "edit", "model", "verdict", "lean", "annotated", "sort"]


def _sidebar(dataset):
    import streamlit as st

    from negviz.ui import inspector_data
    from negviz.ui.dataset_cache import dataset_view
    from negviz.ui.inspector import inspector_filters

    view = dataset_view(dataset)
    verdicts = inspector_data.verdicts(dataset, view.chosen(["bm25", "tfidf"]))
    items = inspector_data.items(dataset, view.annotations(), "")
    st.session_state["picked"] = inspector_filters.sidebar(view.dataset, items, verdicts)


def _app(dataset="nevir", **params) -> AppTest:
    at = AppTest.from_function(_sidebar, args=(dataset,), default_timeout=60)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def test_the_sidebar_draws_every_filter_and_picks_nothing_by_default(app_env):
    at = _app()
    assert not at.exception
    assert [w.key for w in at.sidebar.selectbox] == FILTER_KEYS  # NevIR's frame has edit types
    assert [w.key for w in at.sidebar.number_input] == ["margin_min", "margin_max"]
    assert [w.label for w in at.sidebar.selectbox][:3] == ["Negation type", "Cue word", "Edit type"]
    assert at.sidebar.toggle(key="queue").label == "Queue: my unlabelled pairs"
    # the first model in name order judges; everything else open
    assert at.session_state["picked"] == (F.Filters(model="bm25"), None)


def test_url_values_become_the_filters(app_env):
    at = _app(
        type="affixal",
        cue="not",
        edit="3",
        model="tfidf",
        verdict="failed",
        margin_min="-0.5",
        margin_max="0.25",
        lean=X.WRONG,
        annotated="not annotated by me",
        sort="margin desc",
    )
    assert not at.exception
    assert at.sidebar.selectbox(key="type").value == "affixal"  # shown by its title, Affixal
    filters, queue = at.session_state["picked"]
    assert filters == F.Filters(
        "affixal", "not", 3, "tfidf", "failed", -0.5, 0.25, "not annotated by me", "margin desc", X.WRONG
    )
    assert queue is None


def test_the_queue_takes_its_sample_and_seed_and_ignores_the_annotated_filter(app_env):
    at = _app(queue="true", sample="5", seed="3", annotated="annotated")
    assert not at.exception
    assert [w.key for w in at.sidebar.number_input] == ["margin_min", "margin_max", "sample", "seed"]
    filters, queue = at.session_state["picked"]
    assert queue == Queue(5, 3) and filters.annotated == F.ANY
    at.sidebar.toggle(key="queue").set_value(False).run()
    filters, queue = at.session_state["picked"]
    assert queue is None and filters.annotated == "annotated"
    assert [w.key for w in at.sidebar.number_input] == ["margin_min", "margin_max"]


def test_sentence_pairs_have_no_edit_type_and_no_lean(app_env):
    at = _app("cannot", lean=X.WRONG)  # a lean in a link made on another dataset
    assert not at.exception
    assert "edit" not in [w.key for w in at.sidebar.selectbox]
    assert at.sidebar.selectbox(key="lean").disabled
    assert at.sidebar.selectbox(key="verdict").options == [F.ANY]
    filters, _ = at.session_state["picked"]
    assert filters.lexical_lean is None and filters.edit_type is None


def _listed(filters, queue, annotator, labelled):
    import pandas as pd
    import streamlit as st

    from negviz.ui import inspector_data
    from negviz.ui.dataset_cache import dataset_view
    from negviz.ui.inspector import inspector_filters

    verdicts = inspector_data.verdicts("nevir", dataset_view("nevir").chosen(["bm25"]))
    annotations = pd.DataFrame({"item_id": labelled, "annotator": ["ana"] * len(labelled)})
    items = inspector_data.items("nevir", annotations, annotator)
    st.session_state["listed"] = inspector_filters.listed_ids("nevir", items, verdicts, filters, queue, annotator)


def _listed_app(filters, queue=None, annotator="ana", labelled=()) -> AppTest:
    at = AppTest.from_function(_listed, args=(filters, queue, annotator, list(labelled)), default_timeout=60)
    return at.run()


def test_listed_ids_by_bm25_lean_are_the_pairs_bm25_gets_wrong(app_env):
    view = dataset_view("nevir")
    wide = view.scores(view.chosen(["bm25"])["run_id"].iloc[0])
    # by hand: BM25 leans wrong on a pair when it prefers the wrong document for either query
    wrong = wide.index[(wide["q1_d1"] < wide["q1_d2"]) | (wide["q2_d2"] < wide["q2_d1"])]
    at = _listed_app(F.Filters(lexical_lean=X.WRONG))
    assert not at.exception
    ids, items = at.session_state["listed"]
    assert 0 < len(ids) < 1383 and ids == sorted(map(str, wrong), key=F.natural_key)
    assert {"lexical_lean", "lexical_margin"} <= set(items) and len(items) == 1383
    ids, items = _listed_app(F.Filters()).session_state["listed"]
    assert len(ids) == 1383 and "lexical_lean" not in items  # BM25 not read when not asked


def test_the_queue_serves_the_samples_pairs_the_annotator_has_not_labelled(app_env):
    every = sorted(load("nevir").frame["pair_id"], key=F.natural_key)
    sample = ann.sample_ids(every, 5, 1)
    outside = next(i for i in every if i not in sample)
    at = _listed_app(F.Filters(), Queue(5, 1), "ana", labelled=[sample[1], outside])
    assert not at.exception and not at.warning
    ids, _ = at.session_state["listed"]
    assert ids == [i for i in sample if i != sample[1]]  # drawn regardless of her labels, then hers left out
    anonymous = _listed_app(F.Filters(), Queue(5, 1), "", labelled=[sample[1]])
    assert anonymous.session_state["listed"][0] == sample  # nobody's labels are "mine"
    (warning,) = anonymous.warning
    assert "enter your annotator name" in warning.value
