"""negviz.ui.heatmap.heatmap_view: the per-type heatmap section's charts (one per PAGE_COLUMNS columns, the legend in
accuracy and difference mode) and the type distribution with its downloads, in AppTest over a copy of
the shipped runs (app_env)."""

from streamlit.testing.v1 import AppTest

from negviz.ui.heatmap.heatmap_view import PAGE_COLUMNS, column_parts


def _heatmap(dataset, axis, top_k, reference):
    import streamlit as st

    from negviz.analyses import per_type as at
    from negviz.ui import types_data as td
    from negviz.ui.dataset_cache import dataset_view
    from negviz.ui.heatmap import heatmap_view

    ctx = td.context(dataset, dataset_view(dataset).chosen(["bm25", "tfidf"]))
    rows = at.model_order(ctx.outcomes)
    section = heatmap_view.heatmap_charts(ctx, rows, axis=axis, top_k=top_k, reference=reference)
    fig = section.figure
    st.session_state["whole"] = (fig.layout.title.text, list(fig.data[0].x) if fig.data else [])
    st.session_state["columns"] = section.tables["cells"].columns


def _key(element) -> str:
    """The key a chart or button was drawn with (its element id is "$$ID-<hash>-<key>")."""
    return element.proto.id.split("-", 2)[2]


def _charts(dataset="nevir", axis="cue", top_k=12, reference=None) -> AppTest:
    return AppTest.from_function(_heatmap, args=(dataset, axis, top_k, reference), default_timeout=120).run()


def test_column_parts_cut_the_columns_into_runs_of_page_columns():
    columns = [f"c{i}" for i in range(2 * PAGE_COLUMNS + 2)]
    parts = column_parts(columns)
    assert [len(p) for p in parts] == [PAGE_COLUMNS, PAGE_COLUMNS, 2]
    assert sum(parts, []) == columns
    assert column_parts(["a"]) == [["a"]] and column_parts([]) == [[]]  # one (empty) chart still drawn


def test_heatmap_charts_draw_a_chart_per_part_and_return_the_whole_figure(app_env):
    at = _charts()  # NevIR's 12 most frequent cue words: three parts of at most five columns
    assert not at.exception, [e.message for e in at.exception]
    columns = at.session_state["columns"]
    assert len(columns) == 12
    charts = at.get("plotly_chart")
    assert [_key(c) for c in charts] == ["heatmap_chart", "heatmap_chart_2", "heatmap_chart_3"]
    assert "columns 11-12 of 12" in charts[2].proto.spec  # the part says where it is
    title, x = at.session_state["whole"]
    assert title.startswith("paired accuracy by cue word (top k) · nevir test") and "columns" not in title
    assert "below random (25%)" in title.replace("<br>", " ")
    assert set(x) >= set(columns)  # the returned figure (the download) holds every column
    (legend,) = at.caption
    assert legend.value == (
        "Cells: paired accuracy in %, n = items in the cell; hover for the 95% CI. ▾ below random (25%). "
        "Grey: fewer than 20 items, only n shown."
    )


def test_heatmap_charts_in_difference_mode_name_the_reference(app_env):
    at = _charts(axis="type", top_k=10, reference="bm25")
    assert not at.exception, [e.message for e in at.exception]
    assert [_key(c) for c in at.get("plotly_chart")] == ["heatmap_chart"]  # 5 types: one
    title, _ = at.session_state["whole"]
    assert "Δ to bm25" in title.replace("<br>", " ") and "below random" not in title
    (legend,) = at.caption
    assert "Difference mode: percentage points to bm25 on the same items" in legend.value
    assert "below random" not in legend.value


def _types(dataset):
    import streamlit as st

    from negviz.ui import types_data as td
    from negviz.ui.dataset_cache import dataset_view
    from negviz.ui.heatmap import heatmap_view

    ctx = td.context(dataset, dataset_view(dataset).chosen(["bm25"]))
    shares = heatmap_view.type_distribution_section(ctx)
    st.session_state["shares"] = shares
    heatmap_view.type_distribution_downloads(ctx.name, shares)


def _download_keys(at: AppTest) -> list[str]:
    return [_key(b) for b in at.get("download_button")]


def test_type_distribution_beside_petcu_with_its_figure_and_counts(app_env):
    at = AppTest.from_function(_types, args=("nevir",), default_timeout=120).run()
    assert not at.exception, [e.message for e in at.exception]
    shares = at.session_state["shares"]
    assert not shares.comparison.empty and shares.figure is not None
    assert shares.distribution["count"].sum() == 1383  # every NevIR pair has a type
    assert [_key(c) for c in at.get("plotly_chart")] == ["dist_chart"]
    assert [c.value for c in at.caption][-1] == "**Type distribution**: figure and counts"
    assert _download_keys(at) == ["png-dist", "svg-dist", "dl-dist"]  # PNG, SVG and the counts


def test_type_distribution_of_a_dataset_without_types_is_said_and_offers_no_download(app_env):
    at = AppTest.from_function(_types, args=("demetr",), default_timeout=120).run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.session_state["shares"] is None
    assert [c.value for c in at.caption] == [
        "No negation types for demetr here (typing 35k perturbations takes a while); "
        "`negviz taxonomy --dataset demetr` prints them."
    ]
    assert list(at.get("plotly_chart")) == [] and _download_keys(at) == []


def _downloads_without_figure():
    import pandas as pd

    from negviz.ui.heatmap.heatmap_view import TypeShares, type_distribution_downloads

    dist = pd.DataFrame({"type": ["affixal"], "count": [3]})
    type_distribution_downloads("mine", TypeShares(dist, pd.DataFrame(), None))


def test_type_distribution_downloads_only_the_counts_when_the_paper_has_no_figure():
    at = AppTest.from_function(_downloads_without_figure, default_timeout=30).run()
    assert not at.exception, [e.message for e in at.exception]
    assert _download_keys(at) == ["dl-dist"]
    assert at.get("download_button")[0].proto.label == "Download type distribution (CSV)"
