"""Error preference: how models fail on negation pairs (NevIR Fig. 4), and by how much."""

import streamlit as st
from negviz.analyses import per_type as at
from negviz.charts.per_type import category_label
from negviz.language.taxonomy import TAXONOMY
from negviz.language.text.words import counted
from negviz.sections import errors
from negviz.ui import chart_items
from negviz.ui import types_data as td
from negviz.ui.dataset_cache import dataset_view
from negviz.ui.errors import lexical_view
from negviz.ui.navigation import pickers, url_check
from negviz.ui.widgets import csv_download, figure_downloads, no_runs_yet, safe_md

st.title("Error preference")
name = pickers.current_dataset()
ctx = td.context(name, pickers.shown_runs(name))
if ctx.outcomes.empty:
    st.info(no_runs_yet(ctx.name))
    st.stop()
categories = ctx.kind.categories
view = dataset_view(ctx.name)
st.caption(errors.verdict_caption(view).text(safe_md))

c1, c2, c3 = st.columns(3)
type_options = [k for k in TAXONOMY.keys if k in set(ctx.meta.get("type", []))] + sorted(
    set(ctx.meta.get("type", [])) - set(TAXONOMY.keys)
)
types = url_check.titled_choice(  # titles on screen, ids in the URL
    c1, "Negation types", type_options, "types", TAXONOMY.label, multi=True, placeholder="all types"
)
edit_options = sorted(ctx.meta["edit_type"].dropna().unique()) if "edit_type" in ctx.meta else []
edits = c2.multiselect(
    "Edit types",
    edit_options,
    key="edits",
    bind="query-params",
    placeholder="all edit types",
    disabled=not edit_options,
    help="CondaQA edit: scope (2) or affirmative (3)",
)
facet_options = ["none"] + [a for a in ("type", "edit_type") if a in ctx.meta]
facet = url_check.titled_choice(c3, "Facet by", facet_options, "facet", lambda a: at.AXES.get(a, a))

keep = at.filter_items(ctx.meta, types, edits)
outcomes = ctx.outcomes[ctx.outcomes["item_id"].isin(keep)]
if outcomes.empty:
    st.warning("No items match these filters.")
    st.stop()
facets = None if facet == "none" else at.item_groups(facet, ctx.meta)
if facet == "type":
    facets = facets.map(TAXONOMY.label)
order = at.model_order(outcomes, "accuracy")
type_titles = ", ".join(TAXONOMY.label(t) for t in types)
scope = " · ".join(x for x in (type_titles, ", ".join(edits)) if x) or errors.ALL_ITEMS
section = errors.section(view, outcomes, order, facets=facets, scope=scope)  # the report's too
prefs = section.tables["preference"]
fig, mfig = (section.figures[f] for f in section.data["figures"])
if warning := section.tables["warning"]:
    st.warning(warning, icon=":material/warning:")

chart_items.apply_click(
    "pref_chart",
    {"seg_model": 0, "seg_category": 2},
    {"seg_model": order, "seg_category": list(categories)},
)
st.plotly_chart(fig, key="pref_chart", on_select="rerun", selection_mode="points")
figure_downloads(fig, f"negviz-errors-{ctx.name}", key="pref")
csv_download(
    prefs.assign(dataset=ctx.name, split=ctx.split, filter=scope),
    f"negviz-errors-{ctx.name}.csv",
    label="Download counts (CSV)",
    key="dl-prefs",
)

lexical_view.show(ctx, outcomes, order, scope)

st.subheader("Items in a segment")
st.caption("Click a bar segment, or pick its model and verdict here.")
c1, c2 = st.columns(2)
model = c1.selectbox(
    "Model", order, index=None, key="seg_model", bind="query-params", placeholder="pick a model"
)
category = c2.selectbox(
    "Verdict",
    list(categories),
    index=None,
    key="seg_category",
    bind="query-params",
    placeholder="pick a verdict",
)
if model and category:
    items = at.cell_items(outcomes, None, ctx.meta, model, category=category)
    chart_items.mark_answer("seg_model")
    st.markdown(
        f"**{safe_md(model)}** · {category_label(category)}: {len(items):,} of "
        f"{counted(int((outcomes['model'] == model).sum()), 'item')} ({scope})"
    )
    chart_items.items_table(
        items, ctx.name, "segment_items", f"negviz-segment-{ctx.name}-{model}-{category}"
    )

st.subheader("Margins")
st.caption(section.captions[f"margins-{ctx.name}"].text(safe_md))
st.plotly_chart(mfig, key="margin_chart")
figure_downloads(mfig, f"negviz-margins-{ctx.name}", key="margins")
csv_download(  # n, mean, quartiles, share < 0 and ties per margin: the report's margin table
    section.tables["margins"].assign(dataset=ctx.name, split=ctx.split, filter=scope),
    f"negviz-margins-{ctx.name}.csv",
    label="Download margin statistics (CSV)",
    key="dl-margins",
)
