"""Heatmap: which kinds of negation break which models (Petcu et al. Fig. 3-4, 10-12)."""

import streamlit as st
from negviz.analyses import per_type as at
from negviz.ui import chart_items
from negviz.ui import types_data as td
from negviz.ui.corpus_results import corpus_section
from negviz.ui.heatmap import heatmap_view
from negviz.ui.navigation import pickers, url_check
from negviz.ui.widgets import csv_download, figure_downloads, no_runs_yet, safe_md

st.title("Per-type accuracy")
name = pickers.current_dataset()
ctx = td.context(name, pickers.shown_runs(name))
if ctx.outcomes.empty:
    st.info(no_runs_yet(ctx.name))
    st.stop()
models = list(ctx.runs["model_name"])
st.caption(
    f"**{safe_md(ctx.title)}** · split {ctx.split} · {ctx.metric} per model and column · "
    f"{len(models)} runs "
    f"(one per model) · n = {ctx.outcomes['item_id'].nunique():,} items · type labels: "
    f"{ctx.label_source}"
)

axes = at.available_axes(ctx.kind, ctx.meta)
c1, c2, c3, c4 = st.columns(4)
axis = url_check.titled_choice(  # names on screen, ids in the URL
    c1,
    "Columns",
    axes,
    "axis",
    lambda a: at.AXES.get(a, a),
    help="CondaQA edit type: scope / affirmative; cue words: the k most frequent",
)
top_k = url_check.number_input(c2, "k (cue words)", "top_k", 3, 40, 10, disabled=axis != "cue")
min_n = url_check.number_input(
    c3,
    "Minimum n per cell",
    "min_n",
    1,
    500,
    at.MIN_N,
    help="Cells with fewer items are greyed: their accuracy is too noisy to read.",
)
mode = c4.radio(
    "Show",
    ["accuracy", "difference"],
    key="mode",
    bind="query-params",
    horizontal=True,
    help="difference = this model minus the reference model, on the same items (percentage points)",
)
c1, c2, c3 = st.columns(3)
reference = c1.selectbox(
    "Reference model", models, key="ref", bind="query-params", disabled=mode != "difference"
)
row_sort = c2.selectbox(
    "Rows", ["accuracy", "name"], key="rows", bind="query-params", help="order of the models"
)
col_sort = c3.selectbox(
    "Column order",
    ["natural", "n", "hardest"],
    key="cols",
    bind="query-params",
    help="natural = taxonomy / frequency order; n = most items first; hardest = lowest mean first",
)

rows = at.model_order(ctx.outcomes, row_sort)
section = heatmap_view.heatmap_charts(  # the report draws the same section, at its defaults
    ctx,
    rows,
    axis=axis,
    top_k=int(top_k),
    min_n=int(min_n),
    reference=reference if mode == "difference" else None,
    column_sort=col_sort,
)
pt = section.tables["cells"]
groups, cells, columns, labels = pt.groups, pt.cells, pt.columns, pt.column_labels
fig = section.figure  # the whole figure: its download
types = heatmap_view.type_distribution_section(ctx)

# Downloads at full width: in a half-width column the buttons would be cut off.
st.caption("**Heatmap**: figure and cells")
figure_downloads(fig, f"negviz-heatmap-{ctx.name}-{axis}", key="heatmap")
csv_download(
    cells.assign(metric=ctx.metric, dataset=ctx.name, split=ctx.split, axis=axis),
    f"negviz-heatmap-{ctx.name}-{axis}.csv",
    label="Download cells (CSV)",
    key="dl-cells",
)
heatmap_view.type_distribution_downloads(ctx.name, types)

corpus_section(ctx.name, "heatmap")  # ExcluIR: the same queries retrieved over a corpus

st.subheader("Pairs behind a cell")
st.caption("Click a cell, or pick its model and column here.")
c1, c2 = st.columns(2)
model = c1.selectbox(
    "Model", rows, index=None, key="cell_model", bind="query-params", placeholder="pick a model"
)
column = url_check.titled_choice(
    c2,
    "Column",
    columns,
    "cell_column",
    lambda c: labels.get(c, c),
    index=None,
    placeholder="pick a column",
)
if model and column:
    items = at.cell_items(ctx.outcomes, groups, ctx.meta, model, column)
    acc = items["correct"].mean() if len(items) else float("nan")
    chart_items.mark_answer("cell_model")
    st.markdown(
        f"**{safe_md(model)}** · {safe_md(labels.get(column, column))}: {ctx.metric} "
        f"{acc:.1%} on n = {len(items):,} items"
    )
    chart_items.items_table(
        items, ctx.name, "cell_items", f"negviz-cell-{ctx.name}-{model}-{column}"
    )
