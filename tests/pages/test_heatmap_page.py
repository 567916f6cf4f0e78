"""The per-type heatmap page (AppTest): a cell's pairs, ExcluIR from the URL, a DEMETR run's perturbation columns."""

from pathlib import Path

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def open_page(page, **params):
    from streamlit.testing.v1 import AppTest

    at_ = AppTest.from_file(APP, default_timeout=120)
    for k, v in params.items():
        at_.query_params[k] = v
    at_.run()
    at_.switch_page(page).run()
    return at_


def test_heatmap_page_lists_the_pairs_of_a_cell(app_env):
    page = open_page("pages/heatmap.py")
    assert not page.exception, [e.message for e in page.exception]
    assert page.title[0].value == "Per-type accuracy"
    assert "the dataset's cue word (1,383)" in page.caption[0].value
    page.selectbox(key="cell_model").select("all-MiniLM-L6-v2").run()  # one of the 12 drawn by default
    page.selectbox(key="cell_column").select("affixal").run()
    items = page.dataframe[-1].value
    assert len(items) == 676 and set(items["type"]) == {"Affixal"}  # the title; the URL keeps "affixal"
    assert items["link"].str.startswith("inspector?dataset=nevir&pair=").all()
    assert "MiniLM" in page.main.markdown[-1].value and "n = 676" in page.main.markdown[-1].value
    page.selectbox(key="axis").select("edit_type").run()
    page.radio(key="mode").set_value("difference").run()
    assert not page.exception
    assert page.selectbox(key="cell_column").value is None  # "affixal" is no edit type


def test_heatmap_page_on_excluir_from_the_url(app_env):
    page = open_page("pages/heatmap.py", dataset="excluir", cell_model="bm25", cell_column="exclusion_exceptor")
    assert not page.exception, [e.message for e in page.exception]
    assert "Right Rank" in page.caption[0].value and "detected" in page.caption[0].value
    assert len(page.dataframe[-1].value) > 500


def test_heatmap_page_on_a_demetr_run_has_perturbation_columns(app_env, tmp_path):
    import streamlit as st

    from negviz.core.schema import DatasetSpec
    from negviz.evaluation.runner import run_eval
    from negviz.store import Store

    with Store() as store:  # $NEGVIZ_DB_URL of app_env: 5 items x 35 perturbations
        quick = run_eval("tfidf", DatasetSpec.make("demetr", limit=5), store=store).record.run_id
    st.cache_resource.clear()  # the app's cached store may be an earlier test's database
    st.cache_data.clear()
    # The shipped full run stands for tfidf (run_choice); the 5-item run shows when pinned.
    page = open_page(
        "pages/heatmap.py",
        dataset="demetr",
        min_n="5",
        cell_model="tfidf",
        cell_column="critical_id8_negation",
        run=quick,
    )
    assert not page.exception, [e.message for e in page.exception]
    assert (
        page.selectbox(key="axis").options == ["DEMETR perturbation"]
        and page.selectbox(key="axis").value == "perturbation"
    )
    assert "detection accuracy" in page.caption[0].value
    items = page.dataframe[-1].value
    assert len(items) == 5 and items["item_id"].str.startswith("critical_id8_negation:").all()
