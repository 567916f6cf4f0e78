"""negviz.ui.navigation.pickers: the sidebar's dataset and model pickers and the shown-runs expander, in
AppTest over a copy of the shipped runs (app_env); the expander's label from hand-made runs."""

import pandas as pd
from streamlit.testing.v1 import AppTest

from negviz.evaluation.run_choice import BY_POLICY, PINNED
from negviz.ui.navigation.pickers import _runs_label


def _runs(n: int, pinned: int = 0) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "model_name": [f"m{i}" for i in range(n)],
            "run_id": [f"{i}" * 10 for i in range(n)],
            "chosen_by": [PINNED] * pinned + [BY_POLICY] * (n - pinned),
        }
    )


def test_the_runs_label_names_each_run_and_its_pin():
    assert _runs_label(_runs(2, pinned=1), 2) == "Runs shown: m0 (pinned), m1"  # in words, no run id
    assert _runs_label(_runs(2), 5) == "Runs shown: m0, m1 (of 5 models)"
    limited = _runs(1).assign(dataset_spec=[{"limit": 20}])
    assert _runs_label(limited, 1) == "Runs shown: m0 · first 20 items"


def test_the_runs_label_counts_many_runs_and_still_names_the_pinned_ones():
    assert _runs_label(_runs(7), 9) == "Runs shown: 7 of 9 models (one run each)"
    assert _runs_label(_runs(7, pinned=1), 9) == "Runs shown: 7 of 9 models (one run each; m0 (pinned))"


def _sidebar():
    import streamlit as st

    from negviz.ui.navigation import pickers

    dataset = pickers.dataset_picker()
    pickers.models_picker(dataset)
    shown = pickers.shown_runs(dataset)
    st.session_state["shown"] = sorted(shown["model_name"])
    st.session_state["current"] = (pickers.current_dataset(), pickers.current_models())


def _app(**params) -> AppTest:
    at = AppTest.from_function(_sidebar, default_timeout=60)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def test_the_pickers_list_the_stores_datasets_and_models_and_show_one_run_per_model(app_env):
    at = _app()
    assert not at.exception
    assert {"nevir", "excluir", "demetr", "cannot"} <= set(at.sidebar.selectbox(key="dataset").options)
    models = at.sidebar.multiselect(key="models").options
    assert {"bm25", "tfidf", "all-MiniLM-L6-v2"} <= set(models)
    assert at.session_state["shown"] == sorted(models)  # no choice: every model with a run (13 fit the top 16)
    assert at.session_state["current"] == ("nevir", [])


def test_a_models_choice_in_the_url_narrows_the_shown_runs(app_env):
    at = _app(dataset="nevir", models=["bm25", "tfidf"])
    assert at.session_state["shown"] == ["bm25", "tfidf"]
    assert at.session_state["current"] == ("nevir", ["bm25", "tfidf"])
    (expander,) = at.expander
    assert expander.label == "Runs shown: bm25, tfidf"  # each run in words, no run id


def test_before_the_picker_ran_the_current_dataset_is_the_first_it_would_show(app_env):
    def current():
        import streamlit as st

        from negviz.ui.navigation import pickers

        st.session_state["current"] = pickers.current_dataset()

    at = AppTest.from_function(current, default_timeout=60).run()
    assert not at.exception and at.session_state["current"] == "nevir"  # the first shipped dataset
