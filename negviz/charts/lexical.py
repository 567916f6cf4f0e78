"""The lexical confound (negviz.analyses.lexical): how often each model gets a comparison wrong
when BM25 leans towards the right document and when it leans towards the wrong one."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from negviz.analyses.lexical import LEANS, RIGHT, WRONG, NEITHER
from negviz.charts.style import FONT

LEAN_COLORS = {RIGHT: "#2563eb", WRONG: "#dc2626", NEITHER: "#a1a1aa"}


def confound_bars(table: pd.DataFrame, title: str) -> go.Figure:
    """``table``: lexical.confound_table; grouped bars per model, one per lean, with 95% CIs;
    a click gives customdata [model, lean]."""
    fig = go.Figure()
    for lean in LEANS:
        part = table[table["lexical lean"] == lean]
        if part.empty:
            continue
        fig.add_trace(
            go.Bar(
                x=part["model"],
                y=part["wrong or tie"],
                name=f"BM25 leans {lean}",
                marker_color=LEAN_COLORS[lean],
                error_y={
                    "type": "data",
                    "symmetric": False,
                    "array": part["ci_high"] - part["wrong or tie"],
                    "arrayminus": part["wrong or tie"] - part["ci_low"],
                },
                customdata=list(zip(part["model"], [lean] * len(part), part["n"])),
                hovertemplate="%{customdata[0]}<br>BM25 leans %{customdata[1]}<br>wrong or tie: %{y:.1%} "
                "of %{customdata[2]} comparisons<extra></extra>",
            )
        )
    fig.update_layout(
        title=title,
        barmode="group",
        font=FONT,
        template="plotly_white",
        height=430,
        yaxis={"title": "share of comparisons wrong or tied", "tickformat": ".0%", "range": [0, 1]},
        legend={"orientation": "h", "y": -0.3},
    )
    return fig
