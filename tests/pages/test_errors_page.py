"""Error-preference page (AppTest): stacked verdicts per model, filters, facets, a segment's items."""

import pytest

from tests.pages.test_heatmap_page import open_page


def test_errors_page_counts_match_a_segment_list(app_env):
    page = open_page("pages/errors.py")
    assert not page.exception, [e.message for e in page.exception]
    assert page.title[0].value == "Error preference"
    assert [s.value for s in page.subheader] == [
        "The lexical confound: does a model follow word overlap?",
        "Items in a segment",
        "Margins",
    ]
    page.selectbox(key="seg_model").select("tfidf").run()
    page.selectbox(key="seg_category").select("correct").run()
    items = page.dataframe[-1].value
    assert len(items) == 27  # tfidf: 2.0% of 1,383 pairs (NevIR Table 2)
    assert (items["verdict"] == "correct").all() and items["link"].str.contains("pair=").all()
    assert "27 of 1,383 items" in page.main.markdown[-1].value


def test_the_lexical_confound_beside_the_error_preference(app_env):
    """BM25's own margins split every model's comparisons; TF-IDF, lexical too, follows BM25 far more
    often than MiniLM, and a picked (model, lean) lists exactly its comparisons."""
    from negviz.analyses import lexical as X

    page = open_page("pages/errors.py")
    assert not page.exception, [e.message for e in page.exception]
    follows = next(d.value for d in page.dataframe if "follows BM25" in d.value.columns).set_index("model")
    assert follows.loc["tfidf", "follows BM25"] > 0.75 > follows.loc["all-MiniLM-L6-v2", "follows BM25"]
    assert "stored BM25 run" in " ".join(c.value for c in page.caption)
    page.selectbox(key="lex_model").select("tfidf").run()
    page.selectbox(key="lex_lean").select(X.WRONG).run()
    assert not page.exception, [e.message for e in page.exception]
    listed = next(d.value for d in page.dataframe if "lexical_margin" in d.value.columns)
    assert len(listed) > 0 and (listed["lexical_margin"] < 0).all() and listed["link"].str.contains("pair=").all()
    assert f"BM25 leans {X.WRONG}: {len(listed):,} comparisons" in " ".join(m.value for m in page.markdown)


def test_filters_and_facets_narrow_the_items(app_env):
    page = open_page("pages/errors.py", seg_model="bm25", seg_category="tie")
    all_ties = len(page.dataframe[-1].value)
    page.multiselect(key="types").select("implicit").run()
    page.multiselect(key="edits").select("scope (2)").run()
    page.selectbox(key="facet").select("type").run()
    assert not page.exception, [e.message for e in page.exception]
    items = page.dataframe[-1].value
    assert 0 < len(items) < all_ties
    # the type's title on screen (the URL keeps its id: the multiselect selected "implicit")
    assert set(items["type"]) == {"Implicit"} and set(items["edit_type"]) == {"scope (2)"}
    assert "Implicit · scope (2)" in page.main.markdown[-1].value
    # every type and facet a person picks is shown by its title, never a snake_case id
    shown = page.multiselect(key="types").options + page.selectbox(key="facet").options
    assert "Implicit" in shown and "CondaQA edit type" in shown and not [o for o in shown if "_" in o]


@pytest.mark.parametrize("dataset", ["excluir", "cannot"])
def test_errors_page_on_other_datasets(app_env, dataset):
    page = open_page("pages/errors.py", dataset=dataset)
    assert not page.exception, [e.message for e in page.exception]
    if dataset == "cannot":
        assert page.info and "cannot holds CANNOT-style sentence pairs." in page.info[0].value
    else:
        assert "wrong document first" in page.caption[0].value


def test_both_figures_list_the_models_in_one_order_with_their_own_n(app_env):
    """The lexical figure follows the error figure's order (best accuracy first), names stay level,
    each model's n is under its name, and the warning names the model with far fewer items."""
    import json

    page = open_page("pages/errors.py", facet="none")
    assert not page.exception, [e.message for e in page.exception]
    specs = [json.loads(c.proto.spec) for c in page.get("plotly_chart")]
    prefs, lexical = specs[0], specs[1]
    assert prefs["layout"]["yaxis"]["tickvals"] == lexical["layout"]["yaxis"]["tickvals"]
    ticks = dict(zip(prefs["layout"]["yaxis"]["tickvals"], prefs["layout"]["yaxis"]["ticktext"]))
    assert "n = 100 items" in ticks["smollm2-135m"] and "n = 1,383 items" in ticks["tfidf"]
    assert "n = 1,383" not in prefs["layout"]["title"]["text"]  # no one n claimed for all
    assert any("Very different n: smollm2-135m" in w.value for w in page.warning)
    follows = next(d.value for d in page.dataframe if "follows BM25" in d.value.columns)
    assert follows["model"].tolist() == prefs["layout"]["yaxis"]["tickvals"]  # the table too


def test_type_facets_are_titled(app_env):
    import json

    page = open_page("pages/errors.py", facet="type")
    assert not page.exception, [e.message for e in page.exception]
    bars = json.loads(page.get("plotly_chart")[0].proto.spec)["data"]
    facets = {f for t in bars for f in t["y"][0]}
    assert "Sentential" in facets and not [f for f in facets if "_" in f or f.islower()]
