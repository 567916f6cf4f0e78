"""Figures of the heatmap and error-preference pages: DataFrame in, plotly figure out.

Pure builders, tested directly (traces, values, labels). Each figure names its metric, n,
dataset and models in its title or hover, so an exported PNG stands on its own in a paper.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from negviz.charts.alignment import esc
from negviz.charts.style import BASELINE_COLOR, FONT, NOTE_COLOR, legend_below
from negviz.core.kinds import category_words
from negviz.language.text.words import counted

GREY = "#d4d4d8"
BELOW = "▾"  # marks a cell below the random baseline
NS = "ns"  # marks a difference whose 95% CI spans 0 (a superscript after the value)
# Diverging around the baseline: red = worse than random, blue = better.
DIVERGING = [[0.0, "#b91c1c"], [0.5, "#f5f5f4"], [1.0, "#1d4ed8"]]
CATEGORY_COLORS = {
    "correct": "#16a34a",
    "prefers_original": "#f97316",
    "prefers_edited": "#a855f7",
    "reversed": "#dc2626",
    "wrong": "#dc2626",
    "tie": "#a1a1aa",
}
CATEGORY_STYLE = {c: (category_words(c), color) for c, color in CATEGORY_COLORS.items()}  # label, colour
MARGIN_COLORS = ("#2563eb", "#ea580c")
TIE_NAME = "tie (margin 0): left of it the wrong document ranks first"

# Heatmap sizing: plotly neither wraps labels nor sizes a figure to its content, so the builder
# does both from character counts. CHAR_EM is a generous average glyph width (Helvetica, Arial and
# Liberation Sans average ~0.45-0.5 em on mixed-case text, Inter a little more).
CELL_FONT = 12  # px, cell text, column and model labels
CHAR_EM = 0.55
ROW_PX = 56  # per model row: two lines of cell text
COL_MIN_CHARS, COL_MAX_CHARS = 9, 13  # per-column character budget (a longer word is hyphenated)
CELL_CHARS = 9  # the widest cell text line: "-80.0 pp" + "ns", "37.7% ▾", "n=1,383"
NAME_CHARS = 16  # model names are wrapped at hyphens to this many characters a line
LINE_PX = 16  # one line of 12 px text
NOTE_PX = 18  # one line of the footnote under the figure
RIGHT_PX = 16


def char_px(size: int = CELL_FONT) -> float:
    return size * CHAR_EM


def _wrap(label: str, width: int = 12, hyphens: bool = True) -> str:
    """Break a long label into lines of at most ``width`` characters (plotly does not wrap):
    at spaces, then (with ``hyphens``) after hyphens; a word longer than a line is hyphenated."""
    pieces = []
    for word in str(label).split():
        if not hyphens:
            pieces.append((word, False))
            continue
        parts = [p + "-" for p in word.split("-")[:-1]] + [word.split("-")[-1]]
        for k, part in enumerate(p for p in parts if p):
            while len(part) > width:  # an unbreakable word: hyphenate it
                pieces.append((part[: width - 1] + "-", k > 0 or bool(pieces and pieces[-1][0].endswith("-"))))
                part = part[width - 1 :]
            pieces.append((part, k > 0))
    lines, line = [], ""
    for part, glued in pieces:  # glued: follows a hyphen, no space before it
        joined = f"{line}{part}" if (glued or line.endswith("-")) else f"{line} {part}".strip()
        if line and len(joined) > width:
            lines.append(line)
            line = part
        else:
            line = joined
    return "<br>".join(lines + [line])


@dataclass(frozen=True)
class HeatmapSize:
    """Pixel layout of a heatmap sized to its content (heatmap_size)."""

    width: int
    height: int
    col_px: int  # width of one column (cell)
    row_px: int
    col_chars: int  # character budget of one line of a column label
    left: int  # margins: model names, title, column labels + colour bar + notes
    top: int
    bottom: int
    x_labels: list[str]  # wrapped with <br>
    y_labels: list[str]
    title: str


def heatmap_size(rows: list[str], labels: list[str], title: str = "", n_notes: int = 0) -> HeatmapSize:
    """Size a models x columns heatmap from its content: a column is as wide as its longest label
    word (within COL_MIN_CHARS..COL_MAX_CHARS) and its widest cell text; labels are wrapped to
    that budget, model names at hyphens; the height grows with the rows, label lines and notes."""
    px = char_px()
    words = [len(w) for label in labels for w in str(label).replace("-", "- ").split()] or [0]
    col_chars = min(max(max(words), COL_MIN_CHARS, CELL_CHARS), COL_MAX_CHARS)
    col_px = int(np.ceil(col_chars * px)) + 10
    x_labels = [_wrap(label, col_chars) for label in labels]
    y_labels = [_wrap(name, NAME_CHARS) for name in rows]
    name_chars = max((len(line) for y in y_labels for line in y.split("<br>")), default=0)
    left = int(np.ceil(name_chars * px)) + 16
    label_lines = max((x.count("<br>") + 1 for x in x_labels), default=1)
    plot_w = col_px * max(len(labels), 1)
    width = max(left + plot_w + RIGHT_PX, 360)
    title_chars = max(int((width - 10) / char_px(15)), 20)
    title = _wrap(title, title_chars, hyphens=False)
    top = 14 + 20 * (title.count("<br>") + 1) + 12
    colorbar_px = 64  # horizontal bar, its ticks and title
    bottom = 8 + LINE_PX * label_lines + 12 + colorbar_px + NOTE_PX * n_notes
    height = int(top + ROW_PX * max(len(rows), 1) + bottom)
    return HeatmapSize(
        width=int(width),
        height=height,
        col_px=col_px,
        row_px=ROW_PX,
        col_chars=col_chars,
        left=left,
        top=int(top),
        bottom=int(bottom),
        x_labels=x_labels,
        y_labels=y_labels,
        title=title,
    )


def ci_spans_zero(low: float, high: float) -> bool:
    """A difference whose 95% CI holds 0 is no clear difference (marked NS in the heatmap)."""
    return bool(np.isfinite(low) and np.isfinite(high) and low <= 0.0 <= high)


def heatmap_notes(min_n: int, grey: bool, reference: str | None, ns: bool, n_warning: str | None = None) -> list[str]:
    """The footnote lines of a heatmap: what grey cells, the ns mark and very different n mean."""
    notes = []
    if grey:
        notes.append(f"grey cell: fewer than {min_n} items (only n shown; too few to read)")
    if reference is not None and ns:
        notes.append(f"{NS}: the 95% CI of the difference spans 0 (no clear difference)")
    if n_warning:
        notes.append("⚠ " + n_warning)
    return notes


def category_label(category: str) -> str:
    return category_words(category)


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
    n_warning: str | None = None,
) -> go.Figure:
    """Models x columns of ``cells`` (per_type.cell_table), sized to its content (heatmap_size).
    Accuracy cells are coloured around the random baseline and marked ▾ below it; cells with
    n < min_n are grey and show only their n. With ``reference`` the values are differences in
    percentage points to that model, marked NS where their 95% CI spans 0. ``n_warning``
    (per_type.n_warning) is printed under the figure, with the notes on grey cells and NS."""
    names = [(column_labels or {}).get(c, c) for c in columns]
    table = cells.set_index(["model", "column"])
    shape = (len(rows), len(columns))
    z, grey = np.full(shape, np.nan), np.full(shape, np.nan)
    text = np.full(shape, "", dtype=object)
    custom = np.empty(shape, dtype=object)
    any_ns = False
    for i, model in enumerate(rows):
        for j, column in enumerate(columns):
            if (model, column) not in table.index:
                text[i, j] = "no items"
                custom[i, j] = (model, column, 0, np.nan, np.nan, np.nan, "no items", names[j])
                continue
            c = table.loc[(model, column)]
            v, lo, hi, n = c["value"] * 100, c["ci_low"] * 100, c["ci_high"] * 100, int(c["n"])
            if n == 0:
                text[i, j] = "no items"
                note = "no shared items with the reference" if reference is not None else "no items"
            elif not c["enough"]:
                grey[i, j] = 1
                text[i, j] = f"n={n:,}"
                note = f"grey: n={n:,} is below min n {min_n}, too few to read"
            elif reference is not None and model == reference:
                z[i, j] = 0.0
                text[i, j] = f"reference<br>n={n:,}"
                note = "the reference model"
            elif reference is not None:
                z[i, j] = v
                spans = ci_spans_zero(lo, hi)
                any_ns |= spans
                text[i, j] = f"{v:+.1f} pp{f'<sup>{NS}</sup>' if spans else ''}<br>n={n:,}"
                note = f"difference to {reference} on the same items" + (
                    f"<br>{NS}: the 95% CI spans 0, no clear difference" if spans else ""
                )
            else:
                z[i, j] = v
                below = baseline is not None and v < baseline * 100
                text[i, j] = f"{v:.1f}%{' ' + BELOW if below else ''}<br>n={n:,}"
                note = f"below random ({baseline:.0%})" if below else ""
            custom[i, j] = (model, column, n, v, lo, hi, note, names[j])
    notes = heatmap_notes(min_n, bool(np.isfinite(grey).any()), reference, any_ns, n_warning)
    size = heatmap_size(rows, names, title, 0)
    # Notes wrap to the figure's width: size once more with their line count.
    note_lines = [_wrap(note, max(int((size.width - 20) / char_px(12)), 30)) for note in notes]
    size = heatmap_size(rows, names, title, sum(n.count("<br>") + 1 for n in note_lines))
    labels, ylabels = size.x_labels, size.y_labels
    fig = go.Figure()
    fig.add_trace(
        go.Heatmap(
            z=grey,
            x=labels,
            y=ylabels,
            colorscale=[[0, GREY], [1, GREY]],
            showscale=False,
            hoverinfo="skip",
            name="under min n",
            xgap=2,
            ygap=2,
        )
    )
    unit = "pp" if reference is not None else "%"
    plot_w = size.width - size.left - RIGHT_PX
    plot_h = size.height - size.top - size.bottom
    notes_px = NOTE_PX * sum(note.count("<br>") + 1 for note in note_lines)
    bar = dict(  # horizontal, under the column labels and above the notes: width is scarce
        orientation="h",
        thickness=12,
        len=min(plot_w, 320),
        lenmode="pixels",
        xref="container",
        x=size.left / size.width,
        xanchor="left",
        yref="container",
        y=(notes_px + 12) / size.height,
        yanchor="bottom",
        ticks="outside",
        tickfont=dict(size=CELL_FONT),
        ticklabeloverflow="allow",  # the end labels stick out of the bar
    )
    if reference is not None:
        span = float(np.nanmax(np.abs(z))) if np.isfinite(z).any() and np.nanmax(np.abs(z)) > 0 else 1.0
        zmin, zmax, zmid = -span, span, 0.0
        colorbar = dict(
            bar,
            title=dict(text="difference (percentage points)", side="bottom", font=dict(size=13)),
            ticksuffix=" pp",
        )
    else:
        zmin, zmax, zmid = 0.0, 100.0, (baseline if baseline is not None else 0.5) * 100
        ticks = sorted({0.0, 50.0, 100.0, zmid} - ({50.0} if abs(zmid - 50) < 15 and zmid != 50 else set()))
        colorbar = dict(
            bar,
            title=dict(text=f"{metric} (%)", side="bottom", font=dict(size=13)),
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
            y=ylabels,
            zmin=zmin,
            zmax=zmax,
            colorscale=scale,
            colorbar=colorbar,
            text=text,
            texttemplate="%{text}",
            textfont=dict(size=CELL_FONT),
            hoverinfo="skip",
            name=metric,
            xgap=2,
            ygap=2,
        )
    )
    # Invisible points on the cells carry the hover and make a cell clickable (plotly selects points).
    xs, ys, cd = [], [], []
    for i in range(len(rows)):
        for j in range(len(columns)):
            xs.append(labels[j])
            ys.append(ylabels[i])
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
            marker=dict(symbol="square", size=min(size.col_px, size.row_px) - 8, color="rgba(0,0,0,0)"),
            hovertemplate=(
                "<b>%{customdata[0]}</b> · %{customdata[7]}<br>"
                + value_name
                + " %{customdata[3]:.1f} "
                + unit
                + "<br>95% CI %{customdata[4]:.1f} to %{customdata[5]:.1f} "
                + unit
                + "<br>n = %{customdata[2]:,}<br>%{customdata[6]}<extra></extra>"
            ),
        )
    )
    # Fixed ranges: the hover markers would pad an autorange, leaving gaps around the cells.
    fig.update_yaxes(range=[len(rows) - 0.5, -0.5], type="category", title=None, tickfont=dict(size=CELL_FONT))
    fig.update_xaxes(
        range=[-0.5, len(columns) - 0.5],
        type="category",
        side="bottom",
        title=None,
        tickangle=0,
        tickfont=dict(size=CELL_FONT),
    )
    if note_lines:  # the legend of grey cells, the ns mark and very different n, under the bar
        fig.add_annotation(
            text="<br>".join(note_lines),
            align="left",
            showarrow=False,
            xref="paper",
            x=-size.left / plot_w,
            xanchor="left",
            yref="paper",
            y=(notes_px + 4 - size.bottom) / plot_h,
            yanchor="top",
            font=dict(size=12, color=NOTE_COLOR),
        )
    fig.update_layout(clickmode="event+select", dragmode=False)
    fig = _layout(fig, size.title, height=size.height)
    fig.update_layout(
        width=size.width,
        margin=dict(l=size.left, r=RIGHT_PX, t=size.top, b=size.bottom, autoexpand=False),
        title=dict(font=dict(size=15), y=1, yref="container", yanchor="top", pad=dict(t=12)),
    )
    return fig


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
    height = max(300, 120 + 40 * comparison["label"].nunique())
    fig.update_layout(
        barmode="group",
        # under the x axis title, in pixels: a fraction of the plot would slide into it
        legend=dict(orientation="h", yanchor="top", y=-70 / max(height - 120, 1), x=0),
        xaxis_title="share of items (%)",
        yaxis=dict(autorange="reversed"),
    )
    fig.update_xaxes(range=[0, max(100.0, float(comparison["share"].max() * 110) if len(comparison) else 100.0)])
    fig = _layout(fig, title, height=height)
    fig.update_layout(margin=dict(b=100))
    return fig


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
    n_bars = len(order) * (len(facets) if faceted else 1)
    plot_h = max(110, 34 * n_bars + (12 * len(order) if not faceted else 0))
    labels = [CATEGORY_STYLE.get(cat, (cat, ""))[0] for cat in categories]
    legend, bottom = legend_below(labels, plot_h)
    top = 70 if "<br>" in title else 50
    fig.update_layout(
        barmode="stack",
        legend=legend | dict(traceorder="normal"),
        xaxis=dict(title="share of items (%)", range=[0, 100]),
        clickmode="event+select",
        dragmode=False,
    )
    fig.update_yaxes(autorange="reversed", title=None)
    if not faceted:  # each model's own n under its name: runs may cover different items
        n = prefs.groupby("model", sort=False)["n"].first()
        fig.update_yaxes(tickmode="array", tickvals=order, ticktext=[model_tick(m, int(n[m])) for m in order])
    fig = _layout(fig, title, height=top + plot_h + bottom)
    fig.update_layout(margin=dict(t=top, b=bottom))
    return fig


def model_tick(model: str, n: int, unit: str = "item") -> str:
    """A model's axis label with its own n under its name (escaped: a stored name is text)."""
    return f"{esc(model)}<br><span style='font-size:11px'>n = {counted(n, unit)}</span>"


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
    titles = [f"{esc(m)} · n = {counted(int((outcomes['model'] == m).sum()), 'item')}" for m in models]
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
                    hovertemplate=name + " in %{x}<br>%{y} items<extra>" + esc(model) + "</extra>",
                ),
                row=i,
                col=1,
            )
        fig.update_yaxes(title_text="items", row=i, col=1)
    for note in fig.layout.annotations[: len(models)]:  # subplot titles to the left
        note.update(x=0, xanchor="left", font=dict(size=13))
    # The tie line in each row, added at once (add_vline per row costs ~50 ms of validation each);
    # named once in the legend, not beside each line, where a label would sit on the histogram's peak.
    axes = [("x", "y") if i == 1 else (f"x{i}", f"y{i}") for i in range(1, len(models) + 1)]
    tie = dict(color=BASELINE_COLOR, dash="dash")
    fig.update_layout(
        shapes=[dict(type="line", x0=0, x1=0, xref=x, y0=0, y1=1, yref=f"{y} domain", line=tie) for x, y in axes]
    )
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", line=tie, name=TIE_NAME, hoverinfo="skip"))
    fig.update_xaxes(title_text="margin (the model's own score scale)", row=len(models), col=1)
    height = 140 + 190 * len(models)
    fig.update_layout(barmode="overlay", legend=dict(orientation="h", yanchor="top", y=-70 / (height - 120), x=0))
    fig = _layout(fig, title, height=height)
    fig.update_layout(margin=dict(b=90))
    return fig
