"""Error-preference page (AppTest): stacked verdicts per model, filters, facets, a segment's items."""

import pytest

from tests.test_heatmap import open_page


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
    assert "27 of 1,383 items" in page.markdown[-1].value


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
    assert set(items["type"]) == {"implicit"} and set(items["edit_type"]) == {"scope (2)"}
    assert "implicit · scope (2)" in page.markdown[-1].value


@pytest.mark.parametrize("dataset", ["excluir", "cannot"])
def test_errors_page_on_other_datasets(app_env, dataset):
    page = open_page("pages/errors.py", dataset=dataset)
    assert not page.exception, [e.message for e in page.exception]
    if dataset == "cannot":
        assert page.info and "cannot holds CANNOT-style sentence pairs." in page.info[0].value
    else:
        assert "wrong document first" in page.caption[0].value
