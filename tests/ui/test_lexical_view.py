"""negviz.ui.errors.lexical_view: the Error preference page's lexical-confound section over the shipped
BM25 and TF-IDF runs (app_env), in AppTest: BM25 follows its own lean on every untied comparison,
and a (model, lean) picked lists exactly its comparisons."""

from streamlit.testing.v1 import AppTest

from negviz.analyses import lexical as X


def _section():
    from negviz.ui import types_data
    from negviz.ui.dataset_cache import dataset_view
    from negviz.ui.errors.lexical_view import show

    runs = dataset_view("nevir").chosen(["bm25", "tfidf"])
    ctx = types_data.context("nevir", runs)
    show(ctx, ctx.outcomes, ["bm25", "tfidf"], "all pairs")


def _app() -> AppTest:
    return AppTest.from_function(_section, default_timeout=120).run()


def test_bm25_follows_its_own_lean_on_every_untied_comparison(app_env):
    at = _app()
    assert not at.exception and len(at.get("plotly_chart")) == 1
    follows = at.dataframe[0].value.set_index("model")
    assert follows.loc["bm25", "follows BM25"] == 1.0  # BM25 is the lexical measure itself
    assert 0 < follows.loc["tfidf", "follows BM25"] < 1


def test_a_picked_model_and_lean_list_its_comparisons(app_env):
    from negviz.ui import lexical_data, types_data
    from negviz.ui.dataset_cache import dataset_view

    at = _app()
    at.selectbox(key="lex_model").set_value("tfidf")
    at.selectbox(key="lex_lean").set_value(X.WRONG).run()
    ctx = types_data.context("nevir", dataset_view("nevir").chosen(["bm25", "tfidf"]))
    comps = X.comparisons(ctx.outcomes, lexical_data.margins("nevir")[0])
    part = comps[(comps["model"] == "tfidf") & (comps["lean"] == X.WRONG)]
    wrong = (part["choice"] != "right").mean()
    line = [m.value for m in at.markdown if m.value.startswith("**tfidf**")]
    assert line == [f"**tfidf** · BM25 leans {X.WRONG}: {len(part):,} comparisons, {wrong:.1%} wrong or tied"]
    assert len(at.dataframe[1].value) == len(part)
