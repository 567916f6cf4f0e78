"""Cue influence over a dataset (negviz.analyses.cue_influence): the distribution of the cue's
share of attribution per group (verdict or negation type), one box per run, every comparison a
point that a click turns into the bin's pairs (customdata [run label, group, item id])."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from negviz.analyses.cue_influence import UNIT, as_percent
from negviz.charts.style import FONT
from negviz.core.sample_size import MIN_N, too_few

COLORS = ("#2563eb", "#ea580c", "#16a34a", "#7c3aed", "#db2777", "#0891b2", "#ca8a04", "#52525b")


FEW = "#a1a1aa"  # a bin too small for a box: its points only, grey


def share_boxes(
    frame: pd.DataFrame,
    group: str,
    order: list[str],
    title: str,
    labels: dict | None = None,
    methods: dict[str, str] | None = None,
) -> go.Figure:
    """``frame``: one row per comparison with ``label`` (the run), ``group``, cue_share, item_id.
    ``methods``: run label -> attribution method; each method gets its own panel and y axis (their
    shares are not on one scale). A bin of fewer than sample_size.MIN_N comparisons gets no box:
    its points are drawn grey, and its n is in the hover and the x label."""
    labels = labels or {}
    methods = methods or {}
    panels = list(dict.fromkeys(methods.get(str(lab), "") for lab in frame["label"].unique())) or [""]
    fig = make_subplots(
        rows=len(panels),
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.12 / max(1, len(panels) - 1) if len(panels) > 1 else 0.0,
        subplot_titles=[f"method: {m}" for m in panels] if any(panels) else None,
    )
    counts = frame.dropna(subset=["cue_share"]).groupby(["label", group]).size()
    shown = lambda g: labels.get(g, g)  # noqa: E731
    for i, (label, part) in enumerate(frame.groupby("label", sort=False)):
        part = part.dropna(subset=["cue_share"])
        row = panels.index(methods.get(str(label), "")) + 1
        small = part[group].map(lambda g: too_few(counts.get((label, g), 0)))
        for few, bins in ((False, part[~small]), (True, part[small])):
            if bins.empty:
                continue
            fig.add_trace(
                go.Box(
                    x=[shown(g) for g in bins[group]],
                    y=as_percent(bins["cue_share"]),
                    name=str(label),
                    legendgroup=str(label),
                    offsetgroup=str(label),  # a bin's points sit where its run's box would
                    showlegend=not few or not (~small).any(),
                    marker_color=FEW if few else COLORS[i % len(COLORS)],
                    line={"width": 0} if few else None,
                    fillcolor="rgba(0,0,0,0)" if few else None,
                    boxpoints="all",
                    jitter=0.5,
                    pointpos=0,
                    marker={"size": 5 if few else 3, "opacity": 0.8 if few else 0.45},
                    boxmean=False,
                    customdata=[
                        (label, g, item, int(counts.get((label, g), 0)))
                        for g, item in zip(bins[group], bins["item_id"])
                    ],
                    hovertemplate="%{customdata[0]}<br>%{customdata[1]} · pair %{customdata[2]}"
                    "<br>cue share %{y:.1f}% of |attribution|"
                    + (f"<br>a bin of %{{customdata[3]}}: fewer than {MIN_N}, no box drawn" if few else "")
                    + "<extra></extra>",
                ),
                row=row,
                col=1,
            )
    ticks = []
    for g in order:
        ns = [int(counts[(lab, g)]) for lab in frame["label"].unique() if (lab, g) in counts.index]
        least = min(ns, default=None)
        ticks.append(f"{shown(g)}<br>(n={least:,} in a run)" if ns and too_few(least) else shown(g))
    fig.update_layout(
        title=title + f"<br><sup>grey points: a bin of fewer than {MIN_N} comparisons (no box)</sup>",
        boxmode="group",
        font=FONT,
        template="plotly_white",
        height=200 + 300 * len(panels),
        legend={"orientation": "h", "y": -0.4 if len(panels) == 1 else -0.2},  # below the tilted labels
    )
    fig.update_yaxes(title=f"cue's share ({UNIT})", ticksuffix="%", rangemode="tozero")
    fig.update_xaxes(
        categoryorder="array",
        categoryarray=[shown(g) for g in order],
        tickvals=[shown(g) for g in order],
        ticktext=ticks,
    )
    return fig
