"""The sensitivity heatmap's "Items behind a cell": a model and perturbation picked in selectboxes
bound to the URL (the fallback of a click on a cell, which fills the same keys), and that cell's
DEMETR items with their three scores and ratio, as a table and a CSV download."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from negviz.analyses import sensitivity as sv
from negviz.ui.dataset_cache import dataset_view
from negviz.ui.widgets import csv_download

ITEM_COLS = {
    "score_candidate": "t = m(ref, translation)",
    "score_perturbed": "h = m(ref, perturbed)",
    "score_empty": 'e = m(ref, ".")',
    "ratio": "(t − h) / (t − e)",
}
SHOWN = [
    "id",
    "reference",
    "candidate",
    "perturbed",
    "score_candidate",
    "score_perturbed",
    "score_empty",
    "ratio",
    "detected",
    "checked",
    "tiny_denominator",
]


def cell_items_section(
    runs: pd.DataFrame, tables: dict[str, pd.DataFrame], perturbations: list[str], checked: bool
) -> pd.DataFrame | None:
    """Pickers of a cell (a model of ``tables``, one of ``perturbations``, which items to show)
    and, once a model and a perturbation are picked, that cell's items from the model's run in
    ``runs`` (pert_check items only when ``checked``); returns those items, or None."""
    st.subheader("Items behind a cell")
    st.caption("Click a cell, or pick its model and perturbation here.")
    c1, c2, c3 = st.columns(3)
    model = c1.selectbox(
        "Model",
        sorted(tables),
        index=None,
        key="sens_model",
        bind="query-params",
        placeholder="pick a model",
    )
    pert = c2.selectbox(
        "Perturbation",
        perturbations,
        index=None,
        key="sens_pert",
        bind="query-params",
        placeholder="pick a perturbation",
    )
    show = c3.selectbox(
        "Show",
        list(sv.ITEM_FILTERS),
        key="sens_show",
        bind="query-params",
        help="missed: t ≤ h; tiny denominator: |t − e| < 0.001; not checked: pert_check false",
    )
    if not (model and pert):
        return None
    run = runs[runs["model_name"] == model].iloc[0]
    items = dataset_view("demetr").sensitivity_cell(run["run_id"], pert, checked, show)
    cell = tables[model].set_index("perturbation").loc[pert]
    name = model.replace("`", "'")  # a stored name: shown as code, never markup
    st.markdown(
        f"`{name}` · `{pert}`: ratio {cell['sensitivity_ratio']:.3f}, detection accuracy "
        f"{cell['detection_accuracy']:.1%} · n = {int(cell['n'])}, pert_check {int(cell['checked'])}, "
        f"tiny denominators {int(cell['tiny_denominators'])} · showing {len(items):,} ({show})"
    )
    st.dataframe(
        items[SHOWN],
        hide_index=True,
        key="cell_items",
        column_config={
            **{
                c: st.column_config.TextColumn(c if c != "candidate" else "translation", width="medium")
                for c in ("reference", "candidate", "perturbed")
            },
            **{k: st.column_config.NumberColumn(v, format="%.4f") for k, v in ITEM_COLS.items()},
        },
    )
    csv_download(items, f"negviz-demetr-{model}-{pert}.csv", label="Download these items (CSV)", key="dl-items")
    return items
