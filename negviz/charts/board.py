"""The board across benchmarks drawn: one HTML table (cells in their metrics' units, coloured by
their distance from the metric's chance level) and the transfer scatter of any two columns.
DataFrames in (negviz.analyses.board), escaped HTML or a plotly figure out."""

from __future__ import annotations

from html import escape

import pandas as pd
import plotly.graph_objects as go

from negviz.analyses.board import column_keys, metric_of, titles
from negviz.charts.style import FAMILY_COLORS, FONT, NOTE_COLOR
from negviz.core import metric_text, metrics

PLOT_PX = (540, 320)  # the scatter's plotting area, for placing point labels apart
PUBLISHED_MARK = "◇ "


def _trained_sets(row: dict) -> list[str]:
    sets = row.get("trained_sets")
    return list(sets) if isinstance(sets, (list, tuple)) else []


DATASET_NAMES = {"nevir": "NevIR", "excluir": "ExcluIR", "demetr": "DEMETR", "cannot": "CANNOT"}


POSITIONS = {  # plotly textposition -> the label box's offset from its point, in px (x, y up)
    "top center": (0.0, 16.0),
    "bottom center": (0.0, -16.0),
    "middle right": (1.0, 0.0),
    "middle left": (-1.0, 0.0),
}


def label_positions(xs: list[float], ys: list[float], labels: list[str]) -> list[str]:
    """A textposition per point such that no two labels overlap (greedy, from an estimate of each
    label's box: 8.5 px per character at 14 px, 18 px high); a label that fits nowhere is left to the hover
    (position "none")."""
    if not xs:
        return []
    span = lambda v: ((max(v) - min(v)) or 1.0) * 1.15  # noqa: E731  (plotly pads the range)
    px = [(x - min(xs)) / span(xs) * PLOT_PX[0] for x in xs]
    py = [(y - min(ys)) / span(ys) * PLOT_PX[1] for y in ys]
    placed: list[tuple[float, float, float, float]] = [(x - 6, y - 6, x + 6, y + 6) for x, y in zip(px, py)]
    chosen = []
    for x, y, label in zip(px, py, labels):
        width, height = 8.5 * len(label), 18.0
        for position, (dx, dy) in POSITIONS.items():
            cx = x + dx * (width / 2 + 8)
            cy = y + dy
            box = (cx - width / 2, cy - height / 2, cx + width / 2, cy + height / 2)
            own = (x - 6, y - 6, x + 6, y + 6)
            if not any(_overlaps(box, other) for other in placed if other != own):
                placed.append(box)
                chosen.append(position)
                break
        else:
            chosen.append("none")
    return chosen


def _overlaps(a, b) -> bool:
    return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


def transfer_scatter(
    board: pd.DataFrame, x: str, y: str, published: pd.DataFrame | None = None, title: str = ""
) -> go.Figure:
    """One point per model with both cells, both 95% CIs as error bars, coloured by family (one
    legend entry each); published points with both values as hollow diamonds."""
    scale = {k: metrics.metric(m).scale for k, m in metric_of().items()}
    both = board.dropna(subset=[x, y])
    pub = published.dropna(subset=[x, y]) if published is not None and {x, y} <= set(published.columns) else None
    points = both[["model", x, y]]
    if pub is not None and len(pub):
        points = pd.concat([points, pub[["model", x, y]]], ignore_index=True)
    where = dict(
        zip(
            range(len(points)),
            label_positions(list(points[x] * scale[x]), list(points[y] * scale[y]), list(points["model"])),
        )
    )
    position = pd.Series([where[i] for i in range(len(both))], index=both.index, dtype=object)
    fig = go.Figure()
    families = both["family"].fillna("other") if "family" in both else pd.Series("other", index=both.index)
    for family in dict.fromkeys(families):
        part = both[families == family]
        fig.add_trace(
            go.Scatter(
                x=part[x] * scale[x],
                y=part[y] * scale[y],
                mode="markers+text",
                text=[m if position[i] != "none" else "" for i, m in part["model"].items()],
                textposition=[p if p != "none" else "top center" for p in position[part.index]],
                customdata=part["model"],
                cliponaxis=False,  # a label near the plot's edge is drawn whole
                name=family,
                marker=dict(size=11, color=FAMILY_COLORS.get(family, "#3f3f46")),
                error_x=dict(
                    type="data",
                    array=(part[f"{x}_ci_high"] - part[x]) * scale[x],
                    arrayminus=(part[x] - part[f"{x}_ci_low"]) * scale[x],
                    thickness=1,
                ),
                error_y=dict(
                    type="data",
                    array=(part[f"{y}_ci_high"] - part[y]) * scale[y],
                    arrayminus=(part[y] - part[f"{y}_ci_low"]) * scale[y],
                    thickness=1,
                ),
                hovertemplate="%{customdata}<br>x %{x:.3g}<br>y %{y:.3g}<extra>" + family + "</extra>",
            )
        )
    if pub is not None and len(pub):
        pub_positions = [where[len(both) + i] for i in range(len(pub))]
        fig.add_trace(
            go.Scatter(
                x=pub[x] * scale[x],
                y=pub[y] * scale[y],
                mode="markers+text",
                text=[m if p != "none" else "" for m, p in zip(pub["model"], pub_positions)],
                textposition=[p if p != "none" else "top center" for p in pub_positions],
                name="published (paper tables)",
                marker=dict(size=12, symbol="diamond-open", color=NOTE_COLOR, line=dict(width=2)),
                customdata=pub["model"] + " (" + pub["source"] + ")",
                hovertemplate="%{customdata}<br>x %{x:.3g}<br>y %{y:.3g}<extra></extra>",
            )
        )
    fig.update_layout(
        title=dict(text=title, x=0),
        font=FONT,
        height=560,
        margin=dict(l=80, r=170, t=60, b=150),  # room for a long label at the right edge
        xaxis_title=titles()[x],
        yaxis_title=titles()[y],
        # at the figure's foot, under the x axis title (the plot narrowed by the labels' room)
        legend=dict(orientation="h", yref="container", y=0, yanchor="bottom", x=0, title_text="family"),
    )
    return fig


# ---------------------------------------------------------------- the board as one table (the page)
ABOVE, BELOW = (21, 128, 61), (185, 28, 28)  # green above the metric's chance level, red below
SORTED_MARK = "▼"


def chance_shade(metric: str, value) -> str:
    """A cell's background: how far ``value`` lies from its metric's chance level
    (negviz.core.metrics), green above and red below, stronger the farther (as a share of the
    room between chance and the scale's end); no colour where the metric has no chance level."""
    m = metrics.metric(metric)
    if m.chance is None or metric_text.is_missing(value):
        return ""
    gap = float(value) - m.chance
    room = (1.0 - m.chance) if gap >= 0 else (m.chance if m.chance > 0 else 1.0)
    strength = min(1.0, abs(gap) / room) if room else 0.0
    r, g, b = ABOVE if gap >= 0 else BELOW
    return f"background:rgba({r},{g},{b},{0.08 + 0.5 * strength:.2f})"


def _td(text: str, style: str = "", title: str = "", cls: str = "") -> str:
    attrs = (f' class="{cls}"' if cls else "") + (f' style="{style}"' if style else "")
    attrs += f' title="{escape(title)}"' if title else ""
    return f"<td{attrs}>{text}</td>"


def _model_cell(row: dict, key: str, usual_n=None) -> tuple[str, str, str]:
    """(html, style, hover) of one model's cell: the value, then its CI small, and its n where it
    is not the column's usual one (the header's) or the run scored part of its dataset."""
    if metric_text.is_missing(row.get(key)):
        return MISSING_HTML, "", "no run: see the list of commands below"
    m = metric_of()[key]
    small = []
    if not metric_text.is_missing(row.get(f"{key}_ci_low")):
        small.append(metric_text.ci(m, row[f"{key}_ci_low"], row[f"{key}_ci_high"]))
    n, of = row.get(f"{key}_n"), row.get(f"{key}_of")
    held_out = key in _trained_sets(row)
    shown_n = f"n={metric_text.n_of(n, of)}" + (" held-out†" if held_out else "")
    if not metric_text.is_missing(n) and (held_out or not metric_text.is_missing(of) or n != usual_n):
        small.append(shown_n)
    html = f"<b>{escape(metric_text.value(m, row[key]))}</b>" + "".join(
        f"<br><small>{escape(t)}</small>" for t in small
    )
    run = row.get(f"{key}_run_id")
    run_text = f" · run {str(run)[:8]}" if isinstance(run, str) else ""
    return html, chance_shade(m, row[key]), (shown_n if not metric_text.is_missing(n) else "") + run_text


MISSING_HTML = f'<span class="nv-missing">{metric_text.MISSING}</span>'


def _name_html(row: dict) -> str:
    name = f"<b>{escape(str(row['model']))}</b>"
    notes = []
    trained = sorted({DATASET_NAMES.get(k.split("_")[0], k) for k in _trained_sets(row)})
    if trained:
        notes.append(f"† trained on {', '.join(trained)}")
    samples = row.get("samples") if isinstance(row.get("samples"), dict) else {}
    notes += [f"{benchmark}: first {int(limit):,} only" for benchmark, limit in samples.items()]
    return name + "".join(f"<br><small>{escape(n)}</small>" for n in notes)


TABLE_CSS = """<style>
.nv-board-wrap{overflow-x:auto;max-width:100%}
.nv-board{border-collapse:collapse;font-size:14px;line-height:1.25}
.nv-board th,.nv-board td{border:1px solid #e4e4e7;padding:2px 6px;text-align:right;vertical-align:top}
.nv-board td{white-space:nowrap}
.nv-board th{min-width:80px;max-width:150px}
.nv-board th{background:#fafafa;font-weight:600;text-align:center}
.nv-board td:first-child,.nv-board th:first-child{text-align:left;position:sticky;left:0;background:#fff;min-width:170px}
.nv-board small{font-size:11px;color:#52525b}
.nv-board .nv-sorted{outline:2px solid #1d4ed8;outline-offset:-2px}
.nv-board th.nv-sorted{background:#dbeafe;color:#1e3a8a}
.nv-board tr.nv-published td{color:#52525b;font-style:italic;background:#fafafa}
.nv-board .nv-missing{color:#a1a1aa}
.nv-legend{font-size:12px;color:#3f3f46;margin:4px 0 8px}
.nv-legend span{display:inline-block;padding:1px 6px;margin-right:6px;border:1px solid #e4e4e7}
</style>"""


def board_legend() -> str:
    """What the colours and marks of board_table_html mean."""
    below = f"rgba({BELOW[0]},{BELOW[1]},{BELOW[2]},0.45)"
    above = f"rgba({ABOVE[0]},{ABOVE[1]},{ABOVE[2]},0.45)"
    return (
        '<div class="nv-legend">Colour: distance from the metric\'s chance level '
        f'<span style="background:{below}">below chance</span><span>at chance</span>'
        f'<span style="background:{above}">above chance</span> (stronger = farther; NevIR 25%, ExcluIR 50%, '
        "Δ 0); ratios, similarities and recall have no chance level and stay uncoloured. "
        f"{SORTED_MARK} marks the column the rows are sorted by; italic rows marked {PUBLISHED_MARK.strip()} "
        "are the papers' numbers (never ranked). Under a header: the column's usual n; a cell says its own n "
        'where it differs ("n of N": a run over part of its dataset; held-out†: the split a model never '
        "trained on).</div>"
    )


def board_table_html(
    board: pd.DataFrame, published: pd.DataFrame | None = None, sort_key: str | None = None, keys=None
) -> str:
    """The board as one HTML table (all text escaped): columns are (benchmark, metric), a header
    row each; one row per model in the board's order, each cell its value in its metric's unit
    (negviz.core.metric_text) with its 95% CI and n ("n of N" for a partial import), coloured by
    its distance from the metric's chance level; the column sorted by is marked; published rows
    follow once, marked ◇."""
    from negviz.analyses.board import headers

    keys = keys or column_keys()
    heads = headers()
    groups: list[tuple[str, int]] = []
    for k in keys:
        if groups and groups[-1][0] == heads[k][0]:
            groups[-1] = (groups[-1][0], groups[-1][1] + 1)
        else:
            groups.append((heads[k][0], 1))
    top = '<th rowspan="2">model</th>' + "".join(f'<th colspan="{n}">{escape(g)}</th>' for g, n in groups)
    usual = {
        k: board[f"{k}_n"].mode().max() if board[f"{k}_n"].notna().any() else None for k in keys
    }  # ties: the larger
    sub = "".join(
        (f'<th class="nv-sorted">{SORTED_MARK} ' if k == sort_key else "<th>")
        + escape(_measure(k))
        + (f"<br><small>n={metric_text.n_of(usual[k])}</small>" if usual[k] is not None else "")
        + "</th>"
        for k in keys
    )
    body = []
    for row in board.to_dict("records"):
        tds = [_td(_name_html(row))]
        for k in keys:
            html, style, hover = _model_cell(row, k, usual[k])
            tds.append(
                _td(html, style, f"{row['model']} · {titles()[k]}: {hover}", "nv-sorted" if k == sort_key else "")
            )
        body.append("<tr>" + "".join(tds) + "</tr>")
    if published is not None and not published.empty:
        for p in published.to_dict("records"):
            name = f"{PUBLISHED_MARK}{escape(str(p['model']))}<br><small>{escape(str(p['source']))}</small>"
            tds = [_td(name)]
            for k in keys:
                v = p.get(k)
                text = escape(metric_text.value(metric_of()[k], v)) if not metric_text.is_missing(v) else ""
                tds.append(_td(text, title=f"published: {p['model']} · {p['source']}"))
            body.append('<tr class="nv-published">' + "".join(tds) + "</tr>")
    return (
        TABLE_CSS
        + board_legend()
        + '<div class="nv-board-wrap"><table class="nv-board"><thead><tr>'
        + top
        + "</tr><tr>"
        + sub
        + "</tr></thead><tbody>"
        + "".join(body)
        + "</tbody></table></div>"
    )


def _measure(key: str) -> str:
    """The lower header: the measure and its unit ('paired accuracy (%)')."""
    from negviz.analyses.board import headers

    return metric_text.header(metric_of()[key], headers()[key][1])
