"""The Overview page's stored runs: the leaderboard table (success rates in percent, with their
95% CIs) and the comparison of two runs by McNemar's test on the items they share."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from negviz.core import metrics
from negviz.datasets.facts import metric_baseline
from negviz.results.dataset_view import DatasetView
from negviz.ui.widgets import safe_md


def leaderboard_table(board: pd.DataFrame) -> None:
    """Draw ``board`` (negviz.analyses.leaderboard) as the leaderboard table: values and CIs in
    percent when every metric is a success rate, the "of N" column only when a partial import
    has one."""
    percent = board["metric"].map(metric_baseline).notna().all()  # success rates, shown in percent
    fmt = "%.1f%%" if percent else "%.3f"
    shown = board.copy()
    if shown["of_n"].isna().all():  # only partial imports have an N beside their n
        shown = shown.drop(columns="of_n")
    if percent:
        shown[["value", "ci_low", "ci_high"]] = shown[["value", "ci_low", "ci_high"]] * 100
    st.dataframe(
        shown,
        hide_index=True,
        column_config={
            "value": st.column_config.NumberColumn("value", format=fmt, help="The run's metric (see 'metric')"),
            "ci_low": st.column_config.NumberColumn("95% CI low", format=fmt, help=metrics.BOOTSTRAP_NOTE),
            "ci_high": st.column_config.NumberColumn("95% CI high", format=fmt),
            "params_m": st.column_config.NumberColumn("params (M)", format="%.0f"),
            "wall_seconds": st.column_config.NumberColumn("wall (s)", format="%.1f"),
            "device": st.column_config.TextColumn(
                "device",
                width="medium",
                help="An INT8 (ONNX) run on a CPU names the CPU and the features its INT8 kernels used",
            ),
            "ties": st.column_config.NumberColumn("ties", help="items with an exact score tie"),
            "of_n": st.column_config.NumberColumn("of N", help="a partial import scored n of the dataset's N items"),
        },
        key="leaderboard",
    )


def compare_two_runs(view: DatasetView, board: pd.DataFrame) -> dict | None:
    """An expander to pick two of ``board``'s runs with a right or wrong verdict per item (where
    McNemar's test applies) and say the test on the items they share. Returns the comparison
    (negviz.analyses.compare), or None when fewer than two such runs or the same run twice."""
    binary = board[board["metric"].map(metric_baseline).notna()]
    if len(binary) < 2:
        return None
    with st.expander("Compare two runs (McNemar's test on the items they share)"):
        label = dict(zip(binary["run_id"], binary["model"] + " · " + binary["run_id"].str[:8]))
        col_a, col_b = st.columns(2)
        run_a = col_a.selectbox("Run A", list(label), format_func=label.get, key="cmp_a")
        run_b = col_b.selectbox("Run B", list(label), index=1, format_func=label.get, key="cmp_b")
        if run_a == run_b:
            return None
        c = view.compare(run_a, run_b)
        st.markdown(
            f"**{safe_md(c['model_a'])}** {c['accuracy_a']:.1%} vs **{safe_md(c['model_b'])}** "
            f"{c['accuracy_b']:.1%} on {c['n_shared']:,} shared items: A right & B wrong = {c['b']}, "
            f"A wrong & B right = {c['c']}, p = {c['p_value']:.3g} ({c['method']})."
        )
        return c
