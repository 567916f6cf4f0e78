"""DataFrame in, plotly figure out. Pure functions, tested directly; pages only place them."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from negviz.charts.style import BASELINE_COLOR, FAMILY_COLORS, FONT


def leaderboard_bars(
    board: pd.DataFrame,
    metric: str,
    baseline: float | None = None,
    title: str = "",
    published: pd.DataFrame | None = None,
) -> go.Figure:
    """Horizontal bars of one metric per model with 95% CI whiskers and the random baseline.

    ``published`` (model, source, value) adds the papers' numbers of the same metric as
    hollow grey bars labelled with their table, so they are never taken for negviz runs."""
    part = board[board["metric"] == metric].dropna(subset=["value"]).sort_values("value")
    percent = metric in {"paired_accuracy", "right_rank"}
    scale = 100.0 if percent else 1.0
    x = part["value"] * scale
    err_hi = (part["ci_high"] - part["value"]) * scale
    err_lo = (part["value"] - part["ci_low"]) * scale
    labels = [f"{m} (n={n})" for m, n in zip(part["model"], part["n"])]
    fig = go.Figure(
        go.Bar(
            x=x,
            y=labels,
            orientation="h",
            marker_color=[FAMILY_COLORS.get(f, "#3f3f46") for f in part["family"]],
            error_x=dict(type="data", array=err_hi, arrayminus=err_lo, visible=True, color="#18181b"),
            customdata=part[["family", "ci_low", "ci_high", "n"]].to_numpy(),
            hovertemplate=(
                "%{y}<br>%{x:.1f}"
                + ("%" if percent else "")
                + "<br>95% CI %{customdata[1]:.3f}-%{customdata[2]:.3f}<br>family %{customdata[0]}<extra></extra>"
            ),
        )
    )
    fig.data[0].name = "negviz runs"
    n_bars = len(part)
    if published is not None and not published.empty:
        pub = published.sort_values("value")
        fig.add_trace(
            go.Bar(
                x=pub["value"] * scale,
                y=[f"{m} ({cat}) · {src}" for m, cat, src in zip(pub["model"], pub["category"], pub["source"])],
                orientation="h",
                name="published",
                marker=dict(color="rgba(0,0,0,0)", line=dict(color="#a1a1aa", width=1.5)),
                hovertemplate="%{y}<br>%{x:.1f}" + ("%" if percent else "") + " (published)<extra></extra>",
            )
        )
        n_bars += len(pub)
    if baseline is not None:
        fig.add_vline(
            x=baseline * scale,
            line_dash="dash",
            line_color=BASELINE_COLOR,
            annotation_text=f"random {baseline * scale:.0f}{'%' if percent else ''}",
            annotation_position="top",
        )
    fig.update_layout(
        title=title,
        font=FONT,
        xaxis_title=f"{metric.replace('_', ' ')}{' (%)' if percent else ''}",
        yaxis_title=None,
        height=max(220, 60 + 30 * n_bars),
        margin=dict(l=10, r=20, t=50 if title else 30, b=40),
        showlegend=published is not None and not published.empty,
        legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="right", x=1.0),
        barmode="overlay",
        yaxis=dict(categoryorder="total ascending"),  # runs and published rows interleave by value
        template="plotly_white",
    )
    if percent:
        fig.update_xaxes(range=[0, 100])
    return fig
