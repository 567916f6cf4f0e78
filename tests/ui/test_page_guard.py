"""negviz.ui.navigation.page_guard: the router stops a page, saying why in the registry's words, when the
sidebar's dataset is of a kind the page does not draw (AppTest over a copy of the shipped runs,
app_env); the pages tier sees the same through app.py (tests/pages/test_added_dataset_pages.py)."""

from streamlit.testing.v1 import AppTest

from negviz.ui.navigation.page_guard import dataset_kind_problem


def test_dataset_kind_problem_names_the_kinds_the_page_draws(app_env):
    assert dataset_kind_problem("heatmap", "nevir") is None
    assert dataset_kind_problem("heatmap", "cannot") == (
        "Per-type heatmap draws NevIR-style contrast pairs, ExcluIR-style exclusion queries, "
        "DEMETR-style perturbations; cannot holds CANNOT-style sentence pairs."
    )
    assert dataset_kind_problem("sensitivity", "cannot") is None  # a page for every kind


def _routed(page, dataset):
    """What app.py does with the page it is about to run."""
    import streamlit as st

    from negviz.ui.navigation.page_guard import refuses

    if not refuses(page, dataset):
        st.text("page drawn")


def test_the_router_refuses_a_page_with_the_reason(app_env):
    at = AppTest.from_function(_routed, args=("heatmap", "cannot"), default_timeout=30).run()
    assert [t.value for t in at.text] == []  # the page never ran
    (info,) = at.info
    assert info.value.startswith("Per-type heatmap draws NevIR-style contrast pairs,")
    assert info.value.endswith(
        "cannot holds CANNOT-style sentence pairs. Pick a dataset of one of those kinds in the sidebar."
    )


def test_the_router_runs_a_page_on_a_dataset_of_its_kind_and_a_typed_text_page_on_any(app_env):
    for page, dataset in (("heatmap", "nevir"), ("errors", "excluir"), ("maxsim", "demetr"), ("overview", "cannot")):
        at = AppTest.from_function(_routed, args=(page, dataset), default_timeout=30).run()
        assert [t.value for t in at.text] == ["page drawn"] and list(at.info) == [], (page, dataset)
