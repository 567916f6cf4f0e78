"""Perturbation sensitivity: how far each model's similarity m(reference, candidate) moves when a
translation is negated, against an antonym and 33 other DEMETR perturbations (NegBLEURT Fig. 4),
beside the paper's published columns; CANNOT similarity distributions; perturb your own sentence."""

import streamlit as st
from negviz.analyses import sensitivity as sv
from negviz.charts.sensitivity import focus_chart
from negviz.sections import sensitivity
from negviz.ui import chart_items, resources
from negviz.ui.dataset_cache import dataset_view
from negviz.ui.navigation import pickers
from negviz.ui.sensitivity import sensitivity_cell, sensitivity_tabs
from negviz.ui.widgets import csv_download, figure_downloads, no_runs_yet, safe_md

st.title("Perturbation sensitivity")
st.caption(
    "Each model scores m(reference, translation) = t, m(reference, perturbed) = h and "
    'm(reference, ".") = e '
    "on DEMETR's 35 files × 1,000 items. Detection accuracy = mean(t > h); sensitivity "
    "ratio = "
    "mean((t − h) / (t − e)), as in Karpinska et al. 2022 and the NegBLEURT paper (higher = "
    "more sensitive). "
    "Bi-encoders score with cosine here; † marks cells with items whose |t − e| < 0.001 "
    "(unstable ratios)."
)
table = dataset_view().datasets()
picked = table[(table["name"] == pickers.current_dataset()) & (table["origin"] == "added")]
for name, kind in zip(picked["name"], picked["kind"]):  # never silently DEMETR in its place
    st.info(
        f"This page draws DEMETR and CANNOT only, not {safe_md(name)} ({kind} items): see "
        f"{safe_md(name)} on the Per-type heatmap and Error preference pages."
    )
controls = st.container()  # DEMETR's runs and controls, above the tabs, drawn for its tabs only
tabs = st.tabs(
    ["Heatmap", "Negation vs antonym", "Perturb your own sentence", "CANNOT"],
    key="view",
    bind="query-params",
)
if tabs[3].open:  # CANNOT has its own runs and controls: none of DEMETR's apply there
    with tabs[3]:
        sensitivity_tabs.cannot()
    st.stop()
with controls:
    runs = pickers.shown_runs("demetr")
    value, checked, show_pub = sensitivity_tabs.demetr_controls()
section = sensitivity.section(  # the report's, at its defaults
    dataset_view("demetr"),
    runs,
    resources.reference(),
    value=value,
    checked_only=checked,
    published=show_pub,
)
tables, matrix, rows = (section.tables[k] for k in ("runs", "matrix", "rows"))
if runs.empty:
    tabs[0].info(no_runs_yet("demetr", "DEMETR") + " The published columns are shown alone.")
with st.expander(f"Runs used ({len(runs)}): the largest complete run per model"):
    st.dataframe(sv.runs_table(runs), hide_index=True, key="runs_table")

if tabs[0].open is not False:
    with tabs[0]:
        fig = section.figure
        run_models = sorted(tables)
        chart_items.apply_click(
            "sens_chart",
            {"sens_model": 0, "sens_pert": 1},
            {"sens_model": run_models, "sens_pert": rows},
        )
        st.plotly_chart(fig, key="sens_chart", on_select="rerun", selection_mode="points")
        st.caption(section.caption.text(safe_md))
        figure_downloads(fig, f"negviz-demetr-{value}", key="heat")
        csv_download(
            matrix, f"negviz-demetr-{value}.csv", label="Download cells (CSV)", key="dl-matrix"
        )
        sensitivity_cell.cell_items_section(runs, tables, rows, checked)

if tabs[1].open is not False:
    with tabs[1]:
        focus = sv.critical_focus(matrix)
        ffig = focus_chart(
            focus,
            value,
            f"Negation and antonym among the critical perturbations · {sv.VALUES[value]}",
        )
        st.plotly_chart(ffig, key="focus_chart")
        st.dataframe(sv.focus_summary(focus), hide_index=True, key="focus_table")
        figure_downloads(ffig, f"negviz-demetr-focus-{value}", key="focus")
        csv_download(
            focus,
            f"negviz-demetr-focus-{value}.csv",
            label="Download critical cells (CSV)",
            key="dl-focus",
        )

if tabs[2].open is not False:
    with tabs[2]:
        sensitivity_tabs.own_sentence(tables, runs)
