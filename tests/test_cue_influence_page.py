"""Cue influence page and the inspector's lexical filter (AppTest), over a cue-influence run made
in the test's store with `negviz explain`'s library call."""

import json

from negviz.analyses import lexical as X
from negviz.explain import run_cue_influence, run_layer_curves
from negviz.schema import DatasetSpec
from negviz.store import Store
from tests.test_heatmap import open_page


def _store_run(app_env):
    import os

    store = Store(os.environ["NEGVIZ_DB_URL"])
    return run_cue_influence("tfidf", DatasetSpec(name="nevir", limit=20), store=store, method="occlusion").record


def test_the_page_draws_the_shares_by_verdict_and_lists_a_bins_pairs(app_env):
    record = _store_run(app_env)
    page = open_page("pages/cue_influence.py")
    assert not page.exception, [e.message for e in page.exception]
    label = next(o for o in page.multiselect(key="runs").options if o.startswith("tfidf · occlusion · n=20"))
    page.multiselect(key="runs").set_value([label]).run()
    table = next(d.value for d in page.dataframe if "median cue share" in d.value.columns)
    expected = {r["category"]: r["median cue share"] for r in record.summary["by_verdict"]}
    assert dict(zip(table["category"], table["median cue share"])) == expected  # the stored run's numbers
    page.selectbox(key="bin_run").select(label).run()
    page.selectbox(key="bin_group").select("tie").run()
    assert not page.exception, [e.message for e in page.exception]
    listed = next(d.value for d in page.dataframe if "cue_share" in d.value.columns)
    n_ties = next(r["comparisons"] for r in record.summary["by_verdict"] if r["category"] == "tie")
    assert len(listed) == n_ties and listed["link"].str.contains("why_on=true").all()
    page.radio(key="axis").set_value("negation type").run()
    assert not page.exception, [e.message for e in page.exception]


def test_without_runs_the_page_names_the_commands(app_env):
    page = open_page("pages/cue_influence.py", dataset="excluir")
    assert not page.exception, [e.message for e in page.exception]
    assert "negviz explain --model all-MiniLM-L6-v2 --dataset excluir" in page.info[0].value
    assert "negviz explain --layers" in page.info[1].value


def test_layer_curves_of_a_trained_model_beside_its_base(app_env):
    import os

    store = Store(os.environ["NEGVIZ_DB_URL"])
    for model in ("all-MiniLM-L6-v2", "negminilm"):
        run_layer_curves(model, DatasetSpec(name="nevir", limit=6), store=store)
    page = open_page("pages/cue_influence.py")
    assert not page.exception, [e.message for e in page.exception]
    mine = [o for o in page.multiselect(key="layer_runs").options if "n=6" in o]
    page.multiselect(key="layer_runs").set_value(mine).run()
    page.selectbox(key="layer_type").select("affixal").run()
    assert not page.exception, [e.message for e in page.exception]
    chart = page.get("plotly_chart")[-1]
    names = {t["name"] for t in json.loads(chart.proto.spec)["data"]}
    assert any(n.startswith("negminilm (n=") for n in names) and any(
        n.startswith("all-MiniLM-L6-v2 (n=") for n in names
    )


def test_the_inspector_filters_by_where_bm25_leans(app_env):
    page = open_page("pages/inspector.py", lean=X.RIGHT)
    assert not page.exception, [e.message for e in page.exception]
    caption = next(c.value for c in page.caption if "Filtered list" in c.value)
    assert caption.endswith(" · keys P / N") and " of 36 " in caption  # 36 NevIR pairs lean right on both queries
