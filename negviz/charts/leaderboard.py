"""DataFrame in, plotly figure out. Pure functions, tested directly; pages only place them."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from negviz.charts.style import BASELINE_COLOR, FAMILY_COLORS, FONT
from negviz.core import metric_text, metrics

PUBLISHED_NAME = "published (paper tables)"


def leaderboard_bars(
    board: pd.DataFrame,
    metric: str,
    baseline: float | None = None,
    title: str = "",
    published: pd.DataFrame | None = None,
) -> go.Figure:
    """Horizontal bars of one metric per model with 95% CI whiskers and the random baseline.

    One trace per model family, so the legend (under the plot) names every bar colour.
    ``published`` (model, source, value, category) adds the papers' numbers of the same metric
    as hollow grey bars labelled with their table, so they are never taken for negviz runs."""
    part = board[board["metric"] == metric].dropna(subset=["value"]).sort_values("value")
    m = metrics.metric(metric)  # its unit: a rate drawn in percent on a 0-100 axis
    percent, scale = m.is_rate, m.scale
    unit = metric_text.SUFFIX[m.unit]
    fmt = f".{metric_text.DIGITS[m.unit]}f"
    fig = go.Figure()
    families = part["family"].fillna("other")
    for family in dict.fromkeys(families):
        rows = part[families == family]
        fig.add_trace(
            go.Bar(
                x=rows["value"] * scale,
                y=[
                    f"{name} (n={metric_text.n_of(n, of)})"
                    for name, n, of in zip(rows["model"], rows["n"], rows.get("of_n", [None] * len(rows)))
                ],
                orientation="h",
                name=family,
                marker_color=FAMILY_COLORS.get(family, "#3f3f46"),
                error_x=dict(
                    type="data",
                    array=(rows["ci_high"] - rows["value"]) * scale,
                    arrayminus=(rows["value"] - rows["ci_low"]) * scale,
                    visible=True,
                    color="#18181b",
                ),
                customdata=pd.DataFrame(
                    {"family": rows["family"], "lo": rows["ci_low"] * scale, "hi": rows["ci_high"] * scale}
                ).to_numpy(),
                hovertemplate=(
                    f"%{{y}}<br>%{{x:{fmt}}}{unit}<br>95% CI %{{customdata[1]:{fmt}}}-%{{customdata[2]:{fmt}}}{unit}"
                    "<br>family %{customdata[0]}<extra></extra>"
                ),
            )
        )
    n_bars = len(part)
    has_published = published is not None and not published.empty
    if has_published:
        pub = published.sort_values("value")
        fig.add_trace(
            go.Bar(
                x=pub["value"] * scale,
                y=[f"{m} ({cat}) · {src}" for m, cat, src in zip(pub["model"], pub["category"], pub["source"])],
                orientation="h",
                name=PUBLISHED_NAME,
                marker=dict(color="rgba(0,0,0,0)", line=dict(color="#a1a1aa", width=1.5)),
                hovertemplate=f"%{{y}}<br>%{{x:{fmt}}}{unit} (published)<extra></extra>",
            )
        )
        n_bars += len(pub)
    if baseline is not None:
        fig.add_vline(
            x=baseline * scale,
            line_dash="dash",
            line_color=BASELINE_COLOR,
            annotation_text=f"random {baseline * scale:.0f}{unit}",
            annotation_position="top",
        )
    plot_h = max(160, 30 * n_bars)
    axis_h = 50  # tick labels and the axis title under the plot
    names = [t.name for t in fig.data]
    rows = max(1, -(-sum(7 * len(n) + 45 for n in names) // 460))  # entries wrap at ~500 px (1,000 px page)
    legend_h = 22 + 24 * rows  # its title, then its rows
    top = 50 if title else 30
    fig.update_layout(
        title=title,
        font=FONT,
        xaxis_title=metric_text.header(m),
        yaxis_title=None,
        height=top + plot_h + axis_h + legend_h,
        margin=dict(l=10, r=20, t=top, b=axis_h + legend_h),
        showlegend=True,
        # at the figure's foot, under the x axis: never over the title or the baseline's label
        legend=dict(
            orientation="h",
            xref="container",
            yref="container",
            x=0,
            y=0,
            xanchor="left",
            yanchor="bottom",
            title=dict(text="negviz runs by family:", side="top left"),
            font=dict(size=12),
        ),
        barmode="overlay",
        yaxis=dict(categoryorder="total ascending"),  # runs and published rows interleave by value
        template="plotly_white",
    )
    if percent:
        fig.update_xaxes(range=[0, 100])
    return fig
