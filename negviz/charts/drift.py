"""Figures of fine-tuning drift (NevIR App. C Fig. 8 and Fig. 5): pure builders, DataFrames in.

``drift_figure``: per epoch, the distribution of the held-out cosines (violin or box, with mean
± 1 std) above the held-out measure with its 95% CI, on one shared epoch axis, one colour per
run: for NevIR-pair runs cos(E(d1), E(d2)) and paired accuracy, for sentence/negation runs
(CANNOT, triplet files) cos(sentence, its negation) and the DEMETR negation sensitivity ratio
(negviz.finetune.views.measure). ``pair_trajectory``: one pair's margins and cosine across epochs,
the chosen epoch marked. Every figure carries the runs' data line (which split, how many pairs).
"""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from negviz.charts.style import BASELINE_COLOR, FONT, legend_rows
from negviz.finetune.views import DEMETR, PAIRED, measure

RUN_COLORS = ("#2563eb", "#ea580c", "#16a34a", "#7c3aed", "#db2777", "#0891b2", "#ca8a04", "#52525b")
SHAPES = ("violin", "box")


def _rgba(hex_color: str, alpha: float) -> str:
    h = hex_color.lstrip("#")
    return f"rgba({int(h[0:2], 16)},{int(h[2:4], 16)},{int(h[4:6], 16)},{alpha})"


def _offsets(n: int, span: float = 0.7) -> tuple[list[float], float]:
    width = span / max(n, 1)
    return [(i - (n - 1) / 2) * width for i in range(n)], width


def _notes(notes: dict[str, str], width: int = 75) -> str:
    """The runs' data lines, wrapped so that a figure in a 1,000 px window shows them whole."""
    lines = [f"{label}: {note}" if len(notes) > 1 else note for label, note in notes.items()]
    return "<br>".join(part for line in lines for part in textwrap.wrap(line, width, subsequent_indent="   "))


SUB_LINE, TITLE_H = 16, 30  # px of one subtitle line (12 px font) and of the title line


def _heading(fig: go.Figure, title: str, subtitle: list[str], above: int) -> int:
    """The title, and under it the subtitle's lines, placed in pixels above the plots (``above``
    px left free for subplot titles), so neither meets a subplot title nor the legend; returns
    the top margin they need."""
    sub_h = SUB_LINE * len(subtitle)
    lines = textwrap.wrap(title, 48) or [""]  # about 540 px at the title's 17 px (1,000 px page)
    fig.update_layout(
        title=dict(
            text="<br>".join(lines),
            x=0,
            xref="paper",
            xanchor="left",
            y=1,
            yref="paper",
            yanchor="bottom",
            pad=dict(b=above + sub_h + 6 + TITLE_H * (len(lines) - 1)),  # plotly anchors the first line
        ),
    )
    if subtitle:
        fig.add_annotation(
            text="<br>".join(subtitle),
            xref="paper",
            yref="paper",
            x=0,
            y=1,
            yshift=above,
            xanchor="left",
            yanchor="bottom",
            showarrow=False,
            align="left",
            font=dict(size=12, color="#52525b"),
        )
    return above + sub_h + 6 + TITLE_H * len(lines) + 12


def drift_figure(
    epochs: pd.DataFrame,
    cosines: pd.DataFrame,
    notes: dict[str, str] | None = None,
    shape: str = "violin",
    title: str | None = None,
    baseline: float | None = None,
) -> go.Figure:
    """``epochs``: run, epoch, cos_mean, cos_std and the run's held-out measure with its CI
    (paired_accuracy, ci_low, ci_high; or demetr_ratio, demetr_ratio_ci_low, _ci_high), one row
    per run and epoch. ``cosines``: run, epoch, item_id, cos (one row per held-out item and
    epoch). ``notes``: run -> its data line, printed under the plot. ``baseline``: the chance
    level of paired accuracy, drawn when every run measures it."""
    if shape not in SHAPES:
        raise ValueError(f"shape must be one of {', '.join(SHAPES)}, not {shape!r}")
    notes = notes or {}
    runs = list(dict.fromkeys(epochs["run"]))
    measures = {run: measure(epochs[epochs["run"] == run]) for run in runs}
    kinds = set(measures.values()) or {PAIRED}
    only = next(iter(kinds)) if len(kinds) == 1 else None
    if title is None:
        title = only.title if only else "Held-out cosine and held-out measure across fine-tuning"
    offsets, width = _offsets(len(runs))
    # one axis per measure: paired accuracy (%) and the DEMETR ratio never share one
    order = [m for m in (PAIRED, DEMETR) if m in kinds] or [PAIRED]
    row_of = {m: 2 + i for i, m in enumerate(order)}
    rows = 1 + len(order)
    plot_h = 560 if rows == 2 else 760
    fig = make_subplots(
        rows=rows,
        cols=1,
        shared_xaxes=True,
        row_heights=[0.6, 0.4] if rows == 2 else [0.46, 0.27, 0.27],
        vertical_spacing=0.06 if rows == 2 else 0.05,
    )
    bars: dict = {m: ([], []) for m in order}  # every measure's error-bar ends, for its axis range
    for run, off, color in zip(runs, offsets, RUN_COLORS * 4):
        ep = epochs[epochs["run"] == run].sort_values("epoch")
        m = measures[run]
        scale = 100 if m.percent else 1
        value = ep[m.column].astype(float)
        low, high = ep[m.ci_low].astype(float), ep[m.ci_high].astype(float)
        cs = cosines[cosines["run"] == run]
        for e in ep["epoch"]:
            vals = cs.loc[cs["epoch"] == e, "cos"].to_numpy()
            common = dict(
                x=np.full(len(vals), e + off),
                y=vals,
                name=run,
                legendgroup=run,
                showlegend=False,
                line=dict(color=color, width=1),
                fillcolor=_rgba(color, 0.25),
                hovertemplate=f"{run}<br>epoch {e}<br>cos %{{y:.4f}}<extra></extra>",
            )
            if shape == "violin":
                fig.add_trace(
                    go.Violin(**common, width=width * 0.95, points=False, spanmode="hard", scalemode="width"),
                    row=1,
                    col=1,
                )
            else:
                fig.add_trace(
                    go.Box(**common, width=width * 0.8, boxpoints="outliers", marker=dict(size=3, color=color)),
                    row=1,
                    col=1,
                )
        fig.add_trace(
            go.Scatter(
                x=ep["epoch"] + off,
                y=ep["cos_mean"],
                mode="markers+lines",
                name=run,
                legendgroup=run,
                marker=dict(color=color, size=9, symbol="diamond", line=dict(color="#18181b", width=1)),
                line=dict(color=color, width=1, dash="dot"),
                error_y=dict(type="data", array=ep["cos_std"], visible=True, color="#18181b", thickness=1.5, width=5),
                customdata=ep[["cos_std"]].to_numpy(),
                hovertemplate=f"{run}<br>epoch %{{x:.0f}}<br>mean cos %{{y:.4f}} ± %{{customdata[0]:.4f}}<extra></extra>",
            ),
            row=1,
            col=1,
        )
        fmt, unit = (".1f", "%") if m.percent else (".3f", "")
        n = ep["demetr_n"] if m.column == "demetr_ratio" and "demetr_n" in ep else ep["n"]
        bars[m][0].extend(low * scale)
        bars[m][1].extend(high * scale)
        fig.add_trace(
            go.Scatter(
                x=ep["epoch"] + off,
                y=value * scale,
                mode="markers+lines",
                name=run,
                legendgroup=run,
                showlegend=False,
                marker=dict(color=color, size=9),
                line=dict(color=color, width=2),
                error_y=dict(
                    type="data",
                    array=(high - value) * scale,
                    arrayminus=(value - low) * scale,
                    visible=True,
                    color=color,
                ),
                customdata=pd.concat([low * scale, high * scale, n.astype(float)], axis=1).to_numpy(),
                hovertemplate=(
                    f"{run}<br>epoch %{{x:.0f}}<br>{m.label.split(' (')[0]} %{{y:{fmt}}}{unit}<br>"
                    f"95% CI %{{customdata[0]:{fmt}}}-%{{customdata[1]:{fmt}}}{unit}, "
                    "n=%{customdata[2]:.0f}<extra></extra>"
                ),
            ),
            row=row_of[m],
            col=1,
        )
    if baseline is not None and PAIRED in row_of:  # paired accuracy's chance level (datasets.facts)
        fig.add_hline(
            y=baseline * 100,
            line_dash="dash",
            line_color=BASELINE_COLOR,
            row=row_of[PAIRED],
            col=1,
            annotation_text=f"random {baseline:.0%}",
            annotation_position="bottom right",
        )
    ticks = sorted(epochs["epoch"].unique()) if len(epochs) else [0]
    labels = ["0<br>before" if e == 0 else str(e) for e in ticks]
    fig.update_xaxes(
        tickvals=ticks, ticktext=labels, range=[min(ticks) - 0.5, max(ticks) + 0.5], row=rows, col=1, title_text="epoch"
    )
    for row in range(1, rows):
        fig.update_xaxes(tickvals=ticks, ticktext=labels, row=row, col=1)
    cos_title = (
        "pair cosine cos(E(d1), E(d2))"
        if only is PAIRED
        else ("cos(E(sentence), E(negation))" if only else "held-out cosine")
    )
    fig.update_yaxes(title_text=cos_title, row=1, col=1)
    for m in order:
        low, high = bars[m]
        if baseline is not None and m is PAIRED:
            low, high = [*low, baseline * 100], [*high, baseline * 100]
        fig.update_yaxes(
            title_text="paired accuracy (%)" if m.percent else "sensitivity ratio (DEMETR)",
            range=_axis_range(
                [0.0, *low], [0.0, *high], top=100 if m.percent else None, floor=0.0 if m.percent else None
            )
            if low
            else None,
            row=row_of[m],
            col=1,
        )
    note = _notes(notes, width=75)
    lines = note.count("<br>") + 1 if note else 0
    what = "; ".join(f"{m.cosine} above {m.label.split(' (')[0]}" for m in order)
    sub = textwrap.wrap(f"per epoch: {what} (◆ mean ± 1 std, 95% CI); epoch 0 = before training", 75)
    top = _heading(fig, title, sub, 8)  # the title and its subtitle, above the plots
    below_axis = 62  # tick labels on two lines and the axis title
    legend_h = 32 * legend_rows(runs)
    bottom = below_axis + legend_h + 10 + 16 * lines + 10
    fig.update_layout(
        font=FONT,
        template="plotly_white",
        height=top + plot_h + bottom,
        margin=dict(l=10, r=20, t=top, b=bottom),
        violinmode="overlay",
        boxmode="overlay",
        # under the epoch axis, never over the title or its subtitle
        legend=dict(orientation="h", yanchor="top", y=-below_axis / plot_h, xanchor="left", x=0),
    )
    if note:
        fig.add_annotation(
            text=note,
            xref="paper",
            yref="paper",
            x=0,
            y=0,
            yshift=-(below_axis + legend_h + 10),
            yanchor="top",
            xanchor="left",
            showarrow=False,
            align="left",
            font=dict(size=11, color="#52525b"),
        )
    return fig


def pair_trajectory(pair: pd.DataFrame, epoch: int, title: str = "", note: str = "") -> go.Figure:
    """One pair across epochs. ``pair``: epoch, margin1, margin2, cos (a row per epoch).
    margin1 = s(q1, d1) - s(q1, d2), margin2 = s(q2, d2) - s(q2, d1): both above zero means
    the pair is right. Without margins (a sentence and its negation) only the cosine is drawn."""
    pair = pair.sort_values("epoch")
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    margins = (("margin1", "q1: s(q1,d1) − s(q1,d2)", "#2563eb"), ("margin2", "q2: s(q2,d2) − s(q2,d1)", "#16a34a"))
    has_margins = "margin1" in pair.columns
    for col, name, color in margins if has_margins else ():
        fig.add_trace(
            go.Scatter(
                x=pair["epoch"],
                y=pair[col],
                name=name,
                mode="lines+markers",
                line=dict(color=color, width=2),
                hovertemplate=f"{name}<br>epoch %{{x}}: %{{y:.4f}}<extra></extra>",
            ),
            secondary_y=False,
        )
    cos_name = "cos(E(d1), E(d2))" if has_margins else "cos(E(sentence), E(negation))"
    fig.add_trace(
        go.Scatter(
            x=pair["epoch"],
            y=pair["cos"],
            name=cos_name,
            mode="lines+markers",
            line=dict(color="#ea580c", width=2, dash="dot"),
            hovertemplate="cos %{y:.4f} at epoch %{x}<extra></extra>",
        ),
        secondary_y=has_margins,
    )
    if has_margins:
        fig.add_hline(y=0, line_color=BASELINE_COLOR, line_dash="dash", secondary_y=False)
    fig.add_vline(
        x=epoch, line_color="#18181b", line_width=1, annotation_text=f"epoch {epoch}", annotation_position="top left"
    )
    fig.update_xaxes(title_text="epoch", tickvals=sorted(pair["epoch"].unique()))
    if has_margins:
        fig.update_yaxes(title_text="margin (> 0: ranked right)", secondary_y=False, zeroline=False)
        fig.update_yaxes(title_text="cosine", secondary_y=True, showgrid=False, tickformat=".3f")
    else:
        fig.update_yaxes(title_text="cosine (lower: the negation told apart)", tickformat=".3f")
    note = _notes({"": note}) if note else ""
    lines = note.count("<br>") + 1 if note else 0
    fig.update_layout(
        title=title,
        font=FONT,
        template="plotly_white",
        height=380 + 16 * lines,
        margin=dict(l=10, r=10, t=60, b=50 + 16 * lines),
        legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="right", x=1.0),
    )
    if note:
        fig.add_annotation(
            text=note,
            xref="paper",
            yref="paper",
            x=0,
            y=0,
            yshift=-50,
            yanchor="top",
            xanchor="left",
            showarrow=False,
            align="left",
            font=dict(size=11, color="#52525b"),
        )
    return fig


def _axis_range(
    low: list[float], high: list[float], top: float | None = None, floor: float | None = None
) -> list[float]:
    """A y range that holds every value and error bar (``low``..``high``) with a margin; a
    percent axis (``top`` = 100) never starts below 0 nor ends far above 100, an axis with a
    ``floor`` never below it."""
    lo, hi = float(np.nanmin(low)), float(np.nanmax(high))
    pad = max((hi - lo) * 0.1, (top or abs(hi) or 1.0) * 0.02)
    lo, hi = lo - pad, hi + pad
    if top is not None:
        lo, hi = max(lo, 0.0), min(hi, top + pad)
    if floor is not None:
        lo = max(lo, floor)
    return [lo, hi]


def tradeoff_figure(table: pd.DataFrame, notes: dict[str, str] | None = None) -> go.Figure:
    """Gain on negation against loss elsewhere, epoch by epoch: the runs' negation measures, each on
    its own axis (held-out paired accuracy in %, the DEMETR sensitivity ratio, a ratio, never on a
    percent axis), and Recall@10 without negation (negviz.finetune.general, 95% CI, %) with BM25's
    own Recall@10 and the candidate pools' ceiling as reference lines. ``table``: views.tradeoff.
    The legend (one entry per run) and the runs' data lines sit under the plots."""
    from negviz.finetune.general import DEFINITION

    by_label = {m.label: m for m in (PAIRED, DEMETR)}
    labels = list(dict.fromkeys(table["negation measure"])) if len(table) else [PAIRED.label]
    measures = [by_label.get(label, PAIRED) for label in labels]
    panels = len(measures) + 1  # one row each, so every panel keeps the figure's full width
    names = {PAIRED.column: "held-out paired accuracy", DEMETR.column: "DEMETR negation sensitivity ratio"}
    panel_h, gap = 210, 50
    plot_h = panel_h * panels + gap * (panels - 1)
    fig = make_subplots(
        rows=panels,
        cols=1,
        shared_xaxes=True,
        vertical_spacing=gap / plot_h,
        subplot_titles=[
            *(f"negation: {names.get(m.column, m.label)}" for m in measures),
            "retrieval without negation (R@10)",
        ],
    )
    col_of = {m.label: i + 1 for i, m in enumerate(measures)}
    runs = list(dict.fromkeys(table["run"])) if len(table) else []
    for (run, ep), color in zip(table.groupby("run", sort=False), RUN_COLORS * 4):
        label = ep["negation measure"].iloc[0]
        m = by_label.get(label, PAIRED)
        scale, fmt, unit = (100, ".1f", "%") if m.percent else (1, ".3f", "")
        fig.add_trace(
            go.Scatter(
                x=ep["epoch"],
                y=ep["negation"] * scale,
                mode="markers+lines",
                name=run,
                legendgroup=run,
                marker=dict(color=color, size=9),
                line=dict(color=color, width=2),
                hovertemplate=f"{run}<br>epoch %{{x}}<br>{names.get(m.column, label)} %{{y:{fmt}}}{unit}<extra></extra>",
            ),
            row=col_of[label],
            col=1,
        )
        fig.add_trace(
            go.Scatter(
                x=ep["epoch"],
                y=ep["general_recall10"] * 100,
                mode="markers+lines",
                name=run,
                legendgroup=run,
                showlegend=False,
                marker=dict(color=color, size=9, symbol="square"),
                line=dict(color=color, width=2),
                error_y=dict(
                    type="data",
                    visible=True,
                    color=color,
                    array=(ep["general_ci_high"] - ep["general_recall10"]) * 100,
                    arrayminus=(ep["general_recall10"] - ep["general_ci_low"]) * 100,
                ),
                customdata=ep[["general_n"]].to_numpy(),
                hovertemplate=f"{run}<br>epoch %{{x}}<br>R@10 %{{y:.1f}}%, n=%{{customdata[0]:.0f}}<extra></extra>",
            ),
            row=panels,
            col=1,
        )
    if len(table):
        # each general sample has its own BM25 and pool ceiling: one line per distinct sample
        refs = table.drop_duplicates(["bm25_recall10", "pool_ceiling", "general_n"])
        several = len(refs) > 1
        for i, r in enumerate(refs.itertuples(index=False)):
            for value, text, where in (
                (r.bm25_recall10, "BM25", "bottom right" if i % 2 == 0 else "bottom left"),
                (r.pool_ceiling, "pool ceiling", "top right" if i % 2 == 0 else "top left"),
            ):
                fig.add_hline(
                    y=value * 100,
                    line_dash="dash" if i == 0 else "dot",
                    line_color=BASELINE_COLOR,
                    row=panels,
                    col=1,
                    annotation_text=f"{text} {value:.1%}" + (f" (n={r.general_n})" if several else ""),
                    annotation_position=where,
                    annotation_font=dict(size=11, color=BASELINE_COLOR),
                )
    ticks = sorted(table["epoch"].unique()) if len(table) else [0]
    fig.update_xaxes(
        tickvals=ticks,
        ticktext=["0<br>before" if e == 0 else str(e) for e in ticks],
        range=[min(ticks) - 0.3, max(ticks) + 0.3],
    )
    fig.update_xaxes(title_text="epoch", title_standoff=4, row=panels, col=1)
    for m in measures:
        part = table[table["negation measure"] == m.label]["negation"].astype(float)
        if m.percent:
            values = part * 100
            rng = _axis_range([0.0, *values], list(values), top=100)
            fig.update_yaxes(title_text="paired accuracy (%)", range=rng, row=col_of[m.label], col=1)
        else:
            rng = _axis_range([0.0, *part], list(part), floor=0.0 if (part >= 0).all() else None) if len(part) else None
            fig.update_yaxes(title_text="sensitivity ratio", range=rng, row=col_of[m.label], col=1)
    if len(table):
        low = [*(table["general_ci_low"] * 100), *(table["bm25_recall10"] * 100), *(table["pool_ceiling"] * 100)]
        high = [*(table["general_ci_high"] * 100), *(table["bm25_recall10"] * 100), *(table["pool_ceiling"] * 100)]
        fig.update_yaxes(range=_axis_range(low, high, top=100), row=panels, col=1)
    fig.update_yaxes(title_text="Recall@10 (%)", row=panels, col=1)
    note = _notes(notes or {}, width=75)
    lines = note.count("<br>") + 1 if note else 0
    n_legend_rows = legend_rows(runs)
    top = _heading(fig, "Does negation training cost ordinary retrieval?", textwrap.wrap(DEFINITION, 75), 30)
    below_axis = 62  # tick labels on two lines and the axis title
    legend_h = 32 * n_legend_rows
    bottom = below_axis + legend_h + 10 + 16 * lines + 10
    fig.update_layout(
        font=FONT,
        template="plotly_white",
        height=top + plot_h + bottom,
        margin=dict(l=10, r=20, t=top, b=bottom),
        # under the epoch axes, never over the title or the subplot titles
        legend=dict(orientation="h", yanchor="top", y=-below_axis / plot_h, xanchor="left", x=0),
    )
    if note:
        fig.add_annotation(
            text=note,
            xref="paper",
            yref="paper",
            x=0,
            y=0,
            yshift=-(below_axis + legend_h + 10),
            showarrow=False,
            align="left",
            xanchor="left",
            yanchor="top",
            font=dict(size=11, color="#52525b"),
        )
    return fig
