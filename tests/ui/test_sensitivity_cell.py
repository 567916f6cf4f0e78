"""negviz.ui.sensitivity.sensitivity_cell: the heatmap's "Items behind a cell" over the stored BM25 and TF-IDF
DEMETR runs of a copy of the shipped runs (app_env), in AppTest: its URL-bound pickers, nothing
listed until a cell is picked, then that cell's items (checked-only and the Show filter applied)."""

from streamlit.testing.v1 import AppTest

from negviz.analyses import sensitivity as sv

PERT = "critical_id7_antonym"
SHOWN = [
    "id",
    "reference",
    "candidate",
    "perturbed",
    "score_candidate",
    "score_perturbed",
    "score_empty",
    "ratio",
    "detected",
    "checked",
    "tiny_denominator",
]


def _runs():
    from negviz.ui.dataset_cache import dataset_view

    return dataset_view("demetr").chosen(["tfidf", "bm25"])


def _section(checked):
    import streamlit as st

    from negviz.ui.dataset_cache import dataset_view
    from negviz.ui.sensitivity.sensitivity_cell import cell_items_section

    view = dataset_view("demetr")
    runs = view.chosen(["tfidf", "bm25"])  # AppTest runs this function's body alone
    tables = {r["model_name"]: view.perturbation_table(r, checked) for r in runs.to_dict("records")}
    perturbations = list(tables["bm25"]["perturbation"])
    st.session_state["perturbations"] = perturbations
    st.session_state["shown"] = cell_items_section(runs, tables, perturbations, checked)


def _app(checked=False) -> AppTest:
    at = AppTest.from_function(_section, args=(checked,), default_timeout=120).run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _bm25_items():
    """The BM25 run's items of PERT, by hand from its whole item table."""
    from negviz.ui.dataset_cache import dataset_view

    run = _runs().set_index("model_name").loc["bm25"]
    items = dataset_view("demetr").sensitivity_items(run["run_id"])
    return items[items["perturbation"] == PERT]


def test_nothing_is_listed_until_a_model_and_a_perturbation_are_picked(app_env):
    at = _app()
    assert at.selectbox(key="sens_model").options == ["bm25", "tfidf"]  # sorted, not in the runs' order
    assert at.selectbox(key="sens_pert").options == at.session_state["perturbations"]
    assert PERT in at.session_state["perturbations"]
    assert at.selectbox(key="sens_show").options == list(sv.ITEM_FILTERS)
    assert at.selectbox(key="sens_show").value == "all"
    assert at.session_state["shown"] is None and list(at.dataframe) == []
    at.selectbox(key="sens_model").select("bm25").run()
    assert at.session_state["shown"] is None and list(at.dataframe) == []  # no perturbation yet


def test_a_picked_cell_lists_its_items_and_show_narrows_them(app_env):
    at = _app()
    at.selectbox(key="sens_model").select("bm25").run()
    at.selectbox(key="sens_pert").select(PERT).run()
    expected = _bm25_items()
    shown = at.session_state["shown"]
    assert set(shown["id"]) == set(expected["id"]) and len(shown) == len(expected) > 0
    assert list(at.dataframe[0].value.columns) == SHOWN
    head = at.markdown[-1].value
    assert head.startswith(f"`bm25` · `{PERT}`: ratio ") and f"n = {len(expected)}," in head
    assert head.endswith(f"showing {len(expected):,} (all)")
    at.selectbox(key="sens_show").select("missed").run()
    missed = at.session_state["shown"]
    assert set(missed["id"]) == set(expected.loc[~expected["detected"], "id"])
    assert at.markdown[-1].value.endswith(f"showing {len(missed):,} (missed)")


def test_checked_lists_only_the_cells_pert_check_items(app_env):
    at = _app(checked=True)
    at.selectbox(key="sens_model").select("bm25").run()
    at.selectbox(key="sens_pert").select(PERT).run()
    expected = _bm25_items()
    shown = at.session_state["shown"]
    assert set(shown["id"]) == set(expected.loc[expected["checked"], "id"]) and shown["checked"].all()
