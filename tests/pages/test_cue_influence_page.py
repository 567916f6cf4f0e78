"""Cue influence page and the inspector's lexical filter (AppTest), over a cue-influence run made
in the test's store with `negviz explain`'s library call."""

import base64
import json

import numpy as np
import pytest

from negviz.analyses import cue_influence as C
from negviz.analyses import lexical as X
from negviz.analyses.paircard import md_escape
from negviz.charts.per_type import category_label
from negviz.core.schema import DatasetSpec
from negviz.results.explain import run_cue_influence, run_layer_curves
from negviz.store import Store
from tests.pages.test_heatmap_page import open_page


def _values(array) -> list[float]:
    """A figure's array as plotly's JSON holds it: a list, or typed ({"dtype", "bdata": base64})."""
    if isinstance(array, dict):
        return np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"]).tolist()
    return list(array)


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
    median = C.PERCENT_HEADERS["median cue share"]
    table = next(d.value for d in page.dataframe if {median, "category"} <= set(d.value.columns))
    # each verdict by its name, as the chart names it (not its key)
    expected = {category_label(r["category"]): 100 * r["median cue share"] for r in record.summary["by_verdict"]}
    assert dict(zip(table["category"], table[median])) == pytest.approx(expected)  # the stored run's, in %
    page.selectbox(key="bin_run").select(label).run()
    page.selectbox(key="bin_group").select("tie").run()
    assert not page.exception, [e.message for e in page.exception]
    listed = next(d.value for d in page.dataframe if C.SHARE in d.value.columns)
    n_ties = next(r["comparisons"] for r in record.summary["by_verdict"] if r["category"] == "tie")
    assert len(listed) == n_ties and listed["link"].str.contains("why_on=true").all()
    # One unit on the page: the table, the bin list and the figure all in percent of |attribution|
    ties = expected["tie"]
    assert listed[C.SHARE].median() == pytest.approx(ties) and listed[C.SHARE].between(0, 100).all()
    said = next(m.value for m in page.markdown if "comparisons, median cue share" in m.value)
    assert f"median cue share {ties:.1f}% of \\|attribution\\|" in said
    spec = json.loads(page.get("plotly_chart")[0].proto.spec)
    assert C.UNIT in spec["layout"]["yaxis"]["title"]["text"] and spec["layout"]["yaxis"]["ticksuffix"] == "%"
    drawn = [y for t in spec["data"] if t["name"] == label for y in _values(t["y"])]
    assert max(drawn) > 1 and np.median(drawn) == pytest.approx(100 * record.summary["median_cue_share"])
    assert all(C.UNIT in c or "(%)" in c or "% of comparisons" in c for c in C.PERCENT_HEADERS.values())
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


def test_every_model_on_nevir_has_its_cue_influence_or_a_reason(app_env):
    """Every shipped model evaluated on NevIR is listed: a shipped cue-influence run (all pairs or a
    stated first N) or the reason it has none."""
    from negviz.core.paths import DATA_DIR
    from negviz.store.portable import read_record

    records = [read_record(p) for p in sorted((DATA_DIR / "runs").glob("nevir*.parquet"))]
    shipped = {r.model_name for r in records if r.kind == "eval"}
    explained = {r.model_name for r in records if r.options.get("analysis") == C.ANALYSIS}
    page = open_page("pages/cue_influence.py")
    assert not page.exception, [e.message for e in page.exception]
    table = next(d.value for d in page.dataframe if "why not" in d.value.columns)
    assert shipped <= set(table["model"]) and explained <= set(table["model"])
    median = C.COVERAGE_COLUMNS[4]
    has_result = table[median].notna() & table["items"].str.match(r"(all|first) [\d,]+")
    has_reason = table["why not"].str.len() > 20
    assert (has_result ^ has_reason).all(), table  # each row one or the other
    assert explained == set(table.loc[has_result, "model"])
    lexical = set(table.loc[table["family"].isin(list(C.NO_ATTRIBUTION)), "model"])
    assert shipped - explained <= lexical | set(C.NOT_EXPLAINED)  # none left at "no run yet"
    by_model = table.set_index("model")
    for lexical in ("bm25", "tfidf"):
        assert "no learned weights" in by_model.loc[lexical, "why not"]
    sample = table[table["items"].str.startswith("first")]
    assert sample["items"].str.endswith(" of 1,383").all()  # a sample says it is one
    # Above the table, one line names the models without a run and why, grouped by reason.
    line = next(m.value for m in page.markdown if m.value.startswith(md_escape("No cue-influence run:")))
    assert all(md_escape(model) in line for model in shipped - explained)
    assert md_escape("(no learned weights)") in line and md_escape("(too slow to ship)") in line


def test_the_page_opens_on_the_whole_dataset_runs_and_keeps_its_picks_in_the_url(app_env):
    """It opened on the first four stored runs (20- and 5-pair samples in two methods); now on
    the runs over all 1,383 NevIR pairs, one method (MiniLM and NegMiniLM, gradient x input), and
    a pick of runs is part of the URL, so a link reopens it."""
    page = open_page("pages/cue_influence.py")
    assert not page.exception, [e.message for e in page.exception]
    assert page.multiselect(key="runs").value == [
        "all-MiniLM-L6-v2 · gradient-x-input · n=1383",
        "negminilm · gradient-x-input · n=1383",
    ]
    sample = "splade-tiny · occlusion · n=5"
    again = open_page("pages/cue_influence.py", runs=sample)
    assert again.multiselect(key="runs").value == [sample]
