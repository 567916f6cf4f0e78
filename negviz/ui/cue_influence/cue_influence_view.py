"""The Cue influence page's two sections: the cue's share of token attributions over a dataset
(stored `negviz explain` runs) and where, layer by layer, the edit fades (stored layer curves)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from negviz.analyses import cue_influence as C
from negviz.analyses import layers as L
from negviz.charts.cue_influence import share_boxes
from negviz.charts.layers import layer_curves
from negviz.charts.per_type import category_label
from negviz.core import metric_text, times
from negviz.core.options import in_words
from negviz.language.taxonomy import TAXONOMY
from negviz.ui import chart_items, inspector_data
from negviz.ui.dataset_cache import dataset_view
from negviz.ui.widgets import csv_download, figure_downloads, safe_md


def shares(name: str, ds) -> None:
    """The cue's share per verdict or negation type, and the pairs behind a bin."""
    st.caption(
        "Token attributions over a whole dataset, reduced to one number per comparison: the share of "
        "|attribution| that falls on the negation cue (the words of the negation edit), in percent of the "
        "comparison's |attribution| throughout this page. Occlusion removes each word and re-scores (every "
        "model); integrated gradients and gradient × input differentiate a PyTorch encoder. Runs are "
        "computed once with `negviz explain` and shared through the store."
    )
    runs = dataset_view(name).attribution_runs(C.ANALYSIS)
    _coverage(name, ds, runs)
    if runs.empty:
        st.info(
            f"No cue-influence runs on {ds.title} yet. Compute one with "
            f"`{C.explain_command('all-MiniLM-L6-v2', name)}` "
            "(a progress bar counts the pairs; `--limit N` for a first look)."
        )
        return
    runs = runs.assign(label=[C.run_label(r.model_name, r.options.get("method", "?"), r.n) for r in runs.itertuples()])
    chosen = st.multiselect(
        "Runs",
        list(runs["label"]),
        default=C.opening_runs(runs, len(ds.frame)),  # whole-dataset runs over samples, one method
        key="runs",
        bind="query-params",
        help="model · attribution method · pairs. Each method is drawn on its own axis.",
    )
    if not chosen:
        st.info("Pick at least one run.")
        return
    picked = runs.set_index("label").loc[chosen]
    view = dataset_view(name)
    picked_ids = {label: str(r.run_id) for label, r in picked.iterrows()}
    frame = view.cue_shares(picked_ids)
    axis = st.radio("Split by", ["verdict", "negation type"], key="axis", horizontal=True, bind="query-params")
    group = "category" if axis == "verdict" else "type"
    if group == "category":
        order, labels = list(ds.kind.categories), {c: category_label(c) for c in ds.kind.categories}
    else:
        present = set(frame["type"])
        order = [k for k in TAXONOMY.keys if k in present] + sorted(present - set(TAXONOMY.keys))
        labels = {k: TAXONOMY.label(k) for k in order if k in TAXONOMY.keys}
    title = f"Cue's share of attribution by {axis} · {ds.title} {ds.spec.split}"
    methods = {label: (r.options or {}).get("method", "?") for label, r in picked.iterrows()}
    fig = share_boxes(frame, group, order, title, labels, methods)
    chart_items.apply_click("share_chart", {"bin_run": 0, "bin_group": 1}, {"bin_run": chosen, "bin_group": order})
    st.plotly_chart(fig, key="share_chart", on_select="rerun", selection_mode="points")
    figure_downloads(fig, f"negviz-cue-influence-{name}-{group}", key="share")
    table = C.in_percent(view.cue_share_table(picked_ids, group))  # bootstrap CIs: kept per runs and grouping
    st.dataframe(
        table.assign(**{group: table[group].map(labels).fillna(table[group])}),  # the chart's names; the CSV keeps ids
        hide_index=True,
        key="share_table",
        column_config={c: st.column_config.NumberColumn(format="%.2f") for c in C.PERCENT_HEADERS.values()},
    )
    csv_download(
        table.assign(dataset=name, split=ds.spec.split),
        f"negviz-cue-influence-{name}-{group}.csv",
        label="Download the table (CSV)",
        key="dl-share",
    )
    with st.expander("Runs and their methods"):
        runs_read = picked.reset_index()  # each run in words: its options, a readable time, no id
        st.dataframe(
            pd.DataFrame(
                {
                    "run": runs_read["label"],
                    "model": runs_read["model_name"],
                    "items": [metric_text.n_of(n) for n in runs_read["n"]],
                    "options": [in_words(o) if isinstance(o, dict) else "" for o in runs_read["options"]],
                    "stored": [times.readable(t) for t in runs_read["created_at"]],
                }
            ),
            hide_index=True,
            key="share_runs",
        )

    st.subheader("Pairs behind a bin")
    st.caption(
        "Click a point, or pick the run and the group here; each pair opens in the inspector with its attributions."
    )
    c1, c2 = st.columns(2)
    bin_run = c1.selectbox("Run", chosen, index=None, key="bin_run", bind="query-params", placeholder="pick a run")
    bin_group = c2.selectbox(
        "Group",
        order,
        index=None,
        key="bin_group",
        bind="query-params",
        placeholder="pick a group",
        format_func=lambda g: labels.get(g, g),
    )
    if bin_run and bin_group:
        part = frame[(frame["label"] == bin_run) & (frame[group] == bin_group)]
        shown = C.bin_items(part)
        silent = len(part) - len(shown)  # no word moved the score: no share to draw or list
        model = picked.loc[bin_run, "model_name"]
        chart_items.mark_answer("bin_run")
        st.markdown(
            f"**{safe_md(bin_run)}** · {safe_md(labels.get(bin_group, bin_group))}: {len(shown):,} "
            f"comparisons, median cue share {shown[C.SHARE].median():.1f}{safe_md(C.UNIT)}"
            + (f" ({silent:,} more where no word moved the score)" if silent else "")
        )
        st.caption(f"Net push: the cue's signed attribution, {safe_md(C.UNIT)}; + is towards the right document.")
        chart_items.items_table(shown, name, "bin_items", f"negviz-cue-influence-{name}-{bin_group}", model=model)


def _coverage(name: str, ds, runs: pd.DataFrame) -> None:
    """Every model evaluated on the dataset: its cue-influence runs, or why it has none."""
    models = dataset_view(name).runs()
    models = models[["model_name", "family"]] if len(models) else pd.DataFrame(columns=["model_name", "family"])
    table = C.coverage(models, runs, name, len(ds.frame))
    st.subheader("Every model evaluated here")
    st.caption(
        "Each model's cue-influence runs, or why it has none. Items: all pairs, or the first N in the "
        "dataset's order where a model is too slow on a CPU for all of them (a stated sample)."
    )
    share = C.COVERAGE_COLUMNS[4]
    table = table.assign(**{share: pd.to_numeric(table[share], errors="coerce")}).fillna({"why not": ""})
    if line := C.without_run_line(table):
        st.markdown(safe_md(line))
    st.dataframe(
        table,
        hide_index=True,
        key="coverage",
        column_order=[c for c in table.columns if c != "why not"],  # the reasons: sentences, listed below
        column_config={
            "method": st.column_config.TextColumn(width="medium"),
            "items": st.column_config.TextColumn(width="medium"),
            share: st.column_config.NumberColumn(format="%.2f", width="small"),
        },
    )
    reasons = table[table["why not"].str.len() > 0]
    if len(reasons):
        st.markdown(
            "\n".join(f"- **{safe_md(m)}**: {safe_md(w)}" for m, w in zip(reasons["model"], reasons["why not"]))
        )


def fading(name: str, ds) -> None:
    """Per-layer curves of stored runs, averaged over the items of a negation type."""
    st.subheader("Where the cue fades, layer by layer")
    st.caption(
        "1 − cos between an item's two documents at the first word piece where they differ, and between "
        "their mean-pooled states, per layer (0 = the embeddings), averaged per negation type. A trained "
        "model's curve beside its base shows in which layers training changed the representation."
    )
    runs = dataset_view(name).attribution_runs(L.ANALYSIS)
    if runs.empty:
        st.info(
            f"No layer curves on {ds.title} yet. Compute them with "
            f"`negviz explain --layers --model all-MiniLM-L6-v2 --dataset {name}` (encoders; about a minute)."
        )
        return
    labels = {
        f"{r.model_name} · {' vs '.join(r.options.get('columns', []))} · n={r.n}": r.run_id for r in runs.itertuples()
    }
    chosen = st.multiselect(
        "Layer-curve runs", list(labels), default=list(labels)[:2], key="layer_runs", bind="query-params"
    )
    curves = {label: L.stored_curves(dataset_view(name).scores(labels[label])) for label in chosen}
    types = inspector_data.automatic_types(name)[["item_id", "type"]]
    present = sorted({t for c in curves.values() for t in c.merge(types, on="item_id")["type"].dropna()})
    kinds = [k for k in TAXONOMY.keys if k in present] + [t for t in present if t not in TAXONOMY.keys]
    pick = st.selectbox("Negation type", ["all types", *kinds], key="layer_type", bind="query-params")
    parts = []
    for label, c in curves.items():
        if pick != "all types":
            c = c[c["item_id"].isin(types.loc[types["type"] == pick, "item_id"])]
        mean = c.groupby("layer")[["pooled_distance", "cue_distance"]].mean().reset_index()
        parts.append(mean.assign(label=f"{label.split(' · ')[0]} (n={c['item_id'].nunique():,})"))
    if parts:
        fig = layer_curves(pd.concat(parts, ignore_index=True), f"Where the edit fades · {ds.title} · {pick}")
        st.plotly_chart(fig, key="layer_chart")
        figure_downloads(fig, f"negviz-layers-{name}", key="layers")
