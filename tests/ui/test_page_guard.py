"""negviz.ui.page_guard: a page stops, saying why in the registry's words, when the sidebar's
dataset is of a kind it does not draw (AppTest over a copy of the shipped runs, app_env)."""

from streamlit.testing.v1 import AppTest

from negviz.ui.page_guard import dataset_kind_problem


def test_dataset_kind_problem_names_the_kinds_the_page_draws(app_env):
    assert dataset_kind_problem("heatmap", "nevir") is None
    assert dataset_kind_problem("heatmap", "cannot") == (
        "Per-type heatmap draws NevIR-style contrast pairs, ExcluIR-style exclusion queries, "
        "DEMETR-style perturbations; cannot holds CANNOT-style sentence pairs."
    )
    assert dataset_kind_problem("sensitivity", "cannot") is None  # a page for every kind


def _guarded(dataset):
    import streamlit as st

    from negviz.ui.page_guard import require_dataset_kind

    require_dataset_kind("maxsim", dataset)
    st.text("page drawn")


def test_require_dataset_kind_stops_the_page_with_the_reason(app_env):
    at = AppTest.from_function(_guarded, args=("demetr",), default_timeout=30).run()
    assert [t.value for t in at.text] == []  # stopped before the page
    (info,) = at.info
    assert info.value.startswith("MaxSim explorer draws NevIR-style contrast pairs, ExcluIR-style exclusion queries;")
    assert info.value.endswith("Pick a dataset of one of those kinds in the sidebar.")


def test_require_dataset_kind_lets_a_dataset_of_its_kind_through(app_env):
    at = AppTest.from_function(_guarded, args=("nevir",), default_timeout=30).run()
    assert [t.value for t in at.text] == ["page drawn"] and list(at.info) == []
