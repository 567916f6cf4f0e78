"""Figures of the perturbation-sensitivity page: DataFrame in, plotly figure out.

- ``sensitivity_heatmap``: perturbations x models in the NegBLEURT Fig. 4 layout (one row per
  DEMETR file, grouped and coloured by severity), the paper's published columns at the right,
  marked as such; invisible points on the cells carry the hover and make a cell clickable
  (customdata = model, perturbation, source), as on the per-type heatmap.
- ``focus_chart``: negation and antonym against the other critical perturbations, per model.
- ``cannot_chart``: CANNOT similarity of sentence / negated-sentence pairs per source file.
- ``own_sentence_chart``: the ratio of each rule perturbation of a typed sentence, per model.

Every label that comes from data or typing is HTML-escaped (plotly renders a subset of HTML).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from negviz.analyses.sensitivity import ACCURACY, RATIO, VALUES, severity_of, short_label
from negviz.charts.alignment import esc
from negviz.charts.per_type import DIVERGING, GREY
from negviz.charts.style import FONT, NOTE_COLOR

SEVERITY_COLORS = {"critical": "#b91c1c", "major": "#ea580c", "minor": "#ca8a04", "base": "#71717a", "other": "#a1a1aa"}
RATIO_SCALE = [[0.0, "#f8fafc"], [0.5, "#60a5fa"], [1.0, "#1e3a8a"]]  # darker = more sensitive, as in Fig. 4
FOCUS_STYLE = {
    "negation": ("#dc2626", "circle", 13),
    "antonym": ("#ea580c", "diamond", 12),
    "other critical": ("#a1a1aa", "circle-open", 8),
}
# One colour per model of the 14 shipped ones, none repeated (Tableau 10, then four far from them).
MODEL_COLORS = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
) + ("#000000", "#a3e635", "#fcd34d", "#0c4a6e")
HEADER_FONT = 11  # px, the upright column headers
TINY_MARK = "†"  # a cell with items whose denominator |t - e| is tiny


def _layout(fig: go.Figure, title: str, height: int) -> go.Figure:
    fig.update_layout(
        title=dict(text=title, x=0, xanchor="left"),
        font=FONT,
        height=height,
        template="plotly_white",
        margin=dict(l=10, r=20, t=90 if "<br>" in title else 60, b=40),
    )
    return fig


def column_key(model: str, published: bool) -> str:
    """The x value of a column: a run and a published model may share a name."""
    return f"{'published' if published else 'run'}:{model}"


def _fmt(value: float, kind: str) -> str:
    if not np.isfinite(value):
        return "–"
    return f"{value * 100:.0f}%" if kind == ACCURACY else f"{value:.2f}"


def _cell_text(value: float, kind: str) -> str:
    """A cell's value without the ratio's leading zero (".07", "−.10"): 16 columns leave ~20 px a
    cell in a 1,000 px window (the hover keeps the full value)."""
    text = _fmt(value, kind)
    return text if kind == ACCURACY else text.replace("0.", ".", 1).replace("-", "−")


def sensitivity_heatmap(
    matrix: pd.DataFrame, rows: list[str], columns: list[tuple[str, bool]], *, value: str, title: str
) -> go.Figure:
    """``matrix`` (sensitivity.model_matrix) drawn with ``rows`` = perturbation stems in order and
    ``columns`` = (model, published) in order. Ratios: white (0) to dark blue (1 and above), the
    value written in each cell; detection accuracy: diverging around 50%. † marks a cell with tiny
    denominators; published cells are italic, right of a dotted line, headed "published".

    Positions are numeric (column 0 is the severity strip, row k is rows[k]) with the names as
    tick labels: several heatmap traces on one category axis misplace their cell text."""
    if value not in VALUES:
        raise ValueError(f"unknown value {value!r}")
    table = matrix.assign(_key=[column_key(m, bool(p)) for m, p in zip(matrix["model"], matrix["published"])])
    table = table.set_index(["perturbation", "_key"])
    keys = [column_key(m, p) for m, p in columns]
    shape = (len(rows), len(keys))
    z = np.full(shape, np.nan)
    text = np.full(shape, "", dtype=object)
    xs, ys, cd, hover = [], [], [], []
    for i, stem in enumerate(rows):
        for j, ((model, published), key) in enumerate(zip(columns, keys)):
            xs.append(j + 1)
            ys.append(i)
            cd.append([model, stem, "published" if published else "run"])
            if (stem, key) not in table.index:
                text[i, j] = "–"
                note = "not in the paper's figure" if published else "no items"
                hover.append(f"<b>{esc(model)}</b> · {esc(stem)}<br>{note}")
                continue
            c = table.loc[(stem, key)]
            v = float(c["value"])
            z[i, j] = v
            mark = TINY_MARK if not published and (c["tiny_denominators"] or 0) > 0 else ""
            text[i, j] = (f"<i>{_cell_text(v, value)}</i>" if published else _cell_text(v, value)) + mark
            if published:
                hover.append(
                    f"<b>{esc(model)}</b> · {esc(stem)}<br>sensitivity ratio {v:.2f} as printed<br>{esc(c['source'])}"
                )
            else:
                hover.append(
                    f"<b>{esc(model)}</b> · {esc(stem)} ({esc(c['severity'])})<br>{VALUES[value]} {_fmt(v, value)} "
                    f"[95% CI {_fmt(c['ci_low'], value)} to {_fmt(c['ci_high'], value)}]<br>"
                    f"detection accuracy {c['detection_accuracy']:.1%} · ratio {c['sensitivity_ratio']:.3f}<br>"
                    f"n = {int(c['n'])} · pert_check {int(c['checked'])} · ratio over {int(c['n_ratio'])}<br>"
                    f"tiny denominators {int(c['tiny_denominators'])} · zero {int(c['zero_denominators'])}"
                    "<br>click: list the items"
                )
    if value == RATIO:
        scale = RATIO_SCALE
        colorbar = dict(title=dict(text="ratio", side="right"), tickvals=[0, 0.5, 1], ticktext=["≤ 0", "0.5", "≥ 1"])
    else:
        scale = DIVERGING
        colorbar = dict(title=dict(text="%", side="right"), tickvals=[0, 0.5, 1], ticktext=["0%", "50%", "100%"])
    xpos, ypos = list(range(1, len(keys) + 1)), list(range(len(rows)))
    sev = [severity_of(s) for s in rows]
    sev_names = list(SEVERITY_COLORS)
    n_sev = len(sev_names) - 1
    fig = go.Figure()
    fig.add_trace(
        go.Heatmap(
            z=[[sev_names.index(s)] for s in sev],
            x=[0],
            y=ypos,
            zmin=0,
            zmax=n_sev,
            showscale=False,
            hoverinfo="skip",
            xgap=2,
            ygap=1,
            colorscale=[[k / n_sev, SEVERITY_COLORS[s]] for k, s in enumerate(sev_names)],
            name="severity",
        )
    )
    fig.add_trace(
        go.Heatmap(
            z=np.where(np.isnan(z), 1.0, np.nan),
            x=xpos,
            y=ypos,
            colorscale=[[0, GREY], [1, GREY]],
            showscale=False,
            hoverinfo="skip",
            xgap=2,
            ygap=1,
            name="missing",
        )
    )
    fig.add_trace(
        go.Heatmap(
            z=z,
            x=xpos,
            y=ypos,
            zmin=0.0,
            zmax=1.0,
            colorscale=scale,
            colorbar=colorbar,
            text=text,
            texttemplate="%{text}",
            textfont=dict(size=10),
            hoverinfo="skip",
            xgap=2,
            ygap=1,
            name=VALUES[value],
        )
    )
    fig.add_trace(
        go.Scatter(
            x=xs,
            y=ys,
            mode="markers",
            name="cells",
            showlegend=False,
            customdata=cd,
            hovertext=hover,
            hovertemplate="%{hovertext}<extra></extra>",
            marker=dict(symbol="square", size=18, color="rgba(0,0,0,0)"),
        )
    )
    # Severity groups: a line between groups and the group's name in its strip.
    for k in range(1, len(rows)):
        if sev[k] != sev[k - 1]:
            fig.add_shape(
                type="line", x0=-0.5, x1=len(keys) + 0.5, y0=k - 0.5, y1=k - 0.5, line=dict(color="#18181b", width=1.5)
            )
    for s in dict.fromkeys(sev):
        idx = [k for k, x in enumerate(sev) if x == s]
        fig.add_annotation(
            x=0,
            y=(idx[0] + idx[-1]) / 2,
            text=f"<b>{s}</b>",
            showarrow=False,
            font=dict(color="white", size=11),
            textangle=-90 if len(idx) > 3 else 0,
        )
    pub = [k for k, (_, p) in enumerate(columns) if p]
    if pub:
        fig.add_shape(
            type="line",
            x0=pub[0] + 0.5,
            x1=pub[0] + 0.5,
            y0=-0.5,
            y1=len(rows) - 0.5,
            line=dict(color="#18181b", width=2, dash="dot"),
        )
    # Headers stand upright, one name a line: a page column is ~25-50 px wide (16 columns at
    # 1,000-1,400 px), narrower than most model names, and upright names never run into each other.
    ticktext = ["severity"] + [f"<i>{esc(m)}</i>" if p else esc(m) for m, p in columns]
    fig.update_xaxes(
        tickvals=[0] + xpos,
        ticktext=ticktext,
        side="top",
        tickangle=-90,
        title=None,
        showgrid=False,
        zeroline=False,
        range=[-0.5, len(keys) + 0.5],
        tickfont=dict(size=HEADER_FONT),
    )
    fig.update_yaxes(
        tickvals=ypos,
        ticktext=[esc(short_label(s)) for s in rows],
        autorange="reversed",
        title=None,
        showgrid=False,
        zeroline=False,
    )
    if pub:  # one group label for the published columns, under the cells (not one per header)
        for text, anchor in (("run here", "right"), ("published", "left")):
            fig.add_annotation(
                x=pub[0] + 0.5,
                xanchor=anchor,
                xshift=-4 if anchor == "right" else 4,
                y=len(rows) - 0.5,
                yanchor="top",
                yshift=-2,
                text=f"<i>{text}</i>" if anchor == "left" else text,
                showarrow=False,
                font=dict(size=11, color=NOTE_COLOR),
            )
    fig.update_layout(clickmode="event+select", dragmode=False)
    header_px = int(max(len(str(m)) for m, _ in columns) * HEADER_FONT * 0.52) + 14 if columns else 20
    title_px = 22 * (title.count("<br>") + 1) + 20
    bottom_px = 80  # the group labels and the colour bar
    height = title_px + header_px + 22 * len(rows) + bottom_px
    fig = _layout(fig, title, height=height)
    fig.data[2].colorbar.update(  # horizontal, under the cells: the columns keep the width
        orientation="h",
        thickness=12,
        len=0.5,
        xanchor="left",
        x=0,
        yref="container",
        y=8 / height,
        ypad=0,
        yanchor="bottom",
        title=dict(side="right"),
    )
    # The headers sit between the title, pinned to the top, and the cells.
    fig.update_layout(
        margin=dict(t=title_px + header_px, b=bottom_px, r=20),
        title=dict(yref="container", y=1, yanchor="top", pad=dict(t=12)),
    )
    return fig


def focus_chart(focus: pd.DataFrame, value: str, title: str) -> go.Figure:
    """One row per model (runs, then published): every critical perturbation as a dot, negation
    and antonym drawn large (with their 95% CI for runs), the others grey (names on hover)."""
    names = focus["model"] + np.where(focus["published"].astype(bool), " (published)", "")
    models = list(dict.fromkeys(names[~focus["published"].astype(bool)])) + list(
        dict.fromkeys(names[focus["published"].astype(bool)])
    )
    fig = go.Figure()
    for group in reversed(list(FOCUS_STYLE)):
        part = focus[focus["group"] == group]
        if part.empty:
            continue
        color, symbol, size = FOCUS_STYLE[group]
        y = (part["model"] + np.where(part["published"].astype(bool), " (published)", "")).map(esc)
        err = None
        if group != "other critical":
            lo, hi = part["ci_low"].to_numpy(float), part["ci_high"].to_numpy(float)
            v = part["value"].to_numpy(float)
            err = dict(
                type="data",
                symmetric=False,
                array=np.nan_to_num(hi - v),
                arrayminus=np.nan_to_num(v - lo),
                color=color,
                thickness=1.5,
                width=4,
            )
        fig.add_trace(
            go.Scatter(
                x=part["value"],
                y=y,
                mode="markers",
                name=group,
                error_x=err,
                marker=dict(color=color, symbol=symbol, size=size, line=dict(width=1.5, color=color)),
                customdata=np.stack([part["label"].map(esc), part["rank"].fillna(0).astype(int), part["of"]], axis=1),
                hovertemplate=(
                    "<b>%{y}</b><br>%{customdata[0]}: %{x:.3f}<br>rank %{customdata[1]} of %{customdata[2]} "
                    "critical perturbations<extra>" + group + "</extra>"
                ),
            )
        )
    fig.add_vline(x=0.5 if value == ACCURACY else 0.0, line_dash="dash", line_color="#71717a")
    fig.update_yaxes(
        type="category", categoryorder="array", categoryarray=[esc(m) for m in models], autorange="reversed", title=None
    )
    fig.update_xaxes(title=VALUES[value], tickformat=".0%" if value == ACCURACY else None, zeroline=False)
    fig.update_layout(legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0))
    return _layout(fig, title, height=max(300, 160 + 45 * len(models)))


def cannot_chart(dist: pd.DataFrame, title: str) -> go.Figure:
    """One panel per model (each on its own x scale: scores of different families are not
    comparable): per source file a box of the pairs' similarity (quartiles, whiskers at the 5th and
    95th percentiles) and the mean with its 95% CI. Lower on negated pairs = more negation-aware."""
    models = list(dict.fromkeys(dist["model"]))
    n = max(1, len(models))
    fig = make_subplots(
        rows=n,
        cols=1,
        shared_xaxes=False,
        vertical_spacing=min(0.12, 0.32 / n),
        subplot_titles=[esc(m) for m in models],
    )
    for r, model in enumerate(models, start=1):
        part = dist[dist["model"] == model]
        color = MODEL_COLORS[(r - 1) % len(MODEL_COLORS)]
        sources = [esc(s) for s in part["source"]]
        fig.add_trace(
            go.Box(
                y=sources,
                q1=part["q25"],
                median=part["median"],
                q3=part["q75"],
                lowerfence=part["p05"],
                upperfence=part["p95"],
                orientation="h",
                name=esc(model),
                legendgroup=esc(model),
                marker_color=color,
                showlegend=False,
                hoverinfo="skip",
            ),
            row=r,
            col=1,
        )
        fig.add_trace(
            go.Scatter(
                x=part["mean"],
                y=sources,
                mode="markers",
                name=f"{esc(model)} mean",
                showlegend=False,
                marker=dict(color="#18181b", symbol="diamond", size=8),
                error_x=dict(
                    type="data",
                    symmetric=False,
                    array=part["ci_high"] - part["mean"],
                    arrayminus=part["mean"] - part["ci_low"],
                    color="#18181b",
                    thickness=1.5,
                    width=3,
                ),
                customdata=np.stack([part["n"], part["ci_low"], part["ci_high"], part["median"]], axis=1),
                hovertemplate=(
                    f"<b>{esc(model)}</b> · %{{y}}<br>mean %{{x:.3f}} [95% CI %{{customdata[1]:.3f}} to "
                    "%{customdata[2]:.3f}]<br>median %{customdata[3]:.3f} · n = %{customdata[0]}"
                    "<extra></extra>"
                ),
            ),
            row=r,
            col=1,
        )
        fig.update_yaxes(type="category", autorange="reversed", row=r, col=1)
    return _layout(fig, title, height=max(320, 110 + 240 * len(models)))


def own_sentence_chart(table: pd.DataFrame, title: str) -> go.Figure:
    """Bars: each perturbation's ratio (t − h)/(t − e) for the typed sentence, one colour per model;
    a hollow diamond marks the model's mean ratio on the same DEMETR file (from its stored run)."""
    fig = go.Figure()
    order = list(dict.fromkeys(table["perturbation"]))
    for k, (model, part) in enumerate(table.groupby("model", sort=False)):
        color = MODEL_COLORS[k % len(MODEL_COLORS)]
        fig.add_trace(
            go.Bar(
                x=part["ratio"],
                y=part["perturbation"],
                orientation="h",
                name=esc(model),
                legendgroup=esc(model),
                marker_color=color,
                customdata=np.stack(
                    [
                        part["perturbed"].map(esc),
                        part["margin"],
                        part["score_candidate"],
                        part["score_perturbed"],
                        part["score_empty"],
                    ],
                    axis=1,
                ),
                hovertemplate=(
                    f"<b>{esc(model)}</b> · %{{y}}<br>ratio %{{x:.3f}} · t − h = %{{customdata[1]:.4f}}<br>"
                    "t = %{customdata[2]:.4f} · h = %{customdata[3]:.4f} · e = %{customdata[4]:.4f}<br>"
                    "%{customdata[0]}<extra></extra>"
                ),
            )
        )
        if "demetr_file_ratio" in part and part["demetr_file_ratio"].notna().any():
            fig.add_trace(
                go.Scatter(
                    x=part["demetr_file_ratio"],
                    y=part["perturbation"],
                    mode="markers",
                    name=f"{esc(model)}: DEMETR mean",
                    legendgroup=esc(model),
                    showlegend=False,  # one legend entry per model: the ◇ is explained under the chart
                    marker=dict(symbol="diamond-open", size=11, color=color, line=dict(width=2)),
                    hovertemplate=(
                        f"<b>{esc(model)}</b> · %{{y}}<br>mean ratio on the DEMETR file %{{x:.3f}}<extra></extra>"
                    ),
                )
            )
    fig.add_vline(x=0, line_color="#71717a")
    fig.update_yaxes(type="category", categoryorder="array", categoryarray=order, autorange="reversed", title=None)
    fig.update_xaxes(title="sensitivity ratio (t − h) / (t − e)")
    fig.update_layout(barmode="group", legend=dict(orientation="h", yanchor="top", y=-0.12, x=0))
    fig = _layout(fig, title, height=max(360, 220 + 13 * len(order) * max(1, table["model"].nunique())))
    fig.update_layout(margin=dict(b=120))
    return fig
