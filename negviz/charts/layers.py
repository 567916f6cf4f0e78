"""The per-layer curve of two texts that differ by a negation edit (negviz.analyses.layers)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from negviz.charts.style import FONT

COLORS = ("#2563eb", "#ea580c", "#16a34a", "#7c3aed", "#db2777", "#0891b2", "#ca8a04", "#52525b")
# One panel per measure: their scales differ tenfold (one word piece against a whole text).
MEASURES = {"cue_distance": "at the cue position", "pooled_distance": "pooled (mean of the word pieces)"}


def layer_curves(curves: pd.DataFrame, title: str) -> go.Figure:
    """``curves``: layer, pooled_distance, cue_distance and a ``label`` per curve (a model, a
    negation type); one line per label in each panel, layer 0 (the embeddings) on the left."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=list(MEASURES.values()), horizontal_spacing=0.1)
    for i, (label, part) in enumerate(curves.groupby("label", sort=False)):
        color = COLORS[i % len(COLORS)]
        for col, column in enumerate(MEASURES, start=1):
            fig.add_trace(
                go.Scatter(
                    x=part["layer"],
                    y=part[column],
                    mode="lines+markers",
                    name=str(label),
                    line={"color": color},
                    legendgroup=str(label),
                    showlegend=col == 1,
                    hovertemplate="layer %{x}<br>1 − cos = %{y:.4f}<extra>%{fullData.name}</extra>",
                ),
                row=1,
                col=col,
            )
    fig.update_layout(
        title=title,
        font=FONT,
        template="plotly_white",
        height=460,
        legend={"orientation": "v", "y": -0.2, "yanchor": "top"},
    )
    fig.update_xaxes(dtick=1, title_text="layer (0 = embedding output)")
    fig.update_yaxes(title_text="cosine distance (1 − cos)", rangemode="tozero", col=1)
    fig.update_yaxes(rangemode="tozero", col=2)
    return fig
