"""Figures of the heatmap and error-preference pages: DataFrame in, plotly figure out.

Pure builders, tested directly (traces, values, labels). Each figure names its metric, n,
dataset and models in its title or hover, so an exported PNG stands on its own in a paper.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from negviz.charts.style import BASELINE_COLOR, FONT

GREY = "#d4d4d8"
BELOW = "▾"  # marks a cell below the random baseline
# Diverging around the baseline: red = worse than random, blue = better.
DIVERGING = [[0.0, "#b91c1c"], [0.5, "#f5f5f4"], [1.0, "#1d4ed8"]]
CATEGORY_STYLE = {  # label, colour
    "correct": ("correct", "#16a34a"),
    "prefers_original": ("prefers original (d1) for both", "#f97316"),
    "prefers_edited": ("prefers edited (d2) for both", "#a855f7"),
    "reversed": ("both rankings reversed", "#dc2626"),
    "wrong": ("wrong document first", "#dc2626"),
    "tie": ("tie", "#a1a1aa"),
}
MARGIN_COLORS = ("#2563eb", "#ea580c")


def _wrap(label: str, width: int = 12) -> str:
    """Break a long axis label into lines (plotly does not wrap)."""
    lines, line = [], ""
    for word in str(label).split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return "<br>".join(lines + [line])


def category_label(category: str) -> str:
    return CATEGORY_STYLE.get(category, (category, ""))[0]


def _layout(fig: go.Figure, title: str, height: int) -> go.Figure:
    fig.update_layout(
        title=dict(text=title, x=0, xanchor="left"),
        font=FONT,
        height=height,
        template="plotly_white",
        margin=dict(l=10, r=20, t=70 if "<br>" in title else 50, b=40),
    )
    return fig


def accuracy_heatmap(
    cells: pd.DataFrame,
    rows: list[str],
    columns: list[str],
    *,
    metric: str,
    baseline: float | None,
    title: str,
    column_labels: dict[str, str] | None = None,
    min_n: int = 0,
    reference: str | None = None,
) -> go.Figure:
    """Models x columns of ``cells`` (per_type.cell_table). Accuracy cells are coloured
    around the random baseline and marked ▾ below it; cells with n < min_n are grey and say so.
    With ``reference`` the values are differences in percentage points to that model."""
    labels = [_wrap((column_labels or {}).get(c, c)) for c in columns]
    table = cells.set_index(["model", "column"])
    shape = (len(rows), len(columns))
    z, grey = np.full(shape, np.nan), np.full(shape, np.nan)
    text = np.full(shape, "", dtype=object)
    custom = np.empty(shape, dtype=object)
    for i, model in enumerate(rows):
        for j, column in enumerate(columns):
            if (model, column) not in table.index:
                text[i, j] = "no items"
                custom[i, j] = (model, column, 0, np.nan, np.nan, np.nan, "no items")
                continue
            c = table.loc[(model, column)]
            v, lo, hi, n = c["value"] * 100, c["ci_low"] * 100, c["ci_high"] * 100, int(c["n"])
            if not c["enough"]:
                grey[i, j] = 1
                text[i, j] = f"n={n}<br>&lt; min n {min_n}"
                note = f"greyed: n={n} is under the minimum n {min_n}"
            elif reference is not None:
                z[i, j] = v
                text[i, j] = f"{v:+.1f} pp<br>n={n}"
                note = f"difference to {reference}"
            else:
                z[i, j] = v
                below = baseline is not None and v < baseline * 100
                text[i, j] = f"{v:.1f}%{' ' + BELOW if below else ''}<br>n={n}"
                note = f"below random ({baseline:.0%})" if below else ""
            custom[i, j] = (model, column, n, v, lo, hi, note)
    fig = go.Figure()
    fig.add_trace(
        go.Heatmap(
            z=grey,
            x=labels,
            y=rows,
            colorscale=[[0, GREY], [1, GREY]],
            showscale=False,
            hoverinfo="skip",
            name="under min n",
            xgap=2,
            ygap=2,
        )
    )
    unit = "pp" if reference is not None else "%"
    if reference is not None:
        span = float(np.nanmax(np.abs(z))) if np.isfinite(z).any() else 1.0
        zmin, zmax, zmid = -span, span, 0.0
        colorbar = dict(title=dict(text="Δ pp", side="right"), ticksuffix=" pp")
    else:
        zmin, zmax, zmid = 0.0, 100.0, (baseline if baseline is not None else 0.5) * 100
        ticks = sorted({0.0, 50.0, 100.0, zmid})
        colorbar = dict(
            title=dict(text="%", side="right"),
            tickvals=ticks,
            ticktext=[f"random {t:.0f}%" if t == zmid and baseline is not None else f"{t:.0f}%" for t in ticks],
        )
    # White sits at the baseline (zmid alone is ignored once zmin/zmax are fixed).
    mid = (zmid - zmin) / (zmax - zmin)
    scale = [[0.0, DIVERGING[0][1]], [mid, DIVERGING[1][1]], [1.0, DIVERGING[2][1]]]
    fig.add_trace(
        go.Heatmap(
            z=z,
            x=labels,
            y=rows,
            zmin=zmin,
            zmax=zmax,
            colorscale=scale,
            colorbar=colorbar,
            text=text,
            texttemplate="%{text}",
            textfont=dict(size=12),
            hoverinfo="skip",
            name=metric,
            xgap=2,
            ygap=2,
        )
    )
    # Invisible points on the cells carry the hover and make a cell clickable (plotly selects points).
    xs, ys, cd = [], [], []
    for i, model in enumerate(rows):
        for j, _ in enumerate(columns):
            xs.append(labels[j])
            ys.append(model)
            cd.append(list(custom[i, j]))
    value_name = f"Δ {metric}" if reference is not None else metric
    fig.add_trace(
        go.Scatter(
            x=xs,
            y=ys,
            mode="markers",
            name="cells",
            showlegend=False,
            customdata=cd,
            marker=dict(symbol="square", size=36, color="rgba(0,0,0,0)"),
            hovertemplate=(
                "<b>%{y}</b> · %{x}<br>"
                + value_name
                + " %{customdata[3]:.1f} "
                + unit
                + "<br>95% CI %{customdata[4]:.1f} to %{customdata[5]:.1f} "
                + unit
                + "<br>n = %{customdata[2]}<br>%{customdata[6]}<extra></extra>"
            ),
        )
    )
    fig.update_yaxes(autorange="reversed", type="category", title=None)
    fig.update_xaxes(type="category", side="bottom", title=None, tickangle=0)
    fig.update_layout(clickmode="event+select", dragmode=False)
    return _layout(fig, title, height=max(300, 170 + 56 * len(rows)))


def distribution_bars(comparison: pd.DataFrame, title: str) -> go.Figure:
    """Grouped bars of type shares: this dataset beside Petcu et al.'s reported distribution
    (per_type.distribution_vs_petcu), counts on hover."""
    fig = go.Figure()
    palette = ("#2563eb", "#a1a1aa", "#16a34a")
    for k, (source, part) in enumerate(comparison.groupby("source", sort=False)):
        fig.add_trace(
            go.Bar(
                x=part["share"] * 100,
                y=part["label"],
                orientation="h",
                name=source,
                marker_color=palette[k % 3],
                text=[f"{s:.1%}" for s in part["share"]],
                textposition="outside",
                cliponaxis=False,
                customdata=part[["count", "n"]].to_numpy(),
                hovertemplate="%{y}: %{x:.1f}%<br>%{customdata[0]} of %{customdata[1]}<extra>" + source + "</extra>",
            )
        )
    fig.update_layout(
        barmode="group",
        legend=dict(orientation="h", yanchor="top", y=-0.22, x=0),
        xaxis_title="share of items (%)",
        yaxis=dict(autorange="reversed"),
    )
    fig.update_xaxes(range=[0, max(100.0, float(comparison["share"].max() * 110) if len(comparison) else 100.0)])
    return _layout(fig, title, height=max(300, 120 + 40 * comparison["label"].nunique()))


def preference_bars(prefs: pd.DataFrame, categories: tuple[str, ...], title: str, faceted: bool = False) -> go.Figure:
    """Stacked bars per model (and facet) of the error categories (per_type.preference_table):
    share in the bar, count and n on hover; each segment carries (model, facet, category) to click."""
    order = list(dict.fromkeys(prefs["model"]))
    facets = list(dict.fromkeys(prefs["facet"]))
    fig = go.Figure()
    for cat in categories:
        part = prefs[prefs["category"] == cat].set_index(["facet", "model"])
        keys = [(f, m) for f in facets for m in order if (f, m) in part.index]
        rows = part.loc[keys] if keys else part.iloc[:0]
        y = [[f for f, _ in keys], [m for _, m in keys]] if faceted else [m for _, m in keys]
        label, colour = CATEGORY_STYLE.get(cat, (cat, "#71717a"))
        fig.add_trace(
            go.Bar(
                x=rows["share"] * 100,
                y=y,
                orientation="h",
                name=label,
                marker_color=colour,
                text=[
                    f"{s:.0%} ({c:,})" if s >= 0.12 else f"{s:.0%}" if s >= 0.04 else ""
                    for s, c in zip(rows["share"], rows["count"])
                ],
                textposition="inside",
                insidetextanchor="middle",
                customdata=[[m, f, cat, c, n] for (f, m), c, n in zip(keys, rows["count"], rows["n"])],
                hovertemplate="%{customdata[0]} · %{customdata[1]}<br>"
                + label
                + ": %{x:.1f}% (%{customdata[3]} of %{customdata[4]})<extra></extra>",
            )
        )
    fig.update_layout(
        barmode="stack",
        legend=dict(orientation="h", yanchor="top", y=-0.12, x=0, traceorder="normal"),
        xaxis=dict(title="share of items (%)", range=[0, 100]),
        clickmode="event+select",
        dragmode=False,
    )
    fig.update_yaxes(autorange="reversed", title=None)
    n_bars = len(order) * (len(facets) if faceted else 1)
    return _layout(fig, title, height=max(260, 150 + 34 * n_bars))


def margin_distributions(
    outcomes: pd.DataFrame,
    margin_names: tuple[str, str | None],
    title: str,
    models: list[str] | None = None,
    bins: int = 60,
) -> go.Figure:
    """Histograms of the margins per model (one row each: scores live on each model's own scale)
    with the tie line at 0: mass just left of it fails by a hair, far left by a mile."""
    models = models or list(dict.fromkeys(outcomes["model"]))
    titles = [f"{m} (n={int((outcomes['model'] == m).sum())})" for m in models]
    fig = make_subplots(rows=len(models), cols=1, subplot_titles=titles, vertical_spacing=0.25 / max(len(models), 1))
    for i, model in enumerate(models, start=1):
        part = outcomes[outcomes["model"] == model]
        for k, (column, name) in enumerate(zip(("margin1", "margin2"), margin_names)):
            if name is None:
                continue
            values = part[column].dropna()
            fig.add_trace(
                go.Histogram(
                    x=values,
                    nbinsx=bins,
                    name=name,
                    legendgroup=name,
                    showlegend=i == 1,
                    marker_color=MARGIN_COLORS[k],
                    opacity=0.6,
                    hovertemplate=name + " in %{x}<br>%{y} items<extra>" + model + "</extra>",
                ),
                row=i,
                col=1,
            )
        fig.update_yaxes(title_text="items", row=i, col=1)
    for note in fig.layout.annotations[: len(models)]:  # subplot titles to the left, clear of the tie label
        note.update(x=0, xanchor="left", font=dict(size=13))
    # The tie line in each row, added at once (add_vline per row costs ~50 ms of validation each).
    axes = [("x", "y") if i == 1 else (f"x{i}", f"y{i}") for i in range(1, len(models) + 1)]
    fig.update_layout(
        shapes=[
            dict(
                type="line",
                x0=0,
                x1=0,
                xref=x,
                y0=0,
                y1=1,
                yref=f"{y} domain",
                line=dict(color=BASELINE_COLOR, dash="dash"),
            )
            for x, y in axes
        ],
        annotations=[
            *fig.layout.annotations,
            *(
                dict(
                    text="tie",
                    x=0,
                    xref=x,
                    y=1,
                    yref=f"{y} domain",
                    xanchor="left",
                    yanchor="top",
                    showarrow=False,
                    font=dict(color=BASELINE_COLOR),
                )
                for x, y in axes
            ),
        ],
    )
    fig.update_xaxes(title_text="margin (the model's own score scale)", row=len(models), col=1)
    height = 140 + 190 * len(models)
    fig.update_layout(barmode="overlay", legend=dict(orientation="h", yanchor="top", y=-70 / (height - 120), x=0))
    fig = _layout(fig, title, height=height)
    fig.update_layout(margin=dict(b=90))
    return fig
