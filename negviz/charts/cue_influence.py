"""Cue influence over a dataset (negviz.analyses.cue_influence): the distribution of the cue's
share of attribution per group (verdict or negation type), one box per run, every comparison a
point that a click turns into the bin's pairs (customdata [run label, group, item id])."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from negviz.analyses.cue_influence import UNIT, as_percent
from negviz.charts.style import FONT

COLORS = ("#2563eb", "#ea580c", "#16a34a", "#7c3aed", "#db2777", "#0891b2", "#ca8a04", "#52525b")


def share_boxes(frame: pd.DataFrame, group: str, order: list[str], title: str, labels: dict | None = None) -> go.Figure:
    """``frame``: one row per comparison with ``label`` (the run), ``group``, cue_share, item_id."""
    fig = go.Figure()
    labels = labels or {}
    for i, (label, part) in enumerate(frame.groupby("label", sort=False)):
        part = part.dropna(subset=["cue_share"])
        x = [labels.get(g, g) for g in part[group]]
        fig.add_trace(
            go.Box(
                x=x,
                y=as_percent(part["cue_share"]),
                name=str(label),
                marker_color=COLORS[i % len(COLORS)],
                boxpoints="all",
                jitter=0.5,
                pointpos=0,
                marker={"size": 3, "opacity": 0.45},
                boxmean=False,
                customdata=list(zip([label] * len(part), part[group], part["item_id"])),
                hovertemplate="%{customdata[0]}<br>%{customdata[1]} · pair %{customdata[2]}"
                "<br>cue share %{y:.1f}% of |attribution|<extra></extra>",
            )
        )
    fig.update_layout(
        title=title,
        boxmode="group",
        font=FONT,
        template="plotly_white",
        height=480,
        yaxis={"title": f"cue's share ({UNIT})", "ticksuffix": "%", "rangemode": "tozero"},
        xaxis={"categoryorder": "array", "categoryarray": [labels.get(g, g) for g in order]},
        legend={"orientation": "h", "y": -0.25},
    )
    return fig
