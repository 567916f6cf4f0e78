"""The Overview page's stored runs: the leaderboard table (each metric in its unit, with its
95% CI and n) and the comparison of two runs by McNemar's test on the items they share."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from negviz.core import metric_text, metrics, times
from negviz.datasets.facts import metric_baseline
from negviz.results.dataset_view import DatasetView
from negviz.ui.widgets import headed, safe_md


def leaderboard_table(board: pd.DataFrame) -> None:
    """Draw ``board`` (negviz.analyses.leaderboard) as the leaderboard table: each value in its
    metric's unit (negviz.core.metrics: a rate in %, a ratio or score as a number), its 95% CI and
    n as text ("50 of 1,383" for a partial import), and no "None" in any cell."""
    shown = leaderboard_shown(board)
    st.dataframe(
        shown,
        hide_index=True,
        column_config=headed(
            shown,
            {
                "value": st.column_config.NumberColumn("value", format=value_format(board), help="The run's metric"),
                "95% CI": st.column_config.TextColumn("95% CI", help=metrics.BOOTSTRAP_NOTE),
                "n": st.column_config.TextColumn("n", help="items scored; 'n of N' for a run over part of the dataset"),
                "params_m": st.column_config.TextColumn("params (M)"),
                "wall_seconds": st.column_config.TextColumn("wall (s)"),
                "device": st.column_config.TextColumn(
                    "device",
                    width="medium",
                    help="An INT8 (ONNX) run on a CPU names the CPU and the features its INT8 kernels used",
                ),
                "ties": st.column_config.TextColumn("ties", help="items with an exact score tie"),
                "created_at": st.column_config.TextColumn("stored", help="when the run was stored (UTC)"),
                "run_id": st.column_config.TextColumn(
                    "run id", help="the id `negviz export-run` and `negviz compare` take (its first 8 characters do)"
                ),
            },
        ),
        key="leaderboard",
    )


def leaderboard_shown(board: pd.DataFrame) -> pd.DataFrame:
    """The leaderboard as the table shows it: ``value`` in its metric's scale (x100 for a rate),
    ``95% CI`` and ``n`` as text (negviz.core.metric_text), every other cell as text with "—" for
    a missing one."""
    shown = board.drop(columns=["ci_low", "ci_high", "of_n"])
    shown["value"] = [  # a run without its headline value (a perturbation set with no negation) stays empty
        None if metric_text.is_missing(v) else v * metrics.metric(m).scale
        for m, v in zip(board["metric"], board["value"])
    ]
    shown.insert(shown.columns.get_loc("value") + 1, "95% CI", [
        metric_text.ci(m, lo, hi) for m, lo, hi in zip(board["metric"], board["ci_low"], board["ci_high"])
    ])  # fmt: skip
    shown["n"] = [metric_text.n_of(n, of) for n, of in zip(board["n"], board["of_n"])]
    shown["metric"] = [metrics.metric(m).label for m in board["metric"]]  # "paired accuracy", not its key
    others = [c for c in shown.columns if c != "value"]
    shown[others] = metric_text.cells(shown[others].astype(object))
    shown["params_m"] = [metric_text.number(v, 0) for v in board["params_m"]]
    shown["wall_seconds"] = [metric_text.number(v, 1) for v in board["wall_seconds"]]
    if "created_at" in board.columns:  # "2 Dec 2026, 14:03", not an ISO stamp
        shown["created_at"] = [times.readable(t) for t in board["created_at"]]
    return shown


def value_format(board: pd.DataFrame) -> str:
    """The value column's printf format: its one metric's unit, or three decimals when they differ."""
    names = set(board["metric"])
    return metric_text.printf(names.pop() if len(names) == 1 else "a mix of metrics")


def compare_two_runs(view: DatasetView, board: pd.DataFrame) -> dict | None:
    """An expander to pick two of ``board``'s runs with a right or wrong verdict per item (where
    McNemar's test applies) and say the test on the items they share. Returns the comparison
    (negviz.analyses.compare), or None when fewer than two such runs or the same run twice."""
    binary = board[board["metric"].map(metric_baseline).notna()]
    if len(binary) < 2:
        return None
    with st.expander("Compare two runs (McNemar's test on the items they share)"):
        label = dict(zip(binary["run_id"], run_names(binary)))
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


def run_names(board: pd.DataFrame) -> list[str]:
    """Each of ``board``'s runs by its model, as the legends name it; a model with several runs
    (every stored run shown) adds the items it scored and when it was stored: never a run id."""
    several = board["model"].duplicated(keep=False)
    return [
        f"{model} · {metric_text.n_of(n, of)} items · {times.readable(when)}" if twice else str(model)
        for model, n, of, when, twice in zip(board["model"], board["n"], board["of_n"], board["created_at"], several)
    ]
