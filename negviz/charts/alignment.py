"""Figures of the MaxSim explorer and the playground: pure functions, views in, plotly out.

Every label that comes from text (tokens, typed sentences, model names) is HTML-escaped:
plotly renders a subset of HTML in titles, ticks and hovers.
"""

from __future__ import annotations

import html
from typing import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from negviz.analyses.alignment import AlignmentView
from negviz.charts.style import FONT, wrap_segments

CUE = "#dc2626"  # negation cue rows / columns
EDIT = "#d97706"  # tokens changed by a counterfactual
MASK = "#7c3aed"  # [MASK] query augmentation
OFF = "#a1a1aa"  # tokens that do not take part in MaxSim
FAVOURS_D1, FAVOURS_D2 = "#2563eb", "#ea580c"
SIMILARITY_TITLE = {"cosine": "cosine", "l2": "−‖q−d‖²"}
LEGEND = (
    f"□ each query token's MaxSim choice (■ thick: its best piece) · <span style='color:{CUE}'>red: negation cue</span>"
    f" · <span style='color:{EDIT}'>amber: edited</span> · <span style='color:{OFF}'>grey: not in MaxSim</span>"
    f" · <span style='color:{MASK}'>[MASK]: query augmentation</span>"
)


def esc(text: object) -> str:
    """Escape text for plotly's HTML-ish labels (quotes need no escaping there)."""
    return html.escape(str(text), quote=False)


def tick_label(label: str, kind: str, part: bool, cue: bool, edit: bool) -> str:
    text = esc(label)
    if cue:
        return f"<b><span style='color:{CUE}'>{text}</span></b>"
    if edit:
        return f"<b><span style='color:{EDIT}'>{text}</span></b>"
    if kind == "mask_aug":
        return f"<span style='color:{MASK}'>{text}</span>"
    if not part:
        return f"<span style='color:{OFF}'>{text}</span>"
    return text


def _ticks(axis) -> list[str]:
    return [tick_label(*t) for t in zip(axis.labels, axis.kinds, axis.part, axis.cue, axis.edit)]


MIN_PLOT_PX = 600  # the matrices' width in a 1,000 px window: labels are thinned to fit it


def labelled_columns(axis, width_px: float, font_px: int) -> list[int]:
    """Which document tokens get a label: all when they fit side by side (upright, a font's
    height each), else every k-th plus every negation cue and edit (their neighbours within k
    give way); the hover names every cell's token either way."""
    n = len(axis.labels)
    step = max(1, int(np.ceil(n * (font_px + 2) / max(width_px, 1.0))))
    if step == 1:
        return list(range(n))
    marked = [i for i in range(n) if axis.cue[i] or axis.edit[i]]
    shown = {i for i in range(0, n, step) if all(abs(i - m) >= step for m in marked)}
    return sorted(shown | set(marked))


def alignment_heatmaps(views: Sequence[AlignmentView], titles: Sequence[str], title: str = "") -> go.Figure:
    """The query-by-document similarity matrices side by side on one colour scale, each row's
    MaxSim choice boxed, negation cues outlined, hover with both tokens and the value."""
    # The colour range spans the cells that take part in MaxSim ([CLS]-[CLS] would flatten the rest).
    finite = [cells[np.isfinite(cells)] for v in views if (cells := v.values[np.ix_(v.rows.part, v.cols.part)]).size]
    lo = min((float(f.min()) for f in finite if f.size), default=0.0)
    hi = max((float(f.max()) for f in finite if f.size), default=1.0)
    widths = [max(len(v.cols.labels), 1) for v in views]
    fig = make_subplots(
        rows=1,
        cols=len(views),
        shared_yaxes=True,
        horizontal_spacing=0.03,
        column_widths=[w / sum(widths) for w in widths],
        subplot_titles=[
            f"{esc(t)} · S = {v.score:.3f}"
            + (f" (hidden rows {v.hidden_contribution:+.3f})" if v.hidden_contribution else "")
            for t, v in zip(titles, views)
        ],
    )
    for k, view in enumerate(views, start=1):
        n_rows, n_cols = view.values.shape
        q_hover = [esc(" ".join(p)) for p in view.rows.pieces]
        d_hover = [esc(" ".join(p)) for p in view.cols.pieces]
        custom = np.empty((n_rows, n_cols, 2), dtype=object)
        for r in range(n_rows):
            custom[r, :, 0] = q_hover[r]
            custom[r, :, 1] = d_hover
        fig.add_trace(
            go.Heatmap(
                z=view.values,
                x=list(range(n_cols)),
                y=list(range(n_rows)),
                customdata=custom,
                zmin=lo,
                zmax=hi,
                colorscale="Blues",
                showscale=k == len(views),
                colorbar=dict(title=SIMILARITY_TITLE.get(view.similarity, view.similarity), thickness=12),
                hovertemplate="query: %{customdata[0]}<br>doc: %{customdata[1]}<br>sim = %{z:.3f}<extra></extra>",
            ),
            row=1,
            col=k,
        )
        best = {(r, int(c)) for r, c in enumerate(view.best) if c >= 0}
        for thick, cells in ((True, sorted(best)), (False, [m for m in view.marks if m not in best])):
            if cells:
                fig.add_trace(
                    go.Scatter(
                        x=[c for _, c in cells],
                        y=[r for r, _ in cells],
                        mode="markers",
                        hoverinfo="skip",
                        marker=dict(
                            symbol="square-open",
                            size=11 if thick else 8,
                            color="#111111",
                            line=dict(width=2.5 if thick else 1),
                        ),
                        showlegend=False,
                    ),
                    row=1,
                    col=k,
                )
        xref = "x" if k == 1 else f"x{k}"
        yref = "y" if k == 1 else f"y{k}"
        for c in np.flatnonzero(view.cols.cue):
            fig.add_shape(
                type="rect",
                x0=c - 0.5,
                x1=c + 0.5,
                y0=-0.5,
                y1=n_rows - 0.5,
                xref=xref,
                yref=yref,
                line=dict(color=CUE, width=1.5),
            )
        for r in np.flatnonzero(view.rows.cue):
            fig.add_shape(
                type="rect",
                x0=-0.5,
                x1=n_cols - 0.5,
                y0=r - 0.5,
                y1=r + 0.5,
                xref=xref,
                yref=yref,
                line=dict(color=CUE, width=1.5),
            )
        font = 10 if n_cols <= 60 else 8
        shown = labelled_columns(view.cols, MIN_PLOT_PX * widths[k - 1] / sum(widths), font)
        ticks = _ticks(view.cols)
        fig.update_xaxes(
            tickmode="array",
            tickvals=shown,
            ticktext=[ticks[i] for i in shown],
            tickangle=-90,
            tickfont=dict(size=font),
            showgrid=False,
            row=1,
            col=k,
        )
    first = views[0]
    fig.update_yaxes(
        tickmode="array",
        tickvals=list(range(len(first.rows.labels))),
        ticktext=_ticks(first.rows),
        autorange="reversed",
        tickfont=dict(size=11),
        showgrid=False,
    )
    notes = list(dict.fromkeys(n for v in views for n in v.notes))
    subtitle = "<br>".join([wrap_segments(LEGEND)] + [esc(n) for n in notes])
    fig.update_layout(
        title=dict(text=esc(title), subtitle=dict(text=subtitle, font=dict(size=11))),
        font=FONT,
        template="plotly_white",
        height=max(320, 190 + 22 * len(first.rows.labels)),
        margin=dict(l=10, r=10, t=130 + 18 * subtitle.count("<br>"), b=10),
    )
    return fig


def delta_bars(deltas: pd.DataFrame, title: str = "", labels: Sequence[str] = ("d1", "d2")) -> go.Figure:
    """Per query token, max_j sim(q_i, d1_j) - max_j sim(q_i, d2_j). Grey: the best match
    barely moved (|Δ| < 1% of the largest row maximum): where the model did not see a change."""
    d1, d2 = (esc(x) for x in labels)
    scale = float(np.nanmax(np.abs(deltas[["max_d1", "max_d2"]].to_numpy()))) if len(deltas) else 1.0
    eps = 0.01 * (scale or 1.0)
    colours = [OFF if abs(x) < eps else FAVOURS_D1 if x > 0 else FAVOURS_D2 for x in deltas["delta"]]
    custom = (
        deltas[["max_d1", "max_d2"]]
        .assign(b1=[esc(x) for x in deltas["best_d1"]], b2=[esc(x) for x in deltas["best_d2"]])
        .to_numpy(dtype=object)
    )
    fig = go.Figure(
        go.Bar(
            x=list(range(len(deltas))),
            y=deltas["delta"],
            customdata=custom,
            marker=dict(
                color=colours, line=dict(color=[CUE if c else "rgba(0,0,0,0)" for c in deltas["cue"]], width=2.5)
            ),
            hovertemplate=(
                f"Δ = %{{y:+.3f}}<br>best in {d1}: %{{customdata[2]}} (%{{customdata[0]:.3f}})"
                f"<br>best in {d2}: %{{customdata[3]}} (%{{customdata[1]:.3f}})<extra></extra>"
            ),
        )
    )
    ticks = [
        tick_label(t, k, p, c, False)
        for t, k, p, c in zip(deltas["token"], deltas["kind"], deltas["part"], deltas["cue"])
    ]
    total = float(deltas["delta"].sum())
    fig.add_hline(y=0, line_color="#52525b", line_width=1)
    fig.update_layout(
        title=dict(
            text=esc(title) or f"Δ per query token: max sim to {d1} − max sim to {d2}",
            subtitle=dict(
                text=wrap_segments(
                    f"Σ Δ over the drawn tokens = {total:+.3f} · <span style='color:{FAVOURS_D1}'>"
                    f"blue: closer to {d1}</span> · <span style='color:{FAVOURS_D2}'>orange: closer to "
                    f"{d2}</span> · grey: best match did not move (|Δ| < {eps:.3g})"
                ),
                font=dict(size=11),
            ),
        ),
        xaxis=dict(tickmode="array", tickvals=list(range(len(deltas))), ticktext=ticks, tickangle=-60),
        yaxis_title="Δ max similarity",
        font=FONT,
        template="plotly_white",
        height=360,
        margin=dict(l=10, r=10, t=100, b=10),  # the title and a subtitle of two lines
        showlegend=False,
    )
    return fig


RIGHT, WRONG = "#16a34a", CUE  # a query whose document is ranked first / not


def margin_bars(table: pd.DataFrame, title: str = "") -> go.Figure:
    """Playground: per model and query, s(q_i, its document) − the best other document. One panel
    per model, each on its own axis and titled with its score unit (scores of different models are
    not comparable: a MiniLM margin of 0.01 would vanish beside SPLADE's −2); 0 in the middle of
    each, right of it the model ranks the intended document first. ``table`` has model, query,
    margin, correct (optionally unit, and version: 'original' / 'edited')."""
    versions = table["version"].unique().tolist() if "version" in table else [None]
    pinned = len(versions) > 1  # an edited version beside the pinned original
    models = list(dict.fromkeys(table["model"]))
    units = table.groupby("model", sort=False)["unit"].first() if "unit" in table else pd.Series(dtype=str)
    unit = {m: str(units.get(m, "score")) for m in models}
    bars = len(versions) * table.groupby("model")["query"].nunique().max() if len(table) else 1
    panel_px, gap_px = 24 + 20 * bars, 70  # bars, then the axis and the next panel's title
    height = int(60 + len(models) * (panel_px + gap_px) + 70)  # an int: Streamlit ignores numpy heights
    fig = make_subplots(
        rows=max(len(models), 1),
        cols=1,
        subplot_titles=[f"<b>{esc(m)}</b> · score: {esc(unit[m])}" for m in models],
        vertical_spacing=gap_px / height,
    )
    for r, model in enumerate(models, start=1):
        mine = table[table["model"] == model]
        for version in versions:
            part = mine if version is None else mine[mine["version"] == version]
            fig.add_trace(
                go.Bar(
                    x=part["margin"],
                    y=[esc(q) for q in part["query"]],
                    orientation="h",
                    name=esc(version or "margin"),
                    showlegend=False,
                    marker=dict(
                        color=[RIGHT if c else WRONG for c in part["correct"]],
                        opacity=0.45 if pinned and version == "original" else 1.0,
                        pattern_shape="/" if pinned and version == "original" else "",
                    ),
                    customdata=[[esc(model), esc(version or ""), esc(unit[model])]] * len(part),
                    hovertemplate="<b>%{customdata[0]}</b> · %{y} %{customdata[1]}<br>margin %{x:+.4f} "
                    "(%{customdata[2]})<extra></extra>",
                ),
                row=r,
                col=1,
            )
        reach = float(mine["margin"].abs().max()) if len(mine) else 0.0
        reach = reach * 1.15 if reach > 0 else 1.0  # 0 in the middle: the sign reads at a glance
        fig.update_xaxes(
            range=[-reach, reach],
            zeroline=True,
            zerolinecolor="#52525b",
            zerolinewidth=1.5,
            title=dict(text=f"margin ({esc(unit[model])})", font=dict(size=12), standoff=4),
            row=r,
            col=1,
        )
        fig.update_yaxes(autorange="reversed", type="category", row=r, col=1)
    for note in fig.layout.annotations[: len(models)]:  # panel titles to the left
        note.update(x=0, xanchor="left", font=dict(size=13))
    # the colours (and the pinned original's hatching) named once, in the legend
    keys = [(RIGHT, "", 1.0, "its document ranked first"), (WRONG, "", 1.0, "another document ranked first")]
    if pinned and "original" in versions:
        keys.append(("#a1a1aa", "/", 0.45, "original (pinned; plain bars: edited)"))
    for colour, pattern, opacity, name in keys:
        fig.add_trace(
            go.Bar(
                x=[None],
                y=[None],
                name=name,
                marker=dict(color=colour, pattern_shape=pattern, opacity=opacity),
                hoverinfo="skip",
            )
        )
    fig.update_layout(
        title=dict(
            text=esc(title) or "Margin of the intended document: s(q, its document) − the best other",
            x=0,
            xanchor="left",
        ),
        barmode="group",
        font=FONT,
        template="plotly_white",
        height=height,
        margin=dict(l=10, r=10, t=60, b=70),
        legend=dict(orientation="h", yref="container", yanchor="bottom", y=0, x=0),
    )
    return fig
