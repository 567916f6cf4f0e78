"""The perturbation-sensitivity page in AppTest: cell items from the selectboxes (the click fallback),
the checked-only toggle, every tab from its URL, and perturb-your-own-sentence with TF-IDF."""

from pathlib import Path

import pytest

APP = str(Path(__file__).resolve().parents[2] / "app.py")


@pytest.fixture(scope="module")
def page_env(tmp_path_factory, shipped_store_file):
    """One store for the module: the bundled runs (a copy of the run's shipped store, so the app
    copies no scores in beside the test) plus a 5-item TF-IDF DEMETR run of our own."""
    import streamlit as st

    from negviz.core.schema import DatasetSpec
    from negviz.evaluation.runner import run_eval
    from negviz.store import Store
    from tests.support.store_copies import store_in

    tmp = tmp_path_factory.mktemp("sensitivity-page")
    url = store_in(tmp, shipped_store_file)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("NEGVIZ_DB_URL", url)
        mp.setenv("NEGVIZ_CACHE_DIR", str(tmp / "cache"))
        mp.setenv("HF_HUB_OFFLINE", "1")
        with Store() as store:
            run_eval("tfidf", DatasetSpec.make("demetr", limit=5), store=store)
        st.cache_resource.clear()  # the app's cached store may be another module's database
        st.cache_data.clear()
        yield
        st.cache_resource.clear()
        st.cache_data.clear()


def open_page(**params):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=180)
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    at.switch_page("pages/sensitivity.py").run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def items_table(page, column="checked"):
    """The first table with ``column`` (the page's "Runs shown" table comes before the others)."""
    return next(d.value for d in page.dataframe if column in d.value.columns)


def _tfidf_run():
    from negviz.evaluation.run_choice import choose_runs
    from negviz.store import Store

    with Store() as store:
        return choose_runs(store.runs(dataset="demetr"), ["tfidf"]).iloc[0]


def test_cell_items_from_the_selectboxes_and_the_checked_toggle(page_env):
    page = open_page(sens_model="tfidf", sens_pert="critical_id7_antonym")
    assert page.title[0].value == "Perturbation sensitivity"
    n = int(_tfidf_run()["n"]) // 35  # items per perturbation file of the run the page picked
    head = page.main.markdown[-1].value
    assert "`tfidf`" in head and "critical_id7_antonym" in head and f"n = {n}," in head
    items = items_table(page)
    assert len(items) == n and items["id"].is_unique
    assert {
        "reference",
        "candidate",
        "perturbed",
        "score_candidate",
        "score_perturbed",
        "score_empty",
        "ratio",
        "tiny_denominator",
    } <= set(items.columns)
    page.toggle(key="checked").set_value(True).run()
    assert not page.exception
    assert len(items_table(page)) == int(items_table(page)["checked"].sum())
    page.selectbox(key="sens_show").select("missed").run()
    missed = items_table(page)
    assert not missed["detected"].any()
    page.selectbox(key="sens_model").select("tfidf").run()
    page.radio(key="value").set_value("detection accuracy").run()
    assert not page.exception and page.toggle(key="published").disabled


def test_focus_and_cannot_tabs_from_the_url(page_env):
    page = open_page(view="Negation vs antonym")
    summary = items_table(page, "negation").set_index("model")
    assert summary.loc["NegMPNet", "negation"] == 0.65 and summary.loc["NegMPNet", "published"]
    assert "tfidf" in summary.index
    page = open_page(view="CANNOT", cannot_pairs="negated")
    dist = items_table(page, "source")
    assert {"sem_anto_neg", "glue_diagnostic"} <= set(dist["source"]) and (dist["pairs"] == "negated").all()
    assert {"tfidf", "bm25"} <= set(dist["model"])


def test_perturb_your_own_sentence_with_tfidf(page_env):
    page = open_page(
        view="Perturb your own sentence",
        own_models="tfidf",
        own_ref="The new bridge was opened to traffic.",
        own_cand="The new bridge opened to traffic.",
    )
    edits = items_table(page, "perturbed")
    assert {"negation", "antonym", "word swap"} <= set(edits["perturbation"])  # in words (issue 46)
    assert edits.set_index("perturbation").loc["antonym", "perturbed"] == "The old bridge opened to traffic."
    empty = 'e = m(ref, ".")'  # the table's headers say what each number is (sensitivity.OWN_SHOWN)
    own = items_table(page, empty)
    assert set(own["model"]) == {"tfidf"} and len(own) == len(edits)
    assert (own[empty] == 0).all()  # TF-IDF: "." has no terms
    lower = own.set_index("perturbation").loc["full lower"]  # in words, not the rule key full_lower
    assert lower["ratio (t − h) / (t − e)"] == pytest.approx(0.0)  # TF-IDF lower-cases: no change
    page.text_area(key="own_cand").input("<b>Nothing</b> was opened.").run()
    assert not page.exception
    edits = items_table(page, "perturbed").set_index("perturbation")
    assert edits.loc["negation", "perturbed"] == "<b>Something</b> was opened."  # negation removed; text, not markup


def test_the_cannot_tab_shows_only_its_own_controls(page_env):
    """DEMETR's value radio, pert_check and published toggles and its runs belong to the DEMETR
    tabs: the CANNOT tab draws its own pairs radio and runs only."""
    demetr = open_page(view="Heatmap")
    assert {"value"} <= {r.key for r in demetr.radio} and {"checked", "published"} <= {t.key for t in demetr.toggle}
    page = open_page(view="CANNOT", cannot_pairs="negated")
    assert [r.key for r in page.radio] == ["cannot_pairs"] and not page.toggle
    assert not [e for e in page.expander if "largest complete run" in e.label]
    assert items_table(page, "source")["pairs"].eq("negated").all()


def test_perturb_your_own_sentence_defaults_to_models_that_run_here(page_env):
    """The default models are those whose weights are here (catalog.runs_here): not the split-trained
    MiniLMs, whose weights do not ship (two red ModelUnavailableError boxes greeted the user); a
    rule that does not fit is said in words, not as a pointer into the source."""
    from negviz.core.schema import ModelSpec
    from negviz.evaluation.catalog import runs_here
    from negviz.store import Store

    page = open_page(view="Perturb your own sentence", own_ref=" ")  # no reference: nothing scored
    default = set(page.multiselect(key="own_models").value)
    with Store() as store:
        runs = store.runs(dataset="demetr")
    specs = {m: str(ModelSpec.from_dict(s)) for m, s in zip(runs["model_name"], runs["model_spec"])}
    assert default == {m for m, s in specs.items() if runs_here(s)}
    assert {"tfidf", "all-MiniLM-L6-v2"} <= default
    assert not default & {"minilm-nevir-split", "minilm-excluir-split"}
    assert not page.error
    note = next(c.value for c in page.caption if c.value.startswith("Not applied"))
    assert "case (the case of the first pronoun changed)" in note and "negviz/" not in note
