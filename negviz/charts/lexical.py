"""The lexical confound (negviz.analyses.lexical): how often each model gets a comparison wrong
when BM25 leans towards the right document and when it leans towards the wrong one."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from negviz.analyses.lexical import LEANS, NEITHER, RIGHT, WRONG
from negviz.charts.alignment import esc
from negviz.charts.per_type import model_tick
from negviz.charts.style import FONT, legend_below

LEAN_COLORS = {RIGHT: "#2563eb", WRONG: "#dc2626", NEITHER: "#a1a1aa"}


def confound_bars(table: pd.DataFrame, title: str, models: list[str] | None = None) -> go.Figure:
    """``table``: lexical.confound_table; horizontal grouped bars per model (in ``models``' order,
    the page's; each model's n of comparisons under its name), one per lean, with 95% CIs;
    a click gives customdata [model, lean]."""
    order = [m for m in (models or []) if m in set(table["model"])]
    order += [m for m in dict.fromkeys(table["model"]) if m not in order]
    fig = go.Figure()
    for lean in LEANS:
        part = table[table["lexical lean"] == lean].set_index("model")
        part = part.loc[[m for m in order if m in part.index]].reset_index()
        if part.empty:
            continue
        fig.add_trace(
            go.Bar(
                y=part["model"],
                x=part["wrong or tie"] * 100,
                orientation="h",
                name=f"BM25 leans {lean}",
                marker_color=LEAN_COLORS[lean],
                error_x={
                    "type": "data",
                    "symmetric": False,
                    "array": (part["ci_high"] - part["wrong or tie"]) * 100,
                    "arrayminus": (part["wrong or tie"] - part["ci_low"]) * 100,
                },
                customdata=list(zip(part["model"], [lean] * len(part), part["n"], part["model"].map(esc))),
                hovertemplate="%{customdata[3]}<br>BM25 leans %{customdata[1]}<br>wrong or tie: %{x:.1f}% "
                "of %{customdata[2]:,} comparisons<extra></extra>",
            )
        )
    n = table.groupby("model")["n"].sum()
    plot_h = max(130, 22 * len(LEANS) * len(order))
    legend, bottom = legend_below([f"BM25 leans {lean}" for lean in LEANS], plot_h)
    fig.update_layout(
        title=dict(text=title, x=0, xanchor="left"),
        barmode="group",
        font=FONT,
        template="plotly_white",
        height=50 + plot_h + bottom,
        xaxis={"title": "comparisons wrong or tied (%)", "range": [0, 100], "ticksuffix": "%"},
        yaxis={
            "autorange": "reversed",
            "tickmode": "array",
            "tickvals": order,
            "ticktext": [model_tick(m, int(n[m]), "comparison") for m in order],
        },
        legend=legend,
        margin={"l": 10, "r": 20, "t": 50, "b": bottom},
    )
    return fig
