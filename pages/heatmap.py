"""Heatmap: which kinds of negation break which models (Petcu et al. Fig. 3-4, 10-12)."""

import streamlit as st

from negviz.analyses import per_type as at
from negviz.charts.per_type import accuracy_heatmap, distribution_bars
from negviz.taxonomy import type_distribution
from negviz.ui import chart_items, pickers, resources, url_check
from negviz.ui import types_data as td
from negviz.ui.page_guard import require_dataset_kind
from negviz.ui.corpus_results import corpus_section
from negviz.ui.widgets import csv_download, figure_downloads, safe_md

st.title("Per-type accuracy")
name = pickers.current_dataset()
require_dataset_kind("heatmap", name)
ctx = td.context(name, pickers.shown_runs(name))
if ctx.outcomes.empty:
    st.info(
        f"No stored runs on {safe_md(ctx.name)} yet. Run one on the Evaluate page or with "
        f"`negviz eval --model all-MiniLM-L6-v2 --dataset {ctx.name}`."
    )
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

diff_ref = reference if mode == "difference" else None
pt = at.per_type_cells(  # the report draws the same cells
    ctx.outcomes, ctx.meta, ctx.kind, axis, int(top_k), int(min_n), diff_ref, col_sort
)
groups, cells, columns, labels = pt.groups, pt.cells, pt.columns, pt.column_labels
rows = at.model_order(ctx.outcomes, row_sort)
title = f"{ctx.metric} by {at.AXES[axis]} · {ctx.name} {ctx.split}" + (
    f" · Δ to {reference}" if mode == "difference" else f" · ▾ below random ({ctx.baseline:.0%})"
)
warning = at.n_warning(cells, rows, labels, columns=columns)


def heatmap(cols: list[str], part_title: str, note: str | None):
    return accuracy_heatmap(
        cells[cells["column"].isin(cols)],
        rows,
        cols,
        metric=ctx.metric,
        baseline=ctx.baseline,
        title=part_title,
        column_labels=labels,
        min_n=int(min_n),
        reference=diff_ref,
        n_warning=note,
    )


fig = heatmap(columns, title, warning)  # the whole figure: its download, sized to its content
if warning:
    st.warning(warning, icon=":material/warning:")
# On the page the figure is sized to its content (cells fit their labels), at full width; more
# columns than fit a narrow window are drawn as parts of PAGE_COLUMNS columns, one under another.
PAGE_COLUMNS = 5
parts = [columns[k : k + PAGE_COLUMNS] for k in range(0, len(columns), PAGE_COLUMNS)] or [[]]
for k, cols in enumerate(parts):
    key = "heatmap_chart" if k == 0 else f"heatmap_chart_{k + 1}"
    chart_items.apply_click(
        key, {"cell_model": 0, "cell_column": 1}, {"cell_model": rows, "cell_column": columns}
    )
    if len(parts) == 1:
        part = fig
    else:
        where = (
            f" · columns {k * PAGE_COLUMNS + 1}-{k * PAGE_COLUMNS + len(cols)} of {len(columns)}"
        )
        note = at.n_warning(cells[cells["column"].isin(cols)], rows, labels, columns=cols)
        part = heatmap(cols, title + where, note)
    st.plotly_chart(part, key=key, on_select="rerun", selection_mode="points", width="content")
st.caption(
    f"Cells: {ctx.metric} in %, n = items in the cell; hover for the 95% CI. "
    + (
        f"Difference mode: percentage points to {safe_md(reference)} on the same items; "
        "a superscript ns marks a difference whose 95% CI spans 0. "
        if mode == "difference"
        else f"▾ below random ({ctx.baseline:.0%}). "
    )
    + f"Grey: fewer than {int(min_n)} items, only n shown.",
)
dist = comparison = None
if "type" not in ctx.meta:
    st.caption(
        f"No negation types for {ctx.name} here (typing 35k perturbations takes a "
        "while); "
        f"`negviz taxonomy --dataset {ctx.name}` prints them."
    )
else:
    dist = type_distribution(ctx.meta.dropna(subset=["type"])[["type", "label_source"]])
    comparison = at.distribution_vs_petcu(
        dist, resources.reference(), ctx.name, f"{ctx.name} {ctx.split} (n={len(ctx.meta):,})"
    )
if comparison is not None and comparison.empty:
    st.caption("Petcu et al. report no type distribution for this dataset.")
    st.dataframe(dist, hide_index=True, key="dist_table")
elif comparison is not None:
    dfig = distribution_bars(comparison, f"Negation types · {ctx.name} vs Petcu et al.")
    st.plotly_chart(dfig, key="dist_chart")
    st.caption(
        "Types of this dataset from its label source, grouped into the paper's "
        "categories; the paper's "
        "shares come from its GPT-4o-mini classifier on other splits (Sec. 6.2-6.3)."
    )

# Downloads at full width: in a half-width column the buttons would be cut off.
st.caption("**Heatmap**: figure and cells")
figure_downloads(fig, f"negviz-heatmap-{ctx.name}-{axis}", key="heatmap")
csv_download(
    cells.assign(metric=ctx.metric, dataset=ctx.name, split=ctx.split, axis=axis),
    f"negviz-heatmap-{ctx.name}-{axis}.csv",
    label="Download cells (CSV)",
    key="dl-cells",
)
if dist is not None:
    st.caption("**Type distribution**: figure and counts")
    if not comparison.empty:
        figure_downloads(dfig, f"negviz-types-{ctx.name}", key="dist")
    csv_download(
        dist,
        f"negviz-types-{ctx.name}.csv",
        label="Download type distribution (CSV)",
        key="dl-dist",
    )

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
    st.markdown(
        f"**{safe_md(model)}** · {labels.get(column, column)}: {ctx.metric} {acc:.1%} "
        f"on n "
        f"= {len(items):,} items"
    )
    chart_items.items_table(
        items, ctx.name, "cell_items", f"negviz-cell-{ctx.name}-{model}-{column}"
    )
