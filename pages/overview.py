"""Overview: the leaderboard of stored runs beside the papers' published rows."""

import pandas as pd
import streamlit as st
from negviz.analyses.beside_published import beside_published, shown_beside
from negviz.analyses.leaderboard import leaderboard, published_rows
from negviz.core import metric_text
from negviz.datasets.facts import metric_label
from negviz.sections import headline
from negviz.ui import resources
from negviz.ui.corpus_results import corpus_section
from negviz.ui.dataset_cache import dataset_view
from negviz.ui.navigation import pickers
from negviz.ui.overview import overview_view
from negviz.ui.overview.report_download import report_button
from negviz.ui.widgets import csv_download, figure_downloads, headed, no_runs_yet, safe_md

dataset = pickers.current_dataset()
view = dataset_view(dataset)
models = pickers.current_models()
info = dataset_view().datasets().set_index("name").loc[dataset]

st.title("Overview")
split = info["splits"].split(",")[0] if isinstance(info["splits"], str) else "test"
st.caption(
    f"**{info['title']}** · split {split} · "
    f"n = {int(info['n']):,} · source: {info['source']} · licence: {info['licence']}"
)

board = leaderboard(view.runs(), resources.catalog())
if models:
    board = board[board["model"].isin(models)]
chosen = pickers.shown_runs(dataset)
left, right = st.columns(2)
show_all = left.toggle("Show every stored run (not only the one shown per model)", value=False)
overlay = right.toggle(
    "Overlay published numbers of the same metric and protocol",
    value=True,
    key="overlay",
    help="Hollow grey bars, labelled with their paper table (NevIR Table 2, HedgeMPNet Table 1).",
)
if not show_all:
    board = board[board["run_id"].isin(chosen["run_id"])].reset_index(drop=True)

st.subheader("Stored runs")
if board.empty:
    st.info(no_runs_yet(dataset))
else:
    for metric in board["metric"].unique():
        part = board[board["metric"] == metric]
        fig, missing = headline.bars(part, dataset, metric, resources.reference(), overlay)
        if missing:  # the toggle is on: say why nothing is overlaid
            st.caption(missing)
        st.plotly_chart(fig, key=f"bars-{metric}")
        st.caption(headline.caption(dataset, split, metric, int(info["n"]), overlay).text(safe_md))
        figure_downloads(fig, f"negviz-{dataset}-{metric}", key=f"fig-{metric}")
    overview_view.leaderboard_table(board)
    csv_download(board, f"negviz-leaderboard-{dataset}.csv", key="dl-board")
    report_button(sorted(board["model"].unique()))
    overview_view.compare_two_runs(view, board)

corpus_section(dataset, "overview")

beside = beside_published(
    pd.concat([chosen, view.retrieval_runs()], ignore_index=True), resources.reference()
)
if models:
    beside = beside[beside["model"].isin(models)]
if not beside.empty:
    st.subheader("negviz beside the papers, model by model")
    st.caption(
        "Each stored run beside the published rows of the same model (same weights, "
        "another format of them, or negviz's re-training with the paper's recipe): the "
        "difference with the run's 95% CI, and what differs between the two measurements."
    )
    for unit, shown in shown_beside(beside):
        st.dataframe(
            shown,
            hide_index=True,
            key=f"beside-published-{'percent' if unit == '%' else unit}",
            column_config=headed(
                shown,
                {  # one decimal for % and pp (a rate's difference to a paper: points)
                    c: st.column_config.NumberColumn(
                        c, format="%.1f" if c.endswith(("(%)", "(pp)")) else "%.3f"
                    )
                    for c in shown.columns
                    if c.endswith(f"({unit})") or c.endswith("(pp)")
                }
                | {
                    "protocol": st.column_config.TextColumn(
                        "protocol", width="medium", help="what differs between the two measurements"
                    ),
                    "published_in_ci": st.column_config.CheckboxColumn("paper inside CI"),
                },
            ),  # headed: every other column's key in words ("published model", not published_model)
        )
    csv_download(beside, f"negviz-beside-published-{dataset}.csv", key="dl-beside")

st.subheader("Published results")
published = published_rows(resources.reference(), dataset)
if published.empty:
    st.caption("The papers report no per-model rows for this dataset.")
else:
    st.caption(
        "Transcribed from the papers; each table keeps its own metric and is never mixed "
        "with negviz runs."
    )
    if dataset == "excluir":
        st.caption(
            "ExcluIR's published Right Rank comes from top-10 retrieval over the full "
            "90k-paragraph corpus; "
            "negviz's Right Rank ranks each query's two documents only (docs/REFERENCE.md), so "
            "the two differ."
        )
    for (source, metric), part in published.groupby(["source", "metric"], sort=False):
        with st.expander(f"{source} · {metric_label(metric)}", expanded=source.startswith("NevIR")):
            rows = part.drop(columns=["source", "metric"])
            text = [c for c in rows.columns if c != "value"]  # "—" for a missing note, no "None"
            rows[text] = metric_text.cells(rows[text].astype(object))
            st.dataframe(
                rows,
                hide_index=True,
                column_config=headed(rows),
                key=f"pub-{source}-{metric}",
            )
    csv_download(
        published,
        f"negviz-published-{dataset}.csv",
        label="Download published rows (CSV)",
        key="dl-pub",
    )
